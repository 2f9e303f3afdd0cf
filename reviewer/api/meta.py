"""The API's description, a no-op for load comparisons, and /metrics."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from reviewer import metrics
from reviewer.api.base import api_endpoint
from reviewer.api.openapi import SPEC


@api_endpoint("GET")
def ping(request: HttpRequest) -> JsonResponse:
    """Authenticated and otherwise trivial: the baseline for bench/api.py."""
    return JsonResponse({"pong": True})


@require_GET
def openapi(request: HttpRequest) -> JsonResponse:
    return JsonResponse(SPEC)


@require_GET
@login_required
def docs(request: HttpRequest) -> HttpResponse:
    """The token API's reference for people: any signed-in account, even one
    without a role. It holds no answers or documents, only the contract that
    /api/v1/openapi.json already publishes to machine clients; the people who
    wire a RAG service to citeguard are often not reviewers. Signing in still
    keeps the site's pages closed to the anonymous internet."""
    return render(request, "reviewer/api_docs.html", {"spec": SPEC, "endpoints": _endpoints()})


def _endpoints() -> list[dict[str, object]]:
    """Each operation with its parameters' references resolved, for the page."""
    shared = SPEC["components"]["parameters"]
    endpoints = []
    for path, operations in SPEC["paths"].items():
        for method, op in operations.items():
            parameters = [shared[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p
                          for p in op.get("parameters", [])]
            endpoints.append({"method": method, "path": path, "op": op,
                              "parameters": parameters})
    return endpoints


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus exposition behind ``Authorization: Bearer <METRICS_TOKEN>``.
    Without a configured token it is open in development (DEBUG) and closed
    in production: model names and volumes are not for the internet."""
    token = settings.METRICS_TOKEN
    if not token:
        if not settings.DEBUG:
            return HttpResponse("metrics are off: set METRICS_TOKEN and scrape with "
                                "'Authorization: Bearer <token>'\n", status=403,
                                content_type="text/plain")
    else:
        scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
                sent.strip().encode(), token.encode()):
            response = HttpResponse("metrics need the METRICS_TOKEN bearer token\n",
                                    status=401, content_type="text/plain")
            response["WWW-Authenticate"] = 'Bearer realm="citeguard-metrics"'
            return response
    body, content_type = metrics.exposition()
    return HttpResponse(body, content_type=content_type)
