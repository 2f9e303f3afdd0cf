"""The triage queue's free-text search: a GIN index over the same tsvector
expression the queue filters on (reviewer.selectors.triage.search_vector),
on PostgreSQL only. SQLite searches with a plain LIKE and needs none."""

from django.db import migrations

INDEX_NAME = "answer_search_english"


def _index():
    from django.contrib.postgres.indexes import GinIndex
    from django.contrib.postgres.search import SearchVector

    # A copy of search_vector() as it was when this migration was written: the
    # planner uses the index only when the query's expression is identical.
    return GinIndex(SearchVector("question", "text", config="english"), name=INDEX_NAME)


def create_search_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.add_index(apps.get_model("reviewer", "Answer"), _index())


def drop_search_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.remove_index(apps.get_model("reviewer", "Answer"), _index())


class Migration(migrations.Migration):

    dependencies = [
        ("reviewer", "0007_triage_and_roles"),
    ]

    operations = [
        migrations.RunPython(create_search_index, drop_search_index, elidable=False),
    ]
