"""The triage columns: the worst outcome's rank, each outcome's count, the
reason words, and the backfill of answers stored before the columns existed."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps

from reviewer.models import Answer
from reviewer.services.answers import answer_submit
from reviewer.severity import SEVERITY_ORDER, outcome_columns, reason_words, severity


@pytest.mark.parametrize(("counts", "rank"), [
    ({}, 0),
    ({"verified": 4, "unquoted": 2}, 0),
    ({"uncited-claim": 3}, 1),
    ({"unattributed-quote": 1, "uncited-claim": 9}, 2),
    ({"wrong-source": 1, "uncited-claim": 1}, 3),
    ({"quote-not-found": 1, "wrong-source": 5}, 4),
    ({"quote-altered": 1, "quote-not-found": 7}, 5),
    ({"fabricated-marker": 1, "quote-altered": 3}, 6),
    ({"fabricated-marker": 0, "quote-altered": 0, "wrong-source": 2}, 3),
])
def test_severity_is_the_worst_outcome_present(counts: dict[str, int], rank: int) -> None:
    assert severity(counts) == rank


def test_every_outcome_outranks_the_ones_after_it() -> None:
    ranks = [severity({outcome: 1}) for outcome in SEVERITY_ORDER]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == len(ranks)


def test_outcome_columns_copy_the_counts() -> None:
    columns = outcome_columns({"quote-altered": 2, "quote-not-found": 1, "verified": 5})
    assert columns == {"fabricated_count": 0, "altered_count": 2, "not_found_count": 1,
                       "wrong_source_count": 0, "unattributed_count": 0, "uncited_count": 0,
                       "severity": 5}


def test_reason_words_worst_first_with_coverage() -> None:
    counts = {"quote-not-found": 1, "quote-altered": 2, "verified": 3}
    assert reason_words(counts, 0.6) == "2 altered · 1 not found · coverage 60%"
    assert reason_words(counts, 1.0) == "2 altered · 1 not found"
    assert reason_words({}, None) == ""


SOURCE = "The employer matches contributions up to 5 percent of salary after one year."


def _submit(answer: str) -> Answer:
    return answer_submit(client=None, data={
        "answer": answer, "sources": [{"marker": "S1", "text": SOURCE}]}).answer


@pytest.mark.django_db
def test_a_stored_answer_gets_its_columns_from_its_report() -> None:
    answer = _submit('The employer matches "up to 7 percent of salary" [S1]. '
                     'It vests at once [S9].')
    assert answer.counts["quote-altered"] == 1 and answer.counts["fabricated-marker"] == 1
    stored = Answer.objects.get(pk=answer.pk)
    assert (stored.severity, stored.altered_count, stored.fabricated_count) == (6, 1, 1)
    clean = Answer.objects.get(pk=_submit('It matches "up to 5 percent of salary" [S1].').pk)
    assert (clean.severity, clean.altered_count, clean.verdict) == (0, 0, "pass")


@pytest.mark.django_db
def test_migration_backfills_answers_stored_before_the_columns() -> None:
    answer = _submit('The employer matches "up to 7 percent of salary" [S1].')
    Answer.objects.filter(pk=answer.pk).update(severity=0, altered_count=0)
    migration: Any = importlib.import_module("reviewer.migrations.0007_triage_and_roles")
    migration.backfill_triage_columns(apps, None)
    stored = Answer.objects.get(pk=answer.pk)
    assert (stored.severity, stored.altered_count) == (5, 1)
