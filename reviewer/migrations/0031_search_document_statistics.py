"""On PostgreSQL, ANALYZE keeps ten times the default statistics on the
search's stored document (``search_document``, migration 0028): its most
common lexemes and their frequencies, which the planner reads to estimate how
many answers a searched word matches.

With the default (100) a word too rare to be among the common lexemes kept
is estimated at 0.5 % of the answers, whatever it is: at 1M answers a word in
one question in 500 (2,000 answers) was estimated at 5,000, depending on the
rows one ANALYZE happened to sample, and for that many PostgreSQL intersected
the word's matches with the bitmap of every answer needing review (270,000
entries, 33 ms) instead of reading the 2,000 rows (bench/triage.py: "search,
a rare word" 36 ms for its count, 7 ms after; its page 153 ms against 22 ms at
1k). With 1,000 the lexemes kept reach rarer words and the estimate of a word
outside them is lower, so the rare word's matches are read alone. ANALYZE of
the answers samples more rows for this column (300,000 at most).

The column is PostgreSQL's only (SQLite searches with LIKE): elsewhere this
does nothing.
"""

from django.db import migrations

STATISTICS = 1000


def _target(apps, schema_editor, target):
    if schema_editor.connection.vendor != "postgresql":
        return
    quote = schema_editor.quote_name
    table = quote(apps.get_model("reviewer", "Answer")._meta.db_table)
    column = quote("search_document")
    schema_editor.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET STATISTICS {target}")
    # Gathered now, not at autovacuum's next ANALYZE of the table.
    schema_editor.execute(f"ANALYZE {table} ({column})")


def more_statistics(apps, schema_editor):
    _target(apps, schema_editor, STATISTICS)


def default_statistics(apps, schema_editor):
    _target(apps, schema_editor, -1)


class Migration(migrations.Migration):

    dependencies = [
        ("reviewer", "0030_triage_assigned_covering"),
    ]

    operations = [
        migrations.RunPython(more_statistics, default_statistics, elidable=False),
    ]
