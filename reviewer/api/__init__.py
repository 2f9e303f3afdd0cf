"""The JSON API (``/api/v1/``), authenticated by per-client bearer tokens."""
