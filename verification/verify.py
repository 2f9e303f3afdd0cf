"""Verify one answer against the sources that were injected into its prompt:
walk its quotes, markers and sentences, give each quote and marker its check
(``quote_checks.py``) and each sentence its passages and facts
(``paraphrase.py``), and add the citations up into the report."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from .config import VerificationConfig
from .coverage import is_claim
from .markers import MarkerGroup, parse_markers
from .paraphrase import support_sentence
from .pool import Source, SourcePool
from .quote_checks import check_quote, citation, fabricated_marker
from .quotes import Quote, parse_quotes
from .reasons import coverage_sentence, reason_sentence
from .reasons import verdict as reasons_verdict
from .report import (
    OUTCOMES,
    SENTENCE_STATUSES,
    Citation,
    Report,
    SentenceResult,
    SentenceStatus,
    attributes,
)
from .sentences import split_sentences

__all__ = ["Source", "coverage_sentence", "reason_sentence", "verify_answer"]


def _as_sources(sources: Sequence[Source] | Mapping[str, str]) -> list[Source]:
    if isinstance(sources, Mapping):
        return [Source(marker=k, text=v) for k, v in sources.items()]
    return list(sources)


def verify_answer(
    answer: str,
    sources: Sequence[Source] | Mapping[str, str],
    *,
    config: VerificationConfig = VerificationConfig(),
    answer_id: str | None = None,
) -> Report:
    """Check ``answer``'s markers, quotes and coverage against ``sources``.

    ``sources`` is a sequence of :class:`Source` or a ``{marker: text}``
    mapping. Deterministic and side-effect free.

    >>> report = verify_answer(
    ...     'The plan says "Employer match vests after two years" [S1].',
    ...     {"S1": "Employer  match vests after\\ntwo years of ser-\\nvice."},
    ... )
    >>> report.verdict, report.citations[0].outcome
    ('pass', 'verified')
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be str, not {type(answer).__name__}")
    started = time.perf_counter()
    pool = SourcePool(_as_sources(sources), config)

    quotes = parse_quotes(answer)
    protected = [(q.outer_start, q.outer_end) for q in quotes]
    groups = tuple(g for g in parse_markers(answer, config=config, exclude=protected)
                   if not _is_year_in_brackets(g, pool))
    spans = split_sentences(answer, protected=protected, markers=groups)

    results: list[SentenceResult] = []
    for index, span in enumerate(spans):
        in_sentence_quotes = [q for q in quotes if span.start <= q.outer_start < span.end]
        in_sentence_groups = [g for g in groups if span.start <= g.start < span.end]
        claim = is_claim(span.text, has_quote=bool(in_sentence_quotes))
        citations = support_sentence(
            answer, span, in_sentence_quotes, in_sentence_groups,
            _check_sentence(answer, in_sentence_quotes, in_sentence_groups, pool, config),
            pool, config, claim=claim,
        )
        is_attributed = attributes(citations)
        results.append(
            SentenceResult(
                index=index,
                start=span.start,
                end=span.end,
                text=span.text,
                claim=claim,
                status=_sentence_status(citations, claim=claim, attributed=is_attributed),
                citations=tuple(citations),
            )
        )

    counts: Counter[str] = Counter({outcome: 0 for outcome in OUTCOMES})
    counts["uncited-claim"] = 0
    counts["superseded"] = 0
    claims = attributed = 0
    for sentence in results:
        counts["superseded"] += sum(
            c.superseded for c in sentence.citations if c.outcome != "fabricated-marker"
        )
        counts.update(c.outcome for c in sentence.citations)
        # One definition for the count and the coverage: not the status, which
        # shows the worst citation (an unattributed quote) instead.
        counts["uncited-claim"] += sentence.uncited_claim
        claims += sentence.claim
        attributed += sentence.claim and sentence.attributed
    coverage = attributed / claims if claims else 1.0
    verdict, reasons = reasons_verdict(counts, coverage, config)
    return Report(
        id=answer_id,
        verdict=verdict,
        counts=dict(counts),
        coverage=coverage,
        claims=claims,
        attributed_claims=attributed,
        threshold=config.threshold,
        sentences=tuple(results),
        reasons=reasons,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


#: A year from 1500 to 2099, as in the neutral citation "[2019] EWCA Civ 1".
_YEAR = re.compile(r"(?:1[5-9]|20)\d\d")


def _is_year_in_brackets(group: MarkerGroup, pool: SourcePool) -> bool:
    """Whether ``group`` is a bracketed year rather than a marker: legal
    answers cite cases as "[2019] UKSC 12", which would otherwise be reported
    as a fabricated marker. A source labelled with that number keeps it a
    marker."""
    return all(_YEAR.fullmatch(label) and label not in pool for label in group.labels)


def _check_sentence(
    answer: str,
    quotes: list[Quote],
    groups: list[MarkerGroup],
    pool: SourcePool,
    config: VerificationConfig,
) -> list[Citation]:
    citations: list[Citation] = []
    used: set[int] = set()
    for quote in quotes:
        group = _attribution(quote, groups)
        if group is not None:
            used.add(group.start)
        citations.extend(check_quote(answer, quote, group, pool, config))
    for group in groups:
        if group.start in used:
            continue
        for label in group.labels:
            if label in pool:
                citations.append(citation(
                    "unquoted", label, group, None, None,
                    message=f"marker [{label}] is a valid source; nothing quoted to check",
                    pool=pool,
                ))
            else:
                citations.append(fabricated_marker(label, group, pool))
    citations.sort(key=lambda c: (c.quote_start if c.quote_start is not None
                                  else c.marker_start or 0))
    return citations


def _attribution(quote: Quote, groups: list[MarkerGroup]) -> MarkerGroup | None:
    """The marker group that follows the quote in its sentence, else the one
    just before it."""
    after = [g for g in groups if g.start >= quote.outer_end]
    if after:
        return after[0]
    before = [g for g in groups if g.end <= quote.outer_start]
    return before[-1] if before else None


#: Each sentence status's place in SENTENCE_STATUSES (worst first).
_STATUS_RANK: Mapping[str, int] = MappingProxyType(
    {status: i for i, status in enumerate(SENTENCE_STATUSES)}
)


def _sentence_status(
    citations: Sequence[Citation], *, claim: bool, attributed: bool
) -> SentenceStatus:
    if citations:
        rank = _STATUS_RANK
        worst: SentenceStatus = min((c.outcome for c in citations), key=rank.__getitem__)
        if claim and not attributed and rank[worst] > rank["uncited-claim"]:
            return "uncited-claim"
        return worst
    return "uncited-claim" if claim else "no-claim"
