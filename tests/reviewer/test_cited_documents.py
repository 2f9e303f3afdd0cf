"""The review page lists the PDFs its answer cites, and their cited pages, for
the viewer to make ready before the first click (``cited-documents``)."""

import json
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from reviewer.models import Answer, CitationVerdict

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(django_capture_on_commit_callbacks: Any) -> dict[str, Answer]:
    # Without the scanned letter, which no test here cites: OCR-ing it is
    # a second or more of every test (tests/reviewer/test_demo_scan.py reads it).
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=StringIO())
    return {a.external_id: a for a in Answer.objects.all()}


def _cited(html: str) -> Any:
    found = re.search(r'<script id="cited-documents" type="application/json">(.*?)</script>',
                      html, re.S)
    assert found, "no cited-documents JSON on the page"
    return json.loads(found.group(1))


def test_the_review_page_lists_the_cited_pdfs_first_cited_first_with_their_pages(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-clinical"]
    cited = _cited(logged_in.get(f"/answers/{answer.pk}/").content.decode())
    citations = CitationVerdict.objects.filter(answer=answer).order_by(
        "sentence__index", "pk").exclude(document=None)
    first = citations.first()
    assert first is not None
    assert cited[0]["url"] == f"/documents/{first.document_id}/file"
    assert cited[0]["pages"][0] == first.pages[0]["page"]
    # Each PDF once; a wrong-source citation's other PDF is listed too.
    urls = [entry["url"] for entry in cited]
    assert len(urls) == len(set(urls)) == 2
    assert all(entry["pages"] and all(isinstance(n, int) for n in entry["pages"])
               for entry in cited)


def test_a_quote_across_a_page_break_lists_both_pages(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-vesting"]
    cited = _cited(logged_in.get(f"/answers/{answer.pk}/").content.decode())
    assert [entry["pages"] for entry in cited] == [[1, 2]]
