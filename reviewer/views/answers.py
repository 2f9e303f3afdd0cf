"""The answers list and the review page: sentences with badges, a citation
panel loaded with htmx, the PDF viewer told what to highlight, decisions."""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from reviewer.models import (
    Answer,
    AnswerSource,
    CitationVerdict,
    Document,
    ReviewDecision,
    SentenceVerdict,
)
from reviewer.selectors.answers import answer_get_for_review, answer_list
from reviewer.selectors.documents import pdf_highlight
from reviewer.selectors.judgements import citation_judgement
from reviewer.selectors.reviews import (
    review_current,
    review_safety,
    review_seen,
    review_served,
    review_trail,
    undo_seconds,
)
from reviewer.selectors.sources import SourceReferenceError
from reviewer.selectors.triage import TriageFilters, triage_next
from reviewer.selectors.verdict_history import verdict_history
from reviewer.selectors.workspaces import answers_visible, documents_visible
from reviewer.services.assignments import (
    PRESENCE_MINUTES,
    answer_heartbeat,
    answer_open,
    in_review_by_other,
)
from reviewer.services.reviews import (
    NOTE_MAX_CHARS,
    DecisionConflict,
    DecisionRefused,
    review_decide,
    review_undo,
)
from reviewer.views.answer_text import render_sentence
from reviewer.views.base import HtmxHttpRequest, permission_required
from reviewer.views.files import file_response
from reviewer.views.passages import source_runs
from verification import Difference, DiffRun, canonical_label, negation_context, word_diff
from verification.reasons import coverage_sentence, reason_sentence

logger = logging.getLogger("citeguard.review")

FAILING = {"fabricated-marker", "quote-altered", "claim-mismatch", "quote-not-found",
           "claim-unsupported", "wrong-source", "unattributed-quote", "uncited-claim"}


@require_GET
@permission_required("reviewer.view_answer")
def answers(request: HtmxHttpRequest) -> HttpResponse:
    queryset = answers_visible(answer_list(), request.user)
    verdict = request.GET.get("verdict", "")
    state = request.GET.get("state", "")
    if verdict in Answer.Verdict.values:
        queryset = queryset.filter(verdict=verdict)
    if state in Answer.ReviewState.values:
        queryset = queryset.filter(review_state=state)
    page = Paginator(queryset, 50).get_page(request.GET.get("page"))
    return render(request, "reviewer/answers.html", {
        "page": page, "verdict": verdict, "state": state,
        "verdicts": Answer.Verdict.choices, "states": Answer.ReviewState.choices,
    })


def _segments(sentence: Any, citations: Iterable[Any], answer_text: str
              ) -> list[dict[str, Any]]:
    """The sentence (a row, or a past verdict's ``PastSentence``) as runs of
    plain text, quotes and markers (each escaped by the template, never
    marked safe: answer text is untrusted)."""
    spans: dict[tuple[int, int], tuple[str, Any]] = {}
    for citation in citations:
        if citation.quote_start is not None and citation.quote_end is not None:
            spans.setdefault((citation.quote_start, citation.quote_end), ("quote", citation))
        if citation.marker_start is not None and citation.marker_end is not None:
            spans.setdefault((citation.marker_start, citation.marker_end), ("marker", citation))
        # The sentence's own words its passage contradicts ("3 years"). A past
        # verdict's citations carry no findings.
        for finding in getattr(citation, "findings", None) or ():
            spans.setdefault((finding["claim_start"], finding["claim_end"]),
                             ("finding", finding))
    segments: list[dict[str, Any]] = []
    position = sentence.start
    for (start, end), (kind, citation) in sorted(spans.items()):
        if start < position or end > sentence.end:
            continue  # overlapping or outside: shown as plain text
        if start > position:
            segments.append({"kind": "text", "text": answer_text[position:start]})
        segments.append({"kind": kind, "text": answer_text[start:end], "citation": citation})
        position = end
    if position < sentence.end:
        segments.append({"kind": "text", "text": answer_text[position:sentence.end]})
    return segments


#: What normalisation (and the library's named repairs) accounted for, in words.
NORMALISED_WORDS = {
    "case": "capitals",
    "whitespace": "line breaks and spaces",
    "line-break-hyphenation": "hyphenation at line ends",
    "ligature": "ligatures (ﬁ, ﬂ)",
    "smart-quotes": "curly quotes",
    "dashes": "dashes",
    "soft-hyphen-or-zero-width": "soft hyphens and invisible characters",
    "accents-or-compatibility-forms": "accents and compatibility forms",
    "letter-spacing": "letter-spaced text",
    "spacing": "spaces placed by extraction",
    "footnote-marker": "a footnote number left out",
    "list-number": "a list's number left out",
    "page-furniture": "running headers and page numbers",
}

#: The highlight groups' outcomes and their labels (the viewer's contract).
GROUP_LABELS = {
    "verified": "verified",
    "verified-fuzzy": "verified (fuzzy)",
    "quote-altered": "quote altered",
    "closest": "closest passage — not a match",
    "likely": "likely passage — paraphrased, not a quote",
}
#: The likely passage of a citation whose source shares almost nothing with
#: its sentence: still where to look, said so.
UNSUPPORTED_LABEL = "best passage — shares almost nothing with the sentence"


@dataclass(frozen=True)
class Passage:
    """A stretch of an injected source to show: the match, where the quote
    really is, or the closest passage when there is no match."""

    kind: str  # "match", "closest" or "likely" (a paraphrase's likely passage)
    source: AnswerSource
    start: int
    end: int
    score: float | None
    pages: list[Any]


def _sources(answer: Answer) -> dict[str, AnswerSource]:
    return {canonical_label(s.marker): s for s in answer.sources.all()}


def _passages(citation: CitationVerdict, sources: dict[str, AnswerSource]) -> list[Passage]:
    passages = []
    matched = sources.get(citation.source_marker) if citation.source_marker else None
    if matched is not None and citation.chunk_start is not None and citation.chunk_end is not None:
        passages.append(Passage("match", matched, citation.chunk_start, citation.chunk_end,
                                citation.score, citation.pages))
    closest = sources.get(citation.closest_marker) if citation.closest_marker else None
    if (closest is not None and citation.closest_start is not None
            and citation.closest_end is not None):
        passages.append(Passage("closest", closest, citation.closest_start, citation.closest_end,
                                citation.closest_score, citation.closest_pages))
    # A citation quoting nothing: the passage of the source its marker names
    # that shares most of the sentence's words (a quote keeps its match).
    cited = sources.get(canonical_label(citation.marker)) if citation.marker else None
    if (not citation.quote and cited is not None and citation.passage_start is not None
            and citation.passage_end is not None):
        passages.append(Passage("likely", cited, citation.passage_start, citation.passage_end,
                                citation.support, citation.passage_pages))
    return passages


def _furniture_inside(source: AnswerSource, start: int, end: int) -> bool:
    return any(s < end and e > start for s, e in source.furniture)


def _normalised_words(names: Any) -> list[str]:
    return [NORMALISED_WORDS.get(name, name.replace("-", " ")) for name in dict.fromkeys(names)]


def _passage_context(citation: CitationVerdict, passage: Passage, *, pdfs: bool = True
                     ) -> dict[str, Any]:
    source, start, end = passage.source, passage.start, passage.end
    before_start = max(0, start - 200)
    after_end = min(len(source.text), end + 200)
    context: dict[str, Any] = {
        "kind": passage.kind, "source": source, "score": passage.score,
        "has_pdf": pdfs and bool(passage.pages) and source.document_id is not None,
        "excerpt": {
            "before": source_runs(source, before_start, start, lead="…" if before_start else ""),
            "match": source_runs(source, start, end,
                                 shared=citation.shared if passage.kind == "likely" else ()),
            "after": source_runs(source, end, after_end,
                           trail="…" if after_end < len(source.text) else ""),
        },
        "interrupted": _furniture_inside(source, start, end),
    }
    if citation.quote:
        skip = [(max(s, start) - start, min(e, end) - start)
                for s, e in source.furniture if s < end and e > start]
        diff = word_diff(citation.quote, source.text[start:end], skip=skip)
        names = list(diff.normalised)
        if passage.kind == "match":
            # Repairs only the library can tell (a letter-spaced source).
            names += [n for n in citation.normalizations if n == "letter-spacing"]
        context["diff"] = (_misreads_marked(diff.runs, citation.differences)
                           if diff.changed else None)
        context["normalised"] = _normalised_words(names)
    if passage.kind == "match":
        context["negations"] = [
            c for c in (
                negation_context(source.text, start, end, Difference(
                    d["op"], d["source"], d["quote"], tuple(d["reasons"]), d.get("repair", "")))
                for d in citation.differences if d["op"] in ("omit-before", "omit-after"))
            if c is not None
        ]
        context["match_text"] = " ".join(
            "".join(r["text"] for r in context["excerpt"]["match"] if not r["furniture"]).split())
    return context


def _misreads_marked(runs: Sequence[DiffRun], differences: list[dict[str, Any]]
                     ) -> list[dict[str, Any]]:
    """The word diff's runs, each word the OCR misread (a deleted run, the
    source's, then an inserted one, the quote's, that the citation lists with
    repair ``ocr-misread``) marked ``ocr``: beside the quote's own changes it
    would read as a word the quote changed."""
    misread = {(" ".join(d["source"].split()), " ".join(d["quote"].split()))
               for d in differences if d.get("repair") == "ocr-misread"}
    marked = [{"op": run.op, "text": run.text, "ocr": False} for run in runs]
    for read, printed in itertools.pairwise(marked):
        if (read["op"], printed["op"]) == ("delete", "insert") and (
                read["text"], printed["text"]) in misread:
            read["ocr"] = printed["ocr"] = True
    return marked


def _note_ocr(passages: list[dict[str, Any]]) -> None:
    """Tell each passage whose document's text (some of it) came from OCR
    so, with the mean confidence: a reviewer weighs a scan's text accordingly."""
    ids = {p["source"].document_id for p in passages if p["source"].document_id is not None}
    if not ids:
        return
    documents = Document.objects.filter(pk__in=ids).only(
        "pk", "ocr_pages", "ocr_language", "ocr_confidence", "page_count").in_bulk()
    for passage in passages:
        document = documents.get(passage["source"].document_id)
        passage["ocr"] = document.ocr_summary if document is not None else ""


def _panel_context(answer: Answer, sentence: SentenceVerdict,
                   citation: CitationVerdict | None, *, pdfs: bool = True) -> dict[str, Any]:
    """``pdfs``: whether the reader may open the documents (links to them)."""
    context: dict[str, Any] = {"answer": answer, "sentence": sentence, "citation": citation,
                               "sentence_runs": [{"text": sentence.text, "finding": None}]}
    if citation is None:
        return context
    citations = [c.pk for c in sentence.citations.all()]
    if len(citations) > 1:  # the panel's title names which one its evidence is for
        context["citation_of"] = (citations.index(citation.pk) + 1, len(citations))
    context["passages"] = [_passage_context(citation, p, pdfs=pdfs)
                           for p in _passages(citation, _sources(answer))]
    _note_ocr(context["passages"])
    context["findings"] = [_finding_context(f) for f in citation.findings]
    context["sentence_runs"] = _sentence_runs(sentence, citation.findings)
    context["judgement"] = citation_judgement(citation)
    return context


#: What each claim check compares, in words.
CHECK_WORDS = {
    "number": "number", "negation": "negation", "quantifier": "quantifier",
    "modal": "must / may", "comparative": "comparison, order or side", "entity": "name or party",
}


def _finding_context(finding: dict[str, Any]) -> dict[str, Any]:
    """A claim finding with both sides named: the sentence's words and the
    passage's counterpart, or that no cited source says it."""
    return {**finding, "check_words": CHECK_WORDS.get(finding["check"], finding["check"])}


def _sentence_runs(sentence: SentenceVerdict, findings: list[dict[str, Any]]
                   ) -> list[dict[str, Any]]:
    """The sentence's text as runs, the words a finding is about marked
    (``finding``: the finding) so the panel shows which words are at odds."""
    runs: list[dict[str, Any]] = []
    position = 0
    for finding in sorted(findings, key=lambda f: f["claim_start"]):
        start, end = finding["claim_start"] - sentence.start, finding["claim_end"] - sentence.start
        if start < position or end > len(sentence.text):
            continue  # overlapping or outside the sentence: left plain
        if start > position:
            runs.append({"text": sentence.text[position:start], "finding": None})
        runs.append({"text": sentence.text[start:end], "finding": finding})
        position = end
    if position < len(sentence.text):
        runs.append({"text": sentence.text[position:], "finding": None})
    return runs


def _group_outcome(citation: CitationVerdict, passage: Passage) -> str:
    if passage.kind in ("closest", "likely"):
        return passage.kind
    if citation.outcome in ("verified", "verified-fuzzy", "quote-altered"):
        return citation.outcome
    # Where the quote really is (wrong source, fabricated marker, no marker).
    if any(d["reasons"] for d in citation.differences):
        return "quote-altered"
    return "verified" if passage.score is not None and passage.score >= 1.0 else "verified-fuzzy"


def _highlight_event(answer: Answer, citation: CitationVerdict | None,
                     passage: str = "", *, user: Any = None) -> dict[str, Any]:
    """What the viewer is told to show: ``groups``, one per passage with
    page rectangles (the one asked for first), each with its outcome, label,
    PDF and pages; the first group's ``url``, ``document``, ``title`` and
    ``pages`` also at the top level, as before groups existed. Nothing for
    a ``user`` who may not open documents (the passages' text still shows)."""
    empty: dict[str, Any] = {"url": None, "pages": [], "groups": []}
    if citation is None or (user is not None and not user.has_perm("reviewer.view_document")):
        return empty
    passages = [p for p in _passages(citation, _sources(answer))
                if p.pages and p.source.document_id is not None]
    passages.sort(key=lambda p: p.kind != passage)  # stable: the asked-for one first
    documents = Document.objects.defer("text")
    if user is not None:
        documents = documents_visible(documents, user)
    documents = documents.in_bulk({p.source.document_id for p in passages})
    groups = []
    for item in passages:
        document = documents.get(item.source.document_id)
        if document is None or not document.file:
            continue
        outcome = _group_outcome(citation, item)
        label = GROUP_LABELS[outcome]
        if item.kind == "match" and citation.outcome in (
                "wrong-source", "fabricated-marker", "unattributed-quote"):
            label = f"where the quote is: [{item.source.marker}]"
        elif item.kind == "likely" and citation.outcome == "claim-unsupported":
            label = UNSUPPORTED_LABEL
        groups.append({
            "outcome": outcome, "label": label, "passage": item.kind,
            "marker": item.source.marker,
            "url": reverse("reviewer:document-file", args=[document.pk]),
            "document": document.pk, "title": document.title,
            "pages": pdf_highlight(document, item.pages),
        })
    if not groups:
        return empty
    first = groups[0]
    return {"url": first["url"], "document": first["document"], "title": first["title"],
            "pages": first["pages"], "groups": groups}


#: At most this many documents, and pages in all, are prefetched for a review page.
PREFETCH_DOCUMENTS = 3
PREFETCH_PAGES = 8


def _cited_documents(answer: Answer, user: Any) -> list[dict[str, Any]]:
    """The PDFs the answer's citations point to and their pages, in the
    order the answer first cites them: [{"url", "pages"}]. The viewer opens
    them and draws those pages once the page is idle, so that the first
    click on a sentence finds them ready. Nothing for a user who may not
    open documents."""
    if not user.has_perm("reviewer.view_document"):
        return []
    sources = _sources(answer)
    pages: dict[int, list[int]] = {}
    for sentence in answer.sentences.all():
        for citation in sentence.citations.all():
            for passage in _passages(citation, sources):
                if passage.source.document_id is None or not passage.pages:
                    continue
                wanted = pages.setdefault(passage.source.document_id, [])
                wanted.extend(p["page"] for p in passage.pages if p["page"] not in wanted)
    documents = documents_visible(Document.objects.defer("text"), user).in_bulk(pages)
    cited, budget = [], PREFETCH_PAGES
    for document_id, numbers in pages.items():
        document = documents.get(document_id)
        if document is None or not document.file or budget <= 0:
            continue
        cited.append({"url": reverse("reviewer:document-file", args=[document.pk]),
                      "pages": numbers[:budget]})
        budget -= len(numbers[:budget])
        if len(cited) == PREFETCH_DOCUMENTS:
            break
    return cited


def _pick(answer: Answer, request: HtmxHttpRequest
          ) -> tuple[SentenceVerdict | None, CitationVerdict | None]:
    sentences = list(answer.sentences.all())
    citation_id = request.GET.get("citation")
    if citation_id and citation_id.isdigit():
        for sentence in sentences:
            for citation in sentence.citations.all():
                if citation.pk == int(citation_id):
                    return sentence, citation
    index = request.GET.get("sentence")
    if index and index.isdigit() and int(index) < len(sentences):
        sentence = sentences[int(index)]
        return sentence, next(iter(sentence.citations.all()), None)
    return None, None


_LEGACY_OUTCOME = re.compile(r"^(\d+) ([a-z -]+?)(?:\(s\))?$")
_LEGACY_COVERAGE = re.compile(r"^coverage (\d+(?:\.\d+)?) below (\d+(?:\.\d+)?)$")


def _reason_words(reason: str) -> str:
    """A stored reason as a sentence. Answers verified before reasons were
    written as sentences stored codes ("2 quote-not-found"); say those in
    words too."""
    match = _LEGACY_OUTCOME.match(reason)
    if match is not None:
        outcome = match.group(2).replace("fabricated marker", "fabricated-marker")
        try:
            return reason_sentence(outcome, int(match.group(1)))
        except KeyError:
            return reason
    match = _LEGACY_COVERAGE.match(reason)
    if match is not None:
        return coverage_sentence(float(match.group(1)), float(match.group(2)))
    return reason


@require_GET
@never_cache  # never shown again from the back/forward or HTTP cache: a stale page could act
@permission_required("reviewer.view_answer")
def answer_review(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    if not answers_visible(Answer.objects.filter(pk=answer_id), request.user).exists():
        raise Http404("No such answer")  # another workspace's: as if it did not exist
    try:
        return _answer_review(request, answer_id)
    except SourceReferenceError as error:
        # A source's text no longer matches what was verified: say so, never
        # show the reviewer other text as the evidence.
        logger.error("answer %s: %s", answer_id, error)
        return HttpResponse(f"This answer cannot be shown as it was verified. {error}\n",
                            status=500, content_type="text/plain; charset=utf-8")


def _answer_review(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    try:
        answer = answer_get_for_review(answer_id)
    except Answer.DoesNotExist:
        raise Http404("No such answer") from None
    sentence, citation = _pick(answer, request)
    passage = request.GET.get("passage", "")
    pdfs = request.user.has_perm("reviewer.view_document")
    queue = request.GET.get("queue")
    # Appended to the page's own links (sentences, citations, passages), so
    # that a reload after opening one still knows the queue it came from.
    keep = "&" + urlencode({"queue": queue}) if queue is not None else ""
    # htmx restoring a page from history asks for the whole page, not a panel.
    fragment = bool(request.htmx) and not request.htmx.history_restore_request
    if fragment and sentence is not None:
        response = render(request, "reviewer/review.html#sentence-panel",
                          {**_panel_context(answer, sentence, citation, pdfs=pdfs),
                           "keep": keep})
        return trigger_client_event(response, "highlight",
                                    _highlight_event(answer, citation, passage, user=request.user))
    if fragment and request.GET.get("verdict") in ("previous", "current"):
        return render(request, "reviewer/review.html#previous-verdict",
                      {"answer": answer, "keep": keep, **_history_context(answer, request)})
    sentences = [_sentence_item(answer.text, row, row.citations.all())
                 for row in answer.sentences.all()]
    counts = [(outcome, count) for outcome, count in answer.counts.items() if count]
    context = {
        "answer": answer, "sentences": sentences, "counts": counts,
        "reasons": [_reason_words(reason) for reason in answer.reasons],
        "decisions": answer.decisions.all(), "decision_choices": ReviewDecision.Decision.choices,
        "highlight": (_highlight_event(answer, citation, passage, user=request.user)
                      if citation else None),
        "keep": keep, **_history_context(answer, request),
        "cited_documents": _cited_documents(answer, request.user),
    }
    trail = review_trail(answer)
    context.update({"trail": trail, "seen": review_seen(trail), "standing": review_current(trail),
                    "note_max": NOTE_MAX_CHARS, "presence_minutes": PRESENCE_MINUTES,
                    "served": review_served(answer),
                    "safety": review_safety(answer, shown=citation),
                    "cannot_decide": _cannot_decide(answer, request.user)})
    answer_open(answer=answer, user=request.user)
    context["open_by"] = in_review_by_other(answer, request.user)
    context.update(_queue_context(answer, request.GET.get("queue"), request.user))
    if sentence is not None:
        context.update(_panel_context(answer, sentence, citation, pdfs=pdfs))
    return render(request, "reviewer/review.html", context)


def _sentence_item(answer_text: str, row: Any, citations: Iterable[Any]) -> dict[str, Any]:
    rendered = render_sentence(answer_text, row.start, _segments(row, citations, answer_text))
    return {"row": row, "html": rendered.html, "block": rendered.block,
            "number": rendered.number, "paragraph": rendered.paragraph,
            "failing": row.status in FAILING}


def _history_context(answer: Answer, request: HtmxHttpRequest) -> dict[str, Any]:
    """The verdict history section; with ``?verdict=previous``, the previous
    verdict's sentences rendered read-only (markers without links)."""
    show_previous = request.GET.get("verdict") == "previous"
    history = verdict_history(answer, with_previous_sentences=show_previous)
    previous = None
    if history is not None and history.previous_sentences is not None:
        previous = [_sentence_item(answer.text, s, s.citations)
                    for s in history.previous_sentences]
    return {"history": history, "previous_sentences": previous}


def _cannot_decide(answer: Answer, user: Any) -> str:
    """Why ``user`` may not decide ``answer`` ("" when they may): the page
    shows this sentence instead of buttons the server would refuse."""
    if not user.has_perm("reviewer.decide_answer"):
        return "You can read this answer but not decide it: deciding needs the reviewer role."
    if (answer.assigned_to_id is not None and answer.assigned_to_id != user.pk
            and not user.has_perm("reviewer.view_all_queues")):
        return (f"This answer is in {answer.assigned_to.get_username()}'s queue: "  # type: ignore[union-attr]
                "ask a supervisor to reassign it if you should decide it.")
    return ""


def _queue_context(answer: Answer, queue: str | None, user: Any) -> dict[str, Any]:
    """The triage queue this page was opened from (``queue``: its filters as
    a query string; None when not opened from the queue) and the answer
    after this one in its order."""
    if queue is None:
        return {"queue": None}
    filters = TriageFilters.from_query(QueryDict(queue), user=user)
    return {"queue": filters.query(page=1), "queue_next": triage_next(answer, filters, user)}


def _decision_context(answer_id: int) -> dict[str, Any]:
    answer = get_object_or_404(Answer.objects.select_related("surface").prefetch_related(
        Prefetch("decisions", queryset=ReviewDecision.objects.select_related("reviewer"))),
        pk=answer_id)
    trail = review_trail(answer)
    return {"answer": answer, "trail": trail, "seen": review_seen(trail),
            "standing": review_current(trail), "decision_choices": ReviewDecision.Decision.choices}


def _refused(request: HtmxHttpRequest, refused: DecisionRefused) -> HttpResponse:
    """A decision or undo not recorded: 400 for a request that makes no sense,
    403 for someone else's decision, 409 when the answer's trail has moved on
    or the window has closed, 422 for what the reviewer must do first. The
    message is shown in the decision form."""
    status = {"unknown-decision": 400, "note-too-long": 400, "not-yours": 403, "not-allowed": 403,
              "not-your-queue": 403, "unopened-failures": 422,
              "note-required": 422}.get(refused.code, 409)
    if not request.htmx:
        return HttpResponse(f"{refused}\n", status=status, content_type="text/plain")
    context: dict[str, Any] = {"error": str(refused), "code": refused.code}
    template = "reviewer/review.html#decide-error"
    if isinstance(refused, DecisionConflict):
        # Show the trail and state as they are now, and the form's "seen"
        # moved on, so the next decision is made on what is on screen.
        context.update(_decision_context(refused.record.answer_id))
        context.update({"oob": True, "trail_oob": True})
        template = "reviewer/review.html#conflicted"
    response = render(request, template, context, status=status)
    response["HX-Retarget"] = "#decide-error"
    response["HX-Reswap"] = "outerHTML"
    return response


def _recorded(request: HtmxHttpRequest, answer_id: int, record: ReviewDecision
              ) -> HttpResponse:
    queue = request.POST.get("queue")
    if not request.htmx:
        url = reverse("reviewer:answer", args=[answer_id])
        return redirect(url if queue is None else f"{url}?{urlencode({'queue': queue})}")
    context = _decision_context(answer_id)
    context.update({"record": record, "undo_seconds": undo_seconds(), "oob": True})
    context.update(_queue_context(context["answer"], queue, request.user))
    return render(request, "reviewer/review.html#decided", context)


@require_POST
@never_cache
@permission_required("reviewer.decide_answer")
def answer_decide(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    """Record a decision. Approving with failing citations unopened needs
    ``opened`` (the citation ids the reviewer opened) to cover them all, or
    ``confirmed``; a high-stakes surface needs a ``note`` on a failing answer."""
    answer = get_object_or_404(answers_visible(Answer.objects.all(), request.user), pk=answer_id)
    try:
        record = review_decide(
            answer=answer, reviewer=request.user,  # type: ignore[arg-type]
            decision=request.POST.get("decision", ""), note=request.POST.get("note", ""),
            opened=request.POST.getlist("opened"),
            confirmed=request.POST.get("confirmed", "").lower() in ("1", "true", "yes", "on"),
            seen=_seen(request.POST.get("seen")))
    except DecisionRefused as refused:
        return _refused(request, refused)
    return _recorded(request, answer_id, record)


def _seen(value: str | None) -> int | None:
    """The form's ``seen`` (the latest decision on the reviewer's page; 0:
    none); absent or not a number: not checked."""
    return int(value) if value is not None and value.isdigit() else None


@require_POST
@never_cache
@permission_required("reviewer.decide_answer")
def answer_undo(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    """Undo one of this answer's decisions (``decision``: its id) within the window."""
    get_object_or_404(answers_visible(Answer.objects.all(), request.user), pk=answer_id)
    decision_id = request.POST.get("decision", "")
    if not decision_id.isdigit() or not ReviewDecision.objects.filter(
            pk=int(decision_id), answer_id=answer_id).exists():
        return _refused(request, DecisionRefused("unknown-decision",
                                                 "There is no such decision on this answer."))
    try:
        record = review_undo(decision_id=int(decision_id),
                             reviewer=request.user)  # type: ignore[arg-type]
    except DecisionRefused as refused:
        return _refused(request, refused)
    return _recorded(request, answer_id, record)


@require_POST
@never_cache
@permission_required("reviewer.decide_answer")
def answer_presence(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    """The open review page's heartbeat. While it beats, others see this
    reviewer deciding the answer; once it stops (the page closed or hidden)
    that lapses within PRESENCE_MINUTES."""
    answer = get_object_or_404(answers_visible(Answer.objects.all(), request.user), pk=answer_id)
    answer_heartbeat(answer=answer, user=request.user)
    return HttpResponse(status=204)


@require_GET
@permission_required("reviewer.view_document")
def document_file(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    """The document's PDF for the viewer, whole or by the byte range pdf.js
    asks for (so a long PDF opens at its cited page without the whole file)."""
    document = get_object_or_404(documents_visible(Document.objects.defer("text"), request.user),
                                 pk=document_id)
    if not document.file:
        raise Http404("This document's file was not kept.")
    return file_response(request, document.file, etag=document.sha256,
                         content_type="application/pdf", filename=f"{document.pk}.pdf")
