"""The stored "rungs disagree" flag (``Answer.rungs_disagree``) the triage
filter reads: kept right by every write that changes whether the two rungs
disagree (storing a judgement, a re-verification changing an outcome or
replacing the citations), found and repaired by the recount when something
writes around them, filled by its migration, and the filter keeps the same
answers as the definition it stands for (an EXISTS over the judgements)."""

from __future__ import annotations

import importlib
from io import StringIO
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.http import QueryDict
from django.utils import timezone

from reviewer.models import Answer, CitationVerdict, Judgement, Surface
from reviewer.selectors.judgements import answers_disagreeing
from reviewer.selectors.triage import TriageFilters, triage_queryset
from reviewer.services import reverify
from reviewer.services.answers import answer_submit
from reviewer.services.recount import counts_check
from reviewer.services.reverify import answer_reverify
from reviewer.services.rungs import answers_rungs_drifted, answers_rungs_restamp
from tests.judges import Reply, answer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_judges")]

SOURCE = ("The employer matches contributions up to five percent of salary after one full year "
          "of continuous service. Employees may not withdraw matched funds before age fifty-nine.")
# Scores 0.90 against SOURCE: verified-fuzzy at 0.85, quote-not-found at 0.92.
FUZZY = "employer matches the contributions up to the five per cent of the salary"
EXACT = "Employees may not withdraw matched funds before age fifty-nine"
VERIFIED = f'The plan says "{EXACT}" [S1].'
# quote-altered: a failing outcome with a passage the model can read.
ALTERED = 'The plan says "Employees may not withdraw matched funds before age sixty" [S1].'


@pytest.fixture
def legal() -> Surface:
    return Surface.objects.create(name="legal", threshold=0.85, judge_calls_per_hour=1000,
                                  judge_sample_rate=1.0)


def judged(capture: Any, judge_chat: Any, text: str, *labels: str | Reply) -> Answer:
    """``text`` submitted on legal and judged, the model answering ``labels``
    in citation order (the last repeating)."""
    judge_chat.script[:] = [label if isinstance(label, Reply) else answer(label)
                            for label in labels]
    with capture(execute=True):
        stored = answer_submit(client=None, data={
            "answer": text, "surface": "legal", "sources": [{"marker": "S1", "text": SOURCE}]
        }).answer
    stored.refresh_from_db()
    return stored


def flag(answer: Answer) -> bool:
    return Answer.all_objects.values_list("rungs_disagree", flat=True).get(pk=answer.pk)


def truly_disagrees(answer: Answer) -> bool:
    return Answer.all_objects.filter(answers_disagreeing(), pk=answer.pk).exists()


def assert_flags_kept() -> None:
    assert answers_rungs_drifted() == []


# ---- storing a judgement ----------------------------------------------------------

def test_storing_a_judgement_sets_the_flag_when_the_rungs_disagree_and_only_then(
        judge_chat: Any, legal: Surface, django_capture_on_commit_callbacks: Any) -> None:
    capture = django_capture_on_commit_callbacks
    contradicted = judged(capture, judge_chat, VERIFIED, "contradicted")  # passed, model: no
    supported = judged(capture, judge_chat, VERIFIED, "supported")  # both agree
    altered_supported = judged(capture, judge_chat, ALTERED, "supported")  # failed, model: yes
    altered_contradicted = judged(capture, judge_chat, ALTERED, "contradicted")  # both agree
    unsure = judged(capture, judge_chat, VERIFIED, "not enough information")
    assert CitationVerdict.objects.get(answer=altered_supported).outcome == "quote-altered"
    assert [flag(a) for a in (contradicted, supported, altered_supported,
                              altered_contradicted, unsure)] == [True, False, True, False, False]
    assert [truly_disagrees(a) for a in (contradicted, supported, altered_supported,
                                         altered_contradicted, unsure)] == [
        True, False, True, False, False]
    assert_flags_kept()


def test_a_later_judgement_of_an_answer_sets_the_flag_an_error_had_left_unset(
        judge_chat: Any, legal: Surface, django_capture_on_commit_callbacks: Any) -> None:
    failed = judged(django_capture_on_commit_callbacks, judge_chat, VERIFIED,
                    Reply(status=503, body=b"down"))
    assert set(Judgement.objects.filter(answer=failed).values_list("error", flat=True)
               ) == {"unavailable"}
    assert not flag(failed)
    judge_chat.script[:] = [answer("contradicted")]
    call_command("judge_pending", stdout=StringIO())
    assert Judgement.objects.filter(answer=failed, label="contradicted").exists()
    assert flag(failed)
    assert_flags_kept()


# ---- re-verification -------------------------------------------------------------------

def _outcomes(answer: Answer) -> list[str]:
    return list(CitationVerdict.objects.filter(answer=answer).order_by("position")
                .values_list("outcome", flat=True))


FUZZY_ANSWER = f'The plan says "{FUZZY}" [S1]. It adds "{EXACT}" [S1].'


def test_re_verifying_a_contradicted_citation_into_a_failing_one_clears_the_flag(
        judge_chat: Any, legal: Surface, django_capture_on_commit_callbacks: Any) -> None:
    disputed = judged(django_capture_on_commit_callbacks, judge_chat, FUZZY_ANSWER,
                      "contradicted", "supported")
    assert _outcomes(disputed) == ["verified-fuzzy", "verified"]
    assert flag(disputed)  # the check passes the fuzzy quote, the model contradicts it
    answer_reverify(answer=disputed, threshold=0.92)
    assert _outcomes(disputed) == ["quote-not-found", "verified"]
    assert not flag(disputed)  # now both rungs say it fails
    answer_reverify(answer=disputed, threshold=0.85)
    assert flag(disputed)
    assert_flags_kept()


def test_re_verifying_a_supported_citation_into_a_failing_one_sets_the_flag(
        judge_chat: Any, legal: Surface, django_capture_on_commit_callbacks: Any) -> None:
    agreed = judged(django_capture_on_commit_callbacks, judge_chat, FUZZY_ANSWER, "supported")
    assert not flag(agreed)
    outcome = answer_reverify(answer=agreed, threshold=0.92)
    assert outcome.outcomes_changed == 1
    assert flag(agreed)  # the check fails the quote now, the model supported it
    # Another answer re-verified beside it keeps its own flag.
    other = judged(django_capture_on_commit_callbacks, judge_chat, VERIFIED, "contradicted")
    reverify.answers_reverify(answer_ids=[agreed.pk, other.pk], threshold=0.85)
    assert (flag(agreed), flag(other)) == (False, True)
    assert_flags_kept()


def test_citations_replaced_by_a_re_verification_no_longer_make_the_rungs_disagree(
        judge_chat: Any, legal: Surface, django_capture_on_commit_callbacks: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    disputed = judged(django_capture_on_commit_callbacks, judge_chat, VERIFIED, "contradicted")
    assert flag(disputed)
    # As when another library version splits the answer differently.
    monkeypatch.setattr(reverify, "_same_layout", lambda old, new: False)
    answer_reverify(answer=disputed)
    assert not Judgement.objects.filter(answer=disputed, citation__isnull=False).exists()
    assert Judgement.objects.filter(answer=disputed).count() == 1  # kept as history
    assert not flag(disputed)
    assert_flags_kept()


# ---- the triage filter --------------------------------------------------------------------

def test_the_filter_keeps_the_answers_the_definition_keeps(
        judge_chat: Any, legal: Surface, make_user: Any,
        django_capture_on_commit_callbacks: Any) -> None:
    capture = django_capture_on_commit_callbacks
    for text, label in ((VERIFIED, "contradicted"), (VERIFIED, "supported"),
                        (ALTERED, "supported"), (ALTERED, "contradicted"),
                        (FUZZY_ANSWER, "contradicted"), (FUZZY_ANSWER, "supported"),
                        (ALTERED, "not enough information")):
        judged(capture, judge_chat, text, label)
    answer_submit(client=None, data={"answer": ALTERED, "surface": "legal",
                                     "sources": [{"marker": "S1", "text": SOURCE}]})
    boss = make_user("boss", "supervisor")
    for query in ("state=any&disagree=1", "disagree=1", "state=any&disagree=1&verdict=pass"):
        filters = TriageFilters.from_query(QueryDict(query), user=boss)
        without = TriageFilters.from_query(QueryDict(query.replace("disagree=1", "")),
                                           user=boss)
        listed = list(triage_queryset(filters, boss).values_list("pk", flat=True))
        defined = list(triage_queryset(without, boss).filter(answers_disagreeing())
                       .values_list("pk", flat=True))
        assert listed == defined, query
    everything = TriageFilters.from_query(QueryDict("state=any&disagree=1"), user=boss)
    assert 0 < triage_queryset(everything, boss).count() < Answer.objects.count()


# ---- writes around the services, the recount, the migration ---------------------------------

def test_the_recount_finds_a_flag_written_around_the_services_and_repairs_it(
        judge_chat: Any, legal: Surface, django_capture_on_commit_callbacks: Any) -> None:
    capture = django_capture_on_commit_callbacks
    disputed = judged(capture, judge_chat, VERIFIED, "contradicted")
    agreed = judged(capture, judge_chat, VERIFIED, "supported")
    assert not counts_check().drifted
    # Around the services: a citation's outcome changed in place.
    CitationVerdict.objects.filter(answer=agreed).update(outcome="quote-altered")
    CitationVerdict.objects.filter(answer=disputed).update(superseded=True)
    check = counts_check(repair=False)
    assert [(d.where, d.kept, d.true) for d in check.drifts if d.table == "rungs"] == [
        (f"answer {disputed.pk} rungs_disagree", 1, 0),
        (f"answer {agreed.pk} rungs_disagree", 0, 1)]
    assert (flag(disputed), flag(agreed)) == (True, False)  # a dry run repairs nothing
    assert counts_check(repair=True).drifted
    assert (flag(disputed), flag(agreed)) == (False, True)
    assert not counts_check().drifted
    # The plain rebuild restamps too (after an import that wrote around them).
    Answer.objects.filter(pk=agreed.pk).update(rungs_disagree=False)
    call_command("rebuild_stats", stdout=(out := StringIO()))
    assert "rungs disagree flags restamped: 1 answers changed" in out.getvalue()
    assert flag(agreed) and answers_rungs_restamp() == 0


def test_the_migration_fills_the_flag_as_the_services_keep_it(
        judge_chat: Any, legal: Surface, django_capture_on_commit_callbacks: Any) -> None:
    capture = django_capture_on_commit_callbacks
    answers = [judged(capture, judge_chat, text, label)
               for text, label in ((VERIFIED, "contradicted"), (VERIFIED, "supported"),
                                   (ALTERED, "supported"), (ALTERED, "contradicted"),
                                   (FUZZY_ANSWER, "contradicted"))]
    Answer.objects.filter(pk=answers[2].pk).update(deleted_at=timezone.now())
    expected = {a.pk: flag(a) for a in answers}
    assert sorted(expected.values()) == [False, False, True, True, True]
    Answer.all_objects.update(rungs_disagree=False)
    migration: Any = importlib.import_module("reviewer.migrations.0029_answer_rungs_disagree")
    migration.fill_rungs_disagree(apps, None)
    assert {a.pk: flag(a) for a in answers} == expected
    assert_flags_kept()
