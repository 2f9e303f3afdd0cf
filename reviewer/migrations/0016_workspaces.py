"""Workspaces: every existing document, API client and person goes into the
``default`` workspace, so an installation sees no change until it makes a
second one; document uniqueness (bytes, key versions) becomes per workspace."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def into_default(apps, schema_editor):
    Workspace = apps.get_model("reviewer", "Workspace")
    ApiClient = apps.get_model("reviewer", "ApiClient")
    Document = apps.get_model("reviewer", "Document")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    workspace, _ = Workspace.objects.get_or_create(name="default")
    ApiClient.objects.filter(workspace__isnull=True).update(workspace=workspace)
    Document.objects.filter(workspace__isnull=True).update(workspace=workspace)
    # People who saw everything keep seeing it.
    workspace.users.add(*User.objects.values_list("pk", flat=True))
    if schema_editor.connection.vendor == "postgresql":
        # Check the new foreign keys now: PostgreSQL refuses the ALTER TABLEs
        # below while the updates' deferred checks are pending.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):

    dependencies = [
        ("reviewer", "0015_run_heartbeat"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Workspace",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100, unique=True)),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("users", models.ManyToManyField(
                    blank=True, related_name="workspaces", to=settings.AUTH_USER_MODEL,
                    help_text="People who see this workspace's answers and documents.")),
            ],
            options={"ordering": ["name"]},
        ),
        migrations.AddField(
            model_name="apiclient",
            name="workspace",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="clients", to="reviewer.workspace"),
        ),
        migrations.AddField(
            model_name="document",
            name="workspace",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="documents", to="reviewer.workspace"),
        ),
        migrations.RunPython(into_default, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="apiclient",
            name="workspace",
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                    related_name="clients", to="reviewer.workspace"),
        ),
        migrations.AlterField(
            model_name="document",
            name="workspace",
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                    related_name="documents", to="reviewer.workspace"),
        ),
        migrations.RemoveConstraint(
            model_name="document",
            name="document_key_version_unique",
        ),
        migrations.AlterField(
            model_name="document",
            name="sha256",
            field=models.CharField(editable=False, max_length=64),
        ),
        migrations.AddConstraint(
            model_name="document",
            constraint=models.UniqueConstraint(fields=("workspace", "sha256"),
                                               name="document_sha256_unique_per_workspace"),
        ),
        migrations.AddConstraint(
            model_name="document",
            constraint=models.UniqueConstraint(condition=models.Q(("document_key", ""),
                                                                  _negated=True),
                                               fields=("workspace", "document_key", "version"),
                                               name="document_key_version_unique"),
        ),
    ]
