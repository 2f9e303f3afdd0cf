"""The passage behind every cited sentence, and the sentence's own facts
checked against it.

Runs after a sentence's markers and quotes are checked. An unquoted citation
gets the passage of its source that best supports the sentence
(:func:`~verification.passage.locate_passage`); a faithful quote keeps its
match and gets the source's sentences around it. Then what the sentence says
in its own words (outside its quotes and markers) is compared with all of its
passages together (:func:`~verification.claims.check_claim`): a finding turns
the citation it points at into ``claim-mismatch``. An unquoted citation whose
source shares almost nothing with the sentence is ``claim-unsupported``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from .claims import ClaimFinding, Evidence, check_claim
from .config import VerificationConfig
from .markers import MarkerGroup
from .passage import Passage, content_terms, locate_passage, passage_around
from .pool import SourcePool
from .quotes import Quote
from .report import Citation, Outcome
from .sentences import SentenceSpan

__all__ = ["support_sentence"]

#: Outcomes a finding may turn into ``claim-mismatch``: the citation's own
#: check passed, so the finding is news. A failing citation keeps its outcome.
_PASSING: frozenset[Outcome] = frozenset({"verified", "verified-fuzzy", "unquoted"})
#: Words up to which a capitalised quote names something (a title, a term)
#: rather than quotes evidence.
_NAME_QUOTE_WORDS = 4


def names_a_thing(quote: str) -> bool:
    """Whether a quote is a name, not evidence: a few words that begin with a
    capital ('the album "Emotive"', '"Never Be Like You"'). "two years of
    service" is a few words of evidence."""
    words = quote.split()
    return 0 < len(words) <= _NAME_QUOTE_WORDS and words[0][:1].isupper()
#: Content words a sentence needs before a source sharing none of them says
#: anything: "See [S1]." asserts nothing to support.
_MIN_TERMS_FOR_UNSUPPORTED = 3


def own_words(span: SentenceSpan, quotes: Sequence[Quote],
              groups: Sequence[MarkerGroup]) -> list[tuple[int, int]]:
    """The ranges of the answer in ``span`` that are the sentence's own words:
    the sentence less its quotes and markers."""
    cuts = sorted([(q.outer_start, q.outer_end) for q in quotes]
                  + [(g.start, g.end) for g in groups])
    ranges, position = [], span.start
    for start, end in cuts:
        if start > position:
            ranges.append((position, min(start, span.end)))
        position = max(position, end)
    if position < span.end:
        ranges.append((position, span.end))
    return [(s, e) for s, e in ranges if e > s]


def _passage_for(
    citation: Citation, claim: str, pool: SourcePool
) -> tuple[str, Passage | None] | None:
    """The citation's source label and passage; ``(label, None)`` for an
    unquoted citation whose source shares no content word with the claim."""
    if (citation.quote is not None and names_a_thing(citation.quote)
            and citation.outcome in ("verified", "verified-fuzzy", "quote-not-found")):
        # A quote of a few words is a title or a term ('the album "Emotive"'),
        # not the evidence: the sentence's words locate its passage.
        label = citation.source_marker or citation.marker
        if label and label in pool:
            return label, _locate(claim, label, pool)
    if citation.outcome in ("verified", "verified-fuzzy") and citation.source_marker:
        label = citation.source_marker
        assert citation.chunk_start is not None and citation.chunk_end is not None
        passage = passage_around(pool.by_label[label].text, citation.chunk_start,
                                 citation.chunk_end)
        return label, passage
    if (citation.outcome == "quote-not-found" and citation.closest_marker
            and citation.closest_start is not None and citation.closest_end is not None):
        # A quote that is not there: the sentences around its closest window.
        # (Locating a passage would split and weigh the whole source for each
        # not-found quote: twice the cost of the answer's checks, measured.)
        return citation.closest_marker, passage_around(
            pool.by_label[citation.closest_marker].text, citation.closest_start,
            citation.closest_end)
    if citation.outcome == "unquoted" and citation.marker and citation.marker in pool:
        return citation.marker, _locate(claim, citation.marker, pool)
    return None


def _locate(claim: str, label: str, pool: SourcePool) -> Passage | None:
    sentences = pool.sentences(label)
    return locate_passage(claim, sentences) if sentences is not None else None


def support_sentence(
    answer: str,
    span: SentenceSpan,
    quotes: Sequence[Quote],
    groups: Sequence[MarkerGroup],
    citations: Sequence[Citation],
    pool: SourcePool,
    config: VerificationConfig,
    *,
    claim: bool = True,
) -> list[Citation]:
    """``citations`` of one sentence with their passages, support and claim
    findings, and the outcomes those change. ``claim``: whether the sentence
    asserts a fact (a framing sentence is never ``claim-unsupported``)."""
    if not config.check_claims or not citations:
        return list(citations)
    own = own_words(span, quotes, groups)
    # Passages are located with everything the sentence says, quotes
    # included; its facts are checked in its own words only.
    said = " ".join(answer[s:e] for s, e in own_words(span, (), groups))
    located = [_passage_for(citation, said, pool) for citation in citations]

    evidence = [Evidence(item[0], pool.by_label[item[0]].text, item[1].source_start,
                         item[1].source_end, functools.partial(pool.facts, item[0]))
                for item in located if item is not None and item[1] is not None]
    # A sentence whose quotes only name things ("the album “Emotive”") is a
    # paraphrase: what its own words say nothing supports is a finding too.
    paraphrase = all(names_a_thing(q.text) for q in quotes)
    findings = check_claim(answer, own, _distinct(evidence), absent=paraphrase,
                           checks=config.claim_checks) if evidence else ()

    unsupported_possible = (claim and not quotes
                            and any(c.outcome == "unquoted" for c in citations)
                            and len(content_terms(said)) >= _MIN_TERMS_FOR_UNSUPPORTED)
    first_with_passage = next((i for i, item in enumerate(located)
                               if item is not None and item[1] is not None), None)
    updated: list[Citation] = []
    for index, citation in enumerate(citations):
        item = located[index]
        if item is None:
            updated.append(citation)
            continue
        label, passage = item
        if passage is None and label in pool.unsplit:
            # Not located, not "shares nothing": say so, and check nothing.
            updated.append(dataclasses.replace(citation, message=(
                f"{citation.message}; its passage was not located: splitting [{label}] into "
                "sentences would take this answer past its work budget "
                "(fewer or shorter sources, or a quote, would let it)")))
            continue
        if (unsupported_possible and citation.outcome == "unquoted"
                and _shares_almost_nothing(passage, config)):
            # With no passage, every content word of the sentence is missing.
            missing = (passage.missing if passage is not None else
                       tuple(dict.fromkeys(t.text for t in content_terms(said))))
            citation = dataclasses.replace(
                citation, outcome="claim-unsupported",
                message=_unsupported_message(label, passage, config),
                support=passage.support if passage is not None else 0.0,
                missing=missing)
        if passage is None:
            updated.append(citation)
            continue
        mine = tuple(f for f in findings if _belongs(f, label, index == first_with_passage))
        outcome, message = citation.outcome, citation.message
        if mine and outcome in _PASSING:
            outcome = "claim-mismatch"
            message = "; ".join(f.message for f in mine)
        elif outcome == "unquoted":
            message = (f"marker [{label}] is a valid source; no quote: its likely passage "
                       f"holds {passage.support or 0:.0%} of the sentence's content words, and "
                       "nothing the sentence says in numbers, negations, quantifiers, order or "
                       "names contradicts it")
        origin = pool.by_label[label]
        in_document = origin.document is not None
        updated.append(dataclasses.replace(
            citation,
            outcome=outcome,
            message=message,
            passage_start=passage.source_start,
            passage_end=passage.source_end,
            passage_document_start=(origin.document_offset + passage.source_start
                                    if in_document else None),
            passage_document_end=(origin.document_offset + passage.source_end
                                  if in_document else None),
            support=passage.support,
            shared=passage.shared,
            missing=passage.missing,
            findings=mine,
        ))
    return updated


def _shares_almost_nothing(passage: Passage | None, config: VerificationConfig) -> bool:
    """No passage of the source shares a content word with the sentence, or
    the best holds less than the surface's ``min_support``. (Flagging one
    shared word under a tenth of the weight too found no more changed claims
    on WiCE or ExpertQA and raised ExpertQA's false alarms by 0.6 points: a
    sentence drawing on a section the chunk barely touches is common.)"""
    if passage is None:
        return True
    return passage.support is not None and passage.support < config.min_support


def _unsupported_message(label: str, passage: Passage | None,
                         config: VerificationConfig) -> str:
    if passage is None or passage.support is None:
        return f"the cited source [{label}] shares none of the sentence's content words"
    floor = (f" (minimum {config.min_support:.0%})" if passage.support < config.min_support
             else "")
    return (f"the cited source [{label}] shares almost nothing with the sentence: its best "
            f"passage holds {passage.support:.0%} of the sentence's content words{floor}")


def _distinct(evidence: list[Evidence]) -> list[Evidence]:
    seen, kept = set(), []
    for item in evidence:
        key = (item.marker, item.start, item.end)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _belongs(finding: ClaimFinding, label: str, first: bool) -> bool:
    """A finding with a counterpart belongs to the citation whose passage
    holds it; one without (nothing says it) to the sentence's first citation
    with a passage."""
    if finding.source_marker is not None:
        return finding.source_marker == label
    return first
