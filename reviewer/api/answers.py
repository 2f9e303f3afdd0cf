"""POST /api/v1/answers and GET /api/v1/answers/{id}."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, JsonResponse

from reviewer.api.base import ApiError, api_endpoint, json_body
from reviewer.models import Answer
from reviewer.selectors.answers import answer_result
from reviewer.services.answers import AnswerRejected, answer_submit

__all__ = ["answer_detail", "answers"]


@api_endpoint("POST")
def answers(request: HttpRequest) -> JsonResponse:
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


@api_endpoint("GET")
def answer_detail(request: HttpRequest, answer_id: int) -> JsonResponse:
    answer = (Answer.objects.filter(pk=answer_id, client=request.client)  # type: ignore[attr-defined]
              .select_related("surface").first())
    if answer is None:
        raise ApiError(404, "not-found", f"There is no answer {answer_id} for this client.")
    return JsonResponse(answer_result(answer))
