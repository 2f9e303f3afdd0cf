"""Settings, all read from the environment in this one place.

The embedded default (no variables set) is SQLite under ./var and in-process
tasks, so a fresh checkout runs with nothing else installed. Production sets
DATABASE_URL (PostgreSQL), SECRET_KEY, DEBUG=0, ALLOWED_HOSTS and a task backend.
"""

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CITEGUARD_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-change-me" if DEBUG else "")
if not SECRET_KEY:
    raise RuntimeError("SECRET_KEY must be set when DEBUG is off.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_tasks_db",
    "reviewer",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "reviewer.urls"
WSGI_APPLICATION = "reviewer.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

if "DATABASE_URL" not in os.environ:
    VAR_DIR.mkdir(parents=True, exist_ok=True)  # the embedded default lives here
DATABASE_URL = os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'citeguard.sqlite3'}")
# Each worker keeps its connection for a minute (checked before reuse): a new
# one per request costs PostgreSQL a process start, and even SQLite about
# 2 ms of CPU (Django registers its functions and runs the pragmas below).
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Write-ahead logging: readers never wait for the writer, and a commit
    # appends to the log instead of rewriting and syncing a rollback journal
    # (synchronous=NORMAL is durable across application crashes; only an OS
    # crash can lose the last commits). IMMEDIATE takes the write lock when a
    # transaction begins, so two writers queue for `timeout` seconds instead
    # of one failing with "database is locked" halfway through.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    })

# Django's Tasks framework: in-process by default; production sets
# TASK_BACKEND=django_tasks_db.DatabaseBackend and runs `manage.py db_worker`.
TASKS = {
    "default": {
        "BACKEND": os.environ.get(
            "TASK_BACKEND", "django.tasks.backends.immediate.ImmediateBackend"
        ),
    }
}

# Limits and tuning of citeguard itself.
CITEGUARD = {
    "MAX_UPLOAD_BYTES": int(os.environ.get("CITEGUARD_MAX_UPLOAD_BYTES", 50 * 1024 * 1024)),
    "MAX_PAGES": int(os.environ.get("CITEGUARD_MAX_PAGES", 2000)),
    "MAX_SECONDS_PER_DOCUMENT": float(os.environ.get("CITEGUARD_MAX_SECONDS", 300)),
    "CHUNK_SIZE": int(os.environ.get("CITEGUARD_CHUNK_SIZE", 1200)),
    "CHUNK_OVERLAP": int(os.environ.get("CITEGUARD_CHUNK_OVERLAP", 200)),
    # How far past a chunk's end a quote may run on into the document.
    "CONTINUATION_CHARS": int(os.environ.get("CITEGUARD_CONTINUATION_CHARS", 2000)),
    # Limits of POST /api/v1/answers, each a clear 4xx naming it.
    "MAX_PAYLOAD_BYTES": int(os.environ.get("CITEGUARD_MAX_PAYLOAD_BYTES", 4 * 1024 * 1024)),
    "MAX_SOURCES": int(os.environ.get("CITEGUARD_MAX_SOURCES", 100)),
    "MAX_ANSWER_CHARS": int(os.environ.get("CITEGUARD_MAX_ANSWER_CHARS", 50_000)),
    "MAX_SOURCE_CHARS": int(os.environ.get("CITEGUARD_MAX_SOURCE_CHARS", 200_000)),
    # How long a reviewer's decision can be undone (the review page's toast).
    "UNDO_SECONDS": float(os.environ.get("CITEGUARD_UNDO_SECONDS", 10)),
    # A re-verification run with no committed batch for this long has lost
    # its worker and is failed (a batch of 100 answers takes about a second).
    "RUN_STALE_SECONDS": float(os.environ.get("CITEGUARD_RUN_STALE_SECONDS", 600)),
}
# /metrics wants 'Authorization: Bearer <METRICS_TOKEN>'; without one it is
# open only with DEBUG on. Its model label keeps these models' names, plus
# the first 20 others a process sees; the rest count as "other".
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
CITEGUARD_KNOWN_MODELS = env_list("CITEGUARD_KNOWN_MODELS", "")
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", 5 * 1024 * 1024))
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))

SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "3600"))
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "SAMEORIGIN"  # the pdf.js viewer is embedded from our own origin

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {
        "citeguard": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
        # One line per task state change is noise at the default level.
        "django.tasks": {"level": os.environ.get("TASKS_LOG_LEVEL", "WARNING")},
    },
}
