"""chunk_text(): ranges that respect paragraphs, sentences and furniture."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.ingestion import ExtractedDocument, chunk_text, find_furniture
from tests.ingestion.chunk_oracle import oracle_chunks


def inside(position: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(s <= position < e for s, e in ranges)


def check_chunks(
    text: str,
    chunks: list[tuple[int, int]],
    exclude: Sequence[tuple[int, int]],
    target_size: int,
) -> None:
    covered = bytearray(len(text))
    previous_start = -1
    for start, end in chunks:
        assert 0 <= start < end <= len(text)
        assert start > previous_start
        previous_start = start
        # Chunks start and end on visible, non-excluded characters.
        assert not text[start].isspace() and not inside(start, exclude)
        assert not text[end - 1].isspace() and not inside(end - 1, exclude)
        assert end - start <= target_size
        covered[start:end] = b"\x01" * (end - start)
    for index, char in enumerate(text):
        if not char.isspace() and not inside(index, exclude):
            assert covered[index], f"character {index} ({char!r}) is in no chunk"


def test_document_chunks(report_doc: ExtractedDocument) -> None:
    furniture = find_furniture(report_doc)
    chunks = chunk_text(report_doc.text, target_size=400, overlap=80, exclude=furniture)
    check_chunks(report_doc.text, chunks, furniture, 400)
    assert len(chunks) > 5
    for (_, end), (start, _) in itertools.pairwise(chunks):
        assert 0 < end - start <= 160  # about the configured overlap
    # Chunks end at sentence ends when one is within reach.
    assert sum(report_doc.text[end - 1] == "." for _, end in chunks) >= len(chunks) - 1


def test_paragraph_breaks_are_preferred() -> None:
    paragraph = "Alpha beta gamma. " * 20  # 360 characters
    text = "\n\n".join(paragraph.strip() for _ in range(4))
    chunks = chunk_text(text, target_size=800, overlap=0)
    for _, end in chunks[:-1]:
        assert text[end : end + 2] == "\n\n"
    assert chunks[-1][1] == len(text)


def test_no_overlap_tiles_the_text() -> None:
    text = " ".join(f"Sentence number {k} ends here." for k in range(200))
    chunks = chunk_text(text, target_size=300, overlap=0)
    joined = " ".join(text[s:e] for s, e in chunks)
    assert joined == text


def test_unbroken_text_is_cut() -> None:
    text = "x" * 1000
    assert chunk_text(text, target_size=300, overlap=0) == [(0, 300), (300, 600), (600, 900),
                                                            (900, 1000)]


def test_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_text("text", target_size=100, overlap=100)
    with pytest.raises(ValueError, match="target_size"):
        chunk_text("text", target_size=0, overlap=0)


def test_empty_and_blank_texts() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\n \f ") == []
    assert chunk_text("abc def", exclude=[(0, 7)]) == []


texts = st.text(alphabet=st.sampled_from("ab .\n\fAB"), max_size=600)


@st.composite
def text_and_exclusions(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    text = draw(texts)
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=8))
    cuts.sort()
    return text, list(zip(cuts[::2], cuts[1::2], strict=False))


@settings(max_examples=150, deadline=None)
@given(
    data=text_and_exclusions(),
    target_size=st.integers(5, 120),
    overlap_fraction=st.floats(0, 0.9),
)
def test_chunk_invariants(
    data: tuple[str, list[tuple[int, int]]], target_size: int, overlap_fraction: float
) -> None:
    text, exclude = data
    overlap = int(target_size * overlap_fraction)
    chunks = chunk_text(text, target_size=target_size, overlap=overlap, exclude=exclude)
    check_chunks(text, chunks, exclude, target_size)
    assert chunks == oracle_chunks(text, target_size=target_size, overlap=overlap,
                                   exclude=exclude)


# Runs of blank lines, closers after sentence ends, page breaks: where a
# search near the chunk end could find other matches than a whole-text one.
boundary_texts = st.text(alphabet=st.sampled_from("ab .!?…\n\f\t)\"'”’(A2"), max_size=500)


@settings(max_examples=300, deadline=None)
@given(
    text=boundary_texts,
    cuts=st.lists(st.integers(0, 500), max_size=6),
    target_size=st.integers(4, 90),
    overlap_fraction=st.floats(0, 0.95),
)
def test_boundaries_match_a_whole_text_search(
    text: str, cuts: list[int], target_size: int, overlap_fraction: float
) -> None:
    cuts = sorted(min(c, len(text)) for c in cuts)
    exclude = list(zip(cuts[::2], cuts[1::2], strict=False))
    overlap = int(target_size * overlap_fraction)
    assert chunk_text(text, target_size=target_size, overlap=overlap, exclude=exclude) == (
        oracle_chunks(text, target_size=target_size, overlap=overlap, exclude=exclude)
    )


def test_document_chunks_match_a_whole_text_search(report_doc: ExtractedDocument) -> None:
    furniture = find_furniture(report_doc)
    for size, overlap in ((1200, 200), (400, 80), (150, 0)):
        assert chunk_text(report_doc.text, target_size=size, overlap=overlap,
                          exclude=furniture) == oracle_chunks(
            report_doc.text, target_size=size, overlap=overlap, exclude=furniture
        )


def test_long_texts_without_breaks_are_chunked_quickly() -> None:
    # Searched near each chunk end: no pass over the rest of the text per chunk.
    text = "word " * 100_000 + "x" * 50_000
    chunks = chunk_text(text, target_size=1200, overlap=200)
    check_chunks(text, chunks, (), 1200)
