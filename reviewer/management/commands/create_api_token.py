"""``manage.py create_api_token CLIENT_NAME [--workspace NAME]``: print a new
API token, once."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.models import ApiClient, Workspace
from reviewer.services.clients import api_client_create, api_client_rotate


class Command(BaseCommand):
    help = (
        "Create an API client and print its bearer token (shown only now; stored hashed). "
        "With --rotate, replace an existing client's token."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", metavar="CLIENT_NAME")
        parser.add_argument("--rotate", action="store_true",
                            help="replace the token of an existing client")
        parser.add_argument("--workspace", metavar="NAME", default="",
                            help="the workspace whose documents the token reads, cites and "
                                 "supersedes (made if new; default: 'default')")

    def handle(self, *args: Any, name: str, rotate: bool, workspace: str,
               **options: Any) -> None:
        if rotate:
            client = ApiClient.objects.filter(name=name).first()
            if client is None:
                raise CommandError(f"no API client named {name!r}")
            if workspace and workspace != client.workspace.name:
                raise CommandError(f"{name!r} is a client of workspace "
                                   f"{client.workspace.name!r}; a rotated token keeps it")
            token = api_client_rotate(client=client)
        else:
            if ApiClient.objects.filter(name=name).exists():
                raise CommandError(
                    f"an API client named {name!r} exists; use --rotate to replace its token"
                )
            try:
                space = (Workspace.objects.get_or_create(name=workspace.strip())[0]
                         if workspace.strip() else Workspace.objects.default())
                _, token = api_client_create(name=name, workspace=space)
            except ValidationError as error:
                raise CommandError("; ".join(error.messages)) from None
        self.stdout.write(token)
        self.stderr.write(
            f"This is the only time the token for {name!r} (workspace "
            f"{ApiClient.objects.get(name=name).workspace.name!r}) is shown. "
            "Send it as 'Authorization: Bearer <token>'."
        )
