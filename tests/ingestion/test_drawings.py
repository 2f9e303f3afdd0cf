"""reviewer.ingestion.drawings: a page's paths streamed one at a time are
``page.get_cdrawings()``'s list, path for path (its fill-and-stroke merge
included), so the ruling lines read from them are the same."""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion.drawings import each_drawing


def _page_with_line_art() -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=300)
    # A cell filled and stroked in one drawing: the list gives one "fs" path.
    page.draw_rect(pymupdf.Rect(20, 20, 120, 60), color=(0, 0, 0), fill=(0.9, 0.9, 0.9))
    page.draw_line((20, 80), (280, 80))  # a rule
    page.draw_rect(pymupdf.Rect(20, 100, 280, 101), color=None, fill=(0, 0, 0))  # a thin bar
    shape = page.new_shape()  # two paths filled, then one stroked with other items
    shape.draw_rect(pymupdf.Rect(30, 150, 60, 180))
    shape.finish(fill=(1, 0, 0), color=None)
    shape.draw_circle((150, 200), 30)
    shape.finish(fill=(0, 0, 1), color=None)
    shape.draw_line((10, 250), (290, 250))
    shape.finish(color=(0, 0, 0))
    shape.commit()
    return page


def test_each_drawing_hands_over_the_list_path_for_path() -> None:
    page = _page_with_line_art()
    streamed: list[dict] = []  # type: ignore[type-arg]
    each_drawing(page, streamed.append)
    listed = page.get_cdrawings()
    assert [path["type"] for path in listed].count("fs") == 1  # the merge is exercised
    assert streamed == listed


def test_each_drawing_on_a_page_without_paths() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "No line art here.")
    seen: list[dict] = []  # type: ignore[type-arg]
    each_drawing(page, seen.append)
    assert seen == []


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_each_drawing_on_a_turned_page(rotation: int) -> None:
    # get_cdrawings() reads a turned page unturned; so do the streamed paths.
    page = _page_with_line_art()
    page.set_rotation(rotation)
    streamed: list[dict] = []  # type: ignore[type-arg]
    each_drawing(page, streamed.append)
    assert streamed == page.get_cdrawings()
    assert page.rotation == rotation
