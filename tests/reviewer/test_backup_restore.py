"""bin/backup and bin/restore end to end, on the database this pass uses
(SQLite in a temporary folder, or a scratch PostgreSQL database): ingest a
generated PDF and an answer quoting it, back up, wipe the database and the
stored files, restore, and the review page shows the same highlights over
the same PDF bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]

SETUP = """
import pymupdf
from django.contrib.auth import get_user_model
from django.core.management import call_command
from reviewer.services.answers import answer_submit
from reviewer.services.documents import document_upload

call_command("migrate", verbosity=0)
get_user_model().objects.create_superuser("operator", "op@example.org", "backup test pw")
pdf = pymupdf.open()
for text in ("Zorbel quints arrive before the harvest moon in the valley of Quell.",
             "The tarnish index of gilded spoons doubles in salt air within a decade."):
    pdf.new_page(width=595, height=842).insert_textbox(
        pymupdf.Rect(60, 60, 535, 780), text * 3, fontsize=11)
document = document_upload(data=pdf.tobytes(), filename="spoons.pdf", title="Spoons").document
chunk = document.chunks.order_by("index").last()
quote = "tarnish index of gilded spoons doubles in salt air"
assert quote in chunk.text
answer_submit(client=None, data={
    "id": "backup-1", "answer": f'Silver suffers: "{quote}" [S1].',
    "sources": [{"marker": "S1", "chunk": chunk.pk}]})
"""

# What a reviewer sees: the highlight event of each citation's panel, and the
# bytes of the PDF it points at.
STATE = """
import hashlib, json
from django.contrib.auth import get_user_model
from django.test import Client
from reviewer.models import Answer, CitationVerdict

client = Client()
client.force_login(get_user_model().objects.get(username="operator"))
answer = Answer.objects.get(external_id="backup-1")
seen = []
for citation in CitationVerdict.objects.filter(answer=answer).order_by("pk"):
    response = client.get(f"/answers/{answer.pk}/?citation={citation.pk}",
                          headers={"HX-Request": "true"})
    assert response.status_code == 200, response.status_code
    highlight = json.loads(response["HX-Trigger"])["highlight"]
    pdf = client.get(highlight["url"])
    assert pdf.status_code == 200, pdf.status_code
    body = b"".join(pdf.streaming_content) if pdf.streaming else pdf.content
    seen.append({"outcome": citation.outcome, "highlight": highlight,
                 "pdf_sha256": hashlib.sha256(body).hexdigest()})
print("STATE " + json.dumps(seen, sort_keys=True))
"""


def _env(tmp_path: Path) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DEBUG": "1",
           "DJANGO_SETTINGS_MODULE": "reviewer.settings", "LOG_LEVEL": "WARNING",
           "CITEGUARD_VAR_DIR": str(tmp_path / "var"), "MEDIA_ROOT": str(tmp_path / "media"),
           "PYTHON": sys.executable}
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine.endswith("postgresql"):
        db = settings.DATABASES["default"]
        # The pass's own database name, suffixed: never the test database itself.
        name = f"{os.environ['DATABASE_URL'].rsplit('/', 1)[1]}_backup_scratch"
        auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
        env["DATABASE_URL"] = f"postgres://{auth}@{db['HOST']}:{db['PORT'] or 5432}/{name}"
    return env


def _run(env: dict[str, str], *command: str) -> str:
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _state(env: dict[str, str], first: str = "") -> list[dict[str, Any]]:
    out = _run(env, sys.executable, "manage.py", "shell", "--no-imports", "-c", first + STATE)
    return json.loads(out.split("STATE ", 1)[1])


def _psql(env: dict[str, str], statement: str) -> None:
    url = env["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    _run(env, "psql", url, "-v", "ON_ERROR_STOP=1", "-qc", statement)


@pytest.fixture
def scratch(tmp_path: Path) -> Any:
    env = _env(tmp_path)
    if "DATABASE_URL" in env:
        name = env["DATABASE_URL"].rsplit("/", 1)[1]
        _psql(env, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _psql(env, f'CREATE DATABASE "{name}"')
        yield env
        _psql(env, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        yield env


def test_backup_wipe_restore_shows_the_same_highlights(scratch: dict[str, str],
                                                       tmp_path: Path) -> None:
    env = scratch
    before = _state(env, first=SETUP)  # one interpreter: each start costs seconds
    assert [c["outcome"] for c in before] == ["verified"]
    assert before[0]["highlight"]["pages"][0]["rects"]  # something to compare

    archive = tmp_path / "backups" / "citeguard.tar"
    _run(env, str(ROOT / "bin" / "backup"), str(archive))

    # Wipe: the database gone, the stored files gone.
    media = Path(env["MEDIA_ROOT"])
    assert any(p.suffix == ".pdf" for p in media.rglob("*"))
    for path in media.rglob("*"):
        if path.is_file():
            path.unlink()
    if "DATABASE_URL" in env:
        name = env["DATABASE_URL"].rsplit("/", 1)[1]
        _psql(env, f'DROP DATABASE "{name}" WITH (FORCE)')  # restore creates it again
    else:
        for path in Path(env["CITEGUARD_VAR_DIR"]).glob("citeguard.sqlite3*"):
            path.unlink()

    restored = _run(env, str(ROOT / "bin" / "restore"), str(archive))
    assert "restored the" in restored
    assert _state(env) == before


@pytest.mark.django_db
def test_restore_refuses_to_overwrite_a_database_that_is_not_empty(tmp_path: Path) -> None:
    from reviewer.backup import BackupError, _engine, restore

    (tmp_path / "manifest.json").write_text(json.dumps(
        {"format": 1, "engine": _engine(), "files": 0, "bytes": 0}))
    archive = tmp_path / "backup.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(tmp_path / "manifest.json", arcname="manifest.json")
    with pytest.raises(BackupError, match=r"not empty.*--replace"):
        restore(archive)  # the test database has its tables: nothing is touched


def test_a_backup_of_the_other_engine_is_refused_by_name(tmp_path: Path) -> None:
    from reviewer.backup import BackupError, _engine, restore

    other = "postgresql" if _engine() == "sqlite" else "sqlite"
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"format": 1, "engine": other, "files": 0, "bytes": 0}))
    archive = tmp_path / "backup.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(tmp_path / "manifest.json", arcname="manifest.json")
    with pytest.raises(BackupError, match=f"is a {other} backup"):
        restore(archive)
