"""/api/v1/answers: submit (POST), list (GET), and one answer by either id (GET)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, JsonResponse

from reviewer.api.base import ApiError, api_endpoint, json_body
from reviewer.api.pagination import check_params, keyset_page, list_param, since_param
from reviewer.models import Answer, Surface
from reviewer.selectors.answers import (
    answer_api_result,
    answer_list_for_client,
    answer_summary,
)
from reviewer.selectors.sources import SourceReferenceError
from reviewer.services.answers import AnswerRejected, answer_submit

__all__ = ["answer_detail", "answers"]

BY = ("answer", "id")


@api_endpoint("GET", "POST")
def answers(request: HttpRequest) -> JsonResponse:
    if request.method == "GET":
        return _list(request)
    data = json_body(request, max_bytes=int(settings.CITEGUARD["MAX_PAYLOAD_BYTES"]))
    if not isinstance(data, dict):
        raise ApiError(400, "invalid-payload", "The body must be a JSON object.")
    try:
        submitted = answer_submit(client=request.client, data=data)  # type: ignore[attr-defined]
    except AnswerRejected as error:
        raise ApiError(error.status, error.code, str(error)) from None
    response = JsonResponse(submitted.result, status=201 if submitted.created else 200)
    response["Location"] = f"/api/v1/answers/{submitted.answer.pk}"
    return response


def _list(request: HttpRequest) -> JsonResponse:
    """This client's answers, newest first, filtered by surface, model, verdict, since."""
    check_params(request, ("surface", "model", "verdict", "since"))
    surfaces = list_param(request, "surface")
    if surfaces:
        known = set(Surface.objects.filter(name__in=surfaces).values_list("name", flat=True))
        unknown = [name for name in surfaces if name not in known]
        if unknown:
            configured = ", ".join(Surface.objects.values_list("name", flat=True)) or "none"
            raise ApiError(400, "unknown-surface",
                           f"There is no surface {unknown[0]!r} (configured: {configured}).")
    queryset = answer_list_for_client(
        request.client,  # type: ignore[attr-defined]
        surfaces=surfaces, models=list_param(request, "model"),
        verdicts=list_param(request, "verdict", choices=Answer.Verdict.values),
        since=since_param(request),
    )
    rows, next_cursor, next_url = keyset_page(queryset, request, kind="answers")
    return JsonResponse({"results": [answer_summary(a) for a in rows],
                         "next_cursor": next_cursor, "next": next_url})


@api_endpoint("GET")
def answer_detail(request: HttpRequest, ref: str) -> JsonResponse:
    """One answer of this client, by citeguard's id (``answer``) or the client's
    own (``id``). ``?by=answer`` or ``?by=id`` says which; without it a number
    is citeguard's id unless only the client's id matches, and a ref matching
    two different answers is a 409 that asks for ``by``."""
    check_params(request, ("by",))
    by = request.GET.get("by", "")
    if by and by not in BY:
        raise ApiError(400, "invalid-by", f"by must be 'answer' (citeguard's id) or 'id' "
                       f"(your id), not {by!r}.")
    client = request.client  # type: ignore[attr-defined]
    mine = Answer.objects.filter(client=client).select_related("surface")
    by_pk = (mine.filter(pk=int(ref)).first()
             if by != "id" and ref.isascii() and ref.isdigit() and len(ref) < 19 else None)
    by_id = mine.filter(external_id=ref).exclude(external_id="").first() if by != "answer" \
        else None
    if by_pk is not None and by_id is not None and by_pk.pk != by_id.pk:
        raise ApiError(409, "ambiguous-id",
                       f"{ref!r} is both citeguard's answer {by_pk.pk} and your id of answer "
                       f"{by_id.pk}; add ?by=answer or ?by=id.")
    answer = by_pk or by_id
    if answer is None:
        kind = {"answer": "answer", "id": "answer with your id"}.get(by, "answer")
        raise ApiError(404, "not-found", f"There is no {kind} {ref} for this client.")
    try:
        return JsonResponse(answer_api_result(answer))
    except SourceReferenceError as error:
        # The offsets in other units are counted on the source texts as
        # verified: a text that no longer matches is said, never papered over.
        raise ApiError(500, "source-changed",
                       f"This answer cannot be returned as it was verified. {error}") from None
