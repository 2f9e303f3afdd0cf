"""The triage queue's keys before age (severity, failing outcomes, the
surface's high stakes) stored in one indexed number, so the queue's first page
is read in index order again instead of sorting every row the filters keep.

The backfill is one UPDATE in SQL that both PostgreSQL and SQLite run; its
formula is ``reviewer.severity.triage_priority`` as it stands at this
migration (severity × 10¹² + min(failing, 10¹¹ − 1) × 10 + high stakes), not
imported: a migration never runs live app code.
"""

from django.db import migrations, models

_FAILING = ("fabricated_count + altered_count + not_found_count + wrong_source_count"
            " + unattributed_count + uncited_count + claim_mismatch_count"
            " + claim_unsupported_count")
_CAP = 10**11 - 1

BACKFILL = f"""
UPDATE reviewer_answer SET triage_priority =
    severity * 1000000000000
    + (CASE WHEN {_FAILING} > {_CAP} THEN {_CAP} ELSE {_FAILING} END) * 10
    + CASE WHEN EXISTS (SELECT 1 FROM reviewer_surface s
                        WHERE s.id = reviewer_answer.surface_id AND s.high_stakes)
           THEN 1 ELSE 0 END
"""


class Migration(migrations.Migration):

    dependencies = [
        ("reviewer", "0025_label_steps"),
    ]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="triage_priority",
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.RunSQL(BACKFILL, reverse_sql=migrations.RunSQL.noop, elidable=False),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                condition=models.Q(models.Q(("review_state", "pending"),
                                            models.Q(("verdict", "pass"), _negated=True)),
                                   ("review_state", "escalated"), _connector="OR"),
                fields=["review_state", "-triage_priority", "created", "id"],
                name="answer_triage_queue"),
        ),
    ]
