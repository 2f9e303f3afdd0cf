"""Backup and restore: the database and the stored files in one tar file.

The archive holds manifest.json, the database (database.dump, pg_dump's custom
format, or database.sqlite3, a consistent copy by SQLite's online backup API)
and media/, the stored files the documents name (uploaded PDFs and their page
geometry), each under its storage name. They are read and written through
Django's storage API, so the same commands back up and restore a local
folder or an S3-compatible bucket. The database is copied first: a document's
file is written before its row is committed and never changed afterwards, so
every row in the copy finds its file in media/.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
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


def _stored_names() -> list[str]:
    """Every stored file a document names (deleted documents' too, until
    purged), once each: objects named by their bytes may be shared."""
    from reviewer.models import Document

    names: set[str] = set()
    for file, geometry in Document.all_objects.values_list("file", "geometry"):
        names.update(name for name in (file, geometry) if name)
    return sorted(names)


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
    engine = _engine()
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
        partial = folder / "backup.tar"
        with tarfile.open(partial, "w") as tar:
            tar.add(database, arcname=database.name)
            files, size = backup_files(tar)
            # Last, once the files are counted (restore reads it from wherever
            # it stands in the archive): the files are streamed once.
            manifest = {"format": FORMAT, "engine": engine,
                        "created": datetime.now(UTC).isoformat(timespec="seconds"),
                        "files": files, "bytes": size}
            (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
            tar.add(folder / "manifest.json", arcname="manifest.json")
        os.replace(partial, destination)  # never a half-written backup under its name
    return Summary(engine, manifest["files"], manifest["bytes"])


def backup_files(tar: tarfile.TarFile) -> tuple[int, int]:
    """Add every stored file a document names to ``tar`` as media/<name>,
    read through the storage; returns how many and their bytes."""
    files = size = 0
    for name in _stored_names():
        if not default_storage.exists(name):
            continue
        member = tarfile.TarInfo(f"media/{name}")
        member.size, member.mtime, member.mode = default_storage.size(name), int(time.time()), 0o644
        with default_storage.open(name, "rb") as handle:
            tar.addfile(member, handle)
        files, size = files + 1, size + member.size
    return files, size


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
    engine = _engine()
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
        restore_files(folder / "media")
    return Summary(engine, manifest["files"], manifest["bytes"])


def restore_files(media: Path) -> int:
    """Put each file under ``media`` (a backup's media/ folder) into the
    storage under its name; returns how many were written. One already there
    is left: an object is never written twice, its name standing for its
    bytes."""
    written = 0
    for path in sorted(media.rglob("*")) if media.is_dir() else []:
        if not path.is_file():
            continue
        name = path.relative_to(media).as_posix()
        if default_storage.exists(name):
            continue
        with path.open("rb") as handle:
            kept = default_storage.save(name, File(handle, name=path.name))
        if kept != name:
            raise BackupError(f"the storage kept {name} as {kept}: restore into an empty "
                              "storage")
        written += 1
    return written
