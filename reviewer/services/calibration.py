"""Calibration writes: drawing matches to label, labels, undo, settling.

Items are drawn from a surface's stored citations whose quote was aligned with
the cited source (verified, verified fuzzily, altered, or not found with a
closest window), stratified by score band around the surface's threshold
(:func:`verification.calibration.stratified_sample`), with exact matches and
clear misses mixed in as controls. Each becomes a ``CalibrationItem``: a
snapshot of the quote and the source window (see its model).

Claim items (``calibration_sample_claims``) are drawn from the surface's
stored ``claim-mismatch`` and ``claim-unsupported`` citations: one item per
finding of a mismatch (its check, the sentence's words and the passage's
counterpart), one per unsupported citation, taking citations in turn by check
so that every check's precision gets labels, not only the commonest one's.

A labeller labels an item once, with a label its kind takes (``KIND_LABELS``);
an item takes at most two labellers (the second one's label measures
agreement). Where two disagree, a supervisor settles the item; the settled
label is the one the calibration page counts.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from reviewer.models import (
    Answer,
    AnswerSource,
    CalibrationItem,
    CitationVerdict,
    MatchLabel,
    Surface,
)
from reviewer.models.calibration import LabelStep
from reviewer.selectors.sources import answers_sources
from reviewer.services.answers import verification_config
from verification import Citation, SentenceResult, canonical_label, normalize, verify_answer
from verification.calibration import bands_around, stratified_sample

__all__ = ["CLAIM_CHECKS", "CLAIM_OUTCOMES", "CONTEXT_CHARS", "LABELLERS_PER_ITEM",
           "SAMPLED_OUTCOMES", "LabelRefused", "calibration_sample", "calibration_sample_claims",
           "content_hash", "item_label", "item_settle", "item_skip", "label_record", "label_undo",
           "snapshot", "step_undo", "word_edges"]

#: Characters of the source shown either side of the aligned window.
CONTEXT_CHARS = 300
#: An item takes a first label and, optionally, a second labeller's.
LABELLERS_PER_ITEM = 2
#: Outcomes whose score says how well the quote aligned with the cited source:
#: the ones a threshold decides between. (Fabricated markers, wrong sources
#: and unattributed quotes are decided otherwise.)
SAMPLED_OUTCOMES = ("verified", "verified-fuzzy", "quote-altered", "quote-not-found")
#: The flags of the sentence check whose precision claim items measure.
CLAIM_OUTCOMES = ("claim-mismatch", "claim-unsupported")
#: A claim item's checks, in the order the calibration page lists them:
#: ``verification.claims``' checks, then a source sharing almost nothing.
CLAIM_CHECKS = ("number", "negation", "quantifier", "modal", "comparative", "entity",
                CalibrationItem.UNSUPPORTED)
#: Citations verified again per claim item wanted: enough to find the rarer
#: checks, bounded so an empty queue's draw stays quick.
_CLAIM_CANDIDATES_PER_ITEM = 3


class LabelRefused(Exception):
    """A label that cannot be recorded; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def content_hash(surface_name: str, quote: str, window: str) -> str:
    """One item per match: the surface, the quote and the source window, both
    normalised as verification compares them (case, spacing, curly quotes,
    ligatures, a hyphen at a line end), so that near-duplicates, the same
    quote and window as extracted or typed a little differently, are drawn
    once."""
    data = "\0".join((surface_name, normalize(quote).text, normalize(window).text))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


#: Characters that join two parts of one word ("Part-time", "don't").
_JOINERS = "-\u2010\u2011'\u2019"
#: How far a window's edge moves to reach a word's edge, at most.
_WORD_REACH = 40


def _inside_word(text: str, at: int) -> bool:
    """Whether offset ``at`` of ``text`` falls inside a word (between two of
    its letters or digits, or beside a joiner between them)."""
    if at <= 0 or at >= len(text):
        return False
    left, right = text[at - 1], text[at]
    if left.isalnum() and right.isalnum():
        return True
    if left in _JOINERS and right.isalnum():
        return at >= 2 and text[at - 2].isalnum()
    if right in _JOINERS and left.isalnum():
        return at + 1 < len(text) and text[at + 1].isalnum()
    return False


def word_edges(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` widened to whole words: an aligned window that
    starts at "time" in "Part-time" starts at "Part" instead (a labeller
    would read the cut as a difference). An empty window stays as it is."""
    if end <= start:
        return start, end
    lo, hi = start, end
    while _inside_word(text, lo) and start - lo < _WORD_REACH:
        lo -= 1
    while _inside_word(text, hi) and hi - end < _WORD_REACH:
        hi += 1
    return lo, hi


def _edge_before(text: str, at: int, reach: int) -> int:
    """An offset at or before ``at`` (within ``reach`` more characters) on a
    word's edge, else the first one after it."""
    lo = at
    while _inside_word(text, lo) and at - lo < reach:
        lo -= 1
    if not _inside_word(text, lo):
        return lo
    while _inside_word(text, at):
        at += 1
    return at


def _edge_after(text: str, at: int, reach: int) -> int:
    hi = at
    while _inside_word(text, hi) and hi - at < reach:
        hi += 1
    if not _inside_word(text, hi):
        return hi
    while _inside_word(text, at):
        at -= 1
    return at


@dataclass(frozen=True)
class Snapshot:
    """What an item copies of a citation (see ``CalibrationItem``)."""

    source_text: str
    match_start: int
    match_end: int
    furniture: list[list[int]]


def snapshot(text: str, start: int, end: int, furniture: Sequence[Sequence[int]] = (),
             context: int = CONTEXT_CHARS) -> Snapshot:
    """``text[start:end]`` widened to whole words (``word_edges``) with
    about ``context`` characters either side, cut at a word's edge too; the
    window's offsets and the furniture inside, relative to the snapshot."""
    start, end = word_edges(text, start, end)
    lo = min(start, _edge_before(text, max(0, start - context), _WORD_REACH))
    hi = max(end, _edge_after(text, min(len(text), end + context), _WORD_REACH))
    inside = [[max(s, lo) - lo, min(e, hi) - lo] for s, e in furniture if s < hi and e > lo]
    return Snapshot(text[lo:hi], start - lo, end - lo, inside)


def _window(citation: dict[str, Any]) -> tuple[str, int, int, float, list[Any]] | None:
    """The cited source's window a citation's score measures, as (marker,
    start, end, score, pages): the match, or the closest window of a quote
    not found. None when there is none."""
    if citation["outcome"] == "quote-not-found":
        marker, start, end = (citation["closest_marker"], citation["closest_start"],
                              citation["closest_end"])
        score, pages = citation["closest_score"], citation["closest_pages"]
        if score is None:
            score = citation["score"]
    else:
        marker, start, end = (citation["source_marker"], citation["chunk_start"],
                              citation["chunk_end"])
        score, pages = citation["score"], citation["pages"]
    if not marker or start is None or end is None or end <= start or score is None:
        return None
    return marker, start, end, float(score), pages


_CITATION_FIELDS = ("id", "answer_id", "outcome", "quote", "score", "source_marker",
                    "chunk_start", "chunk_end", "pages", "closest_marker", "closest_start",
                    "closest_end", "closest_score", "closest_pages", "document_id")


def _item_fields(surface: Surface, citation: dict[str, Any],
                 sources: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    window = _window(citation)
    if window is None:
        return None
    marker, start, end, score, pages = window
    source = sources.get(canonical_label(marker))
    if source is None or end > len(source["text"]):
        return None
    shot = snapshot(source["text"], start, end, source["furniture"])
    return {
        "surface": surface, "citation_id": citation["id"], "answer_id": citation["answer_id"],
        "quote": citation["quote"], "source_text": shot.source_text,
        "match_start": shot.match_start, "match_end": shot.match_end,
        "furniture": shot.furniture, "source_marker": source["marker"], "score": score,
        "outcome": citation["outcome"], "threshold": surface.threshold,
        "content_hash": content_hash(
            surface.name, citation["quote"],
            shot.source_text[shot.match_start:shot.match_end]),
        "document_id": source["document_id"] if pages else None, "pages": pages or [],
    }


def calibration_sample(*, surface: Surface, size: int = 50, controls: float = 0.2,
                       seed: int | None = None) -> list[CalibrationItem]:
    """Draw up to ``size`` new items for ``surface`` from its stored
    citations that no item holds yet (see the module's docstring), and put
    them at the end of its queue in a shuffled order."""
    if size <= 0:
        return []
    taken = set(CalibrationItem.objects.filter(surface=surface, citation__isnull=False)
                .values_list("citation_id", flat=True))
    candidates = [
        (pk, score) for pk, score in CitationVerdict.objects.filter(
            answer__surface=surface, outcome__in=SAMPLED_OUTCOMES, superseded=False,
            answer__deleted_at__isnull=True)
        .exclude(quote="").values_list("id", "score")
        if pk not in taken and score is not None
    ]
    # Not-found quotes keep their best similarity in ``score`` too.
    if seed is None:
        seed = CalibrationItem.objects.filter(surface=surface).count()
    drawn = stratified_sample(candidates, bands=bands_around(surface.threshold), size=size,
                              controls=controls, seed=seed)
    strata = {item.id: item.stratum for item in drawn}
    citations = {row["id"]: row for row in CitationVerdict.objects.filter(
        pk__in=list(strata)).values(*_CITATION_FIELDS)}
    sources: dict[int, dict[str, dict[str, Any]]] = {}
    for row in AnswerSource.objects.filter(
            answer_id__in={c["answer_id"] for c in citations.values()}).values(
            "answer_id", "marker", "text", "furniture", "document_id", "document_start",
            "text_chars", "text_sha256"):
        sources.setdefault(row["answer_id"], {})[canonical_label(row["marker"])] = row
    created = []
    with transaction.atomic():
        position = (CalibrationItem.objects.filter(surface=surface)
                    .aggregate(last=Max("position"))["last"] or 0)
        seen = set(CalibrationItem.objects.filter(surface=surface).values_list(
            "content_hash", flat=True))
        for item in drawn:  # already shuffled
            citation = citations.get(item.id)
            fields = citation and _item_fields(surface, citation,
                                               sources.get(citation["answer_id"], {}))
            if not fields or fields["content_hash"] in seen:
                continue  # the same quote and window drawn already, from another answer
            seen.add(fields["content_hash"])
            position += 1
            created.append(CalibrationItem(**fields, stratum=strata[item.id], position=position))
        CalibrationItem.objects.bulk_create(created)
    return created


def _answer_citations(answer_ids: set[int], surface: Surface
                      ) -> dict[int, list[tuple[SentenceResult, Citation]]]:
    """Each answer's citations in stored order (``CitationVerdict.position``)
    with their sentences, from verifying it again in memory with its stored
    sources and threshold: a finding's two sides are in the report, not in
    the citation rows."""
    answers = Answer.objects.filter(pk__in=answer_ids).values("pk", "text", "threshold")
    sources = answers_sources(answer_ids)
    citations = {}
    for answer in answers:
        report = verify_answer(answer["text"], sources[answer["pk"]],
                               config=verification_config(surface,
                                                          threshold=answer["threshold"]))
        citations[answer["pk"]] = [(s, c) for s in report.sentences for c in s.citations]
    return citations


def _claim_items(surface: Surface, citation_id: int, answer_id: int, sentence: SentenceResult,
                 citation: Citation, sources: dict[str, dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """The items of one flagged citation: one per finding of a mismatch, one
    for an unsupported citation; none when its source is not stored."""
    marker = citation.source_marker or citation.marker
    source = sources.get(canonical_label(marker)) if marker else None
    if source is None:
        return []
    text = source["text"]
    start, end = citation.passage_start, citation.passage_end
    if citation.outcome == "claim-unsupported":
        sides = [(CalibrationItem.UNSUPPORTED, ", ".join(citation.missing), "")]
    else:
        sides = [(f.check, f.claim, f.passage or "") for f in citation.findings]
        if start is None and citation.findings:
            start, end = citation.findings[0].passage_start, citation.findings[0].passage_end
    if start is None or end is None or end > len(text):
        start = end = 0  # no passage: the source's opening, nothing marked
    shot = snapshot(text, start, end, source["furniture"])
    return [{
        "surface": surface, "kind": CalibrationItem.Kind.CLAIM, "citation_id": citation_id,
        "answer_id": answer_id, "quote": sentence.text, "source_text": shot.source_text,
        "match_start": shot.match_start, "match_end": shot.match_end,
        "furniture": shot.furniture, "source_marker": source["marker"],
        "score": citation.support or 0.0, "outcome": citation.outcome,
        "threshold": surface.threshold, "stratum": check, "claim_check": check,
        "claim": claim, "counterpart": counterpart,
        "content_hash": content_hash(surface.name, f"claim\0{check}\0{claim}\0{sentence.text}",
                                     f"{text[start:end]}\0{counterpart}"),
    } for check, claim, counterpart in sides]


def calibration_sample_claims(*, surface: Surface, size: int = 50, seed: int | None = None
                              ) -> list[CalibrationItem]:
    """Draw up to ``size`` new claim items for ``surface`` from its stored
    claim-flagged citations no item holds yet (see the module's docstring),
    and put them at the end of its queue in a shuffled order."""
    if size <= 0:
        return []
    if seed is None:
        seed = CalibrationItem.objects.filter(surface=surface).count()
    rng = random.Random(seed)
    candidates = list(
        CitationVerdict.objects.filter(answer__surface=surface, outcome__in=CLAIM_OUTCOMES,
                                       superseded=False, answer__deleted_at__isnull=True)
        .exclude(calibration_items__kind=CalibrationItem.Kind.CLAIM)
        .order_by("pk").values_list("id", "answer_id", "position", "outcome"))
    rng.shuffle(candidates)
    candidates = candidates[:size * _CLAIM_CANDIDATES_PER_ITEM]
    answer_ids = {answer_id for _, answer_id, _, _ in candidates}
    reports = _answer_citations(answer_ids, surface)
    sources: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for row in AnswerSource.objects.filter(answer_id__in=answer_ids).values(
            "answer_id", "marker", "text", "furniture", "document_id", "document_start",
            "text_chars", "text_sha256"):
        sources[row["answer_id"]][canonical_label(row["marker"])] = row
    by_check: dict[str, list[list[dict[str, Any]]]] = defaultdict(list)
    for citation_id, answer_id, position, outcome in candidates:
        found = reports.get(answer_id, [])
        if position >= len(found) or found[position][1].outcome != outcome:
            continue  # verified otherwise now (another library version): not this flag
        sentence, citation = found[position]
        items = _claim_items(surface, citation_id, answer_id, sentence, citation,
                             sources[answer_id])
        if items:
            by_check[items[0]["claim_check"]].append(items)
    # In turn by check, so the rarer checks are labelled too.
    chosen: list[dict[str, Any]] = []
    while len(chosen) < size and any(by_check.values()):
        for check in CLAIM_CHECKS:
            if by_check.get(check) and len(chosen) < size:
                chosen.extend(by_check[check].pop())
    rng.shuffle(chosen)
    created = []
    with transaction.atomic():
        position = (CalibrationItem.objects.filter(surface=surface)
                    .aggregate(last=Max("position"))["last"] or 0)
        seen = set(CalibrationItem.objects.filter(surface=surface).values_list(
            "content_hash", flat=True))
        for fields in chosen:
            if fields["content_hash"] in seen:
                continue  # the same flag on the same words, drawn from another answer
            seen.add(fields["content_hash"])
            position += 1
            created.append(CalibrationItem(**fields, position=position))
        CalibrationItem.objects.bulk_create(created)
    return created


def _labeller_name(user: Any) -> str:
    return str(user.get_username())


def label_record(*, item: CalibrationItem, labeller: Any, label: str) -> MatchLabel:
    """Record ``labeller``'s ``label`` of ``item``. Refused (``LabelRefused``)
    without the permission, for an unknown label, for a second label by the
    same person, and past :data:`LABELLERS_PER_ITEM` labellers."""
    if not labeller.has_perm("reviewer.label_matches"):
        raise PermissionDenied("labelling matches needs the calibrator role")
    if label not in item.label_choices:
        raise LabelRefused("unknown-label",
                           f"a label of this item is one of {', '.join(item.label_choices)}")
    name = _labeller_name(labeller)
    with transaction.atomic():
        locked = CalibrationItem.objects.select_for_update().get(pk=item.pk)
        labels = list(locked.labels.values_list("labeller_name", flat=True))
        if name in labels:
            raise LabelRefused("labelled-already", "you have labelled this match already")
        if len(labels) >= LABELLERS_PER_ITEM:
            raise LabelRefused("enough-labels", "this match has two labels already")
        try:
            with transaction.atomic():
                return MatchLabel.objects.create(
                    item=locked, citation_id=locked.citation_id, labeller=labeller,
                    labeller_name=name, label=label)
        except IntegrityError as error:  # the same person, from another tab
            raise LabelRefused("labelled-already",
                               "you have labelled this match already") from error


def label_undo(*, labeller: Any, label_id: int) -> CalibrationItem:
    """Take back one of ``labeller``'s own labels (the queue's **u**) and
    return its item, to show again. A settled item's labels stay."""
    label = MatchLabel.objects.select_related("item").filter(
        pk=label_id, labeller=labeller).first()
    if label is None:
        raise LabelRefused("not-yours", "there is no label of yours to undo")
    if label.item.settled_label:
        raise LabelRefused("settled", "a supervisor has settled this match; its labels stay")
    item = label.item
    label.delete()
    return item


def item_label(*, item: CalibrationItem, labeller: Any, label: str) -> MatchLabel:
    """The queue's label: ``label_record``, and a step **u** can take back
    (stored, so it outlives a reload and the session)."""
    with transaction.atomic():
        recorded = label_record(item=item, labeller=labeller, label=label)
        LabelStep.objects.create(labeller=labeller, surface_id=item.surface_id, item=item,
                                 kind=LabelStep.Kind.LABEL, label=recorded)
    return recorded


def item_skip(*, item: CalibrationItem, labeller: Any) -> LabelStep:
    """Skip ``item`` in ``labeller``'s queue (others still see it) until the
    skip is undone; a step **u** can take back."""
    if not labeller.has_perm("reviewer.label_matches"):
        raise PermissionDenied("labelling matches needs the calibrator role")
    return LabelStep.objects.create(labeller=labeller, surface_id=item.surface_id, item=item,
                                    kind=LabelStep.Kind.SKIP)


def step_undo(*, labeller: Any, surface: Surface) -> tuple[str, CalibrationItem] | None:
    """Take back ``labeller``'s last step on ``surface`` (a label or a skip)
    and return its kind and its item, to show again; None when there is none. A settled
    item's label stays (``LabelRefused``), and its step is dropped so the
    next **u** reaches the step before."""
    with transaction.atomic():
        step = (LabelStep.objects.select_for_update().select_related("item")
                .filter(labeller=labeller, surface=surface).order_by("-created", "-pk").first())
        if step is None:
            return None
        item = step.item
        if step.kind == LabelStep.Kind.SKIP or step.label_id is None:
            step.delete()
            return LabelStep.Kind.SKIP, item
        label_id = step.label_id
        step.delete()
    return LabelStep.Kind.LABEL, label_undo(labeller=labeller, label_id=label_id)


def item_settle(*, item: CalibrationItem, settled_by: Any, label: str) -> CalibrationItem:
    """A supervisor's label for ``item`` where its labellers disagree."""
    if not settled_by.has_perm("reviewer.change_surface"):
        raise PermissionDenied("settling labels needs the supervisor role")
    if label not in item.label_choices:
        raise ValidationError(f"a label of this item is one of {', '.join(item.label_choices)}")
    item.settled_label = label
    item.settled_by = settled_by
    item.settled_at = timezone.now()
    item.save(update_fields=["settled_label", "settled_by", "settled_at"])
    return item
