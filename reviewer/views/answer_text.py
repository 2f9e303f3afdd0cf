"""An answer's sentences as HTML: Markdown rendered, quotes and markers kept.

LLM output is untrusted. Each sentence is rendered on its own (so every
sentence stays one row with its badge, its id and its place in keyboard
navigation): a Markdown block prefix at the start of a line (a heading, a
list item, a block quote) becomes the row's style, and the rest is rendered
as *inline* Markdown by markdown-it-py with raw HTML disabled, then cleaned
by nh3 (ammonia) to a short list of inline tags. The quoted spans and the
marker links are built over the answer's offsets, so they cannot go through
Markdown as text: each stands in the Markdown source as one private-use
character and is put back, escaped, after cleaning. Whatever Markdown does
around it (emphasis, a link), the quote's words are shown verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import nh3
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

__all__ = ["RenderedSentence", "render_sentence"]

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_MARKDOWN.enable("strikethrough").disable("image")

#: What the cleaned inline HTML may hold. No attributes but a link's href
#: and title; ammonia drops any scheme not listed and adds ``rel``.
_TAGS = frozenset(("em", "strong", "code", "s", "del", "a", "br"))
_ATTRIBUTES = {"a": {"href", "title"}}
_SCHEMES = frozenset(("http", "https", "mailto"))

#: Placeholders for the quote and marker segments: characters of Unicode's
#: supplementary private use area, which neither Markdown nor ammonia treat
#: as anything but text.
_SLOT = 0xF0000

_BLOCK = re.compile(
    r"(?P<heading>#{1,6})[ \t]+|(?P<bullet>[-*+])[ \t]+|(?P<number>\d{1,9})[.)][ \t]+"
    r"|(?P<quote>>)[ \t]?"
)
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")


@dataclass(frozen=True, slots=True)
class RenderedSentence:
    html: SafeString
    #: "h1".."h6", "li", "ol" or "blockquote" when the sentence opens a
    #: Markdown block; "" for running text.
    block: str
    #: The list number ("3.") of a numbered item.
    number: str
    #: The sentence starts a new paragraph (a blank line before it).
    paragraph: bool


def _line_start(answer: str, start: int) -> bool:
    line = answer.rfind("\n", 0, start)
    return answer[line + 1:start].strip(" \t") == ""


def render_sentence(answer: str, start: int, segments: list[dict[str, Any]]) -> RenderedSentence:
    """``segments`` (text, quote and marker runs of the sentence starting at
    ``start`` in ``answer``) as safe HTML."""
    block, number = "", ""
    source: list[str] = []
    slots: list[SafeString] = []
    first_text = True
    for segment in segments:
        if segment["kind"] == "text":
            text = segment["text"]
            if first_text and _line_start(answer, start):
                match = _BLOCK.match(text)
                if match is not None:
                    text = text[match.end():]
                    if match.group("heading"):
                        block = f"h{len(match.group('heading'))}"
                        text = _CLOSING_HASHES.sub("", text)
                    elif match.group("bullet"):
                        block = "li"
                    elif match.group("number"):
                        block, number = "ol", match.group("number") + "."
                    else:
                        block = "blockquote"
            source.append(text)
        else:
            source.append(chr(_SLOT + len(slots)))
            slots.append(_segment_html(segment))
        first_text = False
    html = nh3.clean(
        _MARKDOWN.renderInline("".join(source)), tags=set(_TAGS), attributes=_ATTRIBUTES,
        url_schemes=set(_SCHEMES), link_rel="noopener noreferrer nofollow",
    )
    for index, slot in enumerate(slots):
        placeholder = chr(_SLOT + index)
        if placeholder in html:
            html = html.replace(placeholder, slot, 1)
        else:  # swallowed by Markdown (a link's destination): never lose a marker
            html += " " + slot
    before = answer[:start].rstrip(" \t")
    return RenderedSentence(
        html=mark_safe(html),  # cleaned by nh3; the slots are escaped below
        block=block, number=number,
        paragraph=start > 0 and before.endswith("\n\n"),
    )


#: Words for a quote's outcome in the answer text (its title), matching the
#: badges: the mark's style carries the outcome too, never its colour alone.
QUOTE_TITLES = {
    "verified": "quote verified",
    "verified-fuzzy": "quote verified (fuzzy)",
    "quote-altered": "quote altered",
    "quote-not-found": "quote not found: closest passage shown",
    "wrong-source": "quote from the wrong source",
    "fabricated-marker": "quote under a fabricated marker",
    "unattributed-quote": "quote without marker",
    # A faithful quote in a sentence whose own words its passage contradicts.
    "claim-mismatch": "quote found; the sentence's own words differ from its passage",
}


def _segment_html(segment: dict[str, Any]) -> SafeString:
    citation = segment["citation"]
    if segment["kind"] == "finding":
        # The sentence's own words its passage contradicts (a claim finding:
        # ``citation`` is the finding), its message in the title.
        return format_html('<mark class="claim-finding check-{}" title="{}">{}</mark>',
                           citation["check"], citation["message"], segment["text"])
    if segment["kind"] == "quote":
        return format_html(
            '<mark class="quote outcome-{}" title="{}">{}</mark>', citation.outcome,
            QUOTE_TITLES.get(citation.outcome, "quoted span"), segment["text"])
    if citation.pk is None:
        # A past verdict's citation is no row: nothing to open.
        return format_html('<span class="marker outcome-{}">{}</span>', citation.outcome,
                           segment["text"])
    return format_html(
        '<a class="marker outcome-{}" href="?citation={}" hx-get="?citation={}">{}</a>',
        citation.outcome, citation.pk, citation.pk, segment["text"])
