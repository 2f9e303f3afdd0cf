"""``manage.py roles``: who has which role, and giving or taking them.

    manage.py roles list
    manage.py roles grant ann reviewer [supervisor …] [--workspace clinic-a …]
    manage.py roles revoke ann reviewer [...]
    manage.py roles sync

Roles are the groups reviewer/roles.py defines; the admin is a superuser
(``createsuperuser``), not a role to grant. A role shows a person only the
answers and documents of their workspaces (``--workspace``, or the admin's
Workspaces page).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from reviewer.models import Workspace
from reviewer.roles import ROLE_PERMISSIONS, ROLES, sync_roles


class Command(BaseCommand):
    help = "List, grant and revoke people's roles; re-create the roles' permissions (sync)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        actions.add_parser("list", help="every user and their roles")
        for name, verb in (("grant", "give"), ("revoke", "take away")):
            action = actions.add_parser(name, help=f"{verb} roles ({', '.join(ROLES)})")
            action.add_argument("username", metavar="USER")
            action.add_argument("roles", metavar="ROLE", nargs="+")
        actions.choices["grant"].add_argument(
            "--workspace", action="append", default=[], metavar="NAME",
            help="also make them a member of this workspace (repeatable)")
        actions.add_parser("sync", help="give each role group exactly reviewer/roles.py's "
                                        "permissions (creating missing groups)")

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        if action == "list":
            self._list()
        elif action == "sync":
            self._sync()
        else:
            user = self._user(options["username"])
            groups = self._groups(options["roles"])
            if action == "grant":
                user.groups.add(*groups)
                for name in options.get("workspace") or []:
                    workspace = Workspace.objects.filter(name=name).first()
                    if workspace is None:
                        raise CommandError(f"no workspace {name!r} (the admin's Workspaces "
                                           "page makes one)")
                    workspace.users.add(user)
            else:
                user.groups.remove(*groups)
            self.stdout.write(f"{user.get_username()}: {self._roles_of(user)}")
            if not user.is_superuser and not user.workspaces.exists():
                self.stderr.write(f"{user.get_username()} is in no workspace and sees no "
                                  "answers or documents: add --workspace NAME")

    def _list(self) -> None:
        users = get_user_model().objects.order_by(get_user_model().USERNAME_FIELD)
        for user in users.prefetch_related("groups"):
            notes = " (inactive)" if not user.is_active else ""
            self.stdout.write(f"{user.get_username()}: {self._roles_of(user)}{notes}")

    def _sync(self) -> None:
        with transaction.atomic():
            sync_roles(Group, Permission, ContentType)
        for role, permissions in ROLE_PERMISSIONS.items():
            self.stdout.write(f"{role}: {', '.join(p.split('.', 1)[1] for p in permissions)}")

    @staticmethod
    def _roles_of(user: Any) -> str:
        names = [group.name for group in user.groups.all()]
        roles = [name for name in names if name in ROLES]
        others = [name for name in names if name not in ROLES]
        if user.is_superuser:
            roles.insert(0, "admin")
        words = ", ".join(roles) or "no role"
        return f"{words} (other groups: {', '.join(others)})" if others else words

    @staticmethod
    def _user(username: str) -> Any:
        user = get_user_model().objects.filter(
            **{get_user_model().USERNAME_FIELD: username}).first()
        if user is None:
            raise CommandError(f"no user named {username!r}: create the account first "
                               "(the admin's Users page, or manage.py createsuperuser for an "
                               "admin), then give it a role")
        return user

    @staticmethod
    def _groups(names: list[str]) -> list[Group]:
        if "admin" in names:
            raise CommandError("admin is not a role to grant: an admin is a superuser "
                               "(manage.py createsuperuser, or tick 'Superuser status' in the "
                               "admin's user page)")
        unknown = [name for name in names if name not in ROLES]
        if unknown:
            raise CommandError(f"no role {', '.join(map(repr, unknown))}; the roles are "
                               f"{', '.join(ROLES)}")
        groups = {group.name: group for group in Group.objects.filter(name__in=names)}
        missing = [name for name in names if name not in groups]
        if missing:
            raise CommandError(f"the {', '.join(missing)} group is missing: run "
                               "manage.py roles sync to create it")
        return [groups[name] for name in names]
