"""What every API endpoint shares: bearer-token auth and errors as JSON.

Errors always have the shape ``{"error": {"code": ..., "message": ...}}`` with
a message a developer can act on, and never a 500 page for bad input.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from reviewer.models import ApiClient
from reviewer.models.clients import hash_token

logger = logging.getLogger("citeguard.api")

__all__ = ["ApiError", "ApiRequest", "api_endpoint", "json_body"]


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def response(self) -> JsonResponse:
        response = JsonResponse({"error": {"code": self.code, "message": self.message}},
                                status=self.status)
        if self.status == 401:
            response["WWW-Authenticate"] = 'Bearer realm="citeguard"'
        return response


class ApiRequest(HttpRequest):
    client: ApiClient


def _authenticate(request: HttpRequest) -> ApiClient:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "unauthenticated",
                       "Send your API token as 'Authorization: Bearer <token>'.")
    client = ApiClient.objects.filter(token_hash=hash_token(token.strip())).first()
    if client is None:
        raise ApiError(401, "invalid-token", "This API token is not valid.")
    if client.revoked_at is not None:
        raise ApiError(401, "revoked-token", "This API token has been revoked.")
    return client


View = Callable[..., HttpResponse]


def api_endpoint(*methods: str) -> Callable[[View], View]:
    """Token auth, allowed methods, and ApiError → JSON for a view."""

    def decorate(view: View) -> View:
        @csrf_exempt
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                if request.method not in methods:
                    raise ApiError(405, "method-not-allowed",
                                   f"Use {' or '.join(methods)} here.")
                request.client = _authenticate(request)  # type: ignore[attr-defined]
                return view(request, *args, **kwargs)
            except ApiError as error:
                response = error.response()
                if error.status == 405:
                    response["Allow"] = ", ".join(methods)
                return response
            except Exception:  # a bug: logged with its traceback, answered as JSON
                logger.exception("API error in %s", request.path)
                return ApiError(500, "internal", "citeguard failed on this request; the "
                                "error was logged and nothing was stored.").response()

        return wrapper

    return decorate


def json_body(request: HttpRequest, *, max_bytes: int) -> Any:
    """The parsed JSON body, or an ApiError naming what is wrong with it."""
    if request.content_type != "application/json":
        raise ApiError(415, "unsupported-media-type",
                       "Send the body as JSON with 'Content-Type: application/json'.")
    length = int(request.headers.get("Content-Length") or 0)
    if length > max_bytes:
        raise ApiError(413, "payload-too-large",
                       f"The body is {length} bytes; the limit is {max_bytes} bytes.")
    try:
        raw = request.body
    except Exception:  # RequestDataTooBig from Django's own limit
        raise ApiError(413, "payload-too-large",
                       f"The body is over the limit of {max_bytes} bytes.") from None
    if len(raw) > max_bytes:
        raise ApiError(413, "payload-too-large",
                       f"The body is {len(raw)} bytes; the limit is {max_bytes} bytes.")
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise ApiError(400, "malformed-json", "The body is not UTF-8 text.") from None
    except json.JSONDecodeError as error:
        raise ApiError(400, "malformed-json",
                       f"Malformed JSON at line {error.lineno}, column {error.colno}: "
                       f"{error.msg}.") from None
