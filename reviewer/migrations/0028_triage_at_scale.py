"""The triage queue at a million answers (bench/triage.py).

On every database:

- ``answer_triage_any``: the queue's order over every answer, so a queue in
  any state, or in one review state, reads its page in index order instead of
  sorting every answer (``state=any`` took 1.4 s at 1M).
- ``answer_triage_assigned``: the queue's order per assignee, over the answers
  a default queue holds: "my queue" with another filter read its page from
  a bitmap of every pending answer and sorted it (0.17 s at 1M).

On PostgreSQL only (SQLite, the embedded default, counts few answers and
searches with LIKE):

- ``answer_coverage_below`` and ``answer_created_covering``: the coverage and
  date filters' indexes, each carrying every column the queue's counts read
  (INCLUDE), so counting the answers a filter keeps reads the index alone,
  never the table (``COUNT_CAP`` of them: 37 ms from the table at 1M, 6 ms
  from the index). Over live answers only, as every query of the queue is;
  coverage's over the answers below full coverage, the only ones a coverage
  filter can keep.
- The free-text search's document stored in a generated column,
  ``search_document``, with its GIN index, in place of the GIN index on the
  expression (migration 0008). The expression index finds the matching rows,
  but every row read back is searched again by computing its tsvector from
  the text (about 65 µs an answer): counting the answers a common word
  matches took 30 s at 1M. Adding the column rewrites the table once (about
  two and a half minutes for this migration at 1M answers on a 2-core
  machine, the table locked meanwhile).

Column lists and the document's expression are written out as they stand at
this migration: a migration never imports live app code.
"""

from django.db import migrations, models

SEARCH_COLUMN = "search_document"
SEARCH_INDEX = "answer_search_document"
OLD_SEARCH_INDEX = "answer_search_english"
DOCUMENT = ("""to_tsvector('english'::regconfig, COALESCE("question", '') || ' ' || """
            """COALESCE("text", ''))""")
#: What the queue's counts read of an answer (reviewer.selectors.triage):
#: the counted facets' columns and the workspace scope's client.
COUNTED = ("surface", "model", "verdict", "review_state", "assigned_to", "client",
           "fabricated_count", "altered_count", "not_found_count", "wrong_source_count",
           "unattributed_count", "uncited_count", "claim_mismatch_count",
           "claim_unsupported_count")
#: name: (key, the other filter's column, condition beside deleted_at IS NULL)
COVERING = {
    "answer_coverage_below": ("coverage", "created", "coverage < 1"),
    "answer_created_covering": ("created", "coverage", ""),
}


def _names(schema_editor, model, names):
    return ", ".join(schema_editor.quote_name(model._meta.get_field(name).column)
                     for name in names)


def add_postgresql_only(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    answer = apps.get_model("reviewer", "Answer")
    quote = schema_editor.quote_name
    table = quote(answer._meta.db_table)
    for name, (key, other, condition) in COVERING.items():
        where = " AND ".join(part for part in ("deleted_at IS NULL", condition) if part)
        schema_editor.execute(
            f"CREATE INDEX {quote(name)} ON {table} ({_names(schema_editor, answer, [key])}) "
            f"INCLUDE ({_names(schema_editor, answer, (other, *COUNTED))}) WHERE {where}")
    schema_editor.execute(f"DROP INDEX IF EXISTS {quote(OLD_SEARCH_INDEX)}")
    schema_editor.execute(f"ALTER TABLE {table} ADD COLUMN {quote(SEARCH_COLUMN)} "
                          f"tsvector GENERATED ALWAYS AS ({DOCUMENT}) STORED")
    schema_editor.execute(f"CREATE INDEX {quote(SEARCH_INDEX)} ON {table} "
                          f"USING gin ({quote(SEARCH_COLUMN)})")


def drop_postgresql_only(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    quote = schema_editor.quote_name
    table = quote(apps.get_model("reviewer", "Answer")._meta.db_table)
    for name in COVERING:
        schema_editor.execute(f"DROP INDEX IF EXISTS {quote(name)}")
    schema_editor.execute(f"ALTER TABLE {table} DROP COLUMN {quote(SEARCH_COLUMN)}")
    schema_editor.execute(f"CREATE INDEX {quote(OLD_SEARCH_INDEX)} ON {table} "
                          f"USING gin (({DOCUMENT}))")


class Migration(migrations.Migration):

    dependencies = [
        ("reviewer", "0027_document_ocr"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(fields=["-triage_priority", "created", "id"],
                               name="answer_triage_any"),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                condition=models.Q(models.Q(("review_state", "pending"),
                                            models.Q(("verdict", "pass"), _negated=True)),
                                   ("review_state", "escalated"), _connector="OR"),
                fields=["assigned_to", "review_state", "-triage_priority", "created", "id"],
                name="answer_triage_assigned"),
        ),
        migrations.RunPython(add_postgresql_only, drop_postgresql_only, elidable=False),
    ]
