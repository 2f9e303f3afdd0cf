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
from collections.abc import Sequence

from .claims import ClaimFinding, Evidence, check_claim
from .config import VerificationConfig
from .markers import MarkerGroup
from .passage import Passage, content_terms, locate_passage, source_sentences
from .pool import SourcePool
from .quotes import Quote
from .report import Citation, Outcome
from .sentences import SentenceSpan

__all__ = ["support_sentence"]

#: Outcomes a finding may turn into ``claim-mismatch``: the citation's own
#: check passed, so the finding is news. A failing citation keeps its outcome.
_PASSING: frozenset[Outcome] = frozenset({"verified", "verified-fuzzy", "unquoted"})
#: Content words a sentence needs before a source sharing none of them says
#: anything: "See [S1]." asserts nothing to support. A source sharing two or
#: more distinct words with it is one of several a sentence draws on ("…
#: 90 days' notice and liability is capped at a year of fees [C1-C2]"), not
#: unrelated.
_MIN_TERMS_FOR_UNSUPPORTED = 3
#: Characters of the source around a quote's match split into sentences.
_AROUND_MATCH = 800


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
) -> tuple[str, Passage] | None:
    if citation.outcome in ("verified", "verified-fuzzy") and citation.source_marker:
        label = citation.source_marker
        assert citation.chunk_start is not None and citation.chunk_end is not None
        text = pool.by_label[label].text
        region = source_sentences(text, start=max(0, citation.chunk_start - _AROUND_MATCH),
                                  end=min(len(text), citation.chunk_end + _AROUND_MATCH))
        passage = locate_passage(claim, region, within=(citation.chunk_start,
                                                        citation.chunk_end))
        if passage is None:
            # A quote with no content words of its own: its match is the passage.
            passage = Passage(citation.chunk_start, citation.chunk_end, 1.0, (), ())
        return label, passage
    if citation.outcome == "unquoted" and citation.marker and citation.marker in pool:
        passage = locate_passage(claim, pool.sentences(citation.marker))
        return (citation.marker, passage) if passage is not None else None
    return None


def support_sentence(
    answer: str,
    span: SentenceSpan,
    quotes: Sequence[Quote],
    groups: Sequence[MarkerGroup],
    citations: Sequence[Citation],
    pool: SourcePool,
    config: VerificationConfig,
) -> list[Citation]:
    """``citations`` of one sentence with their passages, support and claim
    findings, and the outcomes those change."""
    if not config.check_claims or not citations:
        return list(citations)
    own = own_words(span, quotes, groups)
    claim = " ".join(answer[s:e] for s, e in own)
    located: list[tuple[Citation, str, Passage] | None] = []
    for citation in citations:
        found = _passage_for(citation, claim, pool)
        located.append((citation, *found) if found is not None else None)

    evidence = [Evidence(label, pool.by_label[label].text, p.source_start, p.source_end)
                for item in located if item is not None for _, label, p in [item]]
    findings = check_claim(answer, own, _distinct(evidence),
                           absent=not quotes) if evidence else ()

    updated: list[Citation] = []
    claim_terms = len(content_terms(claim))
    first_with_passage = next((i for i, item in enumerate(located) if item is not None), None)
    for index, citation in enumerate(citations):
        item = located[index]
        if item is None:
            updated.append(citation)
            continue
        _, label, passage = item
        mine = tuple(f for f in findings if _belongs(f, label, index == first_with_passage))
        origin = pool.by_label[label]
        in_document = origin.document is not None
        outcome, message = citation.outcome, citation.message
        if mine and outcome in _PASSING:
            outcome = "claim-mismatch"
            message = "; ".join(f.message for f in mine)
        elif (outcome == "unquoted" and passage.support < config.min_support
              and claim_terms >= _MIN_TERMS_FOR_UNSUPPORTED
              and len({key for key in _shared_keys(passage, origin.text)}) <= 1):
            outcome = "claim-unsupported"
            message = (f"the cited source [{label}] shares almost nothing with the sentence: "
                       f"its best passage holds {passage.support:.0%} of the sentence's content "
                       f"words (minimum {config.min_support:.0%})")
        elif outcome == "unquoted":
            message = (f"marker [{label}] is a valid source; no quote: its likely passage holds "
                       f"{passage.support:.0%} of the sentence's content words, and the "
                       "sentence's numbers, names and negations agree with it")
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


def _shared_keys(passage: Passage, text: str) -> set[str]:
    return {text[s:e].casefold() for s, e in passage.shared}


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
