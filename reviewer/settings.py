"""Settings, all read from the environment in this one place.

The embedded default is SQLite under ./var and in-process tasks, so a fresh
checkout runs with nothing else installed (bin/demo adds DEBUG=1, which also
makes a development SECRET_KEY). Production sets DATABASE_URL (PostgreSQL),
SECRET_KEY, ALLOWED_HOSTS and a task backend; DEBUG is off unless set.
"""

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CITEGUARD_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def development_secret_key(path: Path) -> str:
    """A random key kept in var/ so sessions survive a restart of the demo;
    never a fixed string that every checkout shares."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:  # O_EXCL: of two processes starting at once, one writes, both read it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key


# Off unless asked for: the demo (bin/demo) and the tests turn it on.
DEBUG = env_bool("DEBUG", False)
# With DEBUG off and no SECRET_KEY, commands that sign nothing (verify,
# migrate, backup) still run; Django refuses any use of the empty key, and
# reviewer/wsgi.py refuses to serve without one.
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY and DEBUG:
    SECRET_KEY = development_secret_key(VAR_DIR / "secret_key")
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
    "axes",
    "reviewer",
]

MIDDLEWARE = [
    # /healthz and /readyz first: a load balancer's probe (by IP, plain HTTP,
    # no session) is answered before the host check and the HTTPS redirect.
    "reviewer.health.HealthMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Static files straight from the worker, before sessions and auth touch the
    # request; after the security and CSP middleware so their headers apply.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its 429 page.
    "axes.middleware.AxesMiddleware",
]
if DEBUG:
    # runserver serves the source folders itself, and STATIC_ROOT is filled
    # only by collectstatic (WhiteNoise would warn about it on every start).
    MIDDLEWARE.remove("whitenoise.middleware.WhiteNoiseMiddleware")

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
                "django.template.context_processors.csp",
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

# Django's Tasks framework, chosen by CITEGUARD_TASKS:
# - "immediate" (the default): work runs in the process that asked for it;
# - "database": django-tasks-db queues in the database; `manage.py db_worker`;
# - "redis": django-tasks-rq queues on RQ at REDIS_URL; workers on any host
#   run `manage.py rqworker --with-scheduler default` (reviewer/queue.py).
# TASK_BACKEND (a backend's dotted path) still overrides the choice.
TASKS_KIND = os.environ.get("CITEGUARD_TASKS", "immediate")
TASK_BACKENDS = {
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
    "database": "django_tasks_db.DatabaseBackend",
    "redis": "reviewer.queue.RedisTaskBackend",
}
if TASKS_KIND not in TASK_BACKENDS:
    raise ImproperlyConfigured(
        f"CITEGUARD_TASKS={TASKS_KIND!r}: choose 'immediate' (in-process, the default), "
        "'database' (manage.py db_worker) or 'redis' (manage.py rqworker, at REDIS_URL)")
TASKS = {
    "default": {
        "BACKEND": os.environ.get("TASK_BACKEND", TASK_BACKENDS[TASKS_KIND]),
        "QUEUES": ["default"],
    }
}
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
if TASKS["default"]["BACKEND"] == TASK_BACKENDS["redis"]:
    INSTALLED_APPS += ["django_rq", "django_tasks_rq"]
    RQ_QUEUES = {"default": {
        "URL": REDIS_URL,
        # An RQ job's own time limit; ingestion has its own, shorter one
        # (MAX_SECONDS_PER_DOCUMENT), and a re-verification run resumes.
        "DEFAULT_TIMEOUT": int(os.environ.get("CITEGUARD_TASK_TIMEOUT", 6 * 3600)),
        "QUEUE_CLASS": "reviewer.queue.RetryingQueue",
    }}
    RQ = {"JOB_CLASS": "django_tasks_rq.Job", "WORKER_CLASS": "reviewer.queue.CiteguardWorker"}

# Limits and tuning of citeguard itself.
CITEGUARD = {
    "MAX_UPLOAD_BYTES": int(os.environ.get("CITEGUARD_MAX_UPLOAD_BYTES", 50 * 1024 * 1024)),
    "MAX_PAGES": int(os.environ.get("CITEGUARD_MAX_PAGES", 2000)),
    "MAX_SECONDS_PER_DOCUMENT": float(os.environ.get("CITEGUARD_MAX_SECONDS", 300)),
    # An inline PDF is extracted inside the request: it must finish well before
    # gunicorn's 30 s worker timeout (deploy/gunicorn.conf.py) kills the worker.
    "MAX_SECONDS_PER_INLINE_PDF": float(os.environ.get("CITEGUARD_MAX_SECONDS_INLINE", 20)),
    # Ingestion (uploads and inline PDFs) runs in a child process with this
    # address-space limit, and fails a page or document past these characters.
    "MAX_INGEST_MEMORY_BYTES": int(os.environ.get("CITEGUARD_MAX_INGEST_MEMORY_BYTES",
                                                  2 * 1024**3)),
    "MAX_CHARS_PER_PAGE": int(os.environ.get("CITEGUARD_MAX_CHARS_PER_PAGE", 200_000)),
    "MAX_CHARS_PER_DOCUMENT": int(os.environ.get("CITEGUARD_MAX_CHARS_PER_DOCUMENT",
                                                 10_000_000)),
    # OCR of pages without a text layer (reviewer/ingestion/ocr.py): the
    # default language (an upload may choose another installed one), the
    # seconds each OCR'd page adds to the document's time limit (OCR takes
    # about 5 s a page at 300 dpi where a text layer takes milliseconds), and
    # how many pages of one document may be OCR'd.
    "OCR_LANGUAGE": os.environ.get("CITEGUARD_OCR_LANGUAGE", "eng"),
    "MAX_OCR_SECONDS_PER_PAGE": float(os.environ.get("CITEGUARD_MAX_OCR_SECONDS_PER_PAGE", 30)),
    "MAX_OCR_PAGES": int(os.environ.get("CITEGUARD_MAX_OCR_PAGES", 200)),
    "OCR_COMMAND": os.environ.get("CITEGUARD_OCR_COMMAND", "tesseract"),
    "CHUNK_SIZE": int(os.environ.get("CITEGUARD_CHUNK_SIZE", 1200)),
    "CHUNK_OVERLAP": int(os.environ.get("CITEGUARD_CHUNK_OVERLAP", 200)),
    # How far past a chunk's end a quote may run on into the document.
    "CONTINUATION_CHARS": int(os.environ.get("CITEGUARD_CONTINUATION_CHARS", 2000)),
    # Limits of POST /api/v1/answers, each a clear 4xx naming it.
    "MAX_PAYLOAD_BYTES": int(os.environ.get("CITEGUARD_MAX_PAYLOAD_BYTES", 4 * 1024 * 1024)),
    "MAX_SOURCES": int(os.environ.get("CITEGUARD_MAX_SOURCES", 100)),
    "MAX_ANSWER_CHARS": int(os.environ.get("CITEGUARD_MAX_ANSWER_CHARS", 50_000)),
    "MAX_SOURCE_CHARS": int(os.environ.get("CITEGUARD_MAX_SOURCE_CHARS", 200_000)),
    # An answer whose alignment could cost more than this (quote x source
    # characters; see verification/budget.py) is verified only in one of
    # HEAVY_VERIFY_SLOTS slots per host, or refused with a 503 (reviewer/slots.py).
    "HEAVY_VERIFY_WORK": int(os.environ.get("CITEGUARD_HEAVY_VERIFY_WORK", 500_000_000)),
    "HEAVY_VERIFY_SLOTS": int(os.environ.get("CITEGUARD_HEAVY_VERIFY_SLOTS",
                                             max(1, (os.cpu_count() or 2) // 2))),
    "HEAVY_VERIFY_LOCK_DIR": os.environ.get("CITEGUARD_HEAVY_VERIFY_LOCK_DIR",
                                            str(VAR_DIR / "locks")),
    # Fuzzy-alignment work one submitted answer may cost, in quote x source
    # characters (verification/budget.py; under 1.5 s of CPU); 0: no limit.
    "MAX_VERIFY_WORK": int(os.environ.get("CITEGUARD_MAX_VERIFY_WORK", 5_000_000_000)),
    # How long a reviewer's decision can be undone (the review page's toast).
    "UNDO_SECONDS": float(os.environ.get("CITEGUARD_UNDO_SECONDS", 10)),
    # A re-verification run with no committed batch for this long has lost
    # its worker and is failed (a batch of 100 answers takes about a second).
    "RUN_STALE_SECONDS": float(os.environ.get("CITEGUARD_RUN_STALE_SECONDS", 600)),
    # The Redis queue (reviewer/queue.py): how many times a task whose worker
    # died or that failed is run again, after which pauses (seconds); how often
    # a worker looks for the jobs of dead workers, how often it says it is
    # alive, and how long after its last word its job counts as abandoned.
    # A document queued this long and not started lost its task (see
    # documents_requeue_lost): the watchdog queues it again.
    "QUEUED_STALE_SECONDS": float(os.environ.get("CITEGUARD_QUEUED_STALE_SECONDS", 1800)),
    "TASK_RETRIES": int(os.environ.get("CITEGUARD_TASK_RETRIES", 3)),
    # The first pause is none: a job whose worker died is run again at once
    # (a pause would wait for RQ's scheduler, whose lock a dead worker holds
    # for a minute), and a passing failure waits for the second try.
    "TASK_RETRY_PAUSES": [int(p) for p in os.environ.get(
        "CITEGUARD_TASK_RETRY_PAUSES", "0,30,120").split(",")],
    "TASK_MAINTENANCE_SECONDS": int(os.environ.get("CITEGUARD_TASK_MAINTENANCE_SECONDS", 30)),
    "TASK_HEARTBEAT_SECONDS": int(os.environ.get("CITEGUARD_TASK_HEARTBEAT_SECONDS", 10)),
    "TASK_HEARTBEAT_GRACE_SECONDS": int(os.environ.get(
        "CITEGUARD_TASK_HEARTBEAT_GRACE_SECONDS", 60)),
    # Password reset is offered only when mail can go out (EMAIL_HOST, or an
    # EMAIL_BACKEND such as the console one, set in the environment).
    "EMAIL_CONFIGURED": "EMAIL_HOST" in os.environ or "EMAIL_BACKEND" in os.environ,
    # Reverse proxies in front of the app (1 behind nginx): login throttling
    # then counts by the address in X-Forwarded-For the outermost one saw.
    "TRUSTED_PROXY_COUNT": int(os.environ.get("TRUSTED_PROXY_COUNT", "0")),
}
# The semantic stage (reviewer/services/judgements.py): a model the operator
# supplies is asked whether each cited passage supports its sentence. Off by
# default; each surface sets its sample rate and budget. onnx: a folder with
# model.onnx, tokenizer.json and a label map; chat: an OpenAI-compatible
# endpoint. The key is read from the variable API_KEY_ENV names, when used.
CITEGUARD_JUDGE = {
    "BACKEND": os.environ.get("CITEGUARD_JUDGE", "off").strip().lower() or "off",
    "MODEL_DIR": os.environ.get("CITEGUARD_JUDGE_MODEL_DIR", ""),
    "URL": os.environ.get("CITEGUARD_JUDGE_URL", ""),
    "MODEL": os.environ.get("CITEGUARD_JUDGE_MODEL", ""),
    "API_KEY_ENV": os.environ.get("CITEGUARD_JUDGE_API_KEY_ENV", ""),
}
if CITEGUARD_JUDGE["BACKEND"] not in ("off", "onnx", "chat"):
    raise ImproperlyConfigured(f"CITEGUARD_JUDGE is {CITEGUARD_JUDGE['BACKEND']!r}: use onnx, "
                               "chat or off.")

# Email, for password reset (Django's SMTP settings, read from the environment).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "citeguard@localhost")
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
AUTHENTICATION_BACKENDS = [
    # First: refuses a locked-out login before the password is even checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins of one
# user name from one address within AXES_COOLOFF_MINUTES, that pair gets a 429
# page (templates/registration/locked_out.html) until the window has passed;
# other users, and the same user elsewhere, are not locked out (so a guesser
# cannot lock a colleague out). A successful login clears the count.
# `manage.py axes_reset` (or axes_reset_username NAME) lifts a lockout at once.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "reviewer.throttle.client_ip"
AXES_ENABLE_ADMIN = False  # attempts are rows for the operator, not an admin page
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))
# With DEBUG off, `manage.py collectstatic` writes hashed, pre-compressed copies
# into STATIC_ROOT and WhiteNoise serves them with far-future caching; with
# DEBUG on, runserver serves the source folders as before.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage",
    },
}
# The cache: each process's memory by default; Redis, shared by every app
# server and worker, with CITEGUARD_CACHE=redis (what one process works out,
# such as a surface's calibration recommendation, another then reads).
CACHE_KIND = os.environ.get("CITEGUARD_CACHE", "local")
if CACHE_KIND == "redis":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": REDIS_URL, "KEY_PREFIX": "citeguard"}}
elif CACHE_KIND == "local":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(
        f"CITEGUARD_CACHE={CACHE_KIND!r}: choose 'local' (each process's memory, the "
        "default) or 'redis' (shared, at REDIS_URL)")

# Where uploaded PDFs and their geometry are kept: the local folder
# MEDIA_ROOT by default; any S3-compatible store with CITEGUARD_STORAGE=s3,
# through django-storages, which reads its own settings (below) from the
# environment. Reads and writes go through the storage API only.
STORAGE_KIND = os.environ.get("CITEGUARD_STORAGE", "local")
if STORAGE_KIND == "s3":
    AWS_STORAGE_BUCKET_NAME = os.environ.get("AWS_STORAGE_BUCKET_NAME", "")
    if not AWS_STORAGE_BUCKET_NAME:
        raise ImproperlyConfigured(
            "CITEGUARD_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME (and, for a store other "
            "than Amazon's, AWS_S3_ENDPOINT_URL)")
    AWS_S3_ENDPOINT_URL = os.environ.get("AWS_S3_ENDPOINT_URL") or None
    AWS_ACCESS_KEY_ID = os.environ.get("AWS_ACCESS_KEY_ID") or None
    AWS_SECRET_ACCESS_KEY = os.environ.get("AWS_SECRET_ACCESS_KEY") or None
    AWS_S3_REGION_NAME = os.environ.get("AWS_S3_REGION_NAME") or None
    # Stored objects are never replaced: an upload under a taken name gets
    # another; and the bucket's objects stay private (served through the
    # permission-checked views).
    AWS_S3_FILE_OVERWRITE = False
    AWS_DEFAULT_ACL = None
    AWS_QUERYSTRING_AUTH = True
    # A store that does not answer fails a request in seconds (a 503 with a
    # sentence), not after botocore's minute-long default.
    from botocore.config import Config as _BotoConfig

    AWS_S3_CLIENT_CONFIG = _BotoConfig(connect_timeout=5, read_timeout=60,
                                       retries={"max_attempts": 3, "mode": "standard"})
    STORAGES["default"] = {"BACKEND": "storages.backends.s3.S3Storage"}
elif STORAGE_KIND != "local":
    raise ImproperlyConfigured(
        f"CITEGUARD_STORAGE={STORAGE_KIND!r}: choose 'local' (MEDIA_ROOT, the default) or "
        "'s3' (an S3-compatible store)")

MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))

# Production defaults follow DEBUG; each can be set on its own (behind a
# proxy that terminates TLS, set TRUST_X_FORWARDED_PROTO=1 so requests it
# forwarded as https count as secure).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "3600"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
# Behind the recipe's proxy (deploy/nginx.conf), which terminates TLS and sets
# X-Forwarded-Proto: trust it only when told, or any client could claim https.
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Nothing is framed: the pdf.js viewer draws into a <div> of the page itself.
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy: scripts only from our origin (inline ones need the
# request's nonce); pdf.js needs its worker ('self'), WebAssembly for JPEG 2000
# and colour profiles ('wasm-unsafe-eval', which allows no JavaScript eval),
# blob: images and fonts it makes from the PDF. htmx's indicator <style> takes
# the nonce (base.html); style attributes from scripts (CSSOM) are not inline.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE, CSP.WASM_UNSAFE_EVAL],
    "style-src": [CSP.SELF, CSP.NONCE],
    "worker-src": [CSP.SELF, "blob:"],
    "img-src": [CSP.SELF, "data:", "blob:"],
    "font-src": [CSP.SELF, "data:", "blob:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

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
