"""Reads: queries that views, commands and the API share."""
