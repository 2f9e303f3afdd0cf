"""The calibration page: its figures against hand-computed ones, the
recommendation or why it is withheld, κ, settling disagreements, what a
threshold would change, applying one (evidence on record, answers
re-verified with their history kept), the runs' progress, and refusals."""

from __future__ import annotations

import math
import re
from html import unescape
from itertools import count
from typing import Any

import pytest
from django.urls import resolve

from reviewer.models import (
    CalibrationItem,
    MatchLabel,
    ReverificationRun,
    Surface,
    SurfaceChange,
    VerdictRecord,
)
from reviewer.selectors.calibration import labelled_matches
from reviewer.selectors.calibration_report import (
    band_counts,
    calibration_report,
    change_estimate,
    change_examples,
)
from reviewer.services.calibration_apply import EVIDENCE_KEYS
from reviewer.views.calibration import percent
from tests.reviewer.test_reverify import EXACT, FUZZY, submit
from verification.calibration import bands_around, recommend_threshold

pytestmark = pytest.mark.django_db

_hashes = count()


def item(surface: Surface, score: float, *labels: str, quote: str = "a quote",
         names: tuple[str, ...] = ("ann", "bob")) -> CalibrationItem:
    """An item with ``labels`` given by ``names`` in turn."""
    made = CalibrationItem.objects.create(
        surface=surface, quote=quote, source_text=f"before [{quote} in the source] after",
        match_start=7, match_end=8 + len(quote) + 14, score=score, stratum="0.85–0.90",
        content_hash=f"item-{next(_hashes)}")
    for name, label in zip(names, labels, strict=False):
        MatchLabel.objects.create(item=made, labeller_name=name, label=label)
    return made


def page(client: Any, surface: Surface, query: str = "") -> str:
    response = client.get(f"/calibrate/{surface.name}/{query}")
    assert response.status_code == 200, response.content.decode()[:500]
    return unescape(response.content.decode())


def wilson(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson interval, written out again from its formula."""
    p = successes / trials
    centre = p + z * z / (2 * trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return (centre - half) / (1 + z * z / trials), (centre + half) / (1 + z * z / trials)


@pytest.fixture(autouse=True)
def _quick_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def supervisor(make_user: Any) -> Any:
    return make_user("sue", "supervisor")


@pytest.fixture
def calibrator(make_user: Any) -> Any:
    return make_user("cal", "calibrator")


@pytest.fixture
def legal() -> Surface:
    return Surface.objects.create(name="legal", threshold=0.92)


# Eight labelled matches: five faithful (0.99, 0.97, 0.95, 0.91, 0.86), two
# with the meaning changed (0.93, 0.82), one of another passage (0.88).
EIGHT = ((0.99, "faithful"), (0.97, "faithful"), (0.95, "faithful"), (0.93, "changed"),
         (0.91, "faithful"), (0.88, "other"), (0.86, "faithful"), (0.82, "changed"))


@pytest.fixture
def eight(legal: Surface) -> Surface:
    legal.threshold = 0.90
    legal.save()
    for score, label in EIGHT:
        item(legal, score, label)
    return legal


def test_the_figures_are_the_hand_computed_ones(client: Any, supervisor: Any,
                                                eight: Surface) -> None:
    # At 0.90: accepted 0.99 0.97 0.95 0.93 0.91 → 4 faithful of 5 (precision 80%),
    # 4 of the 5 faithful accepted (recall 80%), 0.86 flagged (false alarms 20%).
    # At 0.94: accepted 0.99 0.97 0.95 → 3 of 3 (100%), recall 3/5, false alarms 2/5.
    report = calibration_report(eight, target_precision=0.95)
    points = {p.threshold: p for p in report.curve}
    at_90, at_94 = points[0.90], points[0.94]
    assert (at_90.tp, at_90.fp, at_90.fn, at_90.tn) == (4, 1, 1, 2)
    assert (at_90.precision, at_90.recall, at_90.false_alarm_rate) == (0.8, 0.8, 0.2)
    assert (at_94.tp, at_94.fp, at_94.fn, at_94.tn) == (3, 0, 2, 3)
    assert (at_94.precision, at_94.recall, at_94.false_alarm_rate) == (1.0, 0.6, 0.4)
    # Above every score nothing is accepted: precision undefined, recall 0.
    assert points[1.0].precision is None and points[1.0].recall == 0.0
    # Every labelled score is a point of the curve, besides the grid.
    assert {0.99, 0.97, 0.93, 0.91, 0.88, 0.86, 0.82} <= set(points)

    client.force_login(supervisor)
    html = page(client, eight)
    low, high = wilson(4, 5)
    assert f"{low:.1%}" == "37.6%" and f"{high:.1%}" == "96.4%"  # by hand, with z = 1.96
    assert ("At the current threshold 0.9: 5 of 8 labels accepted, precision 80% "
            "(95% interval 37.6%–96.4%), recall 80%, false-alarm rate 20%.") in html
    assert "at 0.94: precision 100% (3 of 8 labels accepted)" in html
    assert "at 0.94: recall 60% (3 of 8 labels accepted)" in html
    assert "at 0.94: false-alarm rate 40% (3 of 8 labels accepted)" in html
    # The curves are drawn, with the current threshold marked: three curves
    # in each of the two panels (the whole range and the 0.90-1.00 zoom,
    # issue 22).
    assert html.count('<g class="series"') == 6
    assert 'data-threshold="current"' in html
    assert "From 8 counted labels (5 faithful, 2 meaning changed, 1 not this passage)" in html


def test_bands_count_each_label_and_flag_thin_ones(client: Any, supervisor: Any,
                                                  eight: Surface) -> None:
    assert bands_around(0.90) == ((0.75, 0.8), (0.8, 0.85), (0.85, 0.9), (0.9, 0.95),
                                  (0.95, 0.98), (0.98, 1.0))
    client.force_login(supervisor)
    html = page(client, eight)
    rows = re.findall(r'<tr data-band="([^"]+)"( class="thin")?>\s*<td>[^<]*</td>'
                      r'<td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>', html)
    assert [(band, f, c, o, t, bool(thin)) for band, thin, f, c, o, t in rows] == [
        ("0.75–0.80", "0", "0", "0", "0", True),
        ("0.80–0.85", "0", "1", "0", "1", True),
        ("0.85–0.90", "1", "0", "1", "2", True),
        ("0.90–0.95", "1", "1", "0", "2", True),
        ("0.95–0.98", "2", "0", "0", "2", True),
        ("0.98–1.00", "1", "0", "0", "1", True),
    ]
    assert "too few (under 10)" in html


def test_labels_outside_the_bands_get_rows_of_their_own() -> None:
    from verification.calibration import LabelledMatch

    rows = band_counts([LabelledMatch(0.3, "other"), LabelledMatch(1.0, "faithful"),
                        LabelledMatch(0.86, "faithful")], bands_around(0.9))
    assert [(r.name, r.total, r.thin) for r in rows if r.total] == [
        ("under 0.75", 1, False), ("0.85–0.90", 1, True), ("1.00 and up", 1, False)]


def test_too_few_labels_withhold_the_recommendation(client: Any, supervisor: Any,
                                                    eight: Surface) -> None:
    client.force_login(supervisor)
    html = page(client, eight, "?target=0.9")
    assert '<p class="withheld" role="status">Not enough labels: ' in html
    assert "(10 needed in each)" in html
    assert 'class="figures recommended"' not in html
    assert 'data-threshold="recommended"' not in html


def well_labelled(surface: Surface) -> None:
    """72 labels, 12 in each band around 0.92: the three bands under 0.90
    hold changed and other quotes only, the three from 0.90 faithful ones."""
    for low, step, label in ((0.75, 0.004, "changed"), (0.80, 0.004, "other"),
                             (0.85, 0.004, "changed"), (0.90, 0.004, "faithful"),
                             (0.95, 0.0025, "faithful"), (0.98, 0.0015, "faithful")):
        for k in range(12):
            item(surface, round(low + k * step, 4), label)


def test_enough_labels_give_a_recommendation_with_its_intervals(
    client: Any, supervisor: Any, legal: Surface
) -> None:
    well_labelled(legal)
    client.force_login(supervisor)
    html = page(client, legal, "?target=0.9")
    # At 0.90 the 36 faithful labels are accepted and nothing else: precision
    # 100%, whose Wilson lower bound 36 / (36 + 1.96²) = 90.4% reaches 90%.
    # Anything lower accepts a changed or other quote too.
    assert pytest.approx(0.9036, abs=1e-4) == 36 / (36 + 1.959963984540054 ** 2)
    assert 'data-threshold="0.9"' in html
    assert "<strong>0.9</strong> for 90% precision" in html
    assert "36 accepted of 72 labelled" in html
    assert "100% (95% interval 90.4%–100%)" in html
    assert "<dt>Recall</dt><dd>100%</dd>" in html
    assert "<dt>False-alarm rate</dt><dd>0%</dd>" in html
    expected = recommend_threshold(labelled_matches(legal), 0.9, bands=bands_around(0.92))
    # On a third of the re-draws a faithful label or two is missing or a bad
    # one doubled, and no threshold reaches 90% with confidence: no upper end.
    interval = expected.threshold_interval
    assert interval is not None and interval.low is not None and interval.high is None
    assert interval.unmet > 25
    assert (f"<dd>from {interval.low:.4g} up: on {interval.unmet} of 1000 re-draws no "
            "threshold reached the target</dd>") in html
    assert 'data-threshold="recommended"' in html  # marked on the curves
    assert "Wilson 95% interval" in html and "re-drawing the labels" in html
    # At 95% the same labels are too few: 36 of 36 cannot show it with confidence.
    html = page(client, legal)
    assert "No threshold reaches 95% precision with 95% confidence" in html
    assert "on 36 accepted labels" in html


@pytest.mark.parametrize("raw", ["2", "0.2", "abc", "nan", "1"])
def test_a_bad_target_is_a_note_and_the_default_is_used(client: Any, supervisor: Any,
                                                       eight: Surface, raw: str) -> None:
    client.force_login(supervisor)
    html = page(client, eight, f"?target={raw}")
    assert "The target precision must be a number from 0.5 to 0.999" in html
    assert 'name="target" value="0.95"' in html


@pytest.mark.parametrize("raw", ["0", "1.5", "-0.2", "abc", "inf"])
def test_a_bad_preview_threshold_is_a_note(client: Any, supervisor: Any, eight: Surface,
                                           raw: str) -> None:
    client.force_login(supervisor)
    html = page(client, eight, f"?threshold={raw}")
    assert "A threshold is a number above 0 and at most 1" in html
    assert "No threshold to preview" in html  # nothing recommended to fall back on


# Agreement ------------------------------------------------------------------------


def test_kappa_is_the_hand_computed_one_and_settling_counts_the_label(
    client: Any, supervisor: Any, legal: Surface
) -> None:
    pairs = (("faithful", "faithful"), ("faithful", "changed"), ("changed", "changed"),
             ("other", "other"), ("faithful", "faithful"), ("other", "faithful"))
    items = [item(legal, 0.9 + i / 100, *pair, quote=f"quote {i}")
             for i, pair in enumerate(pairs)]
    item(legal, 0.97, "faithful")  # one label: not in κ, counted in the curves
    # p_o = 4/6; first labeller F 3, C 1, O 2; second F 3, C 2, O 1:
    # p_e = (3·3 + 1·2 + 2·1) / 36 = 13/36; κ = (24/36 − 13/36) / (23/36) = 11/23.
    assert pytest.approx(0.478, abs=1e-3) == 11 / 23
    client.force_login(supervisor)
    html = page(client, legal)
    assert ("Cohen's κ <strong>0.48</strong> over 6 matches labelled twice; the two labels "
            "agree on 0.67 of them (chance alone would give 0.36)") in html
    assert "2 of 2 disagreements not settled yet" in html
    assert "ann: Same passage, faithful" in html and "bob: Same passage, meaning changed" in html
    # The two disagreements are left out: 4 agreed + 1 single label counted.
    assert "From 5 counted labels (3 faithful, 1 meaning changed, 1 not this passage)" in html

    disputed = items[1]
    response = client.post(f"/calibrate/legal/settle/{disputed.pk}", {"label": "faithful"},
                           headers={"HX-Request": "true"})
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith(f'<tr id="item-{disputed.pk}"')
    assert "<html" not in fragment
    assert 'data-label="faithful"' in fragment
    disputed.refresh_from_db()
    assert (disputed.settled_label, disputed.settled_by) == ("faithful", supervisor)

    response = client.post(f"/calibrate/legal/settle/{items[5].pk}", {"label": "other"})
    assert response.status_code == 302
    assert response["Location"] == "/calibrate/legal/#disagreements"
    html = page(client, legal)
    assert "From 7 counted labels (4 faithful, 1 meaning changed, 2 not this passage)" in html
    assert "0 of 2 disagreements not settled yet" in html
    # κ measures the labellers, not the settlements: unchanged.
    assert "Cohen's κ <strong>0.48</strong>" in html


def test_settling_refuses_an_unknown_label_and_items_of_other_surfaces(
    client: Any, supervisor: Any, legal: Surface
) -> None:
    disputed = item(legal, 0.9, "faithful", "other")
    Surface.objects.create(name="hr")
    client.force_login(supervisor)
    assert client.post(f"/calibrate/legal/settle/{disputed.pk}",
                       {"label": "maybe"}).status_code == 400
    assert client.post(f"/calibrate/hr/settle/{disputed.pk}",
                       {"label": "other"}).status_code == 404
    disputed.refresh_from_db()
    assert disputed.settled_label == ""


def test_calibrators_see_the_figures_blind_and_cannot_settle(
    client: Any, calibrator: Any, legal: Surface
) -> None:
    item(legal, 0.873, "faithful", "other", quote="<script>alert(1)</script>")
    submit(f'The plan says "{FUZZY}" [S1].')
    client.force_login(calibrator)
    raw = client.get("/calibrate/legal/?threshold=0.85").content.decode()
    assert "<script>alert(1)</script>" not in raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    html = unescape(raw)
    disagreements = html[html.index('<table class="disagreements">'):]
    assert "0.873" not in disagreements  # no item's score beside its text
    assert 'class="settle"' not in html and "apply-form" not in html
    assert "a supervisor settles them" in html
    # The count, but no answer's quote or link: calibrators do not read answers.
    assert 'data-to-accept="1"' in html
    assert "change-examples" not in html and "/answers/" not in html
    assert "Examples are shown to those who may read answers." in html


# What applying would change --------------------------------------------------------


def test_the_estimate_counts_stored_scores_and_the_examples_are_verified_again(
    client: Any, supervisor: Any, legal: Surface
) -> None:
    # FUZZY scores 0.9008 against the source: not found at 0.92, verified at 0.85.
    fuzzy = submit(f'The plan says "{FUZZY}" [S1]. It adds "{EXACT}" [S1].')
    submit(f'Only "{EXACT}" [S1].')
    citation = fuzzy.citations.get(outcome="quote-not-found")
    assert citation.score == 0.9008

    lower = change_estimate(legal, 0.85)
    assert (lower.to_accept, lower.to_flag) == (1, 0)
    assert change_estimate(legal, 0.9008).to_accept == 1  # at the new threshold: accepted
    assert change_estimate(legal, 0.901).to_accept == 0
    assert change_estimate(legal, 0.95).total == 0  # nothing verified fuzzily to flag
    (example,) = change_examples(legal, 0.85)
    assert (example.before, example.after, example.citation_id) == (
        "quote-not-found", "verified-fuzzy", citation.pk)
    citation.refresh_from_db()  # nothing was stored
    assert citation.outcome == "quote-not-found" and not VerdictRecord.objects.exists()

    client.force_login(supervisor)
    html = page(client, legal, "?threshold=0.85")
    assert "about <strong>1</strong> stored citation would change outcome" in html
    assert "<strong>1</strong> would now be accepted as verified" in html
    assert "<strong>0</strong> would now be flagged" in html
    assert "The count is an estimate from the scores stored" in html
    assert "the examples below are exact" in html
    assert f'href="/answers/{fuzzy.pk}/?citation={citation.pk}"' in html
    assert ">quote-not-found</span>" in html
    assert '→ <span class="outcome outcome-verified-fuzzy">' in html


# Applying --------------------------------------------------------------------------


def test_applying_records_the_evidence_and_reverifies_with_history(
    client: Any, supervisor: Any, legal: Surface, django_capture_on_commit_callbacks: Any
) -> None:
    for score, label in EIGHT:
        item(legal, score, label)
    fuzzy = submit(f'The plan says "{FUZZY}" [S1]. It adds "{EXACT}" [S1].')
    passing = submit(f'Only "{EXACT}" [S1].')
    assert (fuzzy.verdict, passing.verdict) == ("flag", "pass")
    client.force_login(supervisor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/calibrate/legal/apply", {
            "threshold": "0.86", "reason": "Labels say 0.86 keeps precision", "target": "0.9"})
    assert response.status_code == 302
    assert response["Location"] == "/calibrate/legal/?target=0.9#runs"

    legal.refresh_from_db()
    assert legal.threshold == 0.86
    change = SurfaceChange.objects.get(surface=legal)
    assert change.changes == {"threshold": [0.92, 0.86]}
    assert change.changed_by == supervisor
    assert change.reason == "Labels say 0.86 keeps precision"
    evidence = change.evidence
    assert set(evidence) == set(EVIDENCE_KEYS)
    # At 0.86: accepted all but 0.82 → 5 faithful of 7; every faithful accepted.
    assert evidence["target_precision"] == 0.9
    assert evidence["labels"] == 8
    assert evidence["label_counts"] == {"faithful": 5, "changed": 2, "other": 1}
    assert evidence["threshold"] == 0.86
    assert evidence["accepted"] == 7
    assert evidence["precision"] == pytest.approx(5 / 7)
    assert evidence["precision_interval"] == pytest.approx(list(wilson(5, 7)))
    assert (evidence["recall"], evidence["false_alarm_rate"]) == (1.0, 0.0)
    assert evidence["recommended_threshold"] is None
    assert evidence["recommendation_reason"].startswith("Not enough labels: ")
    assert evidence["threshold_interval"] is None
    assert evidence["followed_recommendation"] is False

    run = ReverificationRun.objects.get(surface=legal)
    assert (run.status, run.threshold, run.surface_change, run.started_by) == (
        "done", 0.86, change, supervisor)
    assert (run.total, run.done, run.changed) == (2, 2, 1)
    fuzzy.refresh_from_db()
    assert (fuzzy.verdict, fuzzy.threshold) == ("pass", 0.86)
    history = list(VerdictRecord.objects.filter(answer=fuzzy).order_by("created", "pk"))
    assert [(r.cause, r.threshold, r.verdict) for r in history] == [
        ("submitted", 0.92, "flag"), ("re-verified", 0.86, "pass")]
    assert (history[1].run, history[1].surface_change) == (run, change)

    html = page(client, legal, "?target=0.9")
    assert "threshold set to 0.86; re-verifying its stored answers" in html
    row = html[html.index(f'<tr id="run-{run.pk}"'):]
    row = row[:row.index("</tr>")]
    assert 'data-status="done"' in row and "hx-trigger" not in row
    assert "2 of 2" in row and '<td class="run-changed">1</td>' in row and "sue" in row


def test_following_the_recommendation_is_recorded(
    client: Any, supervisor: Any, legal: Surface, django_capture_on_commit_callbacks: Any
) -> None:
    well_labelled(legal)
    client.force_login(supervisor)
    html = page(client, legal, "?target=0.9")
    assert re.search(r'name="threshold" value="0.9"[^>]*id="id_threshold"', html)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/calibrate/legal/apply", {
            "threshold": "0.9", "reason": "As recommended", "target": "0.9"})
    assert response.status_code == 302
    evidence = SurfaceChange.objects.get(surface=legal).evidence
    assert evidence["followed_recommendation"] is True
    assert evidence["recommended_threshold"] == 0.9
    assert evidence["precision_interval"][1] == 1.0
    assert evidence["threshold_interval"]["rounds"] == 1000


@pytest.mark.parametrize(("threshold", "message"), [
    ("0", "The threshold must be above 0 and at most 1."),
    ("1.5", "The threshold must be above 0 and at most 1."),
    ("-1", "The threshold must be above 0 and at most 1."),
    ("abc", "Enter a number."),
    ("0.92", "The threshold is 0.92 already."),
])
def test_applying_refuses_a_bad_threshold(client: Any, supervisor: Any, legal: Surface,
                                          threshold: str, message: str) -> None:
    client.force_login(supervisor)
    response = client.post("/calibrate/legal/apply",
                           {"threshold": threshold, "reason": "Try", "target": "0.95"})
    assert response.status_code == 400
    assert message in unescape(response.content.decode())
    assert not SurfaceChange.objects.exists() and not ReverificationRun.objects.exists()
    legal.refresh_from_db()
    assert legal.threshold == 0.92


def test_applying_refuses_a_target_out_of_range(client: Any, supervisor: Any,
                                                legal: Surface) -> None:
    client.force_login(supervisor)
    response = client.post("/calibrate/legal/apply",
                           {"threshold": "0.9", "reason": "Try", "target": "1.5"})
    assert response.status_code == 400
    assert "Target precision: " in response.content.decode()
    assert not SurfaceChange.objects.exists()


def test_applying_needs_a_reason(client: Any, supervisor: Any, legal: Surface) -> None:
    client.force_login(supervisor)
    response = client.post("/calibrate/legal/apply",
                           {"threshold": "0.9", "reason": "  ", "target": "0.95"})
    assert response.status_code == 400
    assert not SurfaceChange.objects.exists()


@pytest.mark.parametrize("status", ["queued", "running"])
def test_applying_is_refused_while_a_run_is_active(client: Any, supervisor: Any,
                                                   legal: Surface, status: str) -> None:
    active = ReverificationRun.objects.create(surface=legal, threshold=0.9, status=status)
    client.force_login(supervisor)
    html = page(client, legal)
    assert f"Run {active.pk} is still re-verifying legal's answers" in html
    response = client.post("/calibrate/legal/apply",
                           {"threshold": "0.88", "reason": "Again", "target": "0.95"})
    assert response.status_code == 400
    assert "still queued or running: wait until it has finished" in response.content.decode()
    assert ReverificationRun.objects.count() == 1 and not SurfaceChange.objects.exists()
    legal.refresh_from_db()
    assert legal.threshold == 0.92
    # Another surface's run does not hold this one up.
    active.status = ReverificationRun.Status.DONE
    active.save()
    ReverificationRun.objects.create(surface=Surface.objects.create(name="hr"), threshold=0.9)
    response = client.post("/calibrate/legal/apply",
                           {"threshold": "0.88", "reason": "Again", "target": "0.95"})
    assert response.status_code == 302


# Progress ----------------------------------------------------------------------------


def test_the_progress_partial_polls_only_while_the_run_is_active(
    client: Any, calibrator: Any, supervisor: Any, legal: Surface
) -> None:
    run = ReverificationRun.objects.create(surface=legal, threshold=0.88, total=10, done=4,
                                           changed=1, status="running", started_by=supervisor)
    client.force_login(calibrator)
    url = f"/calibrate/legal/runs/{run.pk}"
    response = client.get(url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith(f'<tr id="run-{run.pk}"') and "<html" not in fragment
    assert f'hx-get="{url}"' in fragment and 'hx-trigger="every 1s"' in fragment
    assert "4 of 10" in fragment and ">Running<" in fragment
    assert '<td class="run-changed">1</td>' in fragment and "sue" in fragment
    assert "HX-Refresh" not in response

    ReverificationRun.objects.filter(pk=run.pk).update(status="failed", done=7,
                                                      error="RuntimeError: disk full")
    response = client.get(url, headers={"HX-Request": "true"})
    fragment = response.content.decode()
    assert "hx-trigger" not in fragment and "7 of 10" in fragment
    # Finished: the page reloads, so its threshold and apply form catch up.
    assert response["HX-Refresh"] == "true"
    assert "RuntimeError: disk full" in fragment and ">Failed<" in fragment

    Surface.objects.create(name="hr")
    assert client.get(f"/calibrate/hr/runs/{run.pk}").status_code == 404
    assert client.get("/calibrate/nowhere/").status_code == 404


def test_the_labelling_queue_path_is_left_free() -> None:
    """calibrate/<surface>/label is the labelling queue's, not this page's."""
    assert resolve("/calibrate/legal/label").view_name == "reviewer:calibrate-label"
    assert resolve("/calibrate/legal/").view_name == "reviewer:calibration"


# ---- claim flags: precision per check -----------------------------------------------


def claim_item(surface: Surface, check: str, *labels: str, n: int = 0) -> CalibrationItem:
    """A claim item of ``check`` with ``labels`` by ann, then bob."""
    made = CalibrationItem.objects.create(
        surface=surface, kind="claim", quote=f"The warranty lasts {n} years [S1].",
        source_text="The warranty lasts two years.", match_start=0, match_end=29, score=0.4,
        stratum=check, claim_check=check, claim=f"{n} years", counterpart="two years",
        outcome="claim-mismatch", content_hash=f"claim-{next(_hashes)}")
    for name, label in zip(("ann", "bob"), labels, strict=False):
        MatchLabel.objects.create(item=made, labeller_name=name, label=label)
    return made


def _precision_rows(html: str) -> dict[str, list[str]]:
    table = html[html.index('<table class="check-precision">'):]
    table = table[:table.index("</table>")]
    return {check: [re.sub(r"<[^>]+>", "", cell).strip()
                    for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for check, row in re.findall(r'<tr data-check="([^"]+)">(.*?)</tr>', table, re.S)}


def test_claim_flags_get_a_precision_per_check_with_wilson_intervals(
    client: Any, supervisor: Any, legal: Surface
) -> None:
    for n in range(8):
        claim_item(legal, "number", "right-flag", n=n)
    claim_item(legal, "number", "false-alarm", n=8)
    claim_item(legal, "number", "false-alarm", "false-alarm", n=9)
    claim_item(legal, "number", "unclear", n=10)
    claim_item(legal, "negation", "right-flag", "false-alarm", n=11)  # unsettled
    claim_item(legal, "unsupported", "false-alarm", n=12)
    claim_item(legal, "entity", n=13)  # drawn, not labelled
    item(legal, 0.95, "faithful")  # a match: not a claim, not in the table
    client.force_login(supervisor)
    html = page(client, legal)

    rows = _precision_rows(html)
    assert list(rows) == ["number", "negation", "quantifier", "modal", "comparative",
                          "entity", "unsupported"]
    low, high = wilson(8, 10)  # 8 right flags of 10 decided; the unclear one is neither
    assert rows["number"] == ["number", "8", "2", "1", "80%", f"{percent(low)}–{percent(high)}",
                              "0"]
    assert (percent(low), percent(high)) == ("49%", "94.3%")  # 0.4902, 0.9433
    assert rows["negation"] == ["negation", "0", "0", "0", "–", "–", "1"]
    low, high = wilson(0, 1)
    assert rows["unsupported"] == ["unsupported", "0", "1", "0", "0%",
                                   f"0%–{percent(high)}", "0"]
    assert rows["entity"][1:6] == ["0", "0", "0", "–", "–"]
    # The claims stay out of the threshold's figures, and their disagreement
    # is listed to settle, with the claim labels.
    assert "From 1 counted label (1 faithful" in html
    assert "1 of 1 disagreement not settled yet" in html
    assert "ann: Right flag" in html and "bob: False alarm" in html


def test_a_claim_disagreement_is_settled_with_a_claim_label(
    client: Any, supervisor: Any, legal: Surface
) -> None:
    disputed = claim_item(legal, "negation", "right-flag", "false-alarm")
    client.force_login(supervisor)
    assert client.post(f"/calibrate/legal/settle/{disputed.pk}",
                       {"label": "faithful"}).status_code == 400
    response = client.post(f"/calibrate/legal/settle/{disputed.pk}", {"label": "right-flag"},
                           headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert 'value="false-alarm"' in response.content.decode()
    rows = _precision_rows(page(client, legal))
    assert rows["negation"][1:] == ["1", "0", "0", "100%",
                                    f"{percent(wilson(1, 1)[0])}–100%", "0"]


# Issue 22 ----------------------------------------------------------------------------


def test_the_labels_of_the_citations_a_threshold_moves_are_counted(
        client: Any, supervisor: Any, legal: Surface) -> None:
    from reviewer.selectors.calibration_report import change_labels

    fuzzy = submit(f'The plan says "{FUZZY}" [S1]. It adds "{EXACT}" [S1].')
    citation = fuzzy.citations.get(outcome="quote-not-found")  # 0.9008 at 0.92
    # Lowering to 0.85 accepts it: its item was labelled meaning-changed.
    labelled = item(legal, 0.9008, "changed")
    labelled.citation = citation
    labelled.save()
    item(legal, 0.91, "faithful")  # no citation moving: not counted
    moved = change_labels(legal, 0.85)
    assert (moved.flags, moved.moving, moved.labelled, moved.faithful, moved.not_faithful) == (
        False, 1, 1, 0, 1)
    client.force_login(supervisor)
    html = page(client, legal, "?threshold=0.85")
    assert ("Of the <strong>1</strong> citation 0.85 would newly accept, <strong>1</strong> "
            "was labelled meaning changed or not this passage") in html
    # Raising past 0.9008 with the surface at 0.9: it would newly flag it.
    legal.threshold = 0.9
    legal.save()
    citation.outcome = "verified-fuzzy"
    citation.save()
    labelled.labels.update(label="faithful")
    moved = change_labels(legal, 0.9859)
    assert (moved.flags, moved.moving, moved.faithful) == (True, 1, 1)
    html = page(client, legal, "?threshold=0.9859")
    assert ("Of the <strong>1</strong> citation 0.9859 would newly flag, <strong>1</strong> "
            "was labelled faithful (1 of them labelled: 1 faithful") in html
    # Nothing labelled: the count says so.
    labelled.labels.all().delete()
    assert change_labels(legal, 0.9859).labelled == 0
    assert "<strong>0</strong> were labelled faithful (0 of them labelled" in page(
        client, legal, "?threshold=0.9859")


def test_a_thin_band_with_nothing_left_to_label_is_left_out_of_the_recommendation(
        client: Any, supervisor: Any, legal: Surface) -> None:
    well_labelled(legal)
    # 0.95-0.98 down to 4 labels, and nothing left in it to label.
    extra = CalibrationItem.objects.filter(surface=legal, score__gte=0.95, score__lt=0.98)
    CalibrationItem.objects.filter(pk__in=list(extra.values_list("pk", flat=True)[4:])).delete()
    report = calibration_report(legal, target_precision=0.85)
    (exhausted,) = report.exhausted
    assert (exhausted.name, exhausted.total, exhausted.thin) == ("0.95–0.98", 4, True)
    assert (0.95, 0.98) not in report.bands_used and len(report.bands_used) == 5
    assert report.recommendation.threshold == 0.9
    client.force_login(supervisor)
    html = page(client, legal, "?target=0.85")
    assert 'class="withheld"' not in html
    assert ("Recommended from the labels in the bands 0.75–0.80 (12), 0.80–0.85 (12), "
            "0.85–0.90 (12), 0.90–0.95 (12), 0.98–1.00 (12). Left out, as nothing is left to "
            "label in it: 0.95–0.98 (4 labels).") in html
    assert "no match is left to label in this band" in html

    # An unlabelled item in the band: it can be filled, so it withholds again.
    item(legal, 0.96)
    report = calibration_report(legal, target_precision=0.85)
    assert report.exhausted == [] and report.recommendation.threshold is None
    assert report.recommendation.reason == "Not enough labels: 4 in 0.95–0.98 (10 needed)."
    html = page(client, legal, "?target=0.85")
    assert "Weighed the labels in the bands 0.75–0.80 (12)" in html


def test_applying_a_recommendation_made_without_an_exhausted_band_records_it_followed(
        client: Any, supervisor: Any, legal: Surface,
        django_capture_on_commit_callbacks: Any) -> None:
    well_labelled(legal)
    extra = CalibrationItem.objects.filter(surface=legal, score__gte=0.95, score__lt=0.98)
    CalibrationItem.objects.filter(pk__in=list(extra.values_list("pk", flat=True)[4:])).delete()
    client.force_login(supervisor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/calibrate/legal/apply", {
            "threshold": "0.9", "reason": "As recommended", "target": "0.85"})
    assert response.status_code == 302
    evidence = SurfaceChange.objects.get(surface=legal).evidence
    assert evidence["recommended_threshold"] == 0.9
    assert evidence["followed_recommendation"] is True


def test_a_band_is_open_while_a_stored_citation_in_it_is_left_to_draw(legal: Surface) -> None:
    from reviewer.selectors.calibration_report import bands_left_to_label

    submit(f'The plan says "{FUZZY}" [S1].')  # 0.9008, not drawn yet
    bands = bands_around(0.92)
    assert bands_left_to_label(legal, bands) == {(0.9, 0.95)}
    from reviewer.services.calibration import calibration_sample

    drawn = calibration_sample(surface=legal, size=5, controls=0)
    assert len(drawn) == 1
    assert bands_left_to_label(legal, bands) == {(0.9, 0.95)}  # drawn, not labelled
    MatchLabel.objects.create(item=drawn[0], labeller_name="ann", label="faithful")
    assert bands_left_to_label(legal, bands) == set()


def test_the_reason_s_limit_is_shown_and_a_longer_one_is_refused_naming_it(
        client: Any, supervisor: Any, legal: Surface) -> None:
    client.force_login(supervisor)
    html = page(client, legal)
    assert re.search(r'<textarea name="reason"[^>]* maxlength="2000"', html)
    # The counter itself is the site's shared one (static/js/char-counter.mjs),
    # attached to every field with a maxlength: the base template loads it.
    assert "js/char-counter" in html
    response = client.post("/calibrate/legal/apply",
                           {"threshold": "0.9", "reason": "x" * 2001, "target": "0.95"})
    assert response.status_code == 400
    assert ("A reason is at most 2,000 characters; this one has 2001. Shorten it: nothing "
            "is cut.") in unescape(response.content.decode())
    assert not SurfaceChange.objects.exists()
    legal.refresh_from_db()
    assert legal.threshold == 0.92


def test_the_chart_labels_sit_above_the_plot_apart() -> None:
    from reviewer.views.charts import Marker, Series, line_chart

    values = [0.5 + k / 20 for k in range(11)]
    chart = line_chart(key="k", title="t", description="d", labels=[str(v) for v in values],
                       series=[Series("precision", [1.0] * 11, [""] * 11)], fmt=str,
                       markers=[Marker(8, "current 0.9", "", 1, "current"),
                                Marker(9, "recommended 0.9861", "", -1, "recommended")],
                       floor=1.0, x_values=values, x_ticks=[(0.5, "0.5"), (1.0, "1.0")],
                       x_span=(0.4, 1.0), labels_above=True)
    first, second = chart.markers
    # Both labels above the plot (whose top is the 100% line), in two rows as
    # they would touch in one.
    assert first.y < chart.top and second.y < chart.top and first.y != second.y
    assert all(float(p.split(",")[1]) >= chart.top for p in chart.series[0].paths[0].split())
    # The span starts at 0.4, not at the first value.
    assert chart.axis.x_ticks[0][0] > chart.left
