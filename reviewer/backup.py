"""Backup and restore: the database and the stored files in one tar file.

The archive holds manifest.json, the database (database.dump, pg_dump's custom
format, or database.sqlite3, a consistent copy by SQLite's online backup API)
and media/, the storage folder (uploaded PDFs and their page geometry). The
database is copied first: a document's file is written before its row is
committed and never changed afterwards, so every row in the copy finds its
file in media/.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import connection, connections

FORMAT = 1


class BackupError(Exception):
    """Something the operator must fix; the message says what."""


@dataclass(frozen=True)
class Summary:
    engine: str
    files: int
    bytes: int


def _engine() -> str:
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine.endswith("sqlite3"):
        return "sqlite"
    if engine.endswith("postgresql"):
        return "postgresql"
    raise BackupError(f"backups support SQLite and PostgreSQL, not {engine}")


def _media_root() -> Path:
    if not isinstance(default_storage, FileSystemStorage):
        raise BackupError("stored files are not on this machine's disk "
                          f"({type(default_storage).__name__}): back them up where they are")
    return Path(default_storage.location)


def _pg_env(database: str | None = None) -> dict[str, str]:
    """libpq's variables for the configured database (no password on a command line)."""
    db = settings.DATABASES["default"]
    env = dict(os.environ)
    for key, name in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"),
                      ("PASSWORD", "PGPASSWORD")):
        if db.get(key):
            env[name] = str(db[key])
    if sslmode := db.get("OPTIONS", {}).get("sslmode"):
        env["PGSSLMODE"] = str(sslmode)
    env["PGDATABASE"] = database or str(db["NAME"])
    return env


def _run(command: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode:
        raise BackupError(f"{command[0]} failed: {result.stderr.strip()[-2000:]}")


def backup(destination: Path) -> Summary:
    engine, media = _engine(), _media_root()
    destination = destination.resolve()
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".backup-") as work:
        folder = Path(work)
        if engine == "sqlite":
            database = folder / "database.sqlite3"
            connections["default"].close()
            source = sqlite3.connect(settings.DATABASES["default"]["NAME"])
            target = sqlite3.connect(database)
            with target:
                source.backup(target)  # a consistent copy even while others write
            source.close()
            target.close()
        else:
            database = folder / "database.dump"
            _run(["pg_dump", "--format=custom", "--no-owner", "--no-privileges",
                  "--file", str(database)], _pg_env())
        files = [p for p in sorted(media.rglob("*")) if p.is_file()] if media.is_dir() else []
        manifest = {"format": FORMAT, "engine": engine,
                    "created": datetime.now(UTC).isoformat(timespec="seconds"),
                    "files": len(files), "bytes": sum(p.stat().st_size for p in files)}
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
        partial = folder / "backup.tar"
        with tarfile.open(partial, "w") as tar:
            tar.add(folder / "manifest.json", arcname="manifest.json")
            tar.add(database, arcname=database.name)
            for path in files:
                tar.add(path, arcname=f"media/{path.relative_to(media).as_posix()}")
        os.replace(partial, destination)  # never a half-written backup under its name
    return Summary(engine, manifest["files"], manifest["bytes"])


def _database_is_empty() -> bool:
    return not connection.introspection.table_names()


def _create_pg_database_if_missing() -> None:
    import psycopg
    from psycopg import sql

    name = str(settings.DATABASES["default"]["NAME"])
    env = _pg_env("postgres")
    params: dict[str, Any] = {"dbname": "postgres", "autocommit": True}
    for key, libpq in (("PGHOST", "host"), ("PGPORT", "port"), ("PGUSER", "user"),
                       ("PGPASSWORD", "password"), ("PGSSLMODE", "sslmode")):
        if key in env:
            params[libpq] = env[key]
    with psycopg.connect(**params) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def restore(source: Path, *, replace: bool = False) -> Summary:
    engine, media = _engine(), _media_root()
    with tempfile.TemporaryDirectory(prefix="citeguard-restore-") as work:
        folder = Path(work)
        try:
            with tarfile.open(source) as tar:
                tar.extractall(folder, filter="data")  # no absolute paths, links or ../
        except (OSError, tarfile.TarError) as error:
            raise BackupError(f"{source}: not a readable backup ({error})") from None
        try:
            manifest = json.loads((folder / "manifest.json").read_text())
        except (OSError, ValueError):
            raise BackupError(f"{source}: no manifest.json, not a citeguard backup") from None
        if manifest.get("format") != FORMAT:
            raise BackupError(f"{source}: backup format {manifest.get('format')}, "
                              f"this version reads {FORMAT}")
        if manifest["engine"] != engine:
            raise BackupError(f"{source} is a {manifest['engine']} backup and this "
                              f"installation uses {engine}: restore it into {manifest['engine']}")
        if engine == "postgresql":
            _create_pg_database_if_missing()
        if not replace and not _database_is_empty():
            raise BackupError("the database is not empty: restore into an empty one, "
                              "or pass --replace to overwrite it with the backup")
        connections.close_all()
        if engine == "sqlite":
            name = Path(settings.DATABASES["default"]["NAME"])
            name.parent.mkdir(parents=True, exist_ok=True)
            backup_copy = sqlite3.connect(folder / "database.sqlite3")
            target = sqlite3.connect(name)
            with target:
                backup_copy.backup(target)  # replaces every page of the target
            backup_copy.close()
            target.close()
        else:
            _run(["pg_restore", "--clean", "--if-exists", "--no-owner", "--no-privileges",
                  "--single-transaction", "--exit-on-error", "--dbname",
                  _pg_env()["PGDATABASE"], str(folder / "database.dump")], _pg_env())
        if (folder / "media").is_dir():
            media.mkdir(parents=True, exist_ok=True)
            shutil.copytree(folder / "media", media, dirs_exist_ok=True)
    return Summary(engine, manifest["files"], manifest["bytes"])
