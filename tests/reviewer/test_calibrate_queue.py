"""The labelling queue: items drawn stratified by score band with controls
mixed in, shown blind, labelled with 1/2/3, skipped and undone, with an
optional second labeller and a supervisor settling their disagreements."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

from reviewer.models import CalibrationItem, CitationVerdict, MatchLabel, Surface
from reviewer.selectors.calibration import item_labels, labelled_matches, next_item, queue_left
from reviewer.services.answers import answer_submit
from reviewer.services.calibration import (
    LabelRefused,
    calibration_sample,
    calibration_sample_claims,
    item_settle,
    label_record,
    label_undo,
)
from reviewer.services.reverify import answer_reverify
from verification.calibration import bands_around, stratified_sample

pytestmark = pytest.mark.django_db

SENTENCES = [
    "The employer matches contributions up to five percent of salary after one full year "
    "of continuous service",
    "Employees may not withdraw matched funds before age fifty-nine except in hardship",
    "A participant who leaves the company keeps every vested dollar in the plan account",
    "Loans from the plan are limited to half of the vested balance or fifty thousand dollars",
    "The plan administrator reviews each hardship request within thirty calendar days",
    "Contributions above the annual limit are returned to the participant before April",
]


def _perturbed(sentence: str, swaps: int, seed: int) -> str:
    """``sentence`` with ``swaps`` words reversed: a spread of scores."""
    words = sentence.split()
    for i in random.Random(seed).sample(range(len(words)), swaps):
        words[i] = words[i][::-1]
    return " ".join(words)


@pytest.fixture
def legal() -> Surface:
    surface = Surface.objects.create(name="legal", threshold=0.92)
    source = ". ".join(SENTENCES) + "."
    for n in range(60):
        sentence = SENTENCES[n % len(SENTENCES)]
        quote = _perturbed(sentence, n % 7, seed=n)
        answer_submit(client=None, data={
            "answer": f'The plan says "{quote}" [S1].', "surface": "legal",
            "sources": [{"marker": "S1", "text": source}]})
    return surface


def _scores(surface: Surface) -> list[tuple[int, float]]:
    return list(CitationVerdict.objects.filter(answer__surface=surface).exclude(score=None)
                .values_list("id", "score"))


def test_items_fill_every_band_before_any_band_repeats_with_controls_mixed_in(
        legal: Surface) -> None:
    bands = bands_around(legal.threshold)
    available = Counter(s.stratum for s in stratified_sample(_scores(legal), bands=bands,
                                                             size=10_000, controls=0, seed=0))
    assert len(available) >= 4, available  # the fixture spreads over the bands

    items = calibration_sample(surface=legal, size=20, controls=0.2, seed=1)

    strata = Counter(item.stratum for item in items)
    controls = [item for item in items if item.stratum == "control"]
    assert len(controls) == 4
    assert {c.score == 1.0 for c in controls} == {True, False}  # exact and clear misses
    assert all(c.score == 1.0 or c.score < bands[0][0] for c in controls)
    in_bands = {k: v for k, v in strata.items() if k != "control"}
    # Round-robin: a band short of items gives all it has; the others differ by one at most.
    full = [v for k, v in in_bands.items() if v < available[k] or available[k] > min(
        in_bands.values())]
    assert max(full) - min(full) <= 1, (in_bands, available)
    for item in items:
        if item.stratum != "control":
            low, high = (float(x) for x in item.stratum.split("–"))
            assert low <= item.score < high
    # Shuffled: the controls are not all at one end of the queue.
    order = [i.stratum == "control" for i in sorted(items, key=lambda i: i.position)]
    assert order != sorted(order) and order != sorted(order, reverse=True)


def test_an_item_is_a_snapshot_of_the_quote_and_the_window_it_was_compared_with(
        legal: Surface) -> None:
    items = calibration_sample(surface=legal, size=30, seed=2)
    for item in items:
        citation = CitationVerdict.objects.get(pk=item.citation_id)
        source = citation.answer.sources.get().text
        start, end = ((citation.closest_start, citation.closest_end)
                      if citation.outcome == "quote-not-found"
                      else (citation.chunk_start, citation.chunk_end))
        assert item.quote == citation.quote
        assert item.source_text[item.match_start:item.match_end] == source[start:end]
        assert item.source_text in source
        assert item.outcome == citation.outcome and item.threshold == 0.92


def test_drawing_again_never_draws_a_match_twice(legal: Surface) -> None:
    first = calibration_sample(surface=legal, size=25, seed=3)
    second = calibration_sample(surface=legal, size=1000, seed=4)
    assert not {i.citation_id for i in first} & {i.citation_id for i in second}
    hashes = CalibrationItem.objects.values_list("content_hash", flat=True)
    assert len(hashes) == len(set(hashes))
    assert calibration_sample(surface=legal, size=10, seed=5) == []


def test_the_page_is_blind_to_score_outcome_and_stratum(
        client: Any, make_user: Any, legal: Surface) -> None:
    client.force_login(make_user("cal", "calibrator"))
    for _ in range(8):
        response = client.get("/calibrate/legal/label")
        assert response.status_code == 200
        item = response.context["item"]
        html = response.content.decode()
        body = html[html.index("<main"):] if "<main" in html else html
        assert item.quote in body or item.quote.replace('"', "&quot;") in body
        for hidden in (f"{item.score:.3f}", f"{item.score:.2f}", "verified", "not found",
                       "not-found", "altered", item.stratum, "/answers/"):
            assert hidden not in body, hidden
        client.post("/calibrate/legal/label/record", {"item": item.pk, "label": "1"})


def test_keys_label_the_item_and_the_next_one_comes(client: Any, make_user: Any,
                                                    legal: Surface) -> None:
    client.force_login(make_user("cal", "calibrator"))
    first = client.get("/calibrate/legal/label").context["item"]
    response = client.post("/calibrate/legal/label/record", {"item": first.pk, "label": "2"},
                           headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "<html" not in response.content.decode()  # the queue's partial only
    nxt = response.context["item"]
    assert nxt.pk != first.pk
    assert f'data-item="{nxt.pk}"' in response.content.decode()
    assert "Labelled “Same passage, meaning changed”" in response.content.decode()
    label = MatchLabel.objects.get()
    assert (label.item_id, label.label, label.labeller_name) == (first.pk, "changed", "cal")
    # Without htmx: post, redirect, get.
    response = client.post("/calibrate/legal/label/record", {"item": nxt.pk, "label": "other"})
    assert response.status_code == 302
    assert MatchLabel.objects.get(item=nxt).label == "other"


def test_skip_and_undo(client: Any, make_user: Any, legal: Surface) -> None:
    client.force_login(make_user("cal", "calibrator"))
    first = client.get("/calibrate/legal/label").context["item"]
    after_skip = client.post("/calibrate/legal/label/skip", {"item": first.pk},
                             headers={"HX-Request": "true"}).context["item"]
    assert after_skip.pk != first.pk
    client.post("/calibrate/legal/label/record", {"item": after_skip.pk, "label": "1"},
                headers={"HX-Request": "true"})
    assert MatchLabel.objects.filter(item=after_skip).exists()
    # u: the label goes, its item comes back.
    response = client.post("/calibrate/legal/label/undo", headers={"HX-Request": "true"})
    assert response.context["item"].pk == after_skip.pk
    assert not MatchLabel.objects.filter(item=after_skip).exists()
    # u again: the skip is undone, the skipped item comes back.
    response = client.post("/calibrate/legal/label/undo", headers={"HX-Request": "true"})
    assert response.context["item"].pk == first.pk
    response = client.post("/calibrate/legal/label/undo", headers={"HX-Request": "true"})
    assert "Nothing to undo" in response.content.decode()
    assert 'data-key="u" disabled' in response.content.decode()


def test_an_item_takes_a_second_labeller_and_no_third(make_user: Any, legal: Surface) -> None:
    ann, ben, cy = (make_user(n, "calibrator") for n in ("ann", "ben", "cy"))
    (item, *_) = calibration_sample(surface=legal, size=5, seed=6)
    label_record(item=item, labeller=ann, label="faithful")
    # Ben's ordinary queue skips labelled items; his second-label queue offers it.
    assert next_item(legal, ben) != item
    assert next_item(legal, ben, second=True) == item
    assert next_item(legal, ann, second=True) != item  # never one's own
    with pytest.raises(LabelRefused) as refused:
        label_record(item=item, labeller=ann, label="changed")
    assert refused.value.code == "labelled-already"
    label_record(item=item, labeller=ben, label="changed")
    with pytest.raises(LabelRefused) as refused:
        label_record(item=item, labeller=cy, label="faithful")
    assert refused.value.code == "enough-labels"
    assert next_item(legal, cy, second=True) != item


def test_disagreements_count_only_once_a_supervisor_settles_them(
        make_user: Any, legal: Surface) -> None:
    ann, ben = make_user("ann", "calibrator"), make_user("ben", "calibrator")
    sue = make_user("sue", "supervisor")
    agreed, disputed, single = calibration_sample(surface=legal, size=3, seed=7)
    for item, first, second in ((agreed, "faithful", "faithful"),
                                (disputed, "faithful", "other")):
        label_record(item=item, labeller=ann, label=first)
        label_record(item=item, labeller=ben, label=second)
    label_record(item=single, labeller=ann, label="changed")
    entries = {e.item.pk: e for e in item_labels(legal)}
    assert entries[disputed.pk].disagreement and entries[disputed.pk].resolved is None
    assert sorted(m.label for m in labelled_matches(legal)) == ["changed", "faithful"]
    with pytest.raises(PermissionDenied):
        item_settle(item=disputed, settled_by=ann, label="other")  # a calibrator cannot
    item_settle(item=disputed, settled_by=sue, label="other")
    assert sorted(m.label for m in labelled_matches(legal)) == ["changed", "faithful", "other"]
    # A settled item's labels stay.
    with pytest.raises(LabelRefused):
        label_undo(labeller=ben, label_id=MatchLabel.objects.get(item=disputed,
                                                                 labeller=ben).pk)


def test_an_empty_queue_draws_the_next_batch_and_then_says_it_is_done(
        client: Any, make_user: Any, legal: Surface) -> None:
    client.force_login(make_user("cal", "calibrator"))
    assert not CalibrationItem.objects.exists()
    response = client.get("/calibrate/legal/label")
    assert response.context["item"] is not None
    drawn = CalibrationItem.objects.count()
    # A batch of 50, less the repeated quotes (one item per quote and window).
    assert 40 <= drawn <= 50
    for item in CalibrationItem.objects.all():
        label_record(item=item, labeller=response.wsgi_request.user, label="faithful")
    response = client.get("/calibrate/legal/label")
    assert CalibrationItem.objects.count() > drawn  # the rest of the 60 citations
    for item in CalibrationItem.objects.filter(labels=None):
        label_record(item=item, labeller=response.wsgi_request.user, label="faithful")
    html = client.get("/calibrate/legal/label").content.decode()
    assert "Nothing left to label on this surface" in html


def test_labels_outlive_re_verification(make_user: Any, legal: Surface) -> None:
    ann = make_user("ann", "calibrator")
    items = calibration_sample(surface=legal, size=10, seed=8)
    for item in items:
        label_record(item=item, labeller=ann, label="faithful")
    before = [(m.score, m.label) for m in labelled_matches(legal)]
    for answer_id in {i.answer_id for i in items}:
        answer_reverify(answer=legal.answers.get(pk=answer_id), threshold=0.8)
    assert [(m.score, m.label) for m in labelled_matches(legal)] == before
    assert MatchLabel.objects.filter(citation__isnull=False).count() == 10


def test_the_landing_page_lists_surfaces_with_their_counts(
        client: Any, make_user: Any, legal: Surface) -> None:
    ann = make_user("ann", "calibrator")
    for item in calibration_sample(surface=legal, size=4, seed=9):
        label_record(item=item, labeller=ann, label="faithful")
    client.force_login(ann)
    html = client.get("/calibrate/").content.decode()
    row = re.search(r'<tr id="calibrate-legal">(.*?)</tr>', html, re.S)
    assert row is not None
    cells = re.findall(r"<td>(\d+)</td>", row.group(1))
    assert cells == ["4", "4", "4"]
    assert 'href="/calibrate/legal/label"' in row.group(1)


def test_the_admin_lists_labels_and_items_read_only(client: Any, make_user: Any,
                                                    legal: Surface) -> None:
    from django.contrib.auth import get_user_model

    ann = make_user("ann", "calibrator")
    (item,) = calibration_sample(surface=legal, size=1, seed=10)
    label = label_record(item=item, labeller=ann, label="faithful")
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.com", "x"))
    for model, pk in (("matchlabel", label.pk), ("calibrationitem", item.pk)):
        listed = client.get(f"/admin/reviewer/{model}/")
        assert listed.status_code == 200
        assert client.get(f"/admin/reviewer/{model}/add/").status_code == 403
        shown = client.get(f"/admin/reviewer/{model}/{pk}/change/")
        assert shown.status_code == 200
        assert b'name="_save"' not in shown.content  # shown, not editable
    assert client.post(f"/admin/reviewer/matchlabel/{label.pk}/delete/",
                       {"post": "yes"}).status_code == 403
    assert MatchLabel.objects.filter(pk=label.pk).exists()


def test_an_item_of_a_deleted_answer_leaves_the_queue(make_user: Any, legal: Surface) -> None:
    """Deleting an answer hides it everywhere: its quote is not put before a
    labeller afterwards (labels it already has still count)."""
    from reviewer.services.deletion import answer_delete

    ann = make_user("ann", "calibrator")
    calibration_sample(surface=legal, size=5, seed=6)
    before = queue_left(legal, ann)
    first = next_item(legal, ann)
    assert first is not None and first.answer is not None
    answer_delete(answer=first.answer, deleted_by=None, reason="sent to the wrong client")
    assert queue_left(legal, ann) == before - 1
    assert next_item(legal, ann) not in (None, first)


# ---- claim flags: findings of the sentence check, labelled right flag or false alarm --------

CLAIM_SOURCE = ("The warranty lasts two years from the date of purchase and covers parts and "
                "labour. Refunds are issued within fourteen days of a return being received at "
                "the warehouse. Only the original buyer may claim under the warranty.")
#: (answer, its flags' checks): mismatches of several checks, one unsupported.
CLAIM_ANSWERS = [
    ("The warranty lasts 3 years from the date of purchase [S1].", ["number"]),
    ("Refunds are not issued within fourteen days of a return [S1].", ["negation"]),
    ("Dragons breathe fire over northern mountains and frozen lakes every winter [S1].",
     ["unsupported"]),
    ("The warranty lasts two years from the date of purchase [S1].", []),  # passes
]


@pytest.fixture
def shop() -> Surface:
    surface = Surface.objects.create(name="shop", threshold=0.92)
    for text, _ in CLAIM_ANSWERS * 2:
        answer_submit(client=None, data={"answer": text, "surface": "shop",
                                         "sources": [{"marker": "S1", "text": CLAIM_SOURCE}]})
    return surface


def test_claim_items_are_one_per_finding_with_its_two_sides(shop: Surface) -> None:
    items = calibration_sample_claims(surface=shop, size=50, seed=3)
    # Each flagged citation once (the second copy of an answer has the same
    # sentence, flag and passage: one item).
    assert Counter(item.claim_check for item in items) == {"number": 1, "negation": 1,
                                                           "unsupported": 1}
    number = next(item for item in items if item.claim_check == "number")
    assert (number.kind, number.outcome, number.stratum) == ("claim", "claim-mismatch", "number")
    assert number.quote == "The warranty lasts 3 years from the date of purchase [S1]."
    assert (number.claim, number.counterpart) == ("3 years", "two years")
    window = number.source_text[number.match_start:number.match_end]
    assert window.startswith("The warranty lasts two years")
    unsupported = next(item for item in items if item.claim_check == "unsupported")
    assert unsupported.outcome == "claim-unsupported" and "Dragons" in unsupported.claim
    assert unsupported.counterpart == ""
    # Drawing again draws nothing new, and the match sample takes none of them.
    assert calibration_sample_claims(surface=shop, size=50, seed=4) == []
    assert all(item.kind == "match" for item in calibration_sample(surface=shop, size=50))


def test_claims_are_drawn_in_turn_by_check(shop: Surface) -> None:
    for n in range(6):  # numbers are the commonest flag by far
        answer_submit(client=None, data={
            "answer": f"The warranty lasts {n + 3} years from the date of purchase [S1].",
            "surface": "shop", "sources": [{"marker": "S1", "text": CLAIM_SOURCE}]})
    items = calibration_sample_claims(surface=shop, size=3, seed=1)
    assert sorted(item.claim_check for item in items) == ["negation", "number", "unsupported"]


def test_a_claim_item_is_shown_blind_and_takes_its_own_labels(
        client: Any, make_user: Any, shop: Surface) -> None:
    cal = make_user("cal", "calibrator")
    client.force_login(cal)
    calibration_sample_claims(surface=shop, size=50, seed=3)
    seen = set()
    while True:
        response = client.get("/calibrate/shop/label")
        item = response.context.get("item")
        if item is None:
            break
        html = response.content.decode()
        body = html[html.index("<main"):]
        if item.kind == "claim":
            seen.add(item.claim_check)
            assert item.quote in body and item.claim in body
            assert item.counterpart in body
            for hidden in ("claim-mismatch", "claim-unsupported", "mismatch", "unsupported",
                           "negation", "number", "support", f"{item.score:.2f}", "/answers/"):
                assert hidden not in body, hidden
            assert "Right flag" in body and "False alarm" in body and "Unclear" in body
            assert "Same passage, faithful" not in body
            response = client.post("/calibrate/shop/label/record",
                                   {"item": item.pk, "label": "2"},
                                   headers={"HX-Request": "true"})
            assert MatchLabel.objects.get(item=item).label == "false-alarm"
        else:
            client.post("/calibrate/shop/label/record", {"item": item.pk, "label": "1"})
    assert seen == {"number", "negation", "unsupported"}
    claim = CalibrationItem.objects.filter(kind="claim").first()
    other = calibration_sample(surface=shop, size=1)
    assert claim is not None
    # A match's label does not fit a claim, nor a claim's a match.
    with pytest.raises(LabelRefused, match="right-flag, false-alarm, unclear"):
        label_record(item=claim, labeller=make_user("ann", "calibrator"), label="faithful")
    if other:
        with pytest.raises(LabelRefused):
            label_record(item=other[0], labeller=cal, label="right-flag")


def test_claim_labels_stay_out_of_the_threshold_curves(make_user: Any, shop: Surface) -> None:
    ann = make_user("ann", "calibrator")
    for item in calibration_sample_claims(surface=shop, size=50, seed=3):
        label_record(item=item, labeller=ann, label="right-flag")
    assert labelled_matches(shop) == [] and item_labels(shop) == []
    assert len(item_labels(shop, kind="claim")) == 3


# Issue 22: stored undo, near-duplicates drawn once, windows at word edges -------------


def test_undo_steps_are_stored_and_outlive_the_session(client: Any, make_user: Any,
                                                       legal: Surface) -> None:
    from reviewer.selectors.calibration import can_undo, skipped_items
    from reviewer.services.calibration import item_label, item_skip, step_undo

    cal = make_user("cal", "calibrator")
    calibration_sample(surface=legal, size=10, seed=1)
    first, second = CalibrationItem.objects.filter(surface=legal).order_by("position")[:2]
    assert not can_undo(legal, cal)
    item_skip(item=first, labeller=cal)
    item_label(item=second, labeller=cal, label="changed")
    assert skipped_items(legal, cal) == [first.pk] and can_undo(legal, cal)
    assert next_item(legal, cal, skipped=skipped_items(legal, cal)) not in (first, second)
    # A new session (a fresh login): u takes back the label, then the skip.
    client.force_login(cal)
    client.logout()
    client.force_login(cal)
    response = client.post("/calibrate/legal/label/undo", headers={"HX-Request": "true"})
    assert response.context["item"].pk == second.pk
    assert "Label undone." in response.content.decode()
    assert not MatchLabel.objects.filter(item=second).exists()
    assert step_undo(labeller=cal, surface=legal) == ("skip", first)
    assert skipped_items(legal, cal) == [] and not can_undo(legal, cal)
    assert step_undo(labeller=cal, surface=legal) is None


def test_undo_is_per_labeller_and_a_settled_label_stays(make_user: Any,
                                                         legal: Surface) -> None:
    from reviewer.services.calibration import item_label, step_undo

    ann, ben = make_user("ann", "calibrator"), make_user("ben", "calibrator")
    boss = make_user("boss", "supervisor")
    calibration_sample(surface=legal, size=10, seed=1)
    item = CalibrationItem.objects.filter(surface=legal).first()
    assert item is not None
    item_label(item=item, labeller=ann, label="faithful")
    item_label(item=item, labeller=ben, label="changed")
    assert step_undo(labeller=ben, surface=legal) == ("label", item)  # ben's, not ann's
    assert [label.labeller_name for label in item.labels.all()] == ["ann"]
    item_settle(item=item, settled_by=boss, label="faithful")
    with pytest.raises(LabelRefused):
        step_undo(labeller=ann, surface=legal)
    assert item.labels.count() == 1
    assert step_undo(labeller=ann, surface=legal) is None  # the refused step is gone


def test_near_duplicates_are_drawn_once() -> None:
    from reviewer.services.calibration import content_hash

    surface = Surface.objects.create(name="dups", threshold=0.92)
    source = ". ".join(SENTENCES) + "."
    altered = SENTENCES[0].replace("five", "six")
    for quote in (altered, altered.lower().replace(" ", "  "),
                  altered.replace("employer", "employer\u2019s").replace("employer\u2019s",
                                                                          "employer")):
        answer_submit(client=None, data={"answer": f'It says "{quote}" [S1].',
                                         "surface": "dups",
                                         "sources": [{"marker": "S1", "text": source}]})
    assert CitationVerdict.objects.filter(answer__surface=surface).count() == 3
    drawn = calibration_sample(surface=surface, size=10, controls=0)
    assert len(drawn) == 1
    assert calibration_sample(surface=surface, size=10, controls=0) == []
    assert (content_hash("s", "Part-time  Employees", "part-time employees")
            == content_hash("s", "part-time employees", "Part-time\nemployees"))
    assert content_hash("s", "a quote", "a window") != content_hash("s", "a quote", "a windows")


@pytest.mark.parametrize(("text", "start", "end", "window"), [
    ("Leave. Part-time employees accrue days.", 12, 26, "Part-time employees"),
    ("Leave. Part-time employees accrue days.", 7, 23, "Part-time employees"),
    ("We don't pay it.", 6, 11, "don't pay"),
    ("Exact words here.", 0, 5, "Exact"),
    ("Exact words here.", 6, 11, "words"),
    ("(Part-time) staff", 6, 10, "Part-time"),
])
def test_windows_widen_to_word_edges(text: str, start: int, end: int, window: str) -> None:
    from reviewer.services.calibration import snapshot, word_edges

    lo, hi = word_edges(text, start, end)
    assert text[lo:hi] == window
    shot = snapshot(text, start, end, context=3)
    assert shot.source_text[shot.match_start:shot.match_end] == window


def test_a_snapshot_s_context_is_cut_at_word_edges() -> None:
    from reviewer.services.calibration import snapshot

    text = "Section 1. Eligibility. Part-time employees working twenty hours are eligible."
    start = text.index("working")
    shot = snapshot(text, start, start + len("working"), context=14)
    # 14 characters back land inside "Part-time", 14 on after a space.
    assert shot.source_text == "Part-time employees working twenty hours "
    assert shot.source_text[shot.match_start:shot.match_end] == "working"
