"""API clients: the RAG services that call citeguard, each with its own token."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.db import models
from django.utils import timezone

from .workspaces import Workspace, default_workspace_fill

TOKEN_PREFIX = "cg_"


def hash_token(token: str) -> str:
    # Tokens are 256 random bits: a plain SHA-256 is enough (no salt or
    # stretching needed, unlike passwords), and it lets us look one up.
    return hashlib.sha256(token.encode()).hexdigest()


class ApiClientQuerySet(models.QuerySet["ApiClient"]):
    def active(self) -> ApiClientQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiClient(models.Model):
    name = models.CharField(max_length=100, unique=True)
    # The documents this client's token may read, cite and supersede.
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="clients")
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    # The first characters, so a person can tell tokens apart in the admin.
    token_hint = models.CharField(max_length=12, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiClientQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        default_workspace_fill(self)
        super().save(*args, **kwargs)

    @staticmethod
    def new_token() -> str:
        return TOKEN_PREFIX + secrets.token_urlsafe(32)

    def set_token(self, token: str) -> None:
        self.token_hash = hash_token(token)
        self.token_hint = token[:10]

    def revoke(self) -> None:
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])
