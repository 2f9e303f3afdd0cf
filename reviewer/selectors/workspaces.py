"""Which answers and documents a person may see: those of the workspaces
they are a member of (every workspace for a superuser)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from reviewer.models import Answer, Document, Workspace
from reviewer.models.workspaces import DEFAULT_WORKSPACE

__all__ = ["answers_visible", "documents_visible", "upload_workspace", "workspaces_of"]


def workspaces_of(user: Any) -> list[int] | None:
    """The ids of the workspaces ``user`` sees; None when that is all of them
    (a superuser, or a member of every workspace), so callers can skip the
    filter and keep their fast paths on a single-workspace site."""
    if not getattr(user, "is_authenticated", False):
        return []
    if user.is_superuser:
        return None
    cached = getattr(user, "_workspace_ids", None)
    if cached is None:
        # One query, once per request (views ask more than once): every
        # workspace, and whether the user is a member.
        member = Workspace.users.through.objects.filter(workspace=OuterRef("pk"), user=user)
        rows = list(Workspace.objects.annotate(member=Exists(member)).values_list("pk", "member"))
        mine = [pk for pk, is_member in rows if is_member]
        cached = "all" if mine and len(mine) == len(rows) else mine
        user._workspace_ids = cached
    return None if cached == "all" else list(cached)


def answers_visible(answers: QuerySet[Answer], user: Any) -> QuerySet[Answer]:
    """``answers`` narrowed to ``user``'s workspaces: an answer is in its
    client's workspace; one submitted without a client (the operator's own
    commands) is in the default workspace."""
    spaces = workspaces_of(user)
    if spaces is None:
        return answers
    if not spaces:
        # Nothing, said so that it still compiles to SQL (the triage counts
        # embed this query; an empty IN () would not).
        return answers.filter(pk__isnull=True)
    condition = Q(client__workspace__in=spaces)
    if Workspace.objects.filter(pk__in=spaces, name=DEFAULT_WORKSPACE).exists():
        condition |= Q(client__isnull=True)
    return answers.filter(condition)


def documents_visible(documents: QuerySet[Document], user: Any) -> QuerySet[Document]:
    spaces = workspaces_of(user)
    if spaces is None:
        return documents
    return documents.filter(workspace__in=spaces) if spaces else documents.filter(
        pk__isnull=True)


def upload_workspace(user: Any) -> Workspace | None:
    """Where ``user``'s uploads go: the default workspace when they see it,
    else their first workspace by name; None when they are in none."""
    spaces = workspaces_of(user)
    candidates = Workspace.objects.all() if spaces is None else Workspace.objects.filter(
        pk__in=spaces)
    return (candidates.filter(name=DEFAULT_WORKSPACE).first() or candidates.first()
            or (Workspace.objects.default() if spaces is None else None))
