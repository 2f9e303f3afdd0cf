"""Writes: every change to the database goes through a function here."""
