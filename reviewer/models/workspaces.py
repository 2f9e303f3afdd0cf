"""Workspaces: who shares which documents and answers.

A workspace's members are API clients (each token belongs to one workspace)
and people (``users``). A token lists, reads, cites and supersedes only its
workspace's documents; a person sees the answers and documents of the
workspaces they are a member of (a superuser sees all). Installations that
never name a workspace keep everything in the ``default`` one.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

DEFAULT_WORKSPACE = "default"


class WorkspaceQuerySet(models.QuerySet["Workspace"]):
    def default(self) -> Workspace:
        workspace, _ = self.get_or_create(name=DEFAULT_WORKSPACE)
        return workspace


class Workspace(models.Model):
    name = models.CharField(max_length=100, unique=True)
    users = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True,
                                   related_name="workspaces",
                                   help_text="People who see this workspace's answers and "
                                             "documents.")
    created = models.DateTimeField(auto_now_add=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


def default_workspace_fill(instance: Any) -> None:
    """Rows saved without a workspace (older code paths, the admin, fixtures)
    land in the default one, as every row did before workspaces existed."""
    if instance.workspace_id is None:
        instance.workspace = Workspace.objects.default()
