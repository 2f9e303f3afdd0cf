"""The client address login throttling (django-axes) counts failures by."""

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT reverse proxies the address
    the outermost of them received the request from.

    Each proxy appends the address it saw to X-Forwarded-For, so that one is
    the count-th entry from the right; entries further left are whatever the
    client sent and are never trusted (else a guesser could pose as anyone).
    """
    remote = str(request.META.get("REMOTE_ADDR", ""))
    hops = settings.CITEGUARD["TRUSTED_PROXY_COUNT"]
    if hops <= 0:
        return remote
    forwarded = [part.strip() for part in
                 str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",") if part.strip()]
    return forwarded[-hops] if len(forwarded) >= hops else remote
