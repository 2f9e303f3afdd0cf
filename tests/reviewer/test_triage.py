"""The triage queue: worst first, every filter, counts per filter value, who
sees which queue, bulk assignment, export, and the queue's order kept on the
review page ("next in queue")."""

from __future__ import annotations

import csv
import html as html_lib
import io
import json
import re
import unicodedata
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewer.models import Answer, Assignment, Surface
from reviewer.selectors.triage import TriageFilters, triage_counts, triage_next, triage_queryset
from reviewer.selectors.workspaces import workspaces_of
from reviewer.services.assignments import answer_open, answers_assign
from reviewer.services.queue_counts import queue_counts_move, queue_counts_rebuild, queue_key
from reviewer.severity import outcome_columns

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def _make(*, verdict: str = "fail", counts: dict[str, int] | None = None,
          coverage: float = 1.0, surface: Surface | None = None, model: str = "model-a",
          state: str = "pending", question: str = "A question?", text: str = "An answer.",
          age_days: float = 0, assigned_to: Any = None) -> Answer:
    counts = counts or {}
    answer = Answer.objects.create(
        verdict=verdict, action="flag", coverage=coverage, threshold=0.92, elapsed_ms=1.0,
        counts=counts, question=question, text=text, model=model, surface=surface,
        review_state=state, assigned_to=assigned_to, **outcome_columns(counts))
    # created is auto_now_add: set the age afterwards.
    created = timezone.now() - timedelta(days=age_days)
    Answer.objects.filter(pk=answer.pk).update(created=created)
    answer.created = created
    # Stored directly, not through answer_submit: count it in the queue as
    # answer_submit does.
    queue_counts_move(add=[queue_key(answer)])
    return answer


@pytest.fixture
def people() -> dict[str, Any]:
    """A supervisor, two reviewers and a user with no role (no passwords: the
    tests log in with force_login, and hashing four passwords per test is slow),
    all in the default workspace."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from reviewer.models import Workspace

    roles = {"sue": "supervisor", "rita": "reviewer", "rex": "reviewer", "nobody": None}
    users = {}
    for name, role in roles.items():
        users[name] = get_user_model().objects.create(username=name)
        if role:
            users[name].groups.add(Group.objects.get(name=role))
    Workspace.objects.default().users.add(*users.values())
    return users


@pytest.fixture
def surfaces() -> dict[str, Surface]:
    return {name: Surface.objects.create(name=name) for name in ("chat", "legal")}


def _ids(response: Any) -> list[int]:
    """The answer ids in the queue's rows, in order."""
    import re

    return [int(pk) for pk in re.findall(r'<tr class="severity-\d" data-answer="(\d+)"',
                                         response.content.decode())]


def _get(client: Any, user: Any, **params: Any) -> Any:
    client.force_login(user)
    return client.get(f"/triage/?{urlencode(params)}")


# ---- order and the default queue -------------------------------------------

def test_the_queue_puts_the_worst_first_then_most_failing_then_high_stakes_then_oldest(
    client: Any, people: dict[str, Any]
) -> None:
    uncited_new = _make(counts={"uncited-claim": 1}, coverage=0.5, age_days=1)
    fabricated = _make(counts={"fabricated-marker": 1, "uncited-claim": 3}, age_days=0)
    altered_full = _make(counts={"quote-altered": 2}, coverage=1.0, age_days=5)
    altered_low = _make(counts={"quote-altered": 1}, coverage=0.4, age_days=0)
    uncited_old = _make(counts={"uncited-claim": 1}, coverage=0.5, age_days=3)
    tie_a = _make(counts={"quote-not-found": 1}, coverage=0.8, age_days=2)
    Answer.objects.filter(pk=tie_a.pk).update(created=uncited_old.created)
    tie_b = _make(counts={"quote-not-found": 1}, coverage=0.8, age_days=2)
    Answer.objects.filter(pk=tie_b.pk).update(created=uncited_old.created)
    # The claim outcomes rank right after their quote counterparts.
    mismatch = _make(verdict="flag", counts={"claim-mismatch": 2, "quote-not-found": 1},
                     coverage=1.0, age_days=9)
    unsupported = _make(verdict="flag", counts={"claim-unsupported": 1, "wrong-source": 1},
                        coverage=1.0, age_days=9)

    # Same severity and number of failing outcomes: a high-stakes surface first.
    clinical = Surface.objects.create(name="clinical", high_stakes=True)
    uncited_stakes = _make(counts={"uncited-claim": 1}, coverage=0.9, age_days=0.5,
                           surface=clinical)

    response = _get(client, people["sue"])
    assert response.status_code == 200
    # Two altered quotes before one (coverage no longer decides), and so on.
    assert _ids(response) == [fabricated.pk, altered_full.pk, altered_low.pk, mismatch.pk,
                              tie_a.pk, tie_b.pk, unsupported.pk, uncited_stakes.pk,
                              uncited_old.pk, uncited_new.pk]
    html = response.content.decode()
    assert "1 fabricated · 3 uncited" in html
    assert "1 altered · coverage 40%" in html
    assert "2 mismatched · 1 not found" in html
    assert "1 unsupported · 1 wrong source" in html


def test_by_default_the_queue_holds_what_needs_a_human(client: Any,
                                                       people: dict[str, Any]) -> None:
    failing = _make(counts={"quote-altered": 1})
    flagged = _make(verdict="flag", counts={"uncited-claim": 1})
    passed = _make(verdict="pass")
    approved = _make(counts={"quote-altered": 1}, state="approved")
    escalated = _make(counts={"quote-altered": 1}, state="escalated")

    # A reviewer's default queue: what nobody decided. A supervisor's holds the
    # escalations too (they are for supervisors), first.
    assert set(_ids(_get(client, people["rita"]))) == {failing.pk, flagged.pk}
    assert _ids(_get(client, people["sue"])) == [escalated.pk, failing.pk, flagged.pk]
    assert set(_ids(_get(client, people["sue"], state="any"))) == {
        failing.pk, flagged.pk, passed.pk, approved.pk, escalated.pk}
    assert _ids(_get(client, people["sue"], state="approved")) == [approved.pk]
    assert set(_ids(_get(client, people["sue"], state="pending"))) == {
        failing.pk, flagged.pk, passed.pk}
    # Next in queue after a supervisor decides an escalation: the next escalation.
    from reviewer.services.reviews import review_decide

    second = _make(counts={"uncited-claim": 1}, state="escalated")
    filters = TriageFilters.from_query(QueryDict(""), user=people["sue"])
    assert triage_next(escalated, filters, people["sue"]) == second.pk
    review_decide(answer=escalated, reviewer=people["sue"], decision="approve", confirmed=True)
    escalated.refresh_from_db()
    assert triage_next(escalated, filters, people["sue"]) == second.pk
    assert triage_next(second, filters, people["sue"]) == failing.pk


def test_each_row_says_its_answer_in_words(client: Any, people: dict[str, Any],
                                          surfaces: dict[str, Surface]) -> None:
    """The row's cells, made in the view (not by template filters): a long
    question cut at 100 characters, a short one whole, coverage rounded to a
    percent, no surface or model as a dash, the age and its exact time, the
    state and the assignee in words, and the link with the queue kept."""
    import re

    long_question = "Which dose applies " + "in renal impairment " * 8 + "?"
    cut = _make(counts={"quote-altered": 1}, coverage=0.876, surface=surfaces["legal"],
                question=long_question, age_days=3.2, assigned_to=people["rita"])
    whole = _make(verdict="flag", counts={"uncited-claim": 1}, coverage=0.5, model="",
                  question="Is it licensed?", age_days=0.5)
    html = _get(client, people["sue"], surface="", model="").content.decode()
    rows = {int(pk): row for pk, row in re.findall(
        r'<tr class="severity-\d" data-answer="(\d+)">(.*?)</tr>', html, re.S)}

    def cells(pk: int) -> list[str]:
        return [re.sub(r"<[^>]+>|[ \n]+", " ", cell).strip(" ")
                for cell in re.findall(r"<td[^>]*>(.*?)</td>", rows[pk], re.S)]

    created = timezone.localtime(Answer.objects.get(pk=cut.pk).created)
    assert cells(cut.pk) == [
        "", str(cut.pk), "1 altered · coverage 88%", long_question[:99] + "…", "Fail", "88%",
        "legal", "model-a", "—", "3\xa0days, 4\xa0hours", "Pending", "rita"]
    time_tag = f'<time datetime="{created.isoformat()}" title="{created:%Y-%m-%d %H:%M}">'
    assert time_tag in rows[cut.pk]
    assert cells(whole.pk)[3:10] == [
        "Is it licensed?", "Flag", "50%", "—", "—", "—", "12\xa0hours"]
    assert cells(whole.pk)[-1] == "unassigned"
    assert f'<a href="/answers/{whole.pk}/?queue=">{whole.pk}</a>' in rows[whole.pk]
    # Beyond ASCII the cut counts characters as a reader sees them: composed
    # (NFC), a combining accent taking no room; one day is a day.
    accented = "Quelle dose s’applique en cas d’insuffisance re\u0301nale se\u0301ve\u0300re " * 3
    french = _make(counts={"quote-altered": 1}, question=accented, age_days=1.01)
    html = _get(client, people["sue"]).content.decode()
    rows = {int(pk): row for pk, row in re.findall(
        r'<tr class="severity-\d" data-answer="(\d+)">(.*?)</tr>', html, re.S)}
    assert cells(french.pk)[3] == unicodedata.normalize("NFC", accented)[:99] + "…"
    assert len(accented[:99]) == 99 and cells(french.pk)[9] == "1\xa0day"


# ---- each filter -------------------------------------------------------------

def test_each_filter_keeps_only_its_answers(client: Any, people: dict[str, Any],
                                            surfaces: dict[str, Surface]) -> None:
    sue, rex = people["sue"], people["rex"]
    chat_a = _make(surface=surfaces["chat"], model="model-a", counts={"quote-altered": 1},
                   coverage=0.5, age_days=10, question="Employer match vesting?")
    legal_b = _make(surface=surfaces["legal"], model="model-b", verdict="flag",
                    counts={"uncited-claim": 2}, coverage=0.9, age_days=1,
                    text="The liability cap is twelve months of fees.", assigned_to=rex)
    chat_b = _make(surface=surfaces["chat"], model="model-b",
                   counts={"fabricated-marker": 1, "quote-altered": 1}, coverage=1.0,
                   age_days=4, assigned_to=sue)

    def ids(**params: Any) -> set[int]:
        return set(_ids(_get(client, sue, **params)))

    assert ids(surface="chat") == {chat_a.pk, chat_b.pk}
    assert ids(model="model-b") == {legal_b.pk, chat_b.pk}
    assert ids(verdict="flag") == {legal_b.pk}
    # "has at least one": chat_b's worst outcome is fabricated, it has an altered quote too.
    assert ids(outcome="quote-altered") == {chat_a.pk, chat_b.pk}
    assert ids(outcome="fabricated-marker") == {chat_b.pk}
    assert ids(outcome="claim-mismatch") == set()
    mismatch = _make(surface=surfaces["legal"], verdict="flag",
                     counts={"claim-mismatch": 1, "quote-altered": 1}, age_days=20)
    unsupported = _make(verdict="flag", counts={"claim-unsupported": 3}, age_days=20)
    assert ids(outcome="claim-mismatch") == {mismatch.pk}
    assert ids(outcome="claim-unsupported") == {unsupported.pk}
    assert ids(outcome="quote-altered") == {chat_a.pk, chat_b.pk, mismatch.pk}
    Answer.objects.filter(pk__in=[mismatch.pk, unsupported.pk]).delete()
    queue_counts_rebuild()
    assert ids(coverage_below="60") == {chat_a.pk}
    assert ids(coverage_below="95") == {chat_a.pk, legal_b.pk}
    today = timezone.localdate()
    assert ids(**{"from": (today - timedelta(days=5)).isoformat()}) == {legal_b.pk, chat_b.pk}
    assert ids(to=(today - timedelta(days=4)).isoformat()) == {chat_a.pk, chat_b.pk}
    assert ids(**{"from": (today - timedelta(days=4)).isoformat(),
                  "to": (today - timedelta(days=4)).isoformat()}) == {chat_b.pk}
    assert ids(assignee="none") == {chat_a.pk}
    assert ids(assignee="me") == {chat_b.pk}
    assert ids(assignee="rex") == {legal_b.pk}
    # Free text over the question and the answer text (full-text on PostgreSQL).
    assert ids(q="vesting") == {chat_a.pk}
    assert ids(q="liability") == {legal_b.pk}
    # Filters combine.
    assert ids(surface="chat", model="model-b") == {chat_b.pk}
    assert ids(surface="legal", verdict="fail") == set()


def test_bad_filter_values_are_ignored_with_a_note_never_an_error(
    client: Any, people: dict[str, Any]
) -> None:
    answer = _make(counts={"quote-altered": 1})
    response = _get(client, people["sue"], verdict="maybe", outcome="typo", state="lost",
                    coverage_below="150", **{"from": "yesterday", "to": "2026-13-40"},
                    surface="no-such-surface", assignee="ghost", page="-3",
                    model="gpt-9", disagree="maybe")
    assert response.status_code == 200
    html = response.content.decode()
    for words in ("Ignored verdict “maybe”", "Ignored outcome “typo”",
                  "Ignored review state “lost”", "Ignored coverage below “150”",
                  "Ignored from date “yesterday”", "Ignored to date “2026-13-40”",
                  "Ignored surface “no-such-surface”", "Ignored assignee “ghost”",
                  "Ignored model “gpt-9”: no answer has that model.",
                  "Ignored rungs disagree “maybe”", "Ignored page “-3”"):
        assert words in html
    assert _ids(response) == [answer.pk]  # the ignored filters filter nothing
    assert _get(client, people["sue"], coverage_below="abc").status_code == 200


def test_filters_round_trip_through_the_query_string(people: dict[str, Any],
                                                     surfaces: dict[str, Surface]) -> None:
    query = ("q=cap&state=any&verdict=fail&outcome=quote-altered&surface=legal&model=m"
             "&assignee=me&coverage_below=70&from=2026-01-02&to=2026-02-03&page=3")
    _make(model="m")  # a model no answer has is a bad value, dropped with a note
    filters = TriageFilters.from_query(QueryDict(query), user=people["sue"])
    assert not filters.notes
    assert QueryDict(filters.query()) == QueryDict(query)
    assert "page" not in filters.query(page=1)
    assert TriageFilters.from_query(QueryDict(""), user=people["sue"]).query() == ""


# ---- counts per filter value -------------------------------------------------

def _counts(facets: dict[str, Any], facet: str) -> dict[str, int]:
    return {v.value: v.count for v in facets[facet]}


def test_counts_per_value_apply_every_other_filter_in_one_query(
    people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    chat, legal = surfaces["chat"], surfaces["legal"]
    _make(surface=chat, model="a", counts={"quote-altered": 1})
    _make(surface=chat, model="a", verdict="flag", counts={"uncited-claim": 1})
    _make(surface=chat, model="b", counts={"fabricated-marker": 1, "quote-altered": 2})
    _make(surface=legal, model="a", counts={"quote-not-found": 1}, assigned_to=people["rex"])
    _make(surface=legal, model="b", verdict="pass")
    _make(surface=chat, model="a", counts={"quote-altered": 1}, state="approved")

    sue = people["sue"]
    filters = TriageFilters.from_query(QueryDict("surface=chat&verdict=fail"), user=sue)
    sue.has_perm("reviewer.view_all_queues")  # permissions are read once per request
    workspaces_of(sue)  # and so are workspaces
    with CaptureQueriesContext(connection) as queries:
        counts = triage_counts(filters, sue)
    total, facets = counts.total, counts.facets
    assert len(queries) == 1
    assert total == 2
    # Verdict counts ignore the verdict filter but keep surface=chat (and needs-review).
    assert _counts(facets, "verdict") == {"pass": 0, "flag": 1, "fail": 2}
    # Surface counts ignore surface, keep verdict=fail.
    assert _counts(facets, "surface") == {"chat": 2, "legal": 1}
    assert _counts(facets, "model") == {"a": 1, "b": 1}
    assert _counts(facets, "outcome") == {
        "fabricated-marker": 1, "quote-altered": 2, "quote-not-found": 0, "wrong-source": 0,
        "unattributed-quote": 0, "uncited-claim": 0, "claim-mismatch": 0,
        "claim-unsupported": 0}
    assert _counts(facets, "state") == {"": 2, "pending": 2, "approved": 1, "rejected": 0,
                                        "escalated": 0, "any": 3}
    assert _counts(facets, "assignee") == {"me": 0, "none": 2}
    selected = {v.value for v in facets["verdict"] if v.selected}
    assert selected == {"fail"}
    # The total is what the list holds.
    assert total == triage_queryset(filters, sue).count()


def test_the_page_shows_counts_and_updates_them_as_a_fragment(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    _make(surface=surfaces["chat"], counts={"quote-altered": 1})
    _make(surface=surfaces["legal"], counts={"quote-altered": 1})
    _make(surface=surfaces["legal"], verdict="flag", counts={"uncited-claim": 1})
    client.force_login(people["sue"])
    page = client.get("/triage/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<html" in html and 'id="triage-filters"' in html
    assert '<option value="legal">legal (2)</option>' in html

    fragment = client.get("/triage/?verdict=fail", headers=HTMX)
    body = fragment.content.decode()
    assert "<html" not in body and "<nav>" not in body  # no page, no site header
    assert 'id="triage-filters"' in body and "triage-table" in body
    assert '<option value="legal">legal (1)</option>' in body
    assert '<option value="fail" selected>fail (2)</option>' in body
    assert "HX-Request" in fragment["Vary"]
    # Going back to a page htmx no longer has cached asks for the whole page.
    restore = client.get("/triage/?verdict=fail",
                         headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert "<html" in restore.content.decode()


def test_pages_of_fifty_keep_the_filters(client: Any, people: dict[str, Any]) -> None:
    for i in range(60):
        _make(model="bulk", counts={"uncited-claim": 1}, coverage=i / 100)
    _make(model="other", counts={"uncited-claim": 1})
    first = _get(client, people["sue"], model="bulk")
    assert len(_ids(first)) == 50
    html = first.content.decode()
    assert "page 1 of 2" in html
    assert 'href="?model=bulk&amp;page=2"' in html
    second = _get(client, people["sue"], model="bulk", page="2")
    assert len(_ids(second)) == 10
    assert set(_ids(first)).isdisjoint(_ids(second))
    # Past the end: the last page, not an error.
    assert _ids(_get(client, people["sue"], model="bulk", page="9")) == _ids(second)


# ---- who sees which queue ----------------------------------------------------

def test_a_reviewer_sees_their_own_queue_and_unassigned_answers_only(
    client: Any, people: dict[str, Any]
) -> None:
    rita, rex = people["rita"], people["rex"]
    mine = _make(counts={"quote-altered": 1}, assigned_to=rita)
    unassigned = _make(counts={"quote-altered": 1})
    rexs = _make(counts={"quote-altered": 1}, assigned_to=rex)

    assert set(_ids(_get(client, rita))) == {mine.pk, unassigned.pk}
    assert _ids(_get(client, rita, assignee="me")) == [mine.pk]
    assert _ids(_get(client, rita, assignee="rita")) == [mine.pk]
    refused = _get(client, rita, assignee="rex")
    assert refused.status_code == 200
    assert "You can see only your own queue and unassigned answers, not rex's" in (
        html_lib.unescape(refused.content.decode()))
    assert rexs.pk not in _ids(refused)
    # Nor can the next-in-queue link lead there.
    filters = TriageFilters.from_query(QueryDict(""), user=rita)
    assert triage_next(mine, filters, rita) in (unassigned.pk, None)
    # A reviewer gets neither the assign control nor the export links.
    html = _get(client, rita).content.decode()
    assert 'id="select-all"' not in html and "Export CSV" not in html
    assert set(_ids(_get(client, people["sue"]))) == {mine.pk, unassigned.pk, rexs.pk}


@pytest.mark.parametrize(("who", "triage", "assign", "export"), [
    ("nobody", 403, 403, 403),
    ("rita", 200, 403, 403),
    ("sue", 200, 200, 200),
])
def test_permissions_per_role(client: Any, people: dict[str, Any], who: str, triage: int,
                              assign: int, export: int) -> None:
    answer = _make(counts={"quote-altered": 1})
    client.force_login(people[who])
    assert client.get("/triage/").status_code == triage
    response = client.post("/triage/assign", {"answer": [answer.pk], "assignee": "rex"},
                           headers=HTMX)
    assert response.status_code == assign
    assert client.get("/triage/export?format=csv").status_code == export
    answer.refresh_from_db()
    assert (answer.assigned_to_id == people["rex"].pk) is (assign == 200)


def test_anonymous_users_are_sent_to_log_in(client: Any) -> None:
    for url in ("/triage/", "/triage/export?format=csv"):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


# ---- bulk assignment ---------------------------------------------------------

def test_bulk_assign_records_history_and_refreshes_the_list(
    client: Any, people: dict[str, Any]
) -> None:
    sue, rex = people["sue"], people["rex"]
    first, second, third = (_make(counts={"quote-altered": 1}) for _ in range(3))
    client.force_login(sue)
    response = client.post("/triage/assign", {
        "answer": [first.pk, second.pk], "assignee": "rex", "queue": "verdict=fail",
    }, headers=HTMX)
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert "Assigned 2 answers to rex." in body
    assert body.count('<td class="assignee">rex</td>') == 2
    assert '<option value="fail" selected>' in body  # the queue's filters kept
    assert set(Answer.objects.filter(assigned_to=rex).values_list("pk", flat=True)) == {
        first.pk, second.pk}
    history = list(Assignment.objects.values_list("answer_id", "assignee_id", "assigned_by_id"))
    assert sorted(history) == sorted([(first.pk, rex.pk, sue.pk), (second.pk, rex.pk, sue.pk)])

    # No choice is refused with a message, never taken for "nobody".
    response = client.post("/triage/assign", {"answer": [first.pk], "assignee": ""},
                           headers=HTMX)
    assert "Choose whom to assign the selected answers to" in response.content.decode()
    assert Answer.objects.get(pk=first.pk).assigned_to_id == rex.pk
    assert Assignment.objects.count() == 2
    # Unassigning ("nobody", chosen) is a history row too; unchanged answers are not.
    response = client.post("/triage/assign", {"answer": [first.pk, third.pk],
                                              "assignee": "(nobody)"}, headers=HTMX)
    assert "Assigned 1 answer back to nobody (1 already were)." in response.content.decode()
    first.refresh_from_db()
    assert first.assigned_to_id is None
    assert Assignment.objects.filter(answer=first, assignee__isnull=True).count() == 1
    assert Assignment.objects.count() == 3


def test_bulk_assign_refusals_are_shown_not_raised(client: Any,
                                                   people: dict[str, Any]) -> None:
    answer = _make(counts={"quote-altered": 1})
    client.force_login(people["sue"])
    nothing = client.post("/triage/assign", {"assignee": "rex"}, headers=HTMX)
    assert "Select at least one answer" in nothing.content.decode()
    no_role = client.post("/triage/assign", {"answer": [answer.pk], "assignee": "nobody"},
                          headers=HTMX)
    assert "nobody cannot decide answers" in no_role.content.decode()
    ghost = client.post("/triage/assign", {"answer": [answer.pk], "assignee": "ghost"},
                        headers=HTMX)
    assert "There is no user 'ghost'" in html_lib.unescape(ghost.content.decode())
    assert not Assignment.objects.exists()
    # Without JavaScript: a redirect back to the queue with its filters, and a message.
    plain = client.post("/triage/assign", {"answer": [answer.pk], "assignee": "rex",
                                           "queue": "model=model-a"})
    assert plain.status_code == 302 and plain["Location"] == "/triage/?model=model-a"
    assert "Assigned 1 answer to rex." in client.get(plain["Location"]).content.decode()


# ---- export --------------------------------------------------------------------

def _body(response: Any) -> str:
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_export_csv_is_streamed_filtered_and_safe_against_formulas(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    from reviewer.services.reviews import review_decide

    hostile = _make(surface=surfaces["chat"], question='=HYPERLINK("http://x","y")',
                    counts={"quote-altered": 2, "quote-not-found": 1}, coverage=0.6)
    hostile.external_id = "@ext-1"
    hostile.save(update_fields=["external_id"])
    for _ in range(55):  # more than a page: the export is the whole queue
        _make(surface=surfaces["chat"], counts={"uncited-claim": 1})
    _make(surface=surfaces["legal"], counts={"uncited-claim": 1})
    decided = _make(surface=surfaces["chat"], counts={"uncited-claim": 1})
    review_decide(answer=decided, reviewer=people["rita"], decision="escalate")
    answers_assign(answer_ids=[hostile.pk], assignee=people["rex"], assigned_by=people["sue"])

    client.force_login(people["sue"])
    response = client.get("/triage/export?format=csv&surface=chat&state=any")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(_body(response))))
    assert len(rows) == 57
    first = rows[0]
    assert int(first["answer"]) == hostile.pk  # queue order: the worst first
    assert first["question"] == '\'=HYPERLINK("http://x","y")'
    assert first["external_id"] == "'@ext-1"
    assert first["reason"] == "2 altered · 1 not found · coverage 60%"
    assert (first["altered_count"], first["not_found_count"]) == ("2", "1")
    assert first["coverage"] == "0.6" and first["surface"] == "chat"
    assert first["assignee"] == "rex" and first["review_state"] == "pending"
    last = next(r for r in rows if int(r["answer"]) == decided.pk)
    assert (last["last_decision"], last["reviewer"], last["review_state"]) == (
        "escalate", "rita", "escalated")


def test_export_jsonl_parses_back_and_matches_the_queue(client: Any,
                                                        people: dict[str, Any]) -> None:
    answers = [_make(counts={"quote-altered": i % 3 + 1}, coverage=i / 10) for i in range(5)]
    _make(verdict="pass")
    client.force_login(people["sue"])
    response = client.get("/triage/export?format=jsonl")
    assert response["Content-Type"].startswith("application/x-ndjson")
    records = [json.loads(line) for line in _body(response).splitlines()]
    assert [r["answer"] for r in records] == _ids(_get(client, people["sue"]))
    assert {r["answer"] for r in records} == {a.pk for a in answers}
    assert set(records[0]) >= {"answer", "external_id", "question", "verdict", "reason",
                               "fabricated_count", "altered_count", "coverage", "surface",
                               "model", "created", "review_state", "last_decision",
                               "reviewer", "assignee"}
    assert client.get("/triage/export?format=xml").status_code == 400


# ---- the review page: next in queue, who has it open, whose queue ---------------

def test_the_review_page_carries_the_queue_and_links_the_next_answer(
    client: Any, people: dict[str, Any]
) -> None:
    worst = _make(counts={"fabricated-marker": 1}, model="m")
    middle = _make(counts={"quote-altered": 1}, model="m")
    _make(counts={"quote-altered": 1}, model="other")
    last = _make(counts={"uncited-claim": 1}, model="m")
    client.force_login(people["sue"])

    queue_html = client.get("/triage/?model=m").content.decode()
    assert f'/answers/{worst.pk}/?queue=model%3Dm' in queue_html

    page = client.get(f"/answers/{worst.pk}/?queue=model%3Dm").content.decode()
    assert f'href="/answers/{middle.pk}/?queue=model%3Dm" rel="next"' in page
    assert 'href="/triage/?model=m"' in page  # back to the same queue
    end = client.get(f"/answers/{last.pk}/?queue=model%3Dm").content.decode()
    assert "last answer in the queue" in end
    plain = client.get(f"/answers/{worst.pk}/").content.decode()
    assert "Next in queue" not in plain

    # After a decision the answer leaves the queue; the next one is still offered.
    decided = client.post(f"/answers/{middle.pk}/decide",
                          {"decision": "reject", "queue": "model=m"}, headers=HTMX)
    assert decided.status_code == 200
    body = decided.content.decode()
    assert 'id="queue-next" hx-swap-oob="true"' in body
    assert f'href="/answers/{last.pk}/?queue=model%3Dm"' in body
    assert "Decided: next in queue" in body
    filters = TriageFilters.from_query(QueryDict("model=m"), user=people["sue"])
    middle.refresh_from_db()
    assert triage_next(middle, filters, people["sue"]) == last.pk


def test_the_review_page_says_who_else_has_the_answer_open(client: Any,
                                                           people: dict[str, Any]) -> None:
    answer = _make(counts={"quote-altered": 1})
    answer_open(answer=answer, user=people["rex"])
    client.force_login(people["rita"])
    html = client.get(f"/answers/{answer.pk}/").content.decode()
    answer.refresh_from_db()
    assert answer.in_review_by_id == people["rex"].pk  # not taken over
    since = timezone.localtime(answer.in_review_since).strftime("%H:%M")
    assert "rex has this answer open now" in html and since in html
    # The first to open an answer is recorded as deciding it, and the queue says so.
    other = _make(counts={"quote-altered": 1})
    client.get(f"/answers/{other.pk}/")
    other.refresh_from_db()
    assert other.in_review_by_id == people["rita"].pk
    client.force_login(people["sue"])
    queue = client.get("/triage/").content.decode()
    assert queue.count("being decided by") == 2
    assert "being decided by rita" in queue and "being decided by rex" in queue


def test_an_answer_in_another_reviewers_queue_says_so_where_one_decides(
    client: Any, people: dict[str, Any]
) -> None:
    answer = _make(counts={"quote-altered": 1}, assigned_to=people["rex"])
    client.force_login(people["rita"])
    html = client.get(f"/answers/{answer.pk}/").content.decode()
    assert "This answer is in rex&#x27;s queue" in html
    refused = client.post(f"/answers/{answer.pk}/decide", {"decision": "escalate"},
                          headers=HTMX)
    assert refused.status_code == 403
    client.force_login(people["sue"])
    assert "s queue: ask a supervisor" not in client.get(f"/answers/{answer.pk}/").content.decode()


def test_the_answers_list_links_to_the_queue(client: Any, people: dict[str, Any]) -> None:
    client.force_login(people["sue"])
    assert 'href="/triage/"' in client.get("/answers/").content.decode()


def test_a_queue_link_survives_odd_characters(client: Any, people: dict[str, Any]) -> None:
    import re

    answer = _make(counts={"quote-altered": 1}, question="Fees & caps in the <b>clause</b>")
    _make(counts={"quote-altered": 1}, question="Something else")
    client.force_login(people["sue"])
    page = client.get("/triage/?q=fees+%26+caps").content.decode()
    assert "<b>clause" not in page  # the question is escaped
    assert _ids_from(page) == [answer.pk]
    link = html_lib.unescape(re.search(rf'href="(/answers/{answer.pk}/\?queue=[^"]*)"',
                                       page).group(1))
    review = client.get(link).content.decode()
    # The review page's way back is the same queue, search words intact.
    back = html_lib.unescape(re.search(r'href="(/triage/\?[^"]*)">← Back', review).group(1))
    assert QueryDict(back.split("?", 1)[1])["q"] == "fees & caps"


def _ids_from(html: str) -> list[int]:
    import re

    return [int(pk) for pk in re.findall(r'data-answer="(\d+)"', html)]


def test_answers_can_be_assigned_to_those_who_may_decide_and_nobody_else(
    people: dict[str, Any]
) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission

    from reviewer.services.assignments import reviewers

    users = get_user_model().objects
    users.create(username="gone", is_active=False).groups.add(*people["rita"].groups.all())
    users.create(username="zed-admin", is_superuser=True)
    direct = users.create(username="direct")
    direct.user_permissions.add(Permission.objects.get(codename="decide_answer"))
    users.create(username="calla").groups.add(Group.objects.get(name="calibrator"))
    assert [u.username for u in reviewers()] == ["direct", "rex", "rita", "sue", "zed-admin"]


def test_the_review_pages_own_links_keep_the_queue_through_a_reload(
    client: Any, people: dict[str, Any]
) -> None:
    """Opening a sentence or citation pushes its URL; with the queue in it, a
    reload still offers "Next in queue"."""
    from reviewer.services.answers import answer_submit

    answer = answer_submit(client=None, data={
        "answer": 'It matches "up to 7 percent of salary" [S1].', "model": "m",
        "sources": [{"marker": "S1", "text": "It matches up to 5 percent of salary."}]}).answer
    client.force_login(people["sue"])
    page = client.get(f"/answers/{answer.pk}/?queue=model%3Dm").content.decode()
    assert 'href="?sentence=0&amp;queue=model%3Dm"' in page
    citation = answer.citations.get()
    assert f'?citation={citation.pk}&amp;queue=model%3Dm' in page  # the failing list
    panel = client.get(f"/answers/{answer.pk}/?sentence=0&queue=model%3Dm",
                       headers=HTMX).content.decode()
    assert f'?citation={citation.pk}&amp;queue=model%3Dm' in panel
    reloaded = client.get(f"/answers/{answer.pk}/?citation={citation.pk}&queue=model%3Dm")
    assert 'href="/triage/?model=m"' in reloaded.content.decode()
    plain = client.get(f"/answers/{answer.pk}/").content.decode()
    assert 'href="?sentence=0"' in plain and "queue=" not in plain


def test_my_queue_says_how_many_unassigned_answers_wait_and_links_them(
        client: Any, people: dict[str, Any]) -> None:
    rita = people["rita"]
    unassigned = [_make(counts={"quote-altered": 1}) for _ in range(3)]
    _make(counts={"quote-altered": 1}, assigned_to=people["rex"])  # not hers to see
    response = _get(client, rita, assignee="me")
    html = html_lib.unescape(response.content.decode())
    assert _ids(response) == []
    assert "0 assigned to you — " in html
    assert '<a href="?assignee=none" hx-get="?assignee=none">3 unassigned</a>' in html
    assert set(_ids(_get(client, rita, assignee="none"))) == {a.pk for a in unassigned}
    answers_assign(answer_ids=[unassigned[0].pk], assignee=rita, assigned_by=people["sue"])
    html = html_lib.unescape(_get(client, rita, assignee="me").content.decode())
    assert "1 assigned to you — " in html and ">2 unassigned</a>" in html
    # Not on other queues.
    assert "assigned to you" not in _get(client, rita).content.decode()


# ---- counts past COUNT_CAP -------------------------------------------------------

@pytest.fixture
def cap_of_three(monkeypatch: pytest.MonkeyPatch) -> int:
    """COUNT_CAP at 3 (10,000 in production), so a handful of answers pass it."""
    from reviewer.selectors import triage

    monkeypatch.setattr(triage, "COUNT_CAP", 3)
    return 3


def test_a_filter_keeping_more_than_the_cap_says_more_than_and_counts_no_values(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface], cap_of_three: int
) -> None:
    low = [_make(surface=surfaces["chat"], counts={"uncited-claim": 1}, coverage=0.5)
           for _ in range(5)]
    _make(surface=surfaces["legal"], counts={"uncited-claim": 1}, coverage=0.5)
    _make(surface=surfaces["legal"], counts={"quote-altered": 1})  # full coverage: kept out
    sue = people["sue"]

    counts = triage_counts(TriageFilters.from_query(QueryDict("coverage_below=90"), user=sue),
                           sue)
    assert (counts.total, counts.total_capped, counts.counted) == (3, True, False)
    assert all(value.count is None for values in counts.facets.values() for value in values)
    # The values are still offered: every surface answers are on, and the one chosen.
    assert [v.value for v in counts.facets["surface"]] == ["chat", "legal"]

    response = _get(client, sue, coverage_below="90")
    html = html_lib.unescape(response.content.decode())
    assert '<span class="triage-total" id="triage-total">more than 3 answers</span>' in html
    assert ("Counts per value are not shown: the coverage filter keeps more than 3 answers, "
            "too many to count on every change; narrow the filters to see the counts.") in html
    assert '<option value="chat">chat</option>' in html  # no "(n)"
    assert set(_ids(response)) == {a.pk for a in low} | {
        a.pk for a in Answer.objects.filter(surface=surfaces["legal"], coverage=0.5)}


def test_past_the_cap_the_total_is_still_exact_when_the_queue_holds_fewer(
    people: dict[str, Any], surfaces: dict[str, Surface], cap_of_three: int
) -> None:
    # Five answers below 90 % (more than the cap), two of them on legal.
    for surface in ("chat", "chat", "chat", "legal", "legal"):
        _make(surface=surfaces[surface], counts={"uncited-claim": 1}, coverage=0.5,
              text=f"The {surface} answer.")
    sue = people["sue"]
    filters = TriageFilters.from_query(QueryDict("coverage_below=90&surface=legal"), user=sue)
    counts = triage_counts(filters, sue)
    assert (counts.total, counts.total_capped, counts.counted) == (2, False, False)
    assert counts.total == triage_queryset(filters, sue).count()
    # At the cap or under it, every value is counted, as without the cap.
    filters = TriageFilters.from_query(QueryDict("coverage_below=90&q=legal"), user=sue)
    with_search = triage_counts(filters, sue)
    assert with_search.counted and not with_search.total_capped
    assert with_search.total == 2
    assert _counts(with_search.facets, "surface") == {"legal": 2}


def test_past_the_cap_the_pager_reads_on_without_a_last_page(
    client: Any, people: dict[str, Any], cap_of_three: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reviewer.selectors import triage

    monkeypatch.setattr(triage, "PAGE_SIZE", 2)
    answers = [_make(counts={"uncited-claim": 1}, coverage=0.5, age_days=10 - i)
               for i in range(5)]
    sue = people["sue"]
    first = html_lib.unescape(_get(client, sue, coverage_below="90").content.decode())
    assert "page 1 of more than 2 · answers 1–2 of more than 3" in first
    assert 'href="?coverage_below=90&page=2"' in html_lib.unescape(first)
    last = _get(client, sue, coverage_below="90", page="3")
    assert _ids(last) == [answers[4].pk]
    assert "next →" not in last.content.decode()
    # Past the last page: counted after all, and the last page shown with a note.
    past = _get(client, sue, coverage_below="90", page="9")
    assert _ids(past) == [answers[4].pk]
    assert "Ignored page “9”: the queue has 3 pages; showing page 3." in (
        html_lib.unescape(past.content.decode()))


@pytest.mark.parametrize("query", [
    "coverage_below=90", "coverage_below=90&surface=legal", "coverage_below=90&q=legal",
    "q=legal", "coverage_below=90&state=any", "q=nothing-matches"])
def test_the_counts_are_the_same_whatever_the_planner_expects(
    people: dict[str, Any], surfaces: dict[str, Surface], cap_of_three: int,
    monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """Asked to count exactly: expecting few answers, the GROUP BY comes
    first and, when it read them all, is the only query; expecting many (or
    off PostgreSQL), the count comes first. Either way the same total and
    counts, over the cap or not."""
    from reviewer.selectors import triage

    for surface in ("chat", "chat", "chat", "legal", "legal"):
        _make(surface=surfaces[surface], counts={"uncited-claim": 1}, coverage=0.5,
              text=f"The {surface} answer.")
    _make(surface=surfaces["legal"], counts={"quote-altered": 1}, text="A legal answer.")
    sue = people["sue"]
    filters = TriageFilters.from_query(QueryDict(query + "&count=exact"), user=sue)
    results = {}
    for expected in (0, 10**9):
        monkeypatch.setattr(triage, "_estimated_rows", lambda answers, rows=expected: rows)
        with CaptureQueriesContext(connection) as queries:
            results[expected] = triage_counts(filters, sue)
        counted_apart = any("COUNT(*)" in q["sql"] and "GROUP BY" not in q["sql"]
                            for q in queries.captured_queries)
        grouped = [q for q in queries.captured_queries if "live_groups" in q["sql"]]
        # At most one GROUP BY over the answers, whichever comes first.
        assert len(grouped) <= 1
        if expected == 0:
            # Read whole by the GROUP BY (at most the cap): no count beside it.
            kept_by_filters = triage._unfaceted(filters, sue).count()
            assert counted_apart == (kept_by_filters > cap_of_three)
        else:
            assert counted_apart
    assert results[0] == results[10**9]
    total = triage_queryset(filters, sue).count()
    assert results[0].total == min(total, cap_of_three)


def test_my_queue_past_the_cap_links_the_unassigned_without_a_count(
    client: Any, people: dict[str, Any], cap_of_three: int
) -> None:
    rita = people["rita"]
    for _ in range(4):
        _make(counts={"uncited-claim": 1}, coverage=0.5)
    _make(counts={"uncited-claim": 1}, coverage=0.5, assigned_to=rita)
    html = html_lib.unescape(_get(client, rita, assignee="me", coverage_below="90")
                             .content.decode())
    assert "1 assigned to you — " in html
    assert ('<a href="?assignee=none&coverage_below=90" '
            'hx-get="?assignee=none&coverage_below=90">unassigned answers</a>') in html


# ---- past the exact-count limit: the planner's estimate ------------------------

@pytest.fixture
def estimate_limit_of_three(monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewer.selectors import triage

    monkeypatch.setattr(triage, "EXACT_COUNT_LIMIT", 3)
    monkeypatch.setattr(triage, "PAGE_SIZE", 2)


def _planner_expects(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    from reviewer.selectors import triage

    monkeypatch.setattr(triage, "_estimated_rows", lambda answers: rows)


def test_past_the_exact_limit_the_total_is_the_estimate_and_nothing_is_counted(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface],
    estimate_limit_of_three: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = [_make(surface=surfaces["chat"], counts={"uncited-claim": 1}, coverage=0.5,
                     age_days=10 - i) for i in range(7)]
    _make(surface=surfaces["legal"], counts={"quote-altered": 1})  # full coverage: kept out
    sue = people["sue"]
    _planner_expects(monkeypatch, 120)

    filters = TriageFilters.from_query(QueryDict("coverage_below=90"), user=sue)
    with CaptureQueriesContext(connection) as queries:
        counts = triage_counts(filters, sue)
    assert (counts.total, counts.estimated, counts.counted) == (120, True, False)
    # Neither the GROUP BY over the answers nor a count of them ran.
    assert not [q for q in queries.captured_queries
                if "live_groups" in q["sql"] or "COUNT(*)" in q["sql"]]
    assert all(value.count is None for values in counts.facets.values() for value in values)

    first = _get(client, sue, coverage_below="90")
    html = html_lib.unescape(first.content.decode())
    assert '<span class="triage-total" id="triage-total">about 120 answers</span>' in html
    assert ("Counts per value are not shown: the coverage filter keeps more than 3 answers "
            "by PostgreSQL's estimate, too many to count on every change.") in html
    assert ('<a href="?coverage_below=90&count=exact" hx-get="?coverage_below=90&count=exact" '
            'id="count-exactly">Count exactly</a>') in html
    assert '<option value="chat">chat</option>' in html  # offered, not counted
    assert "page 1 of about 60 · answers 1–2 of about 120" in html
    assert _ids(first) == [answers[0].pk, answers[1].pk]
    assert 'href="?coverage_below=90&page=2"' in html

    # The last page knows the total: said exactly, with no next page.
    last = _get(client, sue, coverage_below="90", page="4")
    html = html_lib.unescape(last.content.decode())
    assert _ids(last) == [answers[6].pk]
    assert '<span class="triage-total" id="triage-total">7 answers</span>' in html
    assert "page 4 of 4 · answers 7–7 of 7" in html and "next →" not in html

    # An estimate below what the pages read hold is raised to it: the planner
    # expects many answers below 90 %, but a single one of them in the queue.
    from reviewer.selectors import triage

    monkeypatch.setattr(triage, "_estimated_rows",
                        lambda answers: 1 if "review_state" in str(answers.query) else 120)
    html = html_lib.unescape(_get(client, sue, coverage_below="90", page="2").content.decode())
    assert "answers 3–4 of about 5" in html


def test_asked_to_count_exactly_the_page_counts_past_the_limit(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface],
    estimate_limit_of_three: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(7):
        _make(surface=surfaces["chat"], counts={"uncited-claim": 1}, coverage=0.5)
    sue = people["sue"]
    _planner_expects(monkeypatch, 120)
    exact = _get(client, sue, coverage_below="90", count="exact")
    html = html_lib.unescape(exact.content.decode())
    assert '<span class="triage-total" id="triage-total">7 answers</span>' in html
    assert '<option value="chat">chat (7)</option>' in html
    assert "Count exactly" not in html and "estimate" not in html
    # Kept while paging, and in each row's link back to the queue.
    assert 'href="?coverage_below=90&count=exact&page=2"' in html
    assert "?queue=coverage_below%3D90%26count%3Dexact" in html
    # A page past the last, asked for by hand, is counted and shown as the last.
    past = html_lib.unescape(_get(client, sue, coverage_below="90", page="9").content.decode())
    assert "Ignored page “9”: the queue has 4 pages; showing page 4." in past
    assert "Ignored count “all”: use exact or leave it out." in html_lib.unescape(
        _get(client, sue, coverage_below="90", count="all").content.decode())


def test_the_kept_counts_are_exact_whatever_the_planner_expects(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface],
    estimate_limit_of_three: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a search, coverage, date or rungs filter the counts are the
    kept groups' sums: exact and cheap, never estimated."""
    for _ in range(5):
        _make(surface=surfaces["chat"], counts={"uncited-claim": 1})
    _planner_expects(monkeypatch, 10**6)
    html = html_lib.unescape(_get(client, people["sue"], surface="chat").content.decode())
    assert '<span class="triage-total" id="triage-total">5 answers</span>' in html
    assert "estimate" not in html


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the estimate is PostgreSQL's")
def test_on_postgresql_the_estimate_is_the_planners(
    client: Any, people: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from reviewer.selectors import triage

    monkeypatch.setattr(triage, "EXACT_COUNT_LIMIT", 40)
    Answer.objects.bulk_create(
        Answer(verdict="fail", action="flag", coverage=0.5, threshold=0.92, elapsed_ms=1.0,
               counts={"uncited-claim": 1}, question=f"Question {i}?", text="An answer.",
               **outcome_columns({"uncited-claim": 1})) for i in range(80))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE reviewer_answer")
    html = html_lib.unescape(_get(client, people["sue"], coverage_below="90").content.decode())
    about = re.search(r'id="triage-total">about (\d+) answers<', html)
    assert about is not None and 60 <= int(about.group(1)) <= 100, about
    assert "by PostgreSQL's estimate" in html
