"""How bench/generalise.py files a miss: where it looks for poppler's lines in our text."""

from __future__ import annotations

from types import SimpleNamespace

from bench.generalise import _on_page, find_window


def test_a_line_printed_twice_is_placed_on_the_windows_page() -> None:
    # The appeals board's judge is named in the caption of pages 1 and 3 and
    # again in page 3's certificate grid. Placed at its first occurrence
    # (page 1), the window down the grid's name column was filed as reading
    # order rather than as a column read across a table's rows.
    keys = "kennethmswitzerchiefjudge" + "x" * 50 + "kennethmswitzerchiefjudge"
    ours = SimpleNamespace(
        keys=keys, offsets=list(range(len(keys))),
        page_of=lambda offset: 1 if offset < 60 else 3,
    )
    assert _on_page(ours, "kennethmswitzerchiefjudge", 3) == 75
    assert _on_page(ours, "kennethmswitzerchiefjudge", 1) == 0
    assert _on_page(ours, "kennethmswitzerchiefjudge", 2) == 0  # not on the page: the first
    assert _on_page(ours, "pennyshrum", 3) == -1


def _window(lines: list[str]) -> SimpleNamespace:
    words = [SimpleNamespace(key=word, line=number)
             for number, line in enumerate(lines) for word in line.split()]
    return SimpleNamespace(key="".join(w.key for w in words), words=words, page=1)


def _ours(text: str) -> SimpleNamespace:
    """Our text, and its letters and digits as keys with their offsets."""
    offsets = [k for k, char in enumerate(text) if char.isalnum()]
    return SimpleNamespace(keys="".join(text[k] for k in offsets), offsets=offsets,
                           page_of=lambda offset: 1, doc=SimpleNamespace(text=text))


def test_a_window_whose_lines_a_list_number_parts_in_our_text_is_found() -> None:
    # The coeliac guideline's references: pdftotext reads the hung numbers
    # apart, our text keeps "75" on a line of its own between two entries;
    # the window was filed "not in our text" though the verifier takes it.
    window = _window(["architecture arch pathol 1216 19", "dahlbom i olsson m"])
    text = "normal villus\narchitecture arch pathol 1216 19.\n75\ndahlbom i olsson m\npatients"
    assert find_window(_ours(text), window) is not None
    # as OCR reads it, the number before its entry's first line
    ocr = "architecture arch pathol 1216 19.\n75 dahlbom i olsson m"
    assert find_window(_ours(ocr), window) is not None
    # a line of another column between them is more than a list's number
    other = "architecture arch pathol 1216 19\ngastroenterology\ndahlbom i olsson m"
    assert find_window(_ours(other), window) is None
    # a table's cell of figures, or a number opening a line of text, is no list's number
    for between in ("\n4/7\n", "\n3.5: leverage\n", " 75 "):
        parted = f"architecture arch pathol 1216 19{between}dahlbom i olsson m"
        assert find_window(_ours(parted), window) is None, between
    # out of order, it is not found
    swapped = "dahlbom i olsson m\n75\narchitecture arch pathol 1216 19"
    assert find_window(_ours(swapped), window) is None
