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
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt

from reviewer.models import ApiClient
from reviewer.models.clients import hash_token

logger = logging.getLogger("citeguard.api")

__all__ = ["MAX_JSON_DEPTH", "ApiError", "ApiRequest", "api_endpoint", "json_body",
           "not_found"]

#: Arrays and objects nested deeper than this are refused (no payload of the
#: API nests more than a handful).
MAX_JSON_DEPTH = 64
#: Integers the databases store (a signed 64-bit column).
_INT_RANGE = (-(2**63), 2**63 - 1)


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def response(self) -> JsonResponse:
        response = JsonResponse({"error": {"code": self.code, "message": self.message}},
                                status=self.status)
        if self.status == 401:
            response["WWW-Authenticate"] = 'Bearer realm="citeguard"'
        if self.status == 503:
            response["Retry-After"] = "1"
        return response


class ApiRequest(HttpRequest):
    client: ApiClient


def _authenticate(request: HttpRequest) -> ApiClient:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "unauthenticated",
                       "Send your API token as 'Authorization: Bearer <token>'.")
    client = (ApiClient.objects.select_related("workspace")
              .filter(token_hash=hash_token(token.strip())).first())
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
                _check_url(request, kwargs)
                return view(request, *args, **kwargs)
            except ApiError as error:
                response = error.response()
                if error.status == 405:
                    response["Allow"] = ", ".join(methods)
                return response
            except MultiPartParserError as error:
                return ApiError(400, "malformed-multipart",
                                f"The multipart body cannot be read: {error}.").response()
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
        data = json.loads(raw)
    except UnicodeDecodeError:
        raise ApiError(400, "malformed-json", "The body is not UTF-8 text.") from None
    except json.JSONDecodeError as error:
        raise ApiError(400, "malformed-json",
                       f"Malformed JSON at line {error.lineno}, column {error.colno}: "
                       f"{error.msg}.") from None
    except RecursionError:
        raise ApiError(400, "json-too-deep", f"The JSON nests deeper than the limit of "
                       f"{MAX_JSON_DEPTH} levels.") from None
    json_check(data)
    return data


def json_check(data: Any) -> None:
    """Refuse, before anything reaches the database, what one database would
    store and another would not, or what no column holds: nesting deeper than
    :data:`MAX_JSON_DEPTH`, text with a NUL or a lone surrogate (\\ud800 is
    valid JSON but not UTF-8), integers outside 64 bits. Names the place."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "$")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise ApiError(400, "json-too-deep", f"The JSON nests deeper than the limit "
                               f"of {MAX_JSON_DEPTH} levels (at {where}).")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    _check_text(key, f"{where} (a key)")
                stack.append((item, depth + 1, f"{where}.{key}" if isinstance(value, dict)
                              else f"{where}[{key}]"))
        elif isinstance(value, str):
            _check_text(value, where)
        elif isinstance(value, int) and not isinstance(value, bool) and not (
                _INT_RANGE[0] <= value <= _INT_RANGE[1]):
            raise ApiError(400, "integer-out-of-range",
                           f"{where} is outside the 64-bit integer range.")


def _check_url(request: HttpRequest, kwargs: dict[str, Any]) -> None:
    """The body's check for the query string and the path: PostgreSQL cannot
    compare a NUL any more than it can store one."""
    for name, values in request.GET.lists():
        _check_text(name, f"query parameter {name!r} (its name)")
        for value in values:
            _check_text(value, f"query parameter {name!r}")
    for name, value in kwargs.items():
        if isinstance(value, str):
            _check_text(value, f"the path's {name}")


def _check_text(text: str, where: str) -> None:
    if "\x00" in text:
        raise ApiError(400, "invalid-text", f"{where} contains a NUL character (\\u0000).")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(400, "invalid-text", f"{where} contains a lone surrogate (an unpaired "
                       "\\ud800–\\udfff escape), which is not text.") from None


@csrf_exempt
def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any path under /api/v1/ that names no endpoint: JSON, like every API answer."""
    return ApiError(404, "not-found", f"There is no API endpoint {request.path}; see "
                    "/api/v1/openapi.json.").response()
