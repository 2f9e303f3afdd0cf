"""The answers list and the review page: sentences with badges, a citation
panel loaded with htmx, the PDF viewer told what to highlight, decisions."""

from __future__ import annotations

import difflib
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from reviewer.models import Answer, CitationVerdict, Document, ReviewDecision, SentenceVerdict
from reviewer.selectors.answers import answer_get_for_review, answer_list
from reviewer.selectors.documents import pdf_highlight
from reviewer.selectors.reviews import review_safety, review_served, review_trail, undo_seconds
from reviewer.services.reviews import DecisionRefused, review_decide, review_undo
from reviewer.views.base import HtmxHttpRequest

FAILING = {"fabricated-marker", "quote-altered", "quote-not-found", "wrong-source",
           "unattributed-quote", "uncited-claim"}


@require_GET
@login_required
def answers(request: HtmxHttpRequest) -> HttpResponse:
    queryset = answer_list()
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


def _segments(sentence: SentenceVerdict, answer_text: str) -> list[dict[str, Any]]:
    """The sentence as runs of plain text, quotes and markers (each escaped by
    the template, never marked safe: answer text is untrusted)."""
    spans: dict[tuple[int, int], tuple[str, CitationVerdict]] = {}
    for citation in sentence.citations.all():
        if citation.quote_start is not None and citation.quote_end is not None:
            spans.setdefault((citation.quote_start, citation.quote_end), ("quote", citation))
        if citation.marker_start is not None and citation.marker_end is not None:
            spans.setdefault((citation.marker_start, citation.marker_end), ("marker", citation))
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


def _word_diff(quote: str, source: str) -> list[dict[str, str]]:
    """A readable word diff: equal, deleted (source only) and inserted (quote only) runs."""
    quote_words, source_words = quote.split(), source.split()
    matcher = difflib.SequenceMatcher(None, source_words, quote_words, autojunk=False)
    runs: list[dict[str, str]] = []
    for tag, s0, s1, q0, q1 in matcher.get_opcodes():
        if tag == "equal":
            runs.append({"op": "equal", "text": " ".join(source_words[s0:s1])})
            continue
        if s1 > s0:
            runs.append({"op": "delete", "text": " ".join(source_words[s0:s1])})
        if q1 > q0:
            runs.append({"op": "insert", "text": " ".join(quote_words[q0:q1])})
    return runs


def _panel_context(answer: Answer, sentence: SentenceVerdict,
                   citation: CitationVerdict | None) -> dict[str, Any]:
    context: dict[str, Any] = {"answer": answer, "sentence": sentence, "citation": citation}
    if citation is None:
        return context
    sources = {s.marker: s for s in answer.sources.all()}
    source = sources.get(citation.source_marker) if citation.source_marker else None
    if source is not None and citation.chunk_start is not None and citation.chunk_end is not None:
        start, end = citation.chunk_start, citation.chunk_end
        before_start = max(0, start - 200)
        after_end = min(len(source.text), end + 200)
        context["source"] = source
        context["excerpt"] = {
            "before": _runs(source, before_start, start, lead="…" if before_start else ""),
            "match": _runs(source, start, end),
            "after": _runs(source, end, after_end,
                           trail="…" if after_end < len(source.text) else ""),
        }
        if citation.outcome in ("verified-fuzzy", "quote-altered") and citation.quote:
            matched = "".join(run["text"] for run in context["excerpt"]["match"]
                              if not run["furniture"])
            context["diff"] = _word_diff(citation.quote, matched)
    return context


def _runs(source: Any, start: int, end: int, *, lead: str = "", trail: str = ""
          ) -> list[dict[str, Any]]:
    """``source.text[start:end]`` as runs, furniture (running headers, page
    numbers) marked so the template can grey it out and the diff skip it."""
    runs: list[dict[str, Any]] = [{"text": lead, "furniture": False}] if lead else []
    position = start
    for skip_start, skip_end in sorted(source.furniture):
        if skip_end <= position or skip_start >= end:
            continue
        if skip_start > position:
            runs.append({"text": source.text[position:skip_start], "furniture": False})
        runs.append({"text": source.text[max(skip_start, position):min(skip_end, end)],
                     "furniture": True})
        position = min(skip_end, end)
    if position < end:
        runs.append({"text": source.text[position:end], "furniture": False})
    if trail:
        runs.append({"text": trail, "furniture": False})
    return runs


def _highlight_event(citation: CitationVerdict | None) -> dict[str, Any]:
    if citation is None or citation.document_id is None or not citation.pages:
        return {"url": None, "pages": []}
    document = Document.objects.defer("text").filter(pk=citation.document_id).first()
    if document is None or not document.file:
        return {"url": None, "pages": []}
    return {
        "url": reverse("reviewer:document-file", args=[document.pk]),
        "document": document.pk,
        "title": document.title,
        "pages": pdf_highlight(document, citation.pages),
    }


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


@require_GET
@login_required
def answer_review(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    try:
        answer = answer_get_for_review(answer_id)
    except Answer.DoesNotExist:
        raise Http404("No such answer") from None
    sentence, citation = _pick(answer, request)
    if request.htmx and sentence is not None:
        response = render(request, "reviewer/review.html#sentence-panel",
                          _panel_context(answer, sentence, citation))
        return trigger_client_event(response, "highlight", _highlight_event(citation))
    sentences = [
        {"row": s, "segments": _segments(s, answer.text), "failing": s.status in FAILING}
        for s in answer.sentences.all()
    ]
    counts = [(outcome, count) for outcome, count in answer.counts.items() if count]
    context = {
        "answer": answer, "sentences": sentences, "counts": counts,
        "decisions": answer.decisions.all(), "decision_choices": ReviewDecision.Decision.choices,
        "highlight": _highlight_event(citation) if citation else None,
    }
    context.update({"trail": review_trail(answer), "served": review_served(answer),
                    "safety": review_safety(answer, shown=citation)})
    if sentence is not None:
        context.update(_panel_context(answer, sentence, citation))
    return render(request, "reviewer/review.html", context)


def _decision_context(answer_id: int) -> dict[str, Any]:
    answer = get_object_or_404(Answer.objects.select_related("surface").prefetch_related(
        Prefetch("decisions", queryset=ReviewDecision.objects.select_related("reviewer"))),
        pk=answer_id)
    return {"answer": answer, "trail": review_trail(answer),
            "decision_choices": ReviewDecision.Decision.choices}


def _refused(request: HtmxHttpRequest, refused: DecisionRefused) -> HttpResponse:
    """A decision or undo not recorded: 400 for a request that makes no sense,
    403 for someone else's decision, 409 when the answer's trail has moved on
    or the window has closed, 422 for what the reviewer must do first. The
    message is shown in the decision form."""
    status = {"unknown-decision": 400, "not-yours": 403, "unopened-failures": 422,
              "note-required": 422}.get(refused.code, 409)
    if not request.htmx:
        return HttpResponse(f"{refused}\n", status=status, content_type="text/plain")
    response = render(request, "reviewer/review.html#decide-error",
                      {"error": str(refused), "code": refused.code}, status=status)
    response["HX-Retarget"] = "#decide-error"
    response["HX-Reswap"] = "outerHTML"
    return response


def _recorded(request: HtmxHttpRequest, answer_id: int, record: ReviewDecision
              ) -> HttpResponse:
    if not request.htmx:
        return redirect("reviewer:answer", answer_id)
    context = _decision_context(answer_id)
    context.update({"record": record, "undo_seconds": undo_seconds(), "oob": True})
    return render(request, "reviewer/review.html#decided", context)


@require_POST
@login_required
def answer_decide(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    """Record a decision. Approving with failing citations unopened needs
    ``opened`` (the citation ids the reviewer opened) to cover them all, or
    ``confirmed``; a high-stakes surface needs a ``note`` on a failing answer."""
    answer = get_object_or_404(Answer, pk=answer_id)
    try:
        record = review_decide(
            answer=answer, reviewer=request.user,  # type: ignore[arg-type]
            decision=request.POST.get("decision", ""), note=request.POST.get("note", ""),
            opened=request.POST.getlist("opened"),
            confirmed=request.POST.get("confirmed", "").lower() in ("1", "true", "yes", "on"))
    except DecisionRefused as refused:
        return _refused(request, refused)
    return _recorded(request, answer_id, record)


@require_POST
@login_required
def answer_undo(request: HtmxHttpRequest, answer_id: int) -> HttpResponse:
    """Undo one of this answer's decisions (``decision``: its id) within the window."""
    get_object_or_404(Answer, pk=answer_id)
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


@require_GET
@login_required
def document_file(request: HtmxHttpRequest, document_id: int) -> FileResponse:
    document = get_object_or_404(Document.objects.defer("text"), pk=document_id)
    if not document.file:
        raise Http404("This document's file was not kept.")
    response = FileResponse(document.file.open("rb"), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{document.pk}.pdf"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
