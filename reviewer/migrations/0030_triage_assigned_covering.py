"""On PostgreSQL, the per-assignee queue index (``answer_triage_assigned``)
carries the coverage filter's column and what else a count of one queue's
answers reads (INCLUDE: coverage, verdict, deleted_at), so "my queue" with
coverage below X counts its answers from the index alone.

At 1M answers (bench/triage.py) a reviewer's queue with coverage below 90 %
counted its 5,920 answers by intersecting a bitmap of the reviewer's pending
answers with one of the 145,000 answers below 90 % and reading their rows:
45 ms, and 470 ms when the rows were not cached; from this index, 5 ms.

The index is built again with the same name, keys and condition (a few
seconds at 1M, writes to the answers held meanwhile). SQLite, which has no
INCLUDE (Django warns about the option there), keeps the index as the model
declares it. Columns are written out as they stand at this migration: a
migration never imports live app code.
"""

from django.db import migrations

INDEX = "answer_triage_assigned"
KEYS = ('"assigned_to_id", "review_state", "triage_priority" DESC, "created", "id"')
CONDITION = """(("review_state" = 'pending' AND NOT ("verdict" = 'pass')) """ \
            """OR "review_state" = 'escalated')"""
INCLUDED = '"coverage", "verdict", "deleted_at"'


def _rebuild(apps, schema_editor, include):
    if schema_editor.connection.vendor != "postgresql":
        return
    quote = schema_editor.quote_name
    table = quote(apps.get_model("reviewer", "Answer")._meta.db_table)
    schema_editor.execute(f"DROP INDEX IF EXISTS {quote(INDEX)}")
    schema_editor.execute(
        f"CREATE INDEX {quote(INDEX)} ON {table} ({KEYS})"
        + (f" INCLUDE ({INCLUDED})" if include else "") + f" WHERE {CONDITION}")


def covering(apps, schema_editor):
    _rebuild(apps, schema_editor, include=True)


def plain(apps, schema_editor):
    _rebuild(apps, schema_editor, include=False)


class Migration(migrations.Migration):

    dependencies = [
        ("reviewer", "0029_answer_rungs_disagree"),
    ]

    operations = [
        migrations.RunPython(covering, plain, elidable=False),
    ]
