"""The settings the test suite runs under: the app's own, with DEBUG on (as
the demo runs), since DEBUG now defaults to off. Set in the environment before
the import, so the settings derived from DEBUG (secure cookies, the SSL
redirect, the generated development key) follow it, and manage.py
subprocesses the tests start inherit it."""

import os
import tempfile

os.environ.setdefault("DEBUG", "1")

from reviewer.settings import *  # noqa: F403

# Logins in tests (throttling, the browser tests) need no slow key stretching.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Each pytest process its own slots for costly answers (reviewer/slots.py):
# the SQLite and PostgreSQL passes run side by side, and a slot one holds must
# not turn the other's costly request into a 503.
CITEGUARD = {**CITEGUARD,  # noqa: F405
             "HEAVY_VERIFY_LOCK_DIR": tempfile.mkdtemp(prefix="citeguard-test-locks-")}

# The live server's request threads share the in-memory SQLite test database's
# one connection: they take turns (tests/serial_requests.py).
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    MIDDLEWARE = ["tests.serial_requests.SerialRequestsMiddleware", *MIDDLEWARE]  # noqa: F405
