"""How bench/generalise.py files a miss: where it looks for poppler's lines in our text."""

from __future__ import annotations

from types import SimpleNamespace

from bench.generalise import _on_page


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
