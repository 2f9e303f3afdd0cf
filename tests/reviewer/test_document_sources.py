"""`verify` with sources that name ingested chunks or document ranges."""

from typing import Any

import pytest

from reviewer.ingestion import locate
from reviewer.models import Chunk, Document
from reviewer.selectors.documents import document_geometry
from reviewer.services.documents import document_upload
from reviewer.verifying import SourceResolutionError, report_dict, verify_payload
from tests.factories import BREAK_AFTER, BREAK_BEFORE, BuiltPdf
from verification import VerificationConfig
from verification.payload import parse_answer_payload

pytestmark = pytest.mark.django_db


def check(answer: str, sources: list[dict[str, Any]]) -> dict[str, Any]:
    payload = parse_answer_payload({"answer": answer, "sources": sources})
    return report_dict(verify_payload(payload, config=VerificationConfig()))


def only_citation(report: dict[str, Any]) -> dict[str, Any]:
    (citation,) = [c for s in report["sentences"] for c in s["citations"]]
    return citation


def test_quote_from_a_chunk_carries_its_document_range_and_page_rectangles(
    document: Document,
) -> None:
    chunk = document.chunks.order_by("index").first()
    assert chunk is not None
    words = chunk.text.split()
    quote = " ".join(words[12:24])
    citation = only_citation(check(f'It says "{quote}" [S1].', [{"marker": "S1",
                                                                  "chunk": chunk.pk}]))
    assert citation["outcome"] == "verified"
    assert citation["document"] == document.pk
    start, end = citation["document_start"], citation["document_end"]
    assert " ".join(document.text[start:end].split()) == quote
    assert citation["chunk_start"] == start - chunk.start
    geometry = document_geometry(document)
    assert geometry is not None
    assert citation["pages"] == locate(geometry, start, end, skip=document.furniture)
    assert citation["pages"][0]["page"] == chunk.page_first
    assert citation["superseded"] is False


def test_quote_running_past_the_chunk_end_is_found_across_the_boundary(
    document: Document,
) -> None:
    chunk = document.chunks.order_by("index").first()
    assert chunk is not None
    following = document.text[chunk.end : chunk.end + 400].split()
    tail = " ".join(chunk.text.split()[-6:])
    quote = f"{tail} {' '.join(following[:6])}"
    citation = only_citation(check(f'"{quote}" [S1].', [{"marker": "S1", "chunk": chunk.pk}]))
    assert citation["outcome"] == "verified"
    assert citation["document_start"] < chunk.end < citation["document_end"]


def test_quote_that_only_lies_beyond_the_chunk_is_not_credited_to_it(document: Document) -> None:
    first = document.chunks.order_by("index")[0]
    beyond = document.text[first.end + 50 : first.end + 400].split()
    quote = " ".join(beyond[2:14])
    assert " ".join(quote.split()) not in " ".join(first.text.split())
    citation = only_citation(check(f'"{quote}" [S1].', [{"marker": "S1", "chunk": first.pk}]))
    assert citation["outcome"] == "quote-not-found"


def test_quote_across_a_page_break_highlights_both_pages_without_the_furniture(
    document: Document,
) -> None:
    quote = f"{BREAK_BEFORE} {BREAK_AFTER}"
    citation = only_citation(check(f'"{quote}" [S1].', [{"marker": "S1", "document":
                                                         document.pk}]))
    assert citation["outcome"] == "verified"
    pages = [p["page"] for p in citation["pages"]]
    assert pages == [2, 3]
    # The footer of page 2 and header of page 3 sit between the halves: the
    # rectangles hold only the quoted lines (one on each page).
    assert [len(p["rects"]) for p in citation["pages"]] == [1, 1]


def test_citation_into_a_superseded_document_is_flagged(
    document: Document, report_pdf: BuiltPdf, text_pdf: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        document_upload(data=text_pdf("A newer edition."), filename="report.pdf",
                        supersedes=document)
    document.refresh_from_db()
    assert document.is_superseded
    report = check(f'"{BREAK_BEFORE} {BREAK_AFTER}" [S1].',
                   [{"marker": "S1", "document": document.pk}])
    citation = only_citation(report)
    assert citation["outcome"] == "verified"  # provenance holds...
    assert citation["superseded"] is True
    assert report["verdict"] == "flag"  # ...but it is not the current version
    assert any("superseded" in reason for reason in report["reasons"])


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"marker": "S1", "chunk": 999999}, "chunk 999999, which does not exist"),
        ({"marker": "S1", "document": 999999}, "document 999999, which does not exist"),
    ],
)
def test_unknown_references_are_named(source: dict[str, Any], message: str) -> None:
    with pytest.raises(SourceResolutionError, match=message):
        check("x [S1].", [source])


def test_range_outside_the_document_is_refused(document: Document) -> None:
    size = len(document.text)
    with pytest.raises(SourceResolutionError, match="outside document"):
        check("x [S1].", [{"marker": "S1", "document": document.pk, "start": 0,
                           "end": size + 10}])


def test_a_document_that_is_not_ready_is_refused(report_pdf: BuiltPdf) -> None:
    queued = document_upload(data=report_pdf.data, filename="r.pdf").document  # no on_commit
    with pytest.raises(SourceResolutionError, match="queued, not ready"):
        check("x [S1].", [{"marker": "S1", "document": queued.pk}])


def test_chunk_listing_invariant_holds_for_every_chunk(document: Document) -> None:
    for chunk in Chunk.objects.filter(document=document):
        assert chunk.text == document.text[chunk.start : chunk.end]


def test_unreadable_geometry_turns_highlights_off_instead_of_failing(
    document: Document,
) -> None:
    import os
    from pathlib import Path

    # A ready document's geometry cannot be swapped through the model (it is
    # read-only after ingestion): damage the stored file on disk instead.
    path = Path(document.geometry.path)
    os.chmod(path, 0o644)
    path.write_bytes(b"CGEO\x01\x00 not this version")
    from reviewer.selectors.documents import _geometry

    _geometry.cache_clear()  # keyed by name, which a damaged file keeps
    chunk = document.chunks.order_by("index").first()
    assert chunk is not None
    quote = " ".join(chunk.text.split()[12:24])
    citation = only_citation(check(f'"{quote}" [S1].', [{"marker": "S1", "chunk": chunk.pk}]))
    assert citation["outcome"] == "verified" and citation["pages"] == []


def test_the_api_returns_the_same_report_when_posted_read_and_replayed(
    document: Document, api: Any
) -> None:
    """POST answers from the report it has just stored; GET and a replayed POST
    rebuild it from the rows. All three must agree on every key, for every
    kind of citation (document ranges and pages, fabricated, altered,
    unquoted, fuzzy with word differences)."""
    import json

    chunk = document.chunks.order_by("index").first()
    assert chunk is not None
    words = chunk.text.split()
    exact = " ".join(words[12:24])
    # A typo in a long word (a changed short word would be another word).
    typo = next(i for i in range(30, 48) if words[i][:6].isalpha())
    word = words[typo]
    words[typo] = word[:3] + ("x" if word[3] != "x" else "y") + word[4:]
    fuzzy = " ".join(words[30:48])
    body = {
        "id": "same-report",
        "answer": (f'It says "{exact}" [S1]. It also says "{fuzzy}" [S1]. '
                   'The policy says "Staff are paid 45 days after the review" [S2]. '
                   "Vision care is covered in full [S9]. "
                   "Staff are paid a month after the review [S2]. "
                   "Anything else?"),
        "sources": [{"marker": "S1", "chunk": chunk.pk},
                    {"marker": "S2", "text": "Staff are paid 30 days after the review."}],
    }
    posted = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert posted.status_code == 201
    report = posted.json()
    outcomes = [c["outcome"] for s in report["sentences"] for c in s["citations"]]
    assert set(outcomes) >= {"verified", "verified-fuzzy", "quote-altered",
                             "fabricated-marker", "unquoted"}, outcomes
    assert any(c["pages"] for s in report["sentences"] for c in s["citations"])
    assert any(c["differences"] for s in report["sentences"] for c in s["citations"])

    read = api.get(posted["Location"])
    replayed = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert replayed.status_code == 200
    assert read.json() == report
    assert replayed.json() == report
    # The same keys in the same order too: clients diff these as text.
    assert read.content == replayed.content
    assert list(read.json()["sentences"][0]["citations"][0]) == list(
        report["sentences"][0]["citations"][0])


@pytest.mark.parametrize(("whole_up_to", "reads_at_most"), [(2 * 1024 * 1024, 1), (0, None)])
def test_a_short_documents_geometry_is_read_from_the_store_once(
    document: Document, monkeypatch: pytest.MonkeyPatch, whole_up_to: int,
    reads_at_most: int | None,
) -> None:
    """Highlights of several answers citing a short document read its stored
    geometry once (one GET), not a ranged read per lookup; a long one's index
    is cached and each lookup reads its boxes."""
    from reviewer.selectors import documents as selectors

    reads: list[tuple[int, int]] = []
    real = selectors.read_range

    def counted(storage: Any, name: str, offset: int, size: int) -> bytes:
        reads.append((offset, size))
        return real(storage, name, offset, size)

    monkeypatch.setattr(selectors, "read_range", counted)
    monkeypatch.setattr(selectors, "WHOLE_GEOMETRY_BYTES", whole_up_to)
    selectors._geometry.cache_clear()
    chunks = list(document.chunks.order_by("index")[:3])
    located = []
    for chunk in chunks * 2:  # six answers, each highlighting a quote
        geometry = document_geometry(document)
        assert geometry is not None
        located.append(locate(geometry, chunk.start + 5, chunk.start + 60,
                              skip=document.furniture))
    selectors._geometry.cache_clear()
    assert located[:3] == located[3:] and all(located)
    if reads_at_most is not None:
        assert len(reads) == reads_at_most, reads
    else:
        assert len(reads) > len(chunks), reads  # the index, then boxes lookup by lookup
