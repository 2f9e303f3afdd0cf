"""The triage columns: the worst outcome's rank, each outcome's count, the
reason words, and the backfill of answers stored before the columns existed."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps

from reviewer.models import Answer, AnswerStats, QueueGroup
from reviewer.selectors.triage import row_reason
from reviewer.services.answers import answer_submit
from reviewer.services.queue_counts import queue_counts_rebuild
from reviewer.services.stats import stats_rebuild
from reviewer.severity import (
    OUTCOME_BITS,
    SEVERITY_ORDER,
    outcome_columns,
    outcome_mask,
    reason_words,
    severity,
)


@pytest.mark.parametrize(("counts", "rank"), [
    ({}, 0),
    ({"verified": 4, "unquoted": 2}, 0),
    ({"uncited-claim": 3}, 1),
    ({"unattributed-quote": 1, "uncited-claim": 9}, 2),
    ({"wrong-source": 1, "uncited-claim": 1}, 3),
    ({"claim-unsupported": 1, "wrong-source": 5}, 4),
    ({"quote-not-found": 1, "claim-unsupported": 5}, 5),
    ({"claim-mismatch": 1, "quote-not-found": 7}, 6),
    ({"quote-altered": 1, "claim-mismatch": 7}, 7),
    ({"fabricated-marker": 1, "quote-altered": 3}, 8),
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
                       "claim_mismatch_count": 0, "claim_unsupported_count": 0, "severity": 7}


def test_the_claim_outcomes_rank_after_their_quote_counterparts() -> None:
    assert SEVERITY_ORDER.index("claim-mismatch") == SEVERITY_ORDER.index("quote-altered") + 1
    assert (SEVERITY_ORDER.index("claim-unsupported")
            == SEVERITY_ORDER.index("quote-not-found") + 1)
    columns = outcome_columns({"claim-mismatch": 2, "claim-unsupported": 1, "unquoted": 4})
    assert (columns["claim_mismatch_count"], columns["claim_unsupported_count"],
            columns["severity"]) == (2, 1, 6)


def test_the_kept_outcome_bits_keep_their_meaning() -> None:
    # QueueGroup rows store these masks: the six bits kept since migration
    # 0011 mean what they meant, the claim outcomes take new ones.
    assert OUTCOME_BITS == {
        "fabricated-marker": 1, "quote-altered": 2, "quote-not-found": 4, "wrong-source": 8,
        "unattributed-quote": 16, "uncited-claim": 32, "claim-mismatch": 64,
        "claim-unsupported": 128}
    assert outcome_mask({"claim_mismatch_count": 1, "altered_count": 2}) == 2 | 64


def test_reason_words_worst_first_with_coverage() -> None:
    counts = {"quote-not-found": 1, "quote-altered": 2, "verified": 3}
    assert reason_words(counts, 0.6) == "2 altered · 1 not found · coverage 60%"
    assert reason_words(counts, 1.0) == "2 altered · 1 not found"
    assert reason_words({}, None) == ""
    claims = {"claim-unsupported": 1, "claim-mismatch": 2, "uncited-claim": 1}
    assert reason_words(claims, 0.5) == "2 mismatched · 1 unsupported · 1 uncited · coverage 50%"


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
    assert (stored.severity, stored.altered_count, stored.fabricated_count) == (8, 1, 1)
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


CLAIM_SOURCE = "The warranty lasts two years from the date of purchase and covers parts."


def _submit_claim(answer: str) -> Answer:
    return answer_submit(client=None, data={
        "answer": answer, "sources": [{"marker": "S1", "text": CLAIM_SOURCE}]}).answer


@pytest.mark.django_db
def test_a_paraphrase_its_passage_contradicts_gets_the_claim_columns() -> None:
    answer = _submit_claim("The warranty lasts 3 years from the date of purchase [S1].")
    stored = Answer.objects.get(pk=answer.pk)
    assert (stored.claim_mismatch_count, stored.claim_unsupported_count, stored.severity,
            stored.verdict) == (1, 0, 6, "flag")
    assert row_reason(stored).startswith("1 mismatched")


def _groups() -> dict[tuple[Any, ...], int]:
    return {(g.surface_key, g.model, g.verdict, g.review_state, g.assignee_key, g.outcomes):
            g.answers for g in QueueGroup.objects.all()}


def _stats() -> dict[tuple[Any, ...], tuple[int, int, int]]:
    return {(s.hour, s.surface_id, s.model): (s.answers, s.with_claim_mismatch,
                                              s.with_claim_unsupported)
            for s in AnswerStats.objects.all()}


@pytest.mark.django_db
def test_migration_0021_backfills_the_claim_columns_and_reranks() -> None:
    mismatch = _submit_claim("The warranty lasts 3 years from the date of purchase [S1].")
    unsupported = _submit_claim("Dragons breathe fire over northern mountains and frozen "
                                "lakes every winter [S1].")
    altered = _submit('The employer matches "up to 7 percent of salary" [S1].')
    assert unsupported.counts["claim-unsupported"] == 1
    stats_rebuild()
    queue_counts_rebuild()
    expected_stats, expected_groups = _stats(), _groups()
    expected = {a.pk: (a.severity, a.claim_mismatch_count, a.claim_unsupported_count)
                for a in Answer.objects.all()}
    assert expected == {mismatch.pk: (6, 1, 0), unsupported.pk: (4, 0, 1),
                        altered.pk: (7, 0, 0)}
    # As stored before the migration: no claim columns, the six-outcome ranks
    # (altered was 5), groups and trends rows without the claim outcomes.
    Answer.objects.update(claim_mismatch_count=0, claim_unsupported_count=0)
    Answer.objects.filter(pk=altered.pk).update(severity=5)
    AnswerStats.objects.update(with_claim_mismatch=0, with_claim_unsupported=0)
    migration: Any = importlib.import_module("reviewer.migrations.0021_claim_outcome_counts")
    migration.rank_as_before(apps, None)
    assert all(g.outcomes < 64 for g in QueueGroup.objects.all())
    assert Answer.objects.get(pk=mismatch.pk).severity == 0  # nothing else failing

    migration.backfill_claim_outcomes(apps, None)

    assert {a.pk: (a.severity, a.claim_mismatch_count, a.claim_unsupported_count)
            for a in Answer.objects.all()} == expected
    assert _stats() == expected_stats
    assert _groups() == expected_groups


def test_every_rank_has_a_colour_in_the_queue() -> None:
    # triage.html classes rows severity-N; a rank the stylesheet misses shows
    # its reason uncoloured (ranks 7 and 8 came with the claim outcomes).
    from pathlib import Path

    css = (Path(__file__).parents[2] / "static/css/triage.css").read_text()
    for rank in range(1, len(SEVERITY_ORDER) + 1):
        assert f"tr.severity-{rank} td.reason" in css, rank
