"""A callout, an icon or a sidebar beside a column is read as a block of its
own; the column's sentences flow on across it (issue 23, item 2).

The fixtures draw their lines in order of height across the page, as booklet
software often does: MuPDF then puts the note's lines (and its icon) in among
the column's, in one block or in many, which is how a tax booklet came to read
``...a dependent. This⏎!⏎whether you can claim...``. Every test first checks
that its fixture really mixes the two.
"""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument, extract_pdf, locate
from verification import verify_answer

COLUMN = (
    "Enter on this line the amount you paid for the care of a child you claim as a "
    "dependent. This rule applies whether you can claim an exemption for the child or "
    "not, and it applies to every child who lived with you for more than half of the "
    "year and was under age thirteen when the care was provided to the child by a "
    "person who is not your spouse."
)
NOTE = (
    "You cannot claim this amount if your employer paid for the care under a plan "
    "that excludes it from your wages."
)
# The column's sentence that runs past the note, and the note's own.
CROSSING = "This rule applies whether you can claim an exemption for the child or not"

LEFT = (
    "Benefits are paid from the first day of the month after the claim is approved, and "
    "they continue for as long as the member remains eligible under the rules of the plan "
    "that applied on the date the claim was filed with the office."
)
RIGHT = (
    "A member who returns to work keeps the benefit for three months while the office "
    "reviews the new earnings, after which the amount is reduced by half of every dollar "
    "earned above the limit."
)
SIDEBAR = (
    "Call the helpline before you file: an adviser checks your papers and tells you "
    "which forms you need."
)

_Item = tuple[float, float, str, float, str]  # baseline y, x, text, size, font


def _wrap(text: str, width: float, size: float) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and pymupdf.get_text_length(candidate, fontsize=size) <= width:
            lines[-1] = candidate
        else:
            lines.append(word)
    return lines


def _draw(page: pymupdf.Page, items: list[_Item]) -> None:
    """Every line in order of height, whichever block it belongs to."""
    for y, x, text, size, font in sorted(items):
        page.insert_text((x, y), text, fontsize=size, fontname=font)


def _column_with_caution(icon_size: float = 22.0) -> bytes:
    """A 170-point column at 10/12 with a boxed CAUTION note beside it at 8/9.5:
    a big "!" drawn in ZapfDingbats, its label under it, the note's text."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    items: list[_Item] = [
        (60 + 12 * i, 40, line, 10, "helv") for i, line in enumerate(_wrap(COLUMN, 170, 10))
    ]
    note = _wrap(NOTE, 72, 8)
    left, top = 220.0, 81.0
    page.draw_rect(pymupdf.Rect(left - 3, top - 10, left + 112, top + 9.5 * len(note) + 4))
    items.append((top + 10, left + 2, "!", icon_size, "zadb"))
    items.append((top + 17, left - 1, "CAUTION", 5, "hebo"))
    items += [(top + 2 + 9.5 * i, left + 40, line, 8, "helv") for i, line in enumerate(note)]
    _draw(page, items)
    return doc.tobytes()


def _sidebar_beside_two_columns() -> bytes:
    """Two 160-point columns at 10/12 and a boxed sidebar at 8/9.5 right of
    the second, a little more than a word space from its longest lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=560, height=300)
    items: list[_Item] = []
    for x, text in ((40, LEFT), (210, RIGHT)):
        items += [(60 + 12 * i, x, line, 10, "helv") for i, line in enumerate(_wrap(text, 160, 10))]
    side = _wrap(SIDEBAR, 120, 8)
    page.draw_rect(pymupdf.Rect(367, 62, 500, 76 + 9.5 * len(side)))
    items += [(75 + 9.5 * i, 372, line, 8, "helv") for i, line in enumerate(side)]
    _draw(page, items)
    return doc.tobytes()


def _verified(doc: ExtractedDocument, quote: str) -> tuple[int, int]:
    report = verify_answer(f'The booklet says "{quote}" [S1].', {"S1": doc.text})
    (citation,) = [c for s in report.sentences for c in s.citations]
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert citation.chunk_start is not None and citation.chunk_end is not None
    return citation.chunk_start, citation.chunk_end


def _rects(doc: ExtractedDocument, start: int, end: int) -> list[list[float]]:
    return [r for page in locate(doc, start, end) for r in page["rects"]]


def _covered(doc: ExtractedDocument, start: int, end: int, x0: float, x1: float) -> None:
    """The highlight holds every quoted glyph and stays between x0 and x1."""
    rects = _rects(doc, start, end)
    assert rects
    for rect in rects:
        assert x0 - 0.5 <= rect[0] and rect[2] <= x1 + 0.5, rect
    for index in range(start, end):
        box = doc.geometry.box(index)
        if box is None or doc.text[index].isspace():
            continue
        assert any(r[0] - 0.01 <= box[0] and box[2] <= r[2] + 0.01
                   and r[1] - 0.01 <= box[1] and box[3] <= r[3] + 0.01 for r in rects), index


@pytest.fixture(scope="module")
def caution() -> ExtractedDocument:
    return extract_pdf(_column_with_caution())


def test_the_fixture_draws_the_note_in_among_the_column() -> None:
    blocks = pymupdf.open(stream=_column_with_caution()).load_page(0).get_text("dict")["blocks"]
    texts = [[" ".join(s["text"] for s in ln["spans"]) for ln in b["lines"]] for b in blocks]
    mixed = [lines for lines in texts if "!" in lines and any("dependent" in t for t in lines)]
    assert mixed, texts


def test_the_column_reads_on_across_a_caution_note(caution: ExtractedDocument) -> None:
    # Before: "dependent. This rule applies whether\n!\nthis amount if your\nyou can claim...".
    start, end = _verified(caution, CROSSING)
    _covered(caution, start, end, 40, 210)


def test_the_caution_note_reads_as_a_block_of_its_own(caution: ExtractedDocument) -> None:
    start, end = _verified(caution, NOTE)
    _covered(caution, start, end, 258, 335)
    # After the column's paragraph, its icon and label before it.
    text = caution.text
    assert text.index("your spouse.") < text.index("!") < text.index("You cannot claim")
    assert text.index("CAUTION") < text.index("You cannot claim")


def test_a_small_icon_reads_with_its_note() -> None:
    # At the column's size the "!" is no taller than the lines beside it; the
    # note's own line pitch still sets it apart, and the icon goes with it.
    doc = extract_pdf(_column_with_caution(icon_size=9))
    _verified(doc, CROSSING)
    _verified(doc, NOTE)
    assert doc.text.index("your spouse.") < doc.text.index("!") < doc.text.index("You cannot")


def test_a_sidebar_beside_two_columns_reads_after_them() -> None:
    doc = extract_pdf(_sidebar_beside_two_columns())
    # Before: "keeps the benefit for three months Call the helpline before you file:".
    start, end = _verified(doc, RIGHT)
    _covered(doc, start, end, 210, 371)
    start, end = _verified(doc, SIDEBAR)
    _covered(doc, start, end, 372, 500)
    start, end = _verified(doc, LEFT)
    _covered(doc, start, end, 40, 201)
    assert doc.text.index("earned above the limit.") < doc.text.index("Call the helpline")


def test_a_note_set_on_the_columns_lines_stays_in_its_rows() -> None:
    """Labels beside a column on its own baselines and pitch ("Step 1" beside
    the step's first line) are a table's rows, not a callout: each stays
    before its step, read row by row as before."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    steps = [
        "Add the amounts on lines one and two and enter the total on this line of the form.",
        "Subtract the credit you claimed last year from the total and enter the result.",
        "If the result is zero or less, stop here: you do not owe any tax this year.",
    ]
    items: list[_Item] = []
    row = 0
    for number, step in enumerate(steps, 1):
        items.append((60 + 12 * row, 40, f"Step {number}", 10, "hebo"))
        for line in _wrap(step, 200, 10):
            items.append((60 + 12 * row, 120, line, 10, "helv"))
            row += 1
    _draw(page, items)
    text = extract_pdf(doc.tobytes()).text
    assert text.index("Step 1") < text.index("Add the amounts") < text.index("Step 2")
    assert text.index("Step 2") < text.index("Subtract the credit") < text.index("Step 3")
    assert text.index("Step 3") < text.index("If the result")
