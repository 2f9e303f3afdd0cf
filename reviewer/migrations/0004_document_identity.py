import reviewer.models.documents
from django.db import migrations, models


def number_versions(apps, schema_editor):
    """Existing documents: a version one more than the one each supersedes.
    (Links made by the old title rule are kept: which were meant cannot be told.)"""
    Document = apps.get_model("reviewer", "Document")
    versions: dict[int, int] = {}
    for pk, supersedes_id in Document.objects.order_by("pk").values_list("pk", "supersedes_id"):
        versions[pk] = versions.get(supersedes_id, 0) + 1 if supersedes_id else 1
    for pk, version in versions.items():
        if version > 1:
            Document.objects.filter(pk=pk).update(version=version)


class Migration(migrations.Migration):

    dependencies = [
        ('reviewer', '0003_source_furniture'),
    ]

    operations = [
        migrations.AddField(
            model_name='answer',
            name='request_sha256',
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name='document',
            name='document_key',
            field=models.CharField(blank=True, help_text="The client's stable name for this document; an upload under the same key is its next version.", max_length=200, validators=[reviewer.models.documents.validate_document_key]),
        ),
        migrations.AddField(
            model_name='document',
            name='version',
            field=models.PositiveIntegerField(default=1, editable=False, help_text='1 for a first upload; one more than the version it supersedes.'),
        ),
        migrations.AddConstraint(
            model_name='document',
            constraint=models.UniqueConstraint(condition=models.Q(('document_key', ''), _negated=True), fields=('document_key', 'version'), name='document_key_version_unique'),
        ),
        migrations.RunPython(number_versions, migrations.RunPython.noop),
    ]
