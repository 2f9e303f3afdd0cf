"""verification.offsets: code points to UTF-16 code units and UTF-8 bytes,
held to Python's own codecs for any text and offset, and a report's spans
converted by which text each indexes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.offsets import BLOCK, add_offset_units, text_offsets

SETTINGS = settings(max_examples=300, deadline=None)

# Characters that count differently in each unit: ASCII (1/1/1), accents and
# combining marks (2 bytes), CJK (3 bytes), astral characters (2 UTF-16 units,
# 4 bytes): emoji, mathematical letters, a flag (two regional indicators), and
# an emoji ZWJ sequence.
INTERESTING = ["a", " ", "é", "e\u0301", "ñ", "中", "文", "😀", "𝔘", "🇫🇷", "👩\u200d💻", "\u200b",
               "\uffff", "\U0010ffff"]
# Any text Python can encode: every code point but the surrogates.
encodable = st.characters(exclude_categories=("Cs",))
texts = st.one_of(
    st.text(encodable, max_size=80),
    st.lists(st.sampled_from(INTERESTING), max_size=60).map("".join),
    # Long enough to cross block boundaries, with the odd characters near them.
    st.lists(st.sampled_from([*INTERESTING, "x" * 97]), min_size=BLOCK // 16,
             max_size=BLOCK // 2).map("".join),
)


def utf16_of(text: str, k: int) -> int:
    return len(text[:k].encode("utf-16-le")) // 2


def utf8_of(text: str, k: int) -> int:
    return len(text[:k].encode("utf-8"))


@SETTINGS
@given(texts, st.data())
def test_every_offset_agrees_with_the_codecs(text: str, data: st.DataObject) -> None:
    offsets = text_offsets(text)
    for k in {0, len(text), data.draw(st.integers(0, len(text)))}:
        assert offsets.utf16(k) == utf16_of(text, k)
        assert offsets.utf8(k) == utf8_of(text, k)


@SETTINGS
@given(texts, st.data())
def test_a_converted_span_slices_the_same_substring_in_every_unit(
    text: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    offsets = text_offsets(text)
    s16, e16 = offsets.utf16(start), offsets.utf16(end)
    s8, e8 = offsets.utf8(start), offsets.utf8(end)
    # Strict decoding: a UTF-16 offset never splits a surrogate pair, a UTF-8
    # one never splits a character.
    assert text.encode("utf-16-le")[2 * s16:2 * e16].decode("utf-16-le") == text[start:end]
    assert text.encode("utf-8")[s8:e8].decode("utf-8") == text[start:end]


@pytest.mark.parametrize(("text", "k", "utf16", "utf8"), [
    ("abc", 2, 2, 2),
    ("é!", 1, 1, 2),                 # precomposed: one code point, two bytes
    ("e\u0301!", 2, 2, 3),           # e + combining acute: two code points
    ("中文。", 2, 2, 6),
    ("😀 x", 1, 2, 4),               # astral: a surrogate pair in UTF-16
    ("𝔘nicode", 1, 2, 4),
    ("🇫🇷 Paris", 2, 4, 8),          # a flag is two astral code points
])
def test_known_lengths(text: str, k: int, utf16: int, utf8: int) -> None:
    offsets = text_offsets(text)
    assert (offsets.utf16(k), offsets.utf8(k)) == (utf16, utf8)


def test_ascii_text_builds_no_tables() -> None:
    offsets = text_offsets("plain ASCII " * 10_000)
    assert offsets.utf8_before == offsets.utf16_before == ()
    assert offsets.utf16(120_000) == offsets.utf8(120_000) == 120_000


def test_tables_count_every_block_once() -> None:
    text = "😀" * (3 * BLOCK + 5)
    offsets = text_offsets(text)
    assert len(offsets.utf8_before) == 5  # 0 and after each of 4 blocks
    assert offsets.utf16(len(text)) == 2 * len(text)
    assert offsets.utf8(3 * BLOCK) == 4 * 3 * BLOCK


def test_a_lone_surrogate_is_refused_naming_where() -> None:
    with pytest.raises(ValueError, match=r"lone surrogate \(U\+D83D\) at code point 3"):
        text_offsets("abc\ud83d")
    with pytest.raises(ValueError, match="at code point 600"):
        text_offsets("é" * 600 + "\udc00")


@pytest.mark.parametrize("k", [-1, 4])
def test_an_offset_outside_the_text_is_refused(k: int) -> None:
    for text in ("abc", "ab😀"):
        with pytest.raises(ValueError, match=r"outside the text \(0 to 3 code points\)"):
            text_offsets(text).utf16(k)


def test_an_offset_is_an_int() -> None:
    with pytest.raises(TypeError, match="code-point index"):
        text_offsets("abc").utf8(1.0)  # type: ignore[arg-type]


# -- a report's spans --------------------------------------------------------

ANSWER = "😀 Café: “Vesting takes two years” [S1]."
SOURCE = "中文 préface. Vesting takes two years of service."
DOCUMENT = "𝔘 front matter… " + SOURCE


def report() -> list[dict[str, Any]]:
    q0 = ANSWER.index("Vesting")
    q1 = q0 + len("Vesting takes two years")
    m0 = ANSWER.index("[S1]")
    c0 = SOURCE.index("Vesting")
    d = DOCUMENT.index(SOURCE)
    shared = [[c0, c0 + 7], [SOURCE.index("years"), SOURCE.index("years") + 5]]
    finding = {"check": "number", "claim": "two", "claim_start": ANSWER.index("two"),
               "claim_end": ANSWER.index("two") + 3, "message": "m", "passage": "two",
               "source_marker": "S1", "passage_start": SOURCE.index("two"),
               "passage_end": SOURCE.index("two") + 3}
    citation = {
        "outcome": "verified", "marker": "S1", "marker_start": m0, "marker_end": m0 + 4,
        "quote_start": q0, "quote_end": q1, "source_marker": "s1",
        "chunk_start": c0, "chunk_end": c0 + 23, "document": 7,
        "document_start": d + c0, "document_end": d + c0 + 23,
        "closest_marker": None, "closest_start": None, "closest_end": None,
        "passage_start": 0, "passage_end": len(SOURCE), "passage_document_start": d,
        "passage_document_end": d + len(SOURCE), "shared": shared, "findings": [finding],
    }
    return [{"index": 0, "start": 0, "end": len(ANSWER), "text": ANSWER, "claim": True,
             "citations": [citation]}]


def convert(sentences: list[dict[str, Any]]) -> list[Any]:
    asked: list[Any] = []

    def documents(needed: Any) -> dict[int, str]:
        asked.append(dict(needed))
        return {7: DOCUMENT[:needed[7]]}  # a prefix is enough

    add_offset_units(sentences, answer=ANSWER, source_texts=lambda: {"[S1]": SOURCE},
                     document_texts=documents)
    return asked


def sliced(text: str, unit: str, span: list[int]) -> str:
    if unit == "utf16":
        return text.encode("utf-16-le")[2 * span[0]:2 * span[1]].decode("utf-16-le")
    return text.encode("utf-8")[span[0]:span[1]].decode("utf-8")


def test_every_span_of_a_report_gets_both_units_after_its_code_points() -> None:
    sentences = report()
    asked = convert(sentences)
    (sentence,) = sentences
    (citation,) = sentence["citations"]
    (finding,) = citation["findings"]
    assert asked == [{7: len(DOCUMENT)}]
    assert list(sentence)[:5] == ["index", "start", "end", "utf16", "utf8"]
    assert list(citation)[2:6] == ["marker_start", "marker_end", "marker_utf16", "marker_utf8"]
    texts_of = {"": ANSWER, "marker": ANSWER, "quote": ANSWER, "chunk": SOURCE,
                "passage": SOURCE, "document": DOCUMENT, "passage_document": DOCUMENT}
    records = [("", sentence), *((name, citation) for name in texts_of if name)]
    for name, record in records:
        start, end = (record[f"{name}_start"], record[f"{name}_end"]) if name else (
            record["start"], record["end"])
        text = texts_of[name]
        for unit in ("utf16", "utf8"):
            key = f"{name}_{unit}" if name else unit
            assert sliced(text, unit, record[key]) == text[start:end], key
    assert citation["closest_utf16"] is None and citation["closest_utf8"] is None
    for unit in ("utf16", "utf8"):
        assert [sliced(SOURCE, unit, r) for r in citation[f"shared_{unit}"]] == [
            "Vesting", "years"]
        assert sliced(ANSWER, unit, finding[f"claim_{unit}"]) == "two"
        assert sliced(SOURCE, unit, finding[f"passage_{unit}"]) == "two"
    assert citation["quote_utf16"] == [citation["quote_start"] + 1, citation["quote_end"] + 1]


def test_converting_twice_changes_nothing() -> None:
    sentences = report()
    convert(sentences)
    once = [dict(s) for s in sentences]
    convert(sentences)
    assert sentences == once and list(sentences[0]) == list(once[0])


def test_texts_are_read_only_when_a_span_needs_them() -> None:
    def never(*args: Any) -> Any:
        raise AssertionError("read a text no span needs")

    sentence = {"index": 0, "start": 0, "end": 2, "citations": [
        {"marker": "S9", "marker_start": 0, "marker_end": 2, "source_marker": None,
         "chunk_start": None, "chunk_end": None, "document": None, "document_start": None,
         "document_end": None, "shared": []}]}
    add_offset_units([sentence], answer="😀 [S9]", source_texts=never, document_texts=never)
    assert sentence["utf16"] == [0, 3]
    assert sentence["citations"][0]["chunk_utf8"] is None
    assert sentence["citations"][0]["shared_utf16"] == []


def test_an_offset_pair_no_rule_names_is_an_error_not_dropped() -> None:
    sentence = {"index": 0, "start": 0, "end": 1, "citations": [
        {"marker": "S1", "hint_start": 0, "hint_end": 1}]}
    with pytest.raises(ValueError, match=r"no rule says which text hint_start/hint_end index"):
        add_offset_units([sentence], answer="a", source_texts=dict, document_texts=dict)


def test_an_offset_into_a_source_that_is_not_given_is_an_error() -> None:
    sentence = {"index": 0, "start": 0, "end": 1, "citations": [
        {"marker": "S2", "source_marker": None, "passage_start": 0, "passage_end": 1}]}
    with pytest.raises(ValueError, match=r"source \[S2\], which is not among the sources"):
        add_offset_units([sentence], answer="a", source_texts=lambda: {"S1": "x"},
                         document_texts=dict)


def test_the_cost_of_building_and_converting_on_a_long_text() -> None:
    """The figure: what one document's converter costs (a citation into a
    document converts over its text up to the citation); no timing assertion."""
    import time

    from tests.figures import figure

    chars = 1_000_000
    lines = []
    for kind, text in (("ASCII", "a" * chars), ("accented", "é" * chars),
                       ("CJK and emoji", ("中文😀" * chars)[:chars])):
        started = time.perf_counter()
        offsets = text_offsets(text)
        built = time.perf_counter() - started
        started = time.perf_counter()
        for k in range(0, chars, chars // 1000):
            offsets.units(k)
        each = (time.perf_counter() - started) / 1000
        assert offsets.units(chars) == (utf16_of(text, chars), utf8_of(text, chars))
        lines.append(f"{kind} built in {built * 1000:.1f} ms, {each * 1e6:.1f} µs an offset")
    figure(f"\noffset converter over {chars:,} code points: " + "; ".join(lines))
