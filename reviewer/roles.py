"""The roles people work in, as Django groups with permissions.

A migration creates the groups; ``manage.py roles`` re-syncs them and assigns
people; the admin can do both. Views and services check permissions
(``user.has_perm``), never group names, so a site can compose its own roles.

- reviewer: reads answers and documents, decides answers in their own queue
  and unassigned ones.
- supervisor: everything a reviewer can, plus every queue, assigning,
  exporting, trends (acknowledging rate-change alerts, giving them an owner
  and a note) and surfaces.
- calibrator: labels matches (blind: without answers' verdicts), opens the
  documents they come from, and sees surfaces and their calibration curves.
- admin: a superuser (``is_superuser``), which has every permission.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CALIBRATOR", "REVIEWER", "ROLES", "ROLE_PERMISSIONS", "SUPERVISOR", "sync_roles"]

REVIEWER = "reviewer"
SUPERVISOR = "supervisor"
CALIBRATOR = "calibrator"

_REVIEWER_PERMISSIONS = (
    "reviewer.view_answer", "reviewer.decide_answer", "reviewer.view_document",
)
#: Each role's permissions as "app_label.codename".
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    REVIEWER: _REVIEWER_PERMISSIONS,
    SUPERVISOR: (
        *_REVIEWER_PERMISSIONS,
        "reviewer.view_all_queues", "reviewer.assign_answer", "reviewer.export_answers",
        "reviewer.view_trends", "reviewer.view_surface", "reviewer.change_surface",
        "reviewer.add_document", "reviewer.view_matchlabel", "reviewer.change_trendalert",
    ),
    CALIBRATOR: ("reviewer.label_matches", "reviewer.view_document", "reviewer.view_surface"),
}
ROLES: tuple[str, ...] = tuple(ROLE_PERMISSIONS)

# Codename → the model whose content type holds it (custom permissions are
# declared on these models' Meta).
_PERMISSION_MODELS = {
    "decide_answer": "answer", "view_all_queues": "answer", "assign_answer": "answer",
    "export_answers": "answer", "view_trends": "answer", "label_matches": "matchlabel",
}
_PERMISSION_NAMES = {
    "decide_answer": "Can decide answers in their own queue and unassigned ones",
    "view_all_queues": "Can see and decide answers in every reviewer's queue",
    "assign_answer": "Can assign answers to reviewers",
    "export_answers": "Can export the triage queue",
    "view_trends": "Can see trends",
    "label_matches": "Can label matches to calibrate thresholds",
    "change_trendalert": "Can change trend alert",
}


def sync_roles(group_model: Any, permission_model: Any, content_type_model: Any) -> None:
    """Create each role's group and give it exactly its permissions.

    Takes the models as arguments so a migration can pass its historical
    ones; permissions are created here when missing (Django creates them only
    after all migrations have run).
    """
    for role, names in ROLE_PERMISSIONS.items():
        group, _ = group_model.objects.get_or_create(name=role)
        permissions = []
        for name in names:
            app_label, codename = name.split(".")
            model = _PERMISSION_MODELS.get(codename) or codename.split("_", 1)[1]
            content_type, _ = content_type_model.objects.get_or_create(
                app_label=app_label, model=model)
            permission, _ = permission_model.objects.get_or_create(
                content_type=content_type, codename=codename,
                defaults={"name": _PERMISSION_NAMES.get(codename, codename.replace("_", " "))})
            permissions.append(permission)
        group.permissions.set(permissions)
