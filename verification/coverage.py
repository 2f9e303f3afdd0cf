"""Does a sentence assert a fact? A deterministic, documented heuristic.

A sentence is a *claim* unless one of these says otherwise, checked in order:

1. it carries a quoted span → claim (quoting is asserting);
2. it is a question (ends with ``?``) → not a claim;
3. it is a heading: a Markdown heading, a line ending with ``:``, or a short
   line (≤ 8 words) with no closing punctuation, no number and no verb →
   not a claim;
4. it opens with a framing or transition phrase ("Here is", "Based on the
   provided sources", "Let me", "I hope", "I can" as a whole word, "I could not
   find") and holds no number → not a claim. A summary opener ("Overall,", "In
   summary,", "In conclusion,", "In short,", "To sum up,") frames nothing by
   itself: the rest is checked for these openers, and the sentence classified
   by the other rules when it has none. "I cannot …" and "I can't …" are not
   "I can": "I cannot predict how the court will rule." is classified like any
   other sentence (here, a claim), unless it says the sources hold nothing
   ("I cannot find this in the sources");
5. it has fewer than three words → not a claim;
6. otherwise a closed declarative sentence (ending in ``.`` or ``!``) of four
   or more words is a claim; a shorter or unclosed one (a list item) is a claim
   when it holds a number or number word, a month, a capitalised name after the
   first word, or a factual verb (a form of *be*/*have*, a modal, or a verb in
   ``-s``/``-ed`` before a function word).

Markers are removed before these checks, and a bullet or an emoji opening the
line with them; none of them makes a sentence a claim.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["is_claim"]

_BULLET = re.compile(r"^\s*(?:[-*\u2022\u2023>#]+|\d{1,3}[.)]|[a-z][.)])\s+", re.IGNORECASE)
# A summary opener only announces that what follows sums up: the rest decides.
_SUMMARY = re.compile(
    r"^(?:overall|in summary|in conclusion|in short|in brief|to sum up|to summari[sz]e|"
    r"all in all)\b\s*,?\s*",
    re.IGNORECASE,
)
# Each opener is a whole word or phrase ("i can" must not match "I cannot").
_FRAMING = re.compile(
    r"^(?:here(?:'s| is| are)|below|let me|let's|i hope|i can(?!['\u2019]t)|i'm|i am|i will|"
    r"i'll|i would|sure|certainly|"
    r"i (?:cannot|can['\u2019]t|could not|couldn['\u2019]t|did not|didn['\u2019]t|was unable to)"
    r" (?:find|locate|see)|"
    r"of course|great question|good question|thanks?\b|thank you|feel free|please\b|"
    r"if you (?:have|need|want|would like) (?:any )?(?:more|further|other|questions|help)|"
    r"you (?:can|may|might|should) (?:also )?(?:ask|check|consult|refer|contact)|"
    r"based on the (?:provided |given |available )?(?:sources|documents|context|information|"
    r"excerpts|passages)|the following\b|as follows\b|note that the sources|"
    r"(?:however|moreover|additionally|furthermore|also|first|second|finally|next)\s*,?\s*"
    r"(?:here|let|the following|there are (?:several|a few|some) (?:points|things|aspects))|"
    r"there are (?:several|a few|some|two|three) (?:points|things|aspects|factors|key points))"
    r"\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|once|twice|half|percent)\b",
    re.IGNORECASE,
)
_MONTH = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\b"
)
_FACTUAL_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|being|has|have|had|does|did|will|shall|must|may|might|"
    r"can|cannot|could|should|would|won't|can't|isn't|aren't|wasn't|doesn't|don't|didn't)\b"
    r"|\b[a-z]{3,}(?:s|ed)\b(?=\s+(?:a|an|the|to|for|after|before|by|in|on|at|with|from|of|"
    r"that|all|any|each|every|no|not|only|up|\d))",
    re.IGNORECASE,
)
_CAPITALISED = re.compile(r"(?<=[\s(,;])[A-Z][\w'-]*[a-z][\w'-]*|(?<=[\s(,;])[A-Z]{2,}\b")
_MARKERISH = re.compile(r"\[[^\]]{0,40}\]|\u3010[^\u3011]{0,80}\u3011")


def _without_leading_emoji(text: str) -> str:
    """``text`` without the symbols (emoji, with their modifiers and joiners)
    that open it: they decorate a line, like a bullet."""
    start = 0
    while start < len(text) and unicodedata.category(text[start]) == "So":
        start += 1
        # Skin tones (Sk), variation selectors (Mn), joiners (Cf), spaces.
        while start < len(text) and (unicodedata.category(text[start]) in ("Sk", "Mn", "Cf")
                                     or text[start].isspace()):
            start += 1
    return text[start:]


def is_claim(text: str, *, has_quote: bool = False) -> bool:
    """Whether ``text`` (one sentence) asserts a fact; see the module doc."""
    if has_quote:
        return True
    bare = _MARKERISH.sub(" ", text).strip()
    is_markdown_heading = bare.startswith("#")
    bare = _BULLET.sub("", bare).strip().strip("*_").strip()
    bare = _without_leading_emoji(bare)
    if not bare or bare.endswith("?"):
        return False
    words = bare.split()
    if is_markdown_heading or bare.endswith(":"):
        return False
    has_number = bool(_NUMBER.search(bare))
    has_verb = bool(_FACTUAL_VERB.search(bare))
    closed = bare[-1] in ".!\u2026\"'\u201d)"
    if not closed and len(words) <= 8 and not has_number and not has_verb:
        return False
    if _FRAMING.match(_SUMMARY.sub("", bare, count=1)) and not has_number:
        return False
    if len(words) < 3:
        return False
    if closed and len(words) >= 4:
        return True
    return bool(has_number or _MONTH.search(bare) or _CAPITALISED.search(bare) or has_verb)
