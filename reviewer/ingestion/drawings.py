"""A page's vector paths one at a time, as ``page.get_cdrawings()`` lists them.

``get_cdrawings()`` builds the whole page's list before the first path can be
read: a dict a path, with its items, which on a page of line art (a lecture
note's diagrams, a map) is thousands of dicts and the largest thing ingestion
holds (11 MB of Python objects on one page of the corpus's lecture notes,
where the page's ``rawdict`` took 3). Its callback hands each path over as it
is drawn and keeps nothing, but then leaves out the one thing the list does
on its way: a stroke of the path just filled, with the same items, is merged
into the fill as one path of type ``"fs"``. :func:`each_drawing` does that
merge itself, holding back one path, so what it hands over is the list, path
for path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["each_drawing"]

Path = dict[str, Any]


def each_drawing(page: Any, take: Callable[[Path], object]) -> None:
    """Call ``take`` with each of ``page``'s paths (a ``pymupdf.Page``), in
    the order and form of ``page.get_cdrawings()``."""
    held: list[Path] = []

    def arrived(path: Path) -> bool:
        if held:
            last = held[0]
            if (path.get("type") == "s" and last.get("type") == "f"
                    and path.get("items") == last.get("items")):
                for key, value in path.items():
                    last.setdefault(key, value)
                last["type"] = "fs"
                return True
            take(last)
            held[0] = path
        else:
            held.append(path)
        return True  # PyMuPDF reports a false answer as a failed callback

    page.get_cdrawings(callback=arrived)
    if held:
        take(held[0])
