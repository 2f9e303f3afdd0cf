"""A throwaway PostgreSQL database for the benches that time Django in
process (bench/triage.py, bench/reverify.py): created fresh, Django pointed
at it with production-like settings, dropped at the end.

The machine's server: 127.0.0.1:5432, user postgres, trust auth.
"""

from __future__ import annotations

import os

PG_HOST, PG_PORT, PG_USER = "127.0.0.1", 5432, "postgres"


def postgres_admin(sql: str) -> None:
    """Run ``sql`` on the server's maintenance database (CREATE/DROP DATABASE)."""
    import psycopg

    with psycopg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname="postgres",
                         connect_timeout=3, autocommit=True) as connection:
        connection.execute(sql)  # type: ignore[arg-type]


def fresh_database(name: str) -> None:
    """Drop ``name`` if it is there and create it empty; stop with a sentence
    when the server is not reachable."""
    try:
        drop_database(name)
        postgres_admin(f"CREATE DATABASE {name}")
    except Exception as error:  # any failure to connect: say why and stop
        raise SystemExit(f"PostgreSQL at {PG_HOST}:{PG_PORT} is not reachable: {error}") from None


def drop_database(name: str) -> None:
    postgres_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def setup_django(name: str) -> None:
    """Django on database ``name`` with DEBUG off (DEBUG keeps every query in
    memory), plain HTTP for the test client, and no log line per answer."""
    os.environ["DATABASE_URL"] = f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
    os.environ["DEBUG"] = "0"
    os.environ["SECURE_SSL_REDIRECT"] = "0"
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewer.settings")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()
