"""The review page's evidence panel and answer column as a reviewer sees them
on a 1280x720 laptop, measured by the elements' boxes in a real Chromium:
a panel opens with its title in sight (and the evidence it scrolls to under
it, not behind it), and a sentence reached by the keys is never hidden
under the decision bar."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import Answer
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

VIEWPORT = {"width": 1280, "height": 720}

# The panel's title and the area of the panel it shows in (inside its
# border), and whether the title is what the browser finds at its middle
# (not scrolled out of the panel, not under anything).
PANEL_TITLE = """() => {
  const panel = document.getElementById('sentence-panel');
  const title = panel.querySelector(':scope > h2');
  const p = panel.getBoundingClientRect(), t = title.getBoundingClientRect();
  const hit = document.elementFromPoint(t.left + 8, (t.top + t.bottom) / 2);
  return {text: title.textContent.trim(), top: t.top, bottom: t.bottom,
          panelTop: p.top + panel.clientTop, panelBottom: p.top + panel.clientTop + panel.clientHeight,
          seen: Boolean(hit && title.contains(hit)), scrolled: panel.scrollTop};
}"""


def _base(page: Any) -> str:
    return page.url.split("/answers")[0]


def _click_sentence(page: Any, index: int) -> dict[str, Any]:
    page.click(f"#sentence-{index} .sentence-text", position={"x": 4, "y": 4})
    page.wait_for_function(
        "(n) => document.querySelector('#sentence-panel > h2')?.textContent.trim()"
        ".startsWith(`Sentence ${n} `)", arg=index + 1)
    page.wait_for_timeout(100)  # the viewer shown or hidden: the panel's height settles
    return page.evaluate(PANEL_TITLE)


@pytest.mark.parametrize("external_id", ["demo-benefits-mixed", "demo-clinical",
                                         "demo-contract", "demo-benefits-paraphrased"])
def test_each_sentence_panel_opens_with_its_title_in_sight(page: Any, external_id: str) -> None:
    """Sentence after sentence, in order (each panel replaces one that may
    have been scrolled), the panel's "Sentence N" title with its badge is
    inside the panel's visible area and not covered."""
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id=external_id)
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    cut = []
    for sentence in answer.sentences.order_by("index"):
        title = _click_sentence(page, sentence.index)
        inside = (title["panelTop"] - 0.5 <= title["top"]
                  and title["bottom"] <= title["panelBottom"] + 0.5)
        if not (inside and title["seen"]):
            cut.append((sentence.index, title))
    assert not cut, f"panel titles cut off or hidden: {cut}"


def test_the_evidence_a_panel_scrolls_to_shows_below_its_title(page: Any) -> None:
    """A failing quote's panel is taller than the room the viewer leaves it:
    it scrolls to the word differences, which show whole, between the title
    and the panel's bottom edge."""
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id="demo-benefits-mixed")
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    title = _click_sentence(page, 2)  # "Up to ten unused days": an altered quote
    assert title["scrolled"] > 0  # the panel did have to scroll to its evidence
    diff = page.locator("#sentence-panel .diff").bounding_box()
    assert title["bottom"] <= diff["y"], (title, diff)
    assert diff["y"] + diff["height"] <= title["panelBottom"] + 0.5, (title, diff)
