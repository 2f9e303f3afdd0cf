"""A quote checked against the sources its markers cite, and the citation
that says how it went: verified (as it stands, or across the letters OCR
misread in a scanned source), altered, not found, found in another source,
or quoted with no marker. Also the citation of a marker that quotes nothing
and of a fabricated marker. ``verify.py`` walks the answer and calls these
for each quote and marker; the finding itself is ``finding.py``'s, the
wording ``reasons.py``'s."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from .config import VerificationConfig
from .finding import Found, find, find_as_ocr_read, letters, verbatim_elsewhere
from .markers import MarkerGroup
from .matching import Difference, words_between
from .normalize import NormalizedText, explain, normalize
from .ocr import Misread
from .pool import SourcePool
from .quotes import Quote
from .reasons import (
    bracketed_labels,
    describe_differences,
    found_where,
    negations_as_said,
    score_text,
    threshold_text,
)
from .report import Citation, Outcome

__all__ = ["check_quote", "citation", "fabricated_marker"]


def citation(
    outcome: Outcome,
    marker: str | None,
    group: MarkerGroup | None,
    quote: Quote | None,
    found: Found | None,
    *,
    message: str,
    markers: tuple[str, ...] | None = None,
    normalizations: tuple[str, ...] = (),
    score: float | None = None,
    closest: Found | None = None,
    pool: SourcePool,
) -> Citation:
    """The citation of ``marker`` (in ``group``) with ``outcome``: where its
    quote is in the answer and, when it was ``found``, in the source and its
    document; ``closest`` is the cited source's nearest window to a quote
    that is not there. ``markers`` defaults to the group's labels."""
    label = found.label if found else marker
    origin = pool.by_label.get(label) if label else None
    in_document = origin is not None and origin.document is not None
    return Citation(
        outcome=outcome,
        marker=marker,
        markers=markers if markers is not None else (group.labels if group else ()),
        marker_start=group.start if group else None,
        marker_end=group.end if group else None,
        quote=quote.text if quote else None,
        quote_start=quote.start if quote else None,
        quote_end=quote.end if quote else None,
        score=found.alignment.score if found else score,
        source_marker=found.label if found else None,
        chunk_start=found.alignment.source_start if found else None,
        chunk_end=found.alignment.source_end if found else None,
        message=message,
        normalizations=normalizations,
        differences=found.differences if found else (),
        document=origin.document if origin is not None else None,
        document_start=(origin.document_offset + found.alignment.source_start
                        if found and origin is not None and in_document else None),
        document_end=(origin.document_offset + found.alignment.source_end
                      if found and origin is not None and in_document else None),
        superseded=origin.superseded if origin is not None else False,
        closest_marker=closest.label if closest else None,
        closest_start=closest.alignment.source_start if closest else None,
        closest_end=closest.alignment.source_end if closest else None,
        closest_score=closest.alignment.score if closest else None,
    )


def fabricated_marker(
    label: str, group: MarkerGroup | None, pool: SourcePool, quote: Quote | None = None,
    found: Found | None = None,
) -> Citation:
    """A marker that was never injected (``group`` is None for a quote block
    naming one), with where the quote really is when it was ``found``."""
    where = f"; the quote appears in {found_where(found, pool)}" if found else ""
    if group is None:
        return citation(
            "fabricated-marker", label, None, quote, found, markers=(label,),
            message=f"quote block names source [{label}], which was not among the "
            f"sources (injected: {pool.injected()}){where}", pool=pool,
        )
    return citation(
        "fabricated-marker", label, group, quote, found,
        message=f"marker [{label}] was not among the sources (injected: {pool.injected()})"
        f"{where}", pool=pool,
    )


_ANSWER_WORDS = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*|[.;:!?]")
_ANSWER_NEGATIONS = frozenset(("not", "no", "never", "without", "cannot", "nor", "neither"))


def _negates(words: list[str]) -> bool:
    return any(w.lower() in _ANSWER_NEGATIONS or w.lower().endswith(("n't", "n\u2019t"))
               for w in words)


def _answer_context(answer: str, quote: Quote, found: Found | None) -> Found | None:
    """Drop a "left out the negation" finding that the answer's own words
    settle, next to the quote.

    The answer says the negation itself: 'if a breach is not remedied "within
    30 days"' quotes "does not remedy it within 30 days" faithfully. Or the
    negation stands a word or two before the quoted words, and the answer does
    not repeat those words: 'forms go to "the regional office any forms…"'
    does not say "send to", which is what "Do not send to" negates; 'if a
    breach is remedied "within 30 days"' does say "remedy", and is altered.
    """
    if found is None or not any(d.op in ("omit-before", "omit-after")
                                for d in found.differences):
        return found
    before = _ANSWER_WORDS.findall(answer[max(0, quote.outer_start - 80) : quote.outer_start])
    after = _ANSWER_WORDS.findall(answer[quote.outer_end : quote.outer_end + 40])
    clause_before: list[str] = []
    for word in reversed(before[-6:]):
        if word in ".;:!?":
            break
        clause_before.append(word.lower().replace("\u2019", "'"))
    kept = tuple(
        d for d in found.differences
        if not (d.op == "omit-before" and (_negates(clause_before[:4]) or not all(
            any(_same_stem(word, said) for said in clause_before)
            for word in words_between(d))))
        and not (d.op == "omit-after" and _negates(after[:2]))
    )
    return dataclasses.replace(found, differences=kept)


def _same_stem(word: str, said: str) -> bool:
    """Whether the answer's ``said`` is ``word`` or another form of it
    ("remedied" for "remedy", "sending" for "send")."""
    if word == said:
        return True
    shared = 0
    for a, b in zip(word, said, strict=False):
        if a != b:
            break
        shared += 1
    return shared >= 3 and shared >= min(len(word), len(said)) - 2


def check_quote(
    answer: str,
    quote: Quote, group: MarkerGroup | None, pool: SourcePool, config: VerificationConfig
) -> list[Citation]:
    """The citations of ``quote``, attributed to marker ``group`` (or to
    none): one for each fabricated marker it names, and its verdict against
    the sources its valid markers cite, or, when it cites none, where among
    all the sources it appears."""
    cited: list[str] = []
    if quote.source is not None:
        cited.append(quote.source)
    if group is not None:
        cited.extend(label for label in group.labels if label not in cited)
    valid = [label for label in cited if label in pool]
    fabricated = [label for label in cited if label not in pool]

    def fabrications(found: Found | None = None) -> list[Citation]:
        return [fabricated_marker(label, group if group is not None and label in group.labels
                                  else None, pool, quote, found) for label in fabricated]

    citations = fabrications()

    normalized_quote = normalize(quote.text)
    folds = explain(quote.text)
    if not normalized_quote.text:
        return citations
    markers = tuple(cited)
    threshold = config.threshold

    moved: Found | None = None
    if valid:
        found, best_score = find(
            normalized_quote, valid, pool, cutoff=0.0, threshold=threshold
        )
        found = _answer_context(answer, quote, found)
        if found is not None and found.alignment.score >= threshold and not found.altered:
            if not found.alignment.exact and any(
                    letters(d.source) != letters(d.quote) for d in found.differences):
                # Verbatim in another source beats fuzzy in the cited one. (A
                # quote that differs only in spacing or punctuation is the
                # cited source's words: not worth folding every other source.)
                moved = verbatim_elsewhere(
                    normalized_quote, [label for label in pool.by_label if label not in valid],
                    pool,
                )
            if moved is None and not found.alignment.exact:
                # Above the threshold as the OCR read it ("modem" for the
                # printed "modern" in a sentence), the difference is still
                # the OCR's: say so, or "“modern” for “modem”" reads as a
                # word the quote changed.
                as_read = _as_ocr_read(answer, quote, normalized_quote, [found.label], found,
                                       pool, threshold)
                if (as_read is not None and not as_read[0].altered
                        and as_read[0].alignment.score >= found.alignment.score):
                    citations.append(_ocr_citation(quote, group, markers, found, as_read[0],
                                                   as_read[1], folds, pool, threshold))
                    return citations
            if moved is None:
                outcome: Outcome = "verified" if found.alignment.exact else "verified-fuzzy"
                source_folds = explain(pool.by_label[found.label].text[
                    found.alignment.source_start:found.alignment.source_end])
                if found.letter_spaced:
                    source_folds += ("letter-spacing",)
                # Repairs compare() named ("spacing", "footnote-marker").
                source_folds += tuple(d.repair for d in found.differences if d.repair)
                message = (
                    f"quote found in [{found.label}] after normalisation"
                    if found.alignment.exact
                    else f"quote matches [{found.label}] at "
                    f"{score_text(found.alignment.score, threshold)} "
                    f"(threshold {threshold_text(threshold)}): "
                    + describe_differences(found.differences,
                                           said=negations_as_said(found, pool))
                )
                citations.append(citation(
                    outcome, found.label, group, quote, found, markers=markers, message=message,
                    normalizations=tuple(dict.fromkeys(folds + source_folds)), pool=pool,
                ))
                return citations
        if moved is None and found is not None:
            as_read = _as_ocr_read(answer, quote, normalized_quote, valid, found, pool, threshold)
            if as_read is not None and not as_read[0].altered:
                respelt, misreads = as_read
                moved = verbatim_elsewhere(
                    normalized_quote, [label for label in pool.by_label if label not in valid],
                    pool,
                )
                if moved is None:
                    citations.append(_ocr_citation(quote, group, markers, found, respelt,
                                                   misreads, folds, pool, threshold))
                    return citations
            elif as_read is not None:
                # Altered once the misreads are set aside: the change that
                # remains (a figure, a negation, another name) is the finding.
                found = as_read[0]
        cited_best = found
    else:
        cited_best, best_score = None, 0.0

    elsewhere = moved
    if elsewhere is None:
        others = [label for label in pool.by_label if label not in valid]
        screened = pool.candidates(normalized_quote.text, others, cutoff=threshold)
        # The screen aligns on the raw fold, where a near-duplicate passage can
        # outscore the source that holds the quote verbatim (a chunk cut off
        # mid-word, say): the verbatim lookup tries every other source.
        elsewhere, _ = find(
            normalized_quote, screened, pool, cutoff=threshold, threshold=threshold,
            exact_in=others,
        )
        elsewhere = _answer_context(answer, quote, elsewhere)
    if _reportable(elsewhere, cited_best, threshold):
        assert elsewhere is not None
        if cited and not valid:
            # Every marker was fabricated: those citations say where the quote
            # is, rather than a wrong-source verdict counting the quote twice.
            return fabrications(elsewhere)
        if not cited:
            outcome, message = "unattributed-quote", (
                f"the quote carries no marker; it appears in {found_where(elsewhere, pool)}"
            )
        else:
            outcome, message = "wrong-source", (
                f"the quote cites {bracketed_labels(cited)} but appears in "
                f"{found_where(elsewhere, pool)}"
            )
        citations.append(citation(
            outcome, valid[0] if valid else None, group, quote, elsewhere,
            markers=markers, message=message, normalizations=folds, pool=pool,
            # The cited source's closest window, for a reviewer to compare.
            closest=_closest(cited_best) if outcome == "wrong-source" else None,
        ))
        return citations

    if not cited:
        citations.append(citation(
            "unattributed-quote", None, None, quote, None, markers=(),
            message="the quote carries no marker and appears in none of the sources", pool=pool,
        ))
    elif not valid:
        pass  # every marker was fabricated: those citations already carry the quote
    elif cited_best is not None and (cited_best.alignment.score >= threshold
                                     or cited_best.altered):  # a word swapped: word_swap()
        citations.append(citation(
            "quote-altered", cited_best.label, group, quote, cited_best, markers=markers,
            message=f"the quote aligns with [{cited_best.label}] at "
            f"{cited_best.alignment.score:.2f} but changes its meaning: "
            + describe_differences(cited_best.differences, meaning_only=True,
                                   said=negations_as_said(cited_best, pool)),
            normalizations=folds, pool=pool,
        ))
    else:
        citations.append(citation(
            "quote-not-found", valid[0] if valid else None, group, quote, None,
            markers=markers, score=best_score, closest=_closest(cited_best),
            message=f"the quote does not appear in {bracketed_labels(valid or cited)} "
            f"(best similarity {best_score:.3f}, threshold {threshold:.3f})", pool=pool,
        ))
    return citations


def _as_ocr_read(
    answer: str, quote: Quote, normalized_quote: NormalizedText, valid: Sequence[str],
    found: Found, pool: SourcePool, threshold: float,
) -> tuple[Found, tuple[Misread, ...]] | None:
    """The quote found again with the words OCR misread in a cited source
    put as the OCR read them, when that verifies it or shows what else it
    alters; None when no cited source was read by OCR there, or the quote
    still falls short. Only sources with OCR ranges are tried: a
    born-digital source is matched as it stands."""
    for label in valid:
        if not pool.by_label[label].ocr:
            continue
        best = found if found.label == label else find(
            normalized_quote, [label], pool, cutoff=0.0, threshold=threshold)[0]
        if best is None:
            continue
        as_read = find_as_ocr_read(normalized_quote, best, pool, threshold=threshold)
        if as_read is None:
            continue
        again = _answer_context(answer, quote, as_read[0])
        if again is not None and again.alignment.score >= threshold:
            return again, as_read[1]
    return None


def _ocr_citation(
    quote: Quote, group: MarkerGroup | None, markers: tuple[str, ...], as_printed: Found,
    found: Found, misreads: tuple[Misread, ...], folds: tuple[str, ...], pool: SourcePool,
    threshold: float,
) -> Citation:
    """A quote verified against text OCR read, once its misread words are
    read as the scan prints them: fuzzy, whatever the score, and saying which
    words and letters it leaned on, so a reviewer can check them on the page."""
    misread = tuple(Difference("replace", m.read, m.printed, (), "ocr-misread")
                    for m in misreads)
    rest = "" if found.alignment.exact else (
        "; otherwise "
        + describe_differences(found.differences, said=negations_as_said(found, pool)))
    message = (
        f"the cited text came from OCR: the quote matches [{found.label}] at "
        f"{score_text(found.alignment.score, threshold)} (threshold "
        f"{threshold_text(threshold)}) with the letters OCR misread taken as printed: "
        f"{'; '.join(m.describe() for m in misreads)}{rest}; against the OCR's text as it "
        f"reads, {score_text(as_printed.alignment.score, threshold)}"
    )
    source_folds = explain(pool.by_label[found.label].text[
        found.alignment.source_start:found.alignment.source_end])
    repairs = tuple(d.repair for d in found.differences if d.repair)
    return citation(
        "verified-fuzzy", found.label, group, quote,
        dataclasses.replace(found, differences=misread + found.differences), markers=markers,
        message=message, normalizations=tuple(dict.fromkeys(
            folds + source_folds + repairs + ("ocr-misread",))), pool=pool,
    )


def _closest(found: Found | None) -> Found | None:
    """The cited source's best window, to show as the closest passage: the
    fuzzy path has already aligned it (with no cutoff), so this costs
    nothing. An empty window says nothing."""
    if found is None or found.alignment.source_end <= found.alignment.source_start:
        return None
    return found


def _context_only(found: Found) -> bool:
    """Whether all ``found`` changes is leave out a negation next to it."""
    return all(d.op in ("omit-before", "omit-after") for d in found.differences if d.reasons)


def _reportable(elsewhere: Found | None, cited: Found | None, threshold: float) -> bool:
    """Whether the quote's copy ``elsewhere`` is where the quote comes from.

    A faithful copy always is. A copy that only leaves out a negation next to
    it still says where the quote is (with that note), never "not found" --
    unless the cited source holds the quote as closely itself: then the
    quote is altered there."""
    if elsewhere is None or (elsewhere.altered and not _context_only(elsewhere)):
        return False
    if not elsewhere.altered or cited is None or cited.alignment.score < threshold:
        return True
    return elsewhere.alignment.exact and not cited.alignment.exact
