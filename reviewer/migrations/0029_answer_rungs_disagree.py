"""The "rungs disagree" triage filter from a stored flag (bench/triage.py).

``Answer.rungs_disagree``: whether the two rungs disagree on one of the
answer's citations, the deterministic check passing it and the model saying
contradicted, or failing it (a failing outcome, or a citation of a
superseded document) and the model saying supported. The filter looked for
such a judgement per answer (an EXISTS over the judgements): at 1M answers
it read every answer the other filters kept, 0.3 s against 13 ms at 1k.
Stored, with a partial index over the few answers it holds in the queue's
order, the filter reads those alone.

The flag is filled here for the answers already stored, from their
judgements as they stand (one UPDATE), before the index is built. The rule
and the failing outcomes are written out as they stand at this migration
(reviewer.selectors.judgements, reviewer.selectors.reviews): a migration
never imports live app code. Adding the column does not rewrite the table on
PostgreSQL (a constant default).
"""

from django.conf import settings
from django.db import migrations, models
from django.db.models import Exists, OuterRef, Q

#: Outcomes that count against an answer (fabricated-marker and the outcomes
#: that flag an answer for review), as at this migration.
FAILING_OUTCOMES = ("fabricated-marker", "quote-altered", "claim-mismatch", "quote-not-found",
                    "claim-unsupported", "wrong-source", "unattributed-quote")


def fill_rungs_disagree(apps, schema_editor):
    answer = apps.get_model("reviewer", "Answer")
    judgement = apps.get_model("reviewer", "Judgement")
    failing = Q(citation__outcome__in=FAILING_OUTCOMES) | Q(citation__superseded=True)
    disagreeing = judgement.objects.filter(
        (~failing & Q(label="contradicted")) | (failing & Q(label="supported")),
        answer=OuterRef("pk"), citation__isnull=False)
    # Every answer, soft-deleted ones too (the base manager: no live filter).
    answer._base_manager.filter(Exists(disagreeing)).update(rungs_disagree=True)


class Migration(migrations.Migration):

    dependencies = [
        ("reviewer", "0028_triage_at_scale"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="rungs_disagree",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(fill_rungs_disagree, migrations.RunPython.noop, elidable=False),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(condition=models.Q(("rungs_disagree", True)),
                               fields=["review_state", "-triage_priority", "created", "id"],
                               name="answer_rungs_disagree"),
        ),
    ]
