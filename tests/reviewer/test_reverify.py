"""Re-verifying stored answers with a new threshold: the verdict, its rows and
every kept count move together, the old verdict stays in the history, what
was served and what reviewers decided stay as they were; runs over a surface
report progress, and a failure keeps the batches done before it."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import (
    Answer,
    AnswerStats,
    CitationVerdict,
    Document,
    QueueGroup,
    ReverificationRun,
    ReviewDecision,
    Surface,
    VerdictRecord,
)
from reviewer.selectors.answers import answer_result
from reviewer.services import reverify
from reviewer.services.answers import answer_submit
from reviewer.services.documents import document_upload
from reviewer.services.queue_counts import queue_counts_rebuild
from reviewer.services.reverify import answer_reverify, reverification_start
from reviewer.services.reviews import review_decide
from reviewer.services.stats import COUNT_COLUMNS, stats_rebuild
from reviewer.services.surfaces import surface_update
from tests.factories import BuiltPdf

pytestmark = pytest.mark.django_db

SOURCE = ("The employer matches contributions up to five percent of salary after one full year "
          "of continuous service. Employees may not withdraw matched funds before age fifty-nine.")
# Scores 0.90 against SOURCE: verified-fuzzy at 0.85, not found at 0.92.
FUZZY = "employer matches the contributions up to the five per cent of the salary"
EXACT = "Employees may not withdraw matched funds before age fifty-nine"


def submit(text: str, *, surface: str = "legal", model: str = "model-a") -> Answer:
    return answer_submit(client=None, data={
        "answer": text, "surface": surface, "model": model,
        "sources": [{"marker": "S1", "text": SOURCE}]}).answer


def fuzzy_answer(surface: str = "legal") -> Answer:
    return submit(f'The plan says "{FUZZY}" [S1]. It adds "{EXACT}" [S1].', surface=surface)


def kept_counts() -> tuple[dict[Any, int], dict[Any, dict[str, int]]]:
    queue = {(g.surface_key, g.model, g.verdict, g.review_state, g.assignee_key, g.outcomes):
             g.answers for g in QueueGroup.objects.all() if g.answers}
    stats = {(s.hour, s.surface_id, s.model): {c: getattr(s, c) for c in COUNT_COLUMNS}
             for s in AnswerStats.objects.all()}
    return queue, stats


def assert_counts_equal_a_rebuild() -> None:
    kept = kept_counts()
    queue_counts_rebuild()
    stats_rebuild()
    assert kept == kept_counts()


@pytest.fixture
def legal() -> Surface:
    return Surface.objects.create(name="legal", threshold=0.92)


def test_a_fuzzy_quote_below_the_old_threshold_verifies_at_the_new_one(
    legal: Surface, make_user: Any
) -> None:
    answer = fuzzy_answer()
    submit(f'Only "{EXACT}" [S1].')  # a pass beside it in the counts
    # A quote not found ranks 5 of the 8 outcomes (reviewer.severity).
    assert (answer.verdict, answer.threshold, answer.severity) == ("flag", 0.92, 5)
    assert answer.not_found_count == 1
    rita = make_user("rita", "reviewer")
    review_decide(answer=answer, reviewer=rita, decision="escalate")
    answer.refresh_from_db()
    before = answer_result(answer)
    citation_ids = list(CitationVerdict.objects.filter(answer=answer).values_list("pk", flat=True))
    served, action = answer.served_answer, answer.action

    outcome = answer_reverify(answer=answer, threshold=0.85)

    assert outcome.changed and (outcome.verdict_before, outcome.verdict) == ("flag", "pass")
    assert outcome.outcomes_changed == 1
    assert (answer.verdict, answer.threshold, answer.coverage) == ("pass", 0.85, 1.0)
    assert (answer.severity, answer.not_found_count) == (0, 0)
    assert (answer.counts["verified-fuzzy"], answer.counts["quote-not-found"]) == (1, 0)
    assert answer.reasons == []
    # What was served stays what was served; the reviewer's decision stands.
    assert (answer.served_answer, answer.action) == (served, action)
    assert answer.review_state == "escalated"
    assert ReviewDecision.objects.filter(answer=answer).count() == 1
    # The rows now say what the new verdict says, under the same ids.
    rows = CitationVerdict.objects.filter(answer=answer).order_by("position")
    assert [c.pk for c in rows] == citation_ids
    assert [c.outcome for c in rows] == ["verified-fuzzy", "verified"]
    assert "(threshold 0.85)" in rows[0].message
    assert answer.sentences.get(index=0).status != before["sentences"][0]["status"]
    after = answer_result(answer)
    assert after["sentences"][0]["citations"][0]["outcome"] == "verified-fuzzy"
    # The history: the submitted verdict whole, then the new one.
    submitted, reverified = VerdictRecord.objects.filter(answer=answer)
    assert (submitted.cause, submitted.verdict, submitted.threshold) == ("submitted", "flag", 0.92)
    assert submitted.created == answer.created and submitted.action == action
    assert submitted.result == before
    assert submitted.counts == before["counts"] and submitted.reasons == before["reasons"]
    assert (reverified.cause, reverified.verdict, reverified.threshold) == (
        "re-verified", "pass", 0.85)
    assert reverified.result == after
    assert_counts_equal_a_rebuild()


def test_raising_the_threshold_turns_a_fuzzy_match_into_a_flag(make_user: Any) -> None:
    Surface.objects.create(name="loose", threshold=0.85)
    answer = fuzzy_answer("loose")
    assert answer.verdict == "pass"
    answer_reverify(answer=answer, threshold=0.92)
    assert (answer.verdict, answer.threshold, answer.severity, answer.not_found_count) == (
        "flag", 0.92, 5, 1)
    assert answer.citations.order_by("position")[0].outcome == "quote-not-found"
    assert [r.verdict for r in VerdictRecord.objects.filter(answer=answer)] == ["pass", "flag"]
    # Once more, back: one record more, the submitted one is not written again.
    outcome = answer_reverify(answer=answer, threshold=0.85)
    assert outcome.changed and answer.verdict == "pass"
    records = VerdictRecord.objects.filter(answer=answer)
    assert [(r.cause, r.threshold) for r in records] == [
        ("submitted", 0.85), ("re-verified", 0.92), ("re-verified", 0.85)]
    assert records[0].result["sentences"] == records[2].result["sentences"]
    assert_counts_equal_a_rebuild()


def test_an_unchanged_answer_keeps_its_rows_and_still_records_its_threshold(
    legal: Surface,
) -> None:
    answer = submit(f'Only "{EXACT}" [S1].')
    rows_before = list(CitationVerdict.objects.filter(answer=answer).values())
    outcome = answer_reverify(answer=answer, threshold=0.85)
    assert not outcome.changed
    assert answer.threshold == 0.85
    assert list(CitationVerdict.objects.filter(answer=answer).values()) == rows_before
    assert VerdictRecord.objects.filter(answer=answer).count() == 2
    assert_counts_equal_a_rebuild()


def test_history_records_are_append_only(legal: Surface) -> None:
    answer = fuzzy_answer()
    answer_reverify(answer=answer, threshold=0.85)
    record = VerdictRecord.objects.filter(answer=answer).first()
    assert record is not None
    with pytest.raises(VerdictRecord.AppendOnly):
        record.save()
    with pytest.raises(VerdictRecord.AppendOnly):
        VerdictRecord.objects.filter(answer=answer).update(verdict="fail")


@pytest.fixture
def supervisor(make_user: Any) -> Any:
    return make_user("sue", "supervisor")


def apply_threshold(surface: Surface, supervisor: Any, threshold: float,
                    capture: Any) -> ReverificationRun:
    change = surface_update(surface=surface, changed_by=supervisor, threshold=threshold,
                            reason="calibrated", evidence={"labels": 120})
    with capture(execute=True):
        run = reverification_start(surface=surface, threshold=threshold, surface_change=change,
                                   started_by=supervisor)
    run.refresh_from_db()
    return run


def test_a_run_reverifies_every_answer_of_its_surface_and_only_those(
    legal: Surface, supervisor: Any, django_capture_on_commit_callbacks: Any
) -> None:
    Surface.objects.create(name="other", threshold=0.92)
    fuzzy = [fuzzy_answer() for _ in range(3)]
    exact = [submit(f'Only "{EXACT}" [S1].') for _ in range(2)]
    others = [fuzzy_answer("other"), submit(f'Only "{EXACT}" [S1].', surface="other")]

    run = apply_threshold(legal, supervisor, 0.85, django_capture_on_commit_callbacks)

    assert (run.status, run.total, run.done, run.changed, run.error) == ("done", 5, 5, 3, "")
    assert run.started is not None and run.finished is not None and run.started_by == supervisor
    for answer in fuzzy + exact:
        answer.refresh_from_db()
        assert answer.threshold == 0.85
        record = VerdictRecord.objects.filter(answer=answer).last()
        assert record is not None
        assert (record.run, record.surface_change) == (run, run.surface_change)
    assert {a.verdict for a in fuzzy} == {"pass"}
    for answer in others:
        answer.refresh_from_db()
        assert answer.threshold == 0.92
    assert others[0].verdict == "flag"
    assert not VerdictRecord.objects.filter(answer__in=others).exists()
    assert_counts_equal_a_rebuild()


def test_a_failure_mid_run_fails_the_run_and_keeps_the_batches_done(
    legal: Surface, supervisor: Any, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answers = [fuzzy_answer() for _ in range(5)]
    monkeypatch.setattr(reverify, "BATCH_SIZE", 2)
    calls = 0
    verify = reverify.verify_answer

    def failing_third(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("the verifier fell over")
        return verify(*args, **kwargs)

    monkeypatch.setattr(reverify, "verify_answer", failing_third)
    run = apply_threshold(legal, supervisor, 0.85, django_capture_on_commit_callbacks)

    assert (run.status, run.total, run.done, run.changed) == ("failed", 5, 2, 2)
    assert run.error == "RuntimeError: the verifier fell over"
    assert run.finished is not None
    for answer in answers:
        answer.refresh_from_db()
    assert [a.threshold for a in answers] == [0.85, 0.85, 0.92, 0.92, 0.92]
    assert [a.verdict for a in answers] == ["pass", "pass", "flag", "flag", "flag"]
    assert VerdictRecord.objects.filter(answer__in=answers[2:]).count() == 0
    assert_counts_equal_a_rebuild()

    # Started again, the run passes over the answers done and finishes.
    monkeypatch.setattr(reverify, "verify_answer", verify)
    with django_capture_on_commit_callbacks(execute=True):
        again = reverification_start(surface=legal, threshold=0.85, started_by=supervisor)
    again.refresh_from_db()
    assert (again.status, again.total, again.done, again.changed) == ("done", 5, 5, 3)
    assert VerdictRecord.objects.filter(answer=answers[0]).count() == 2
    assert_counts_equal_a_rebuild()


def test_starting_a_run_needs_the_permission_to_change_surfaces(
    legal: Surface, make_user: Any
) -> None:
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        reverification_start(surface=legal, threshold=0.85,
                             started_by=make_user("rita", "reviewer"))
    assert not ReverificationRun.objects.exists()


def test_document_sources_keep_their_page_rectangles(
    legal: Surface, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(data=report_pdf.data, filename="report.pdf").document
    document.refresh_from_db()
    assert document.status == Document.Status.READY
    chunk = document.chunks.order_by("index").first()
    assert chunk is not None
    words = chunk.text.split()
    exact = " ".join(words[12:26])
    # One word added: a fuzzy match whose message names the threshold, so
    # re-verifying rewrites its row and must locate its pages again.
    fuzzy = " ".join([*words[30:38], "the", *words[38:46]])
    answer = answer_submit(client=None, data={
        "answer": f'It says "{exact}" [S1]. Also "{fuzzy}" [S1]. And "no such words at all '
                  f'appear anywhere in this text" [S1].',
        "surface": "legal", "sources": [{"marker": "S1", "chunk": chunk.pk}]}).answer
    before = list(CitationVerdict.objects.filter(answer=answer).order_by("position")
                  .values("outcome", "message", "pages", "closest_pages", "document_id"))
    assert [c["outcome"] for c in before] == ["verified", "verified-fuzzy", "quote-not-found"]
    assert before[0]["pages"] and before[1]["pages"] and before[2]["closest_pages"]

    answer_reverify(answer=answer, threshold=0.85)

    after = list(CitationVerdict.objects.filter(answer=answer).order_by("position")
                 .values("outcome", "message", "pages", "closest_pages", "document_id"))
    assert "(threshold 0.85)" in after[1]["message"]
    assert after[2]["message"] != before[2]["message"]
    for old, new in zip(before, after, strict=True):
        assert (new["outcome"], new["pages"], new["closest_pages"], new["document_id"]) == (
            old["outcome"], old["pages"], old["closest_pages"], old["document_id"])
