"""Creating and revoking API clients."""

from __future__ import annotations

from django.db import transaction

from reviewer.models import ApiClient, Workspace

__all__ = ["api_client_create", "api_client_rotate"]


def api_client_create(*, name: str, workspace: Workspace | None = None
                      ) -> tuple[ApiClient, str]:
    """A new client of ``workspace`` (the default one when None) and its
    token; the token is shown once and stored hashed."""
    token = ApiClient.new_token()
    client = ApiClient(name=name.strip(), workspace=workspace or Workspace.objects.default())
    client.set_token(token)
    with transaction.atomic():
        client.full_clean()
        client.save()
    return client, token


def api_client_rotate(*, client: ApiClient) -> str:
    """Replace a client's token (and un-revoke it); the old token stops working."""
    token = ApiClient.new_token()
    client.set_token(token)
    client.revoked_at = None
    client.save(update_fields=["token_hash", "token_hint", "revoked_at"])
    return token
