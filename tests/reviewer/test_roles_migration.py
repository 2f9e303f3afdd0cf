"""Migration 0007's roles: the groups with their permissions, and who keeps
working after the upgrade (people who decided answers, staff)."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from reviewer.models import ReviewDecision
from reviewer.roles import ROLE_PERMISSIONS
from reviewer.services.answers import answer_submit


@pytest.mark.django_db
def test_each_role_has_exactly_its_permissions() -> None:
    for role, names in ROLE_PERMISSIONS.items():
        group = Group.objects.get(name=role)
        granted = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}
        assert granted == set(names), role


@pytest.mark.django_db
def test_a_user_with_a_role_has_its_permissions_and_one_without_has_none() -> None:
    users = get_user_model()
    reviewer = users.objects.create_user("r", password="x")
    reviewer.groups.add(Group.objects.get(name="reviewer"))
    nobody = users.objects.create_user("n", password="x")
    assert reviewer.has_perm("reviewer.decide_answer")
    assert not reviewer.has_perm("reviewer.assign_answer")
    assert not any(nobody.has_perm(name) for names in ROLE_PERMISSIONS.values()
                   for name in names)


@pytest.mark.django_db
def test_upgrade_keeps_deciders_deciding_and_makes_staff_supervisors() -> None:
    users = get_user_model()
    decider = users.objects.create_user("decider", password="x")
    staff = users.objects.create_user("staff", password="x", is_staff=True)
    newcomer = users.objects.create_user("newcomer", password="x")
    answer = answer_submit(client=None, data={
        "answer": "It vests at once [S2].",
        "sources": [{"marker": "S1", "text": "Vesting."}]}).answer
    ReviewDecision(answer=answer, reviewer=decider, decision="escalate",
                   from_state="pending", to_state="escalated").save()
    migration: Any = importlib.import_module("reviewer.migrations.0007_triage_and_roles")
    migration.create_roles(apps, None)
    assert set(decider.groups.values_list("name", flat=True)) == {"reviewer"}
    assert set(staff.groups.values_list("name", flat=True)) == {"supervisor"}
    assert not newcomer.groups.exists()
