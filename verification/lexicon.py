"""Word facts the quote matcher and the claim checks share.

One list, so a quote and a paraphrase are held to the same reading of a
negated word: "contraindicated" negates "indicated" in both.
"""

from __future__ import annotations

__all__ = ["NEGATING_PREFIXES", "UNAMBIGUOUS_PREFIXES", "WORD_PREFIXES", "negated_by_prefix"]

#: Prefixes that negate the word after them, also as a compound's first part
#: ("non-binding", "contra-indicated").
NEGATING_PREFIXES = ("non", "un", "in", "im", "il", "ir", "dis", "anti", "contra")
#: Prefixes that negate a whole word but are no compound's first part:
#: "asymptomatic", "afebrile", "anaerobic". Only before a word of
#: :data:`_NEGATED_WORD_MIN` letters or more: "avoid", "alive" and "about"
#: are other words.
WORD_PREFIXES = ("a", "an")
_NEGATED_WORD_MIN = 5
#: Words that look negated and are not: "inflammable" burns as "flammable"
#: does, "invaluable" is worth more than "valuable".
_SAME_SENSE = frozenset(
    "inflammable invaluable infamous unloose unloosen unravel disannul irregardless".split())


#: The prefixes read as a negation between two words that are not aligned
#: (a paraphrase and its passage): those whose words are rarely other words
#: ("disease" is no negated "ease", "inform" no negated "form", "antibody"
#: no negated "body"), before a word of four letters or more ("unit" is no
#: negated "it").
UNAMBIGUOUS_PREFIXES = ("non", "un", "contra", "a", "an")
_UNALIGNED_WORD_MIN = 4


def negated_by_prefix(short: str, long: str, *, aligned: bool = True) -> bool:
    """Whether ``long`` is ``short`` with a negating prefix ("nonrefundable",
    "contraindicated", "asymptomatic"). Both folded to lower case.

    ``aligned``: the two words stand in each other's place (a quote's word
    for its source's), so any negating prefix counts; otherwise only
    :data:`UNAMBIGUOUS_PREFIXES`."""
    if len(long) <= len(short) or not long.endswith(short) or long in _SAME_SENSE:
        return False
    prefix = long[: len(long) - len(short)]
    if not aligned and (prefix not in UNAMBIGUOUS_PREFIXES or len(short) < _UNALIGNED_WORD_MIN):
        return False
    return prefix in NEGATING_PREFIXES or (
        prefix in WORD_PREFIXES and len(short) >= _NEGATED_WORD_MIN
    )
