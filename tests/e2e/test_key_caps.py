"""The review page's key caps (``kbd``) read as keys wherever they are: on
the white of the empty panel's hint, the Keys dialog and the decision bar's
status line, and on the coloured decision buttons and the dark undo toast.
Measured as the contrast between a key's outline and what it sits on, as
Chromium paints them (WCAG's 3:1 for the parts of a control)."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import Answer
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

# Every visible kbd under ``root``: its text, the colour of its left border,
# and the colour behind the key, each composited the way the page paints
# them (the ancestors' backgrounds, from the page's white up, then the
# border over the key's own background) on a one-pixel canvas, and the
# contrast ratio of the two.
KEY_CAPS = """(root) => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const paint = (colours) => {
    ctx.globalCompositeOperation = 'copy';
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, 1, 1);
    ctx.globalCompositeOperation = 'source-over';
    for (const colour of colours) { ctx.fillStyle = colour; ctx.fillRect(0, 0, 1, 1); }
    return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
  };
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      v /= 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  return [...document.querySelector(root).querySelectorAll('kbd')]
    .filter((k) => k.checkVisibility())
    .map((k) => {
      const behind = [];
      for (let e = k.parentElement; e; e = e.parentElement) {
        behind.unshift(getComputedStyle(e).backgroundColor);
      }
      const style = getComputedStyle(k);
      const around = paint(behind);
      const border = paint([...behind, style.backgroundColor, style.borderLeftColor]);
      const [hi, lo] = [luminance(around), luminance(border)].sort((a, b) => b - a);
      return {key: k.textContent, width: parseFloat(style.borderLeftWidth),
              around, border, contrast: (hi + 0.05) / (lo + 0.05)};
    });
}"""


def _faint(page: Any, root: str) -> tuple[int, list[dict[str, Any]]]:
    keys = page.evaluate(KEY_CAPS, root)
    return len(keys), [k for k in keys if k["width"] < 1 or k["contrast"] < 3]


def test_key_caps_read_as_keys_on_white_and_on_dark(page: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    answer = Answer.objects.get(external_id="demo-benefits-mixed")
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")

    # White: the empty panel's hint (j, k, Enter, ?); the bar's status line
    # (f) and the note's Ctrl+Enter; dark: the decision buttons (a, r, e).
    for root, count in (("#sentence-panel", 4), (".decide-bar", 6)):
        seen, faint = _faint(page, root)
        assert seen == count and not faint, (root, faint)

    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible()
    seen, faint = _faint(page, "#keys-help")
    assert seen >= 12 and not faint, faint
    page.keyboard.press("Escape")

    # The dark toast, and the key on its white Undo button.
    page.keyboard.press("e")
    page.wait_for_selector("#toast:not([hidden]) button.undo")
    seen, faint = _faint(page, "#toast")
    assert seen == 1 and not faint, faint
