"""``manage.py load_demo``: the data a newcomer needs to see the product."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_USER = "demo"


class Command(BaseCommand):
    help = "Create the demo reviewer account (demo/demo). Safe to run twice."

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=DEMO_USER, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password(DEMO_USER)
            user.save(update_fields=["password"])
        self.stdout.write(f"demo user {'created' if created else 'already present'}: demo/demo")
