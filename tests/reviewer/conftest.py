from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from django.conf import LazySettings

from tests.factories import BuiltPdf, build_report
from tests.judges import answer, loopback_chat


@pytest.fixture(autouse=True)
def _media_root(settings: LazySettings, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Uploaded and generated files go to a temporary folder, never ./var."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture(autouse=True)
def _metrics_models_fresh() -> None:
    """Each test starts with no model names seen, as a fresh process does
    (the metrics' model label is capped per process)."""
    from reviewer import metrics

    metrics._models_seen.clear()


@pytest.fixture(scope="session")
def report_pdf(tmp_path_factory: pytest.TempPathFactory) -> BuiltPdf:
    """Four pages: two columns, hyphenation, running header/footer/page numbers,
    a sentence across a page break (see tests/factories.py)."""
    return build_report(tmp_path_factory.mktemp("pdfs") / "report.pdf")


@pytest.fixture
def text_pdf() -> Callable[..., bytes]:
    """A small one-column PDF with the given paragraphs, one page each."""

    def make(*pages: str, title: str = "") -> bytes:
        doc = pymupdf.open()
        for text in pages:
            page = doc.new_page(width=595, height=842)
            page.insert_textbox(pymupdf.Rect(60, 60, 535, 780), text, fontsize=11)
        if title:
            doc.set_metadata({"title": title})
        data = doc.tobytes()
        doc.close()
        return bytes(data)

    return make


@pytest.fixture
def pdf_path(tmp_path: Path) -> Callable[[str, bytes], Path]:
    def write(name: str, data: bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return write


@pytest.fixture
def api_token(db: None) -> str:
    from reviewer.services.clients import api_client_create

    _, token = api_client_create(name="rag-service")
    return token


@pytest.fixture
def api(client: Any, api_token: str) -> Any:
    """The Django test client with the API token on every request."""
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {api_token}"
    return client


@pytest.fixture
def make_user(db: None) -> Any:
    """A user with the given roles (group names), e.g. ``make_user("ann", "reviewer")``,
    a member of the default workspace unless ``workspaces`` names others."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from reviewer.models import Workspace

    def make(username: str, *roles: str, workspaces: tuple[str, ...] = ("default",),
             **fields: Any) -> Any:
        user = get_user_model().objects.create_user(username, password=f"pw-{username}-1",
                                                    **fields)
        user.groups.add(*(Group.objects.get(name=role) for role in roles))
        for name in workspaces:
            Workspace.objects.get_or_create(name=name)[0].users.add(user)
        return user

    return make


@pytest.fixture
def reviewer_user(make_user: Any) -> Any:
    return make_user("reviewer", "reviewer")


@pytest.fixture
def logged_in(client: Any, reviewer_user: Any) -> Any:
    client.force_login(reviewer_user)
    return client


@pytest.fixture
def document(report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any) -> Any:
    """The four-page report PDF uploaded and ingested: a ready document."""
    from reviewer.models import Document
    from reviewer.services.documents import document_upload

    with django_capture_on_commit_callbacks(execute=True):
        created = document_upload(data=report_pdf.data, filename="report.pdf").document
    created.refresh_from_db()
    assert created.status == Document.Status.READY
    return created


@pytest.fixture
def fresh_judges() -> Iterator[None]:
    """The semantic stage's judge built afresh for the test (it is cached per
    process, keyed by the settings a test changes)."""
    from reviewer.services import judgements as stage

    stage._judge.cache_clear()
    yield
    stage._judge.cache_clear()


@pytest.fixture
def judge_chat(settings: LazySettings, fresh_judges: None) -> Iterator[Any]:
    """The stage on, through a loopback chat server whose script a test sets."""
    with loopback_chat(answer("supported")) as server:
        settings.CITEGUARD_JUDGE = {"BACKEND": "chat", "MODEL_DIR": "", "URL": server.url,
                                    "MODEL": "judge-m", "API_KEY_ENV": ""}
        yield server
