"""Cursor pagination and query parameters shared by the API's lists.

A list answers ``{"results": [...], "next_cursor": str | null, "next": str | null}``.
The cursor is opaque to clients: it holds the list it belongs to and the last
key returned (keyset pagination, so a page never repeats or skips a row that
was there when the first page was read, however many are added meanwhile).
A client sends the same filters with each cursor; ``next`` is that URL.

Unknown query parameters are a 400, not ignored: a misspelt filter must not
quietly return everything.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Model, QuerySet
from django.http import HttpRequest, QueryDict
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from reviewer.api.base import ApiError

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "check_params", "keyset_page", "list_param",
           "since_param"]

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
PAGING_PARAMS = frozenset(("cursor", "limit"))

def check_params(request: HttpRequest, allowed: Iterable[str]) -> None:
    known = set(allowed) | PAGING_PARAMS
    unknown = sorted(set(request.GET) - known)
    if unknown:
        raise ApiError(400, "unknown-parameter",
                       f"Unknown query parameter {unknown[0]!r}; this list takes "
                       f"{', '.join(sorted(known))}.")


def list_param(request: HttpRequest, name: str, *, choices: Sequence[str] | None = None
               ) -> list[str]:
    """A filter that may be repeated or comma-separated (``verdict=flag,fail``)."""
    values = [v.strip() for raw in request.GET.getlist(name) for v in raw.split(",")]
    values = [v for v in values if v]
    if choices is not None:
        for value in values:
            if value not in choices:
                raise ApiError(400, f"invalid-{name}",
                               f"{name} {value!r} is not one of {', '.join(choices)}.")
    return values


def since_param(request: HttpRequest) -> dt.datetime | None:
    """``since``: an ISO 8601 date or date-time; without a zone it is UTC."""
    raw = request.GET.get("since", "").strip()
    if not raw:
        return None
    if " " in raw and "T" in raw:  # a '+' of the zone, sent unencoded, arrives as a space
        raw = raw.replace(" ", "+")
    try:
        moment = parse_datetime(raw)
        if moment is None:
            day = parse_date(raw)
            moment = dt.datetime.combine(day, dt.time()) if day else None
    except ValueError:
        moment = None
    if moment is None:
        raise ApiError(400, "invalid-since",
                       f"since {raw!r} is not an ISO 8601 date or date-time, such as "
                       "2026-03-01 or 2026-03-01T09:30:00Z.")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, dt.UTC)
    try:
        # In UTC: PostgreSQL refuses offsets past 15:59 (fromisoformat takes
        # up to 23:59), and 0001-01-01+01:00 is no date in UTC.
        return moment.astimezone(dt.UTC)
    except OverflowError:
        raise ApiError(400, "invalid-since", f"since {raw!r} is outside the dates of years "
                       "1 to 9999 in UTC.") from None


def _limit(request: HttpRequest, default: int, maximum: int) -> int:
    raw = request.GET.get("limit", "")
    if not raw:
        return default
    try:
        limit = int(raw)
    except ValueError:
        limit = 0
    if not 1 <= limit <= maximum:
        raise ApiError(400, "invalid-limit", f"limit must be a whole number from 1 to {maximum}.")
    return limit


def encode_cursor(kind: str, after: Any) -> str:
    raw = json.dumps({"list": kind, "after": after}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(kind: str, cursor: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        after = data["after"]
        if data["list"] != kind or not isinstance(after, int) or isinstance(after, bool):
            raise ValueError
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise ApiError(400, "invalid-cursor",
                       f"This cursor is not one this {kind} list gave out; start again "
                       "without it.") from None
    return after


def keyset_page[M: Model](
    queryset: QuerySet[M], request: HttpRequest, *, kind: str, key: str = "pk",
    descending: bool = True, default_limit: int = DEFAULT_LIMIT, max_limit: int = MAX_LIMIT,
) -> tuple[list[M], str | None, str | None]:
    """One page of ``queryset`` ordered by the unique integer ``key``; returns the
    rows, the next cursor and the next page's URL (both None on the last page)."""
    limit = _limit(request, default_limit, max_limit)
    cursor = request.GET.get("cursor", "")
    if cursor:
        after = _decode_cursor(kind, cursor)
        queryset = queryset.filter(**{f"{key}__{'lt' if descending else 'gt'}": after})
    rows = list(queryset.order_by(f"-{key}" if descending else key)[: limit + 1])
    if len(rows) <= limit:
        return rows, None, None
    rows = rows[:limit]
    next_cursor = encode_cursor(kind, getattr(rows[-1], key))
    query: QueryDict = request.GET.copy()
    query["cursor"] = next_cursor
    return rows, next_cursor, f"{request.path}?{query.urlencode()}"
