"""The settings the test suite runs under: the app's own, with DEBUG on (as
the demo runs), since DEBUG now defaults to off. Set in the environment before
the import, so the settings derived from DEBUG (secure cookies, the SSL
redirect, the generated development key) follow it, and manage.py
subprocesses the tests start inherit it."""

import os

os.environ.setdefault("DEBUG", "1")

from reviewer.settings import *  # noqa: F403

# Logins in tests (throttling, the browser tests) need no slow key stretching.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
