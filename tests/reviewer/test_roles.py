"""Roles: who may open which page (the matrix), where each role lands, what
the nav and the pages offer them, ``manage.py roles``, and the surfaces page
with its history."""

from __future__ import annotations

import re
from datetime import date
from io import StringIO
from typing import Any, NamedTuple

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.http import HttpRequest, HttpResponse
from django.test import override_settings
from django.urls import URLPattern, include, path, resolve
from django.utils import timezone

from reviewer import ui_urls
from reviewer import urls as root_urls
from reviewer.models import (
    Answer,
    CalibrationItem,
    MatchLabel,
    ReverificationRun,
    ReviewDecision,
    Surface,
    SurfaceChange,
    TrendAlert,
)
from reviewer.roles import ROLE_PERMISSIONS
from reviewer.services.answers import answer_submit
from reviewer.services.assignments import answers_assign
from reviewer.services.calibration import calibration_sample
from reviewer.services.documents import document_upload
from reviewer.services.reviews import review_decide
from reviewer.services.surfaces import surface_update

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _quick_passwords(settings: Any) -> None:
    """Each case makes users; hashing their passwords properly takes most of its time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# ---- the matrix -----------------------------------------------------------------
# One row per UI URL and method: the status each role gets. A 403 is always the
# no-role page (checked), never a bare error; a 302 is the page's own redirect
# (home's landing page, a recorded decision, an upload). To add a page, add a
# row; test_the_matrix_covers_every_ui_url fails until every URL has one.
# URLs are formatted with the ids of the `world` fixture's objects; POST data's
# string values too, and PDF stands for a fresh PDF upload.

ROLES = ("none", "reviewer", "supervisor", "calibrator", "superuser")
PDF = object()
LABELS = object()  # a labels file to import (empty: the report says 0 rows)


class Row(NamedTuple):
    method: str
    url: str
    expect: tuple[int, int, int, int, int]  # in ROLES' order
    data: dict[str, Any] = {}


SURFACE_FORM = {"surface-{surface}-threshold": "0.9", "surface-{surface}-policy": "flag",
                "surface-{surface}-min_coverage": "1", "surface-{surface}-reason": "Stricter"}

MATRIX = (
    #                                                  none reviewer supervisor calibrator superuser
    Row("GET", "/",                                  (403, 302, 302, 302, 302)),
    Row("GET", "/answers/",                          (403, 200, 200, 403, 200)),
    Row("GET", "/answers/{answer}/",                 (403, 200, 200, 403, 200)),
    Row("GET", "/answers/{answer}/?verdict=previous", (403, 200, 200, 403, 200)),
    Row("POST", "/answers/{answer}/decide",          (403, 302, 302, 403, 302),
        {"decision": "escalate"}),
    Row("POST", "/answers/{answer}/undo",            (403, 302, 302, 403, 302),
        {"decision": "{decision}"}),
    # The open review page's heartbeat: whoever may decide.
    Row("POST", "/answers/{answer}/presence",        (403, 204, 204, 403, 204)),
    Row("GET", "/documents/",                        (403, 200, 200, 200, 200)),
    Row("GET", "/documents/{document}/",             (403, 200, 200, 200, 200)),
    Row("GET", "/documents/{document}/row",          (403, 200, 200, 200, 200)),
    Row("GET", "/documents/{document}/file",         (403, 200, 200, 200, 200)),
    Row("POST", "/documents/upload",                 (403, 403, 302, 403, 302), {"file": PDF}),
    Row("GET", "/surfaces/",                         (403, 403, 200, 200, 200)),
    Row("GET", "/surfaces/{surface}/edit",           (403, 403, 200, 403, 200)),
    Row("POST", "/surfaces/{surface}/edit",          (403, 403, 302, 403, 302), SURFACE_FORM),
    # Any signed-in account: the API's reference holds no answers or documents.
    Row("GET", "/triage/",                           (403, 200, 200, 403, 200)),
    Row("POST", "/triage/assign",                    (403, 403, 302, 403, 302),
        {"answer": "{answer}", "assignee": ""}),
    Row("GET", "/triage/export?format=csv",          (403, 403, 200, 403, 200)),
    Row("GET", "/labels/",                           (403, 403, 200, 200, 200)),
    Row("GET", "/labels/export?format=csv",          (403, 403, 200, 200, 200)),
    Row("POST", "/labels/import",                    (403, 403, 200, 403, 200), {"file": LABELS}),
    Row("GET", "/trends/",                           (403, 403, 200, 403, 200)),
    Row("GET", "/trends/export?chart=outcomes",      (403, 403, 200, 403, 200)),
    # Rate-change alerts: supervisors act on them.
    Row("POST", "/trends/alerts/{alert}/acknowledge", (403, 403, 302, 403, 302)),
    Row("POST", "/trends/alerts/{acked}/reopen",     (403, 403, 302, 403, 302)),
    Row("POST", "/trends/alerts/{alert}/owner",      (403, 403, 302, 403, 302), {"owner": ""}),
    Row("POST", "/trends/alerts/{alert}/note",       (403, 403, 302, 403, 302),
        {"note": "Looked at it"}),
    Row("GET", "/calibrate/",                        (403, 403, 200, 200, 200)),
    Row("GET", "/calibrate/{surface_name}/label",    (403, 403, 403, 200, 200)),
    Row("POST", "/calibrate/{surface_name}/label/record", (403, 403, 403, 302, 302),
        {"item": "{item}", "label": "1"}),
    Row("POST", "/calibrate/{surface_name}/label/skip", (403, 403, 403, 302, 302),
        {"item": "{item}"}),
    Row("POST", "/calibrate/{surface_name}/label/undo", (403, 403, 403, 302, 302)),
    # A surface's calibration: calibrators see it (without answers' examples);
    # applying a threshold and settling labels are a supervisor's.
    Row("GET", "/calibrate/{surface_name}/",         (403, 403, 200, 200, 200)),
    Row("GET", "/calibrate/{surface_name}/?target=0.9&threshold=0.9",
                                                     (403, 403, 200, 200, 200)),
    Row("POST", "/calibrate/{surface_name}/apply",   (403, 403, 302, 403, 302),
        {"threshold": "0.9", "reason": "Calibrated", "target": "0.95"}),
    Row("GET", "/calibrate/{surface_name}/runs/{run}", (403, 403, 200, 200, 200)),
    Row("POST", "/calibrate/{surface_name}/settle/{disputed}", (403, 403, 302, 403, 302),
        {"label": "faithful"}),
    Row("GET", "/api/docs/",                         (200, 200, 200, 200, 200)),
)


@pytest.fixture
def world(text_pdf: Any) -> dict[str, Any]:
    """An answer, a document with its PDF, the answer's surface, a finished
    re-verification of it and a calibration item two labellers disagree on."""
    answer = answer_submit(client=None, data={
        "answer": 'It says "Employer match vests after two years" [S1].',
        "sources": [{"marker": "S1", "text": "Employer match vests after two years."}],
    }).answer
    document = document_upload(data=text_pdf("Employer match vests after two years."),
                               filename="plan.pdf").document
    surface = answer.surface
    run = ReverificationRun.objects.create(surface=surface, threshold=0.9,
                                           status=ReverificationRun.Status.DONE)
    (item,) = calibration_sample(surface=surface)  # its one quote, exact: a control
    disputed = CalibrationItem.objects.create(
        surface=surface, quote="Employer match vests", source_text="Employer match vests.",
        match_start=0, match_end=20, score=0.9, stratum="0.85–0.90", content_hash="world")
    for name, label in (("ann", "faithful"), ("bob", "changed")):
        MatchLabel.objects.create(item=disputed, labeller_name=name, label=label)
    figures = {"day": date(2026, 3, 2), "surface": surface, "model": "*", "direction": 1,
               "answers": 20, "hits": 10, "baseline_answers": 280, "baseline_hits": 14,
               "low": 0.25, "high": 0.75, "baseline_low": 0.02, "baseline_high": 0.09}
    alert = TrendAlert.objects.create(outcome="fabricated-marker", **figures)
    acked = TrendAlert.objects.create(outcome="quote-altered", acknowledged_at=timezone.now(),
                                      acknowledged_by=get_user_model().objects.create_user(
                                          "acker"), **figures)
    return {"answer": answer, "document": document, "surface": surface, "run": run,
            "item": item, "disputed": disputed, "alert": alert, "acked": acked}


def _ids(world: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"answer": world["answer"].pk, "document": world["document"].pk,
            "surface": world["surface"].pk, "surface_name": world["surface"].name,
            "run": world["run"].pk, "item": world["item"].pk,
            "disputed": world["disputed"].pk, "alert": world["alert"].pk,
            "acked": world["acked"].pk, **extra}


def _user(make_user: Any, role: str) -> Any:
    if role == "superuser":
        return get_user_model().objects.create_superuser("root", "root@example.com",
                                                         "pw-root-123")
    return make_user(f"as-{role}", *(() if role == "none" else (role,)))


def _fill(value: Any, ids: dict[str, Any], text_pdf: Any) -> Any:
    if value is PDF:
        return SimpleUploadedFile("new.pdf", text_pdf("A new upload."), "application/pdf")
    if value is LABELS:
        return SimpleUploadedFile("labels.jsonl", b"", "application/x-ndjson")
    return value.format(**ids) if isinstance(value, str) else value


def _request(client: Any, row: Row, ids: dict[str, Any], text_pdf: Any) -> Any:
    url = row.url.format(**ids)
    if row.method == "GET":
        return client.get(url)
    data = {_fill(k, ids, text_pdf): _fill(v, ids, text_pdf) for k, v in row.data.items()}
    return client.post(url, data)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", MATRIX, ids=lambda row: f"{row.method} {row.url}")
def test_each_role_gets_the_status_the_matrix_says(
    client: Any, make_user: Any, world: dict[str, Any], text_pdf: Any, row: Row, role: str
) -> None:
    user = _user(make_user, role)
    decider = user if user.has_perm("reviewer.decide_answer") else _user(make_user, "superuser")
    decision = review_decide(answer=world["answer"], reviewer=decider, decision="reject")
    ids = _ids(world, decision=decision.pk)
    client.force_login(user)
    response = _request(client, row, ids, text_pdf)
    expected = row.expect[ROLES.index(role)]
    assert response.status_code == expected, response.content.decode()[:300]
    templates = [t.name for t in response.templates]
    if expected == 403:
        assert "reviewer/no_role.html" in templates
    else:
        assert "reviewer/no_role.html" not in templates


@pytest.mark.parametrize("row", MATRIX, ids=lambda row: f"{row.method} {row.url}")
def test_someone_not_signed_in_is_sent_to_sign_in(client: Any, world: dict[str, Any],
                                                  text_pdf: Any, row: Row) -> None:
    ids = _ids(world, decision=1)
    response = _request(client, row, ids, text_pdf)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_the_matrix_covers_every_ui_url() -> None:
    """Every page of the reviewer UI (and the API's reference) has a row."""
    routed = {f"reviewer:{p.name}" for p in ui_urls.urlpatterns
              if isinstance(p, URLPattern) and p.name} | {"api-docs"}
    ids = {"answer": 1, "document": 1, "surface": 1, "surface_name": "default", "run": 1,
           "item": 1, "disputed": 1, "alert": 1, "acked": 1}
    covered = {resolve(row.url.format(**ids).partition("?")[0]).view_name for row in MATRIX}
    assert routed - covered == set()


@pytest.mark.parametrize("url", ["/api/v1/answers", "/api/v1/documents", "/api/v1/ping"])
def test_a_signed_in_person_does_not_open_the_token_api(client: Any, make_user: Any,
                                                        api_token: str, url: str) -> None:
    """The API is for machine clients with a token; no role or session opens it."""
    client.force_login(_user(make_user, "superuser"))
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"Authorization": f"Bearer {api_token}"}).status_code == 200


# ---- where each role lands, and the nav -----------------------------------------

def _stand_in(request: HttpRequest) -> HttpResponse:
    return HttpResponse("a page another part of the product provides")


def _urlconf(*extra: URLPattern) -> type:
    """The site's UI with ``extra`` pages in its namespace (triage, trends and
    calibration come from work that may not be installed), as a URL conf:
    anything with ``urlpatterns`` that can key the resolvers' cache."""
    names = {p.name for p in extra} | {"triage", "trends", "calibrate"}
    ui = [p for p in ui_urls.urlpatterns if getattr(p, "name", None) not in names]
    site = [p for p in root_urls.urlpatterns if str(p.pattern)]  # all but the UI's include
    return type("URLConf", (), {"urlpatterns": [
        *site, path("", include(([*ui, *extra], "reviewer")))]})


WITH_EXTRAS = _urlconf(path("triage/", _stand_in, name="triage"),
                       path("trends/", _stand_in, name="trends"),
                       path("calibrate/", _stand_in, name="calibrate"))
WITHOUT_EXTRAS = _urlconf()


@pytest.mark.parametrize(("urlconf", "role", "landing"), [
    (WITH_EXTRAS, "reviewer", "/triage/?assignee=me"),
    (WITH_EXTRAS, "supervisor", "/triage/"),
    (WITH_EXTRAS, "superuser", "/triage/"),
    (WITH_EXTRAS, "calibrator", "/calibrate/"),
    (WITHOUT_EXTRAS, "reviewer", "/answers/"),
    (WITHOUT_EXTRAS, "supervisor", "/answers/"),
    (WITHOUT_EXTRAS, "superuser", "/answers/"),
    (WITHOUT_EXTRAS, "calibrator", "/documents/"),
], ids=lambda v: "with triage" if v is WITH_EXTRAS else "without" if v is WITHOUT_EXTRAS else v)
def test_home_takes_each_role_to_its_work(client: Any, make_user: Any, urlconf: Any,
                                          role: str, landing: str) -> None:
    client.force_login(_user(make_user, role))
    with override_settings(ROOT_URLCONF=urlconf):
        response = client.get("/")
    assert response.status_code == 302 and response["Location"] == landing


def _nav(html: str) -> list[str]:
    nav = html.split("<nav>", 1)[1].split("</nav>", 1)[0]
    return re.findall(r">([^<]+)</a>", nav)


@pytest.mark.parametrize(("role", "links"), [
    ("reviewer", ["My queue", "Answers", "Documents", "API"]),
    ("supervisor", ["Triage", "My queue", "Trends", "Answers", "Documents", "Surfaces",
                    "Calibrate", "API"]),
    ("calibrator", ["Documents", "Surfaces", "Calibrate", "API"]),
    ("superuser", ["Triage", "My queue", "Trends", "Answers", "Documents", "Surfaces",
                   "Calibrate", "API", "Admin"]),
    ("none", ["API"]),
])
def test_the_nav_shows_only_the_links_the_user_may_follow(client: Any, make_user: Any,
                                                          role: str, links: list[str]) -> None:
    client.force_login(_user(make_user, role))
    with override_settings(ROOT_URLCONF=WITH_EXTRAS):
        html = client.get("/api/docs/").content.decode()
    assert _nav(html) == links
    if "My queue" in links:
        assert 'href="/triage/?assignee=me">My queue' in html


def test_pages_not_installed_are_left_out_of_the_nav(client: Any, make_user: Any) -> None:
    client.force_login(_user(make_user, "superuser"))
    with override_settings(ROOT_URLCONF=WITHOUT_EXTRAS):
        response = client.get("/api/docs/")
    assert response.status_code == 200
    assert _nav(response.content.decode()) == ["Answers", "Documents", "Surfaces", "API",
                                               "Admin"]


# ---- no role, not your queue, controls you can't use ------------------------------

def test_someone_with_no_role_is_told_whom_to_ask(client: Any, make_user: Any) -> None:
    get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-boss-123")
    get_user_model().objects.create_superuser("chief", "chief@example.com", "pw-chief-123")
    gone = get_user_model().objects.create_superuser("gone", "gone@example.com", "pw-gone-123")
    gone.is_active = False
    gone.save()
    client.force_login(make_user("newbie"))
    for url in ("/", "/answers/"):
        response = client.get(url)
        html = response.content.decode()
        assert response.status_code == 403
        assert "has no role yet" in html
        assert "<strong>boss</strong>, <strong>chief</strong>" in html and "gone" not in html
        assert "manage.py roles grant newbie reviewer" in html


def test_a_reviewer_cannot_decide_another_reviewers_queue_but_a_supervisor_can(
    client: Any, make_user: Any, world: dict[str, Any]
) -> None:
    answer = world["answer"]
    ann, bob = make_user("ann", "reviewer"), make_user("bob", "reviewer")
    boss = make_user("boss", "supervisor")
    answers_assign(answer_ids=[answer.pk], assignee=bob, assigned_by=boss)

    client.force_login(ann)
    page = client.get(f"/answers/{answer.pk}/").content.decode()
    assert 'id="decide-form"' not in page
    assert "This answer is in bob&#x27;s queue" in page
    refused = client.post(f"/answers/{answer.pk}/decide", {"decision": "escalate"})
    assert refused.status_code == 403 and "bob's queue" in refused.content.decode()
    assert not ReviewDecision.objects.exists()

    client.force_login(boss)
    assert 'id="decide-form"' in client.get(f"/answers/{answer.pk}/").content.decode()
    assert client.post(f"/answers/{answer.pk}/decide",
                       {"decision": "escalate"}).status_code == 302
    answer.refresh_from_db()
    assert answer.review_state == Answer.ReviewState.ESCALATED
    assert ReviewDecision.objects.get().reviewer == boss


def test_who_may_read_but_not_decide_sees_a_sentence_instead_of_buttons(
    client: Any, make_user: Any, world: dict[str, Any]
) -> None:
    reader = make_user("reader")
    reader.user_permissions.add(Permission.objects.get(codename="view_answer"))
    client.force_login(reader)
    page = client.get(f"/answers/{world['answer'].pk}/").content.decode()
    assert 'id="decide-form"' not in page and 'value="approve"' not in page
    assert "You can read this answer but not decide it" in page

    client.force_login(make_user("rita", "reviewer"))
    page = client.get(f"/answers/{world['answer'].pk}/").content.decode()
    assert 'id="decide-form"' in page and 'value="approve"' in page
    assert "decide-denied" not in page


@pytest.mark.parametrize(("role", "shown"), [("reviewer", False), ("calibrator", False),
                                             ("supervisor", True)])
def test_the_upload_form_shows_only_to_who_may_upload(client: Any, make_user: Any, role: str,
                                                      shown: bool) -> None:
    client.force_login(make_user(f"as-{role}", role))
    html = client.get("/documents/").content.decode()
    assert ('action="/documents/upload"' in html) is shown


# ---- manage.py roles ----------------------------------------------------------------

def _roles(*args: str) -> str:
    out = StringIO()
    call_command("roles", *args, stdout=out)
    return out.getvalue()


def test_grant_and_revoke_roles(make_user: Any) -> None:
    ann = make_user("ann")
    assert _roles("grant", "ann", "reviewer", "calibrator") == "ann: reviewer, calibrator\n"
    assert ann.has_perm("reviewer.decide_answer") and ann.has_perm("reviewer.label_matches")
    assert _roles("revoke", "ann", "calibrator") == "ann: reviewer\n"
    ann = get_user_model().objects.get(pk=ann.pk)  # a fresh permission cache
    assert ann.has_perm("reviewer.decide_answer")
    assert not ann.has_perm("reviewer.label_matches")


def test_list_shows_everyone_and_their_roles(make_user: Any) -> None:
    make_user("ann", "reviewer")
    make_user("bob", "supervisor", "calibrator")
    make_user("cat", is_active=False)
    team = Group.objects.create(name="night-shift")
    make_user("dan", "reviewer").groups.add(team)
    get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    assert _roles("list").splitlines() == [
        "ann: reviewer",
        "bob: supervisor, calibrator",
        "cat: no role (inactive)",
        "dan: reviewer (other groups: night-shift)",
        "root: admin",
    ]


def test_sync_gives_each_role_exactly_its_permissions() -> None:
    reviewer = Group.objects.get(name="reviewer")
    reviewer.permissions.add(Permission.objects.get(codename="assign_answer"))
    Group.objects.get(name="calibrator").delete()
    output = _roles("sync")
    assert "reviewer: view_answer, decide_answer, view_document" in output
    for role, names in ROLE_PERMISSIONS.items():
        held = {f"{p.content_type.app_label}.{p.codename}"
                for p in Group.objects.get(name=role).permissions.select_related("content_type")}
        assert held == set(names), role


@pytest.mark.parametrize(("args", "message"), [
    (("grant", "nobody", "reviewer"), "no user named 'nobody'"),
    (("grant", "ann", "reviewr"), "no role 'reviewr'; the roles are reviewer, supervisor, "
                                  "calibrator"),
    (("grant", "ann", "admin"), "admin is not a role to grant"),
    (("revoke", "ann", "boss"), "no role 'boss'"),
])
def test_roles_errors_say_what_is_wrong(make_user: Any, args: tuple[str, ...],
                                        message: str) -> None:
    make_user("ann")
    with pytest.raises(CommandError, match=re.escape(message)):
        _roles(*args)


def test_a_missing_role_group_says_to_sync(make_user: Any) -> None:
    make_user("ann")
    Group.objects.get(name="calibrator").delete()
    with pytest.raises(CommandError, match="roles sync"):
        _roles("grant", "ann", "calibrator")


def test_the_admin_keeps_its_user_and_group_pages(client: Any) -> None:
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(root)
    assert client.get("/admin/auth/group/").status_code == 200
    html = client.get(f"/admin/auth/user/{root.pk}/change/").content.decode()
    assert 'name="groups"' in html


# ---- surfaces -------------------------------------------------------------------------

@pytest.fixture
def supervisor(make_user: Any) -> Any:
    return make_user("sue", "supervisor")


@pytest.fixture
def surface() -> Surface:
    return Surface.objects.create(name="legal", threshold=0.92, min_coverage=1.0)


def test_surface_update_records_old_and_new_values_and_the_reason(supervisor: Any,
                                                                 surface: Surface) -> None:
    change = surface_update(surface=surface, changed_by=supervisor, reason="  Too many false "
                            "alarms  ", threshold=0.9, high_stakes=True, policy="flag",
                            evidence={"labels": 240, "precision": 0.97})
    assert change is not None
    assert change.changes == {"threshold": [0.92, 0.9], "high_stakes": [False, True]}
    assert change.reason == "Too many false alarms" and change.changed_by == supervisor
    assert change.evidence == {"labels": 240, "precision": 0.97}
    stored = Surface.objects.get(pk=surface.pk)
    assert (stored.threshold, stored.high_stakes) == (0.9, True)
    assert surface.threshold == 0.9  # the caller's instance too
    # Nothing different: nothing recorded.
    assert surface_update(surface=surface, changed_by=supervisor, reason="again",
                          threshold=0.9) is None
    assert SurfaceChange.objects.count() == 1


@pytest.mark.parametrize(("fields", "message"), [
    ({"threshold": 1.5}, "The threshold must be above 0 and at most 1."),
    ({"threshold": 0.0}, "The threshold must be above 0 and at most 1."),
    ({"min_coverage": -0.1}, "The minimum coverage must be between 0 and 1."),
    ({"policy": "shred"}, "not a valid choice"),
])
def test_surface_update_refuses_values_out_of_range(supervisor: Any, surface: Surface,
                                                    fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        surface_update(surface=surface, changed_by=supervisor, reason="try", **fields)
    stored = Surface.objects.get(pk=surface.pk)
    assert (stored.threshold, stored.min_coverage, stored.policy) == (0.92, 1.0, "flag")
    assert not SurfaceChange.objects.exists()


def test_surface_update_needs_a_reason_a_setting_and_the_permission(
    supervisor: Any, surface: Surface, make_user: Any
) -> None:
    with pytest.raises(ValidationError, match="Say why"):
        surface_update(surface=surface, changed_by=supervisor, reason="  ", threshold=0.9)
    with pytest.raises(TypeError, match="not a surface setting: name"):
        surface_update(surface=surface, changed_by=supervisor, reason="rename", name="x")
    with pytest.raises(PermissionDenied):
        surface_update(surface=surface, changed_by=make_user("rita", "reviewer"),
                       reason="mine", threshold=0.9)
    assert not SurfaceChange.objects.exists()
    assert Surface.objects.get(pk=surface.pk).threshold == 0.92


def test_surface_changes_are_append_only(supervisor: Any, surface: Surface) -> None:
    change = surface_update(surface=surface, changed_by=supervisor, reason="r", threshold=0.9)
    assert change is not None
    with pytest.raises(SurfaceChange.AppendOnly):
        change.save()
    with pytest.raises(SurfaceChange.AppendOnly):
        SurfaceChange.objects.update(reason="rewritten")
    with pytest.raises(SurfaceChange.AppendOnly):
        SurfaceChange.objects.all().delete()


def test_the_surfaces_page_lists_settings_and_history(client: Any, supervisor: Any,
                                                      world: dict[str, Any]) -> None:
    surface = world["surface"]
    client.force_login(supervisor)
    form = {key.format(surface=surface.pk): value for key, value in SURFACE_FORM.items()}
    response = client.post(f"/surfaces/{surface.pk}/edit", {
        **form, f"surface-{surface.pk}-reason": "Fewer <b>misses</b>",
        f"surface-{surface.pk}-description": "<script>x</script>"})
    assert response.status_code == 302
    assert response["Location"] == f"/surfaces/#surface-{surface.name}"
    html = client.get("/surfaces/").content.decode()
    row = html.split(f'id="surface-{surface.name}"', 1)[1].split("</tr>", 1)[0]
    assert "<td>0.9</td>" in row and "Serve flagged as unverified" in row
    assert "<td>100%</td>" in row and "<td>1</td>" in row  # min coverage; one answer
    assert "&lt;script&gt;" in row and "<script>x" not in html
    assert "threshold: <del>0.92</del> → <ins>0.9</ins>" in html
    assert "description: <del></del> → <ins>&lt;script&gt;x&lt;/script&gt;</ins>" in html
    assert "Fewer &lt;b&gt;misses&lt;/b&gt;" in html and "sue" in html
    assert f"{surface.name}: changed description, threshold." in html


def test_a_refused_edit_shows_why_and_changes_nothing(client: Any, supervisor: Any,
                                                      surface: Surface) -> None:
    client.force_login(supervisor)
    base = {f"surface-{surface.pk}-threshold": "1.5", f"surface-{surface.pk}-policy": "flag",
            f"surface-{surface.pk}-min_coverage": "1"}
    response = client.post(f"/surfaces/{surface.pk}/edit",
                           {**base, f"surface-{surface.pk}-reason": "loosen"})
    assert response.status_code == 400
    assert "The threshold must be above 0 and at most 1." in response.content.decode()
    response = client.post(f"/surfaces/{surface.pk}/edit",
                           {**base, f"surface-{surface.pk}-threshold": "0.8"})
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    assert Surface.objects.get(pk=surface.pk).threshold == 0.92
    assert not SurfaceChange.objects.exists()


def test_the_edit_form_comes_alone_for_htmx(client: Any, supervisor: Any,
                                            surface: Surface) -> None:
    client.force_login(supervisor)
    response = client.get(f"/surfaces/{surface.pk}/edit", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<tr id="surface-{surface.name}" class="editing">')
    assert "<h1>" not in html and 'value="0.92"' in html


def test_who_may_only_see_surfaces_gets_no_edit_links(client: Any, make_user: Any,
                                                      surface: Surface) -> None:
    viewer = make_user("vic")
    viewer.user_permissions.add(Permission.objects.get(codename="view_surface"))
    client.force_login(viewer)
    html = client.get("/surfaces/").content.decode()
    assert "legal" in html and f"/surfaces/{surface.pk}/edit" not in html
    assert client.get(f"/surfaces/{surface.pk}/edit").status_code == 403



def test_admin_edits_of_a_surfaces_settings_are_recorded_like_the_surfaces_pages(
    client: Any, surface: Surface
) -> None:
    """The admin cannot change a threshold (or the high-stakes flag in its list)
    without a SurfaceChange saying who, why and from what to what."""
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(root)
    form = {"name": surface.name, "description": "renamed in the admin",
            "threshold": "0.88", "policy": surface.policy,
            "min_coverage": str(surface.min_coverage), "change_reason": "Calibrated by hand",
            "judge_sample_rate": "0.25", "judge_calls_per_hour": str(surface.judge_calls_per_hour),
            "judge_timeout_seconds": str(surface.judge_timeout_seconds),
            "judge_max_chars": str(surface.judge_max_chars)}
    response = client.post(f"/admin/reviewer/surface/{surface.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:500]
    change = SurfaceChange.objects.get(surface=surface)
    assert change.changed_by == root and change.reason == "Calibrated by hand"
    assert change.changes["threshold"] == [surface.threshold, 0.88]
    # The model stage's sample rate is a setting with a history too.
    assert change.changes["judge_sample_rate"] == [surface.judge_sample_rate, 0.25]
    surface.refresh_from_db()
    assert surface.threshold == 0.88 and surface.description == "renamed in the admin"
    # The list's high-stakes checkbox, which has no reason field.
    listed = client.post("/admin/reviewer/surface/", {
        "form-TOTAL_FORMS": "1", "form-INITIAL_FORMS": "1", "form-0-id": str(surface.pk),
        "form-0-high_stakes": "on", "_save": "Save"})
    assert listed.status_code == 302
    latest = SurfaceChange.objects.filter(surface=surface).order_by("-pk").first()
    assert latest is not None and latest.changes == {"high_stakes": [False, True]}
    assert latest.reason == "Changed in the admin (no reason given)"


def test_a_refused_htmx_request_reloads_the_page_instead_of_doing_nothing(
    client: Any, make_user: Any, world: dict[str, Any]
) -> None:
    """htmx swaps no 403: a control used after the role was taken away would
    seem dead. The refusal tells htmx to reload, showing what is left."""
    client.force_login(make_user("former", "calibrator"))
    url = f"/answers/{world['answer'].pk}/decide"
    refused = client.post(url, {"decision": "escalate"}, headers={"HX-Request": "true"})
    assert refused.status_code == 403 and refused["HX-Refresh"] == "true"
    plain = client.post(url, {"decision": "escalate"})
    assert plain.status_code == 403 and "HX-Refresh" not in plain
