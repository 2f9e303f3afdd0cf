"""The demo's labelled calibration set (reviewer.demo_calibration): the page
recommends a threshold for benefits-chat and says "not enough labels" for
legal-review; two labellers agree beyond chance and disagree on a few; labels
follow what the generator did, not the score; loading again adds nothing.

The step needs the surfaces, the two labellers and an API client only, so the
tests set those up once instead of loading the whole demo for each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from reviewer import demo
from reviewer.demo_calibration import ID_PREFIX, LABELLERS, PLANS, load_calibration, plan_answers
from reviewer.demo_history import HISTORY_DAYS
from reviewer.management.commands.load_demo import DEMO_ROLE_USERS
from reviewer.models import Answer, ApiClient, CalibrationItem, MatchLabel, Surface
from reviewer.roles import CALIBRATOR
from reviewer.selectors.calibration import item_labels, labelled_matches, next_item
from reviewer.services.clients import api_client_create
from verification.calibration import (
    band_label,
    bands_around,
    cohen_kappa,
    recommend_threshold,
    wilson_interval,
)

pytestmark = pytest.mark.django_db

TARGET = 0.95


@pytest.fixture(scope="module")
def loaded(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Surface]]:
    """Loaded once for the module (a few seconds), in a transaction rolled
    back at its end; each test runs in a savepoint inside it."""
    with django_db_blocker.unblock(), transaction.atomic():
        for name, fields in demo.SURFACES.items():
            Surface.objects.create(name=name, **fields)
        group = Group.objects.get(name=CALIBRATOR)
        for name in LABELLERS:
            get_user_model().objects.create_user(username=name).groups.add(group)
        client, _ = api_client_create(name="demo")
        load_calibration(client=client)
        yield {surface.name: surface for surface in Surface.objects.all()}
        transaction.set_rollback(True)


def _recommend(surface: Surface) -> Any:
    return recommend_threshold(labelled_matches(surface), TARGET,
                               bands=bands_around(surface.threshold))


def test_benefits_chat_gets_a_recommended_threshold_legal_review_not_enough_labels(
        loaded: dict[str, Surface]) -> None:
    benefits, legal = loaded["benefits-chat"], loaded["legal-review"]
    recommendation = _recommend(benefits)
    assert recommendation.reason is None
    assert recommendation.threshold is not None
    # It stands on the Wilson lower bound of the precision at that threshold.
    matches = labelled_matches(benefits)
    accepted = [m for m in matches if m.score >= recommendation.threshold]
    faithful = sum(m.label == "faithful" for m in accepted)
    assert recommendation.accepted == len(accepted) >= 73
    assert wilson_interval(faithful, len(accepted))[0] >= TARGET
    # The bands around the threshold each hold the 10 labels it needs.
    bands = bands_around(benefits.threshold)
    per_band = Counter(band_label(band) for m in matches for band in bands
                       if band[0] <= m.score < band[1])
    assert len(per_band) == len(bands) and min(per_band.values()) >= 1
    assert per_band["0.95–0.98"] >= 10 and per_band["0.98–1.00"] >= 10

    legal_recommendation = _recommend(legal)
    assert legal_recommendation.threshold is None
    assert legal_recommendation.reason is not None
    assert legal_recommendation.reason.startswith("Not enough labels")
    assert len(item_labels(legal)) == 12
    # clinical-review is left without a set.
    assert not CalibrationItem.objects.filter(surface=loaded["clinical-review"]).exists()


def test_labels_follow_what_the_generator_did_not_the_score(
        loaded: dict[str, Surface]) -> None:
    for plan in PLANS:
        planted = {(payload["id"], quote): what for payload, quotes in plan_answers(plan)
                   for quote, what in quotes.items()}
        labels = MatchLabel.objects.filter(item__surface__name=plan.surface,
                                           labeller_name=LABELLERS[0])
        assert labels.count() > 0
        for label in labels.select_related("item__answer"):
            assert label.item.answer is not None
            what = planted[(label.item.answer.external_id, label.item.quote)]
            assert label.label == what.label, (what.kind, label.item.quote)
    # So some faithful quotes score below the threshold (paraphrases), and some
    # changed ones above it (a number changed in a long sentence).
    benefits = loaded["benefits-chat"]
    matches = labelled_matches(benefits)
    assert any(m.label == "faithful" and m.score < benefits.threshold for m in matches)
    assert any(m.label == "changed" and m.score >= benefits.threshold for m in matches)
    assert {m.label for m in matches} == {"faithful", "changed", "other"}
    # Dated before the window the trends page and its rate-change check read.
    newest = Answer.objects.filter(external_id__startswith=ID_PREFIX).latest("created")
    assert newest.created < timezone.now() - timedelta(days=HISTORY_DAYS + 28)


def test_two_labellers_agree_beyond_chance_disagree_on_a_few_and_leave_a_queue(
        loaded: dict[str, Surface]) -> None:
    benefits = loaded["benefits-chat"]
    entries = item_labels(benefits)
    pairs = [(e.labels[0].label, e.labels[1].label) for e in entries if len(e.labels) == 2]
    assert all(e.labels[0].labeller_name == LABELLERS[0] for e in entries)
    agreement = cohen_kappa(pairs)
    assert agreement.kappa is not None and 0.6 < agreement.kappa < 1
    assert len(agreement.disagreements) == PLANS[0].disagreements == 4
    assert sum(e.disagreement for e in entries) == 4
    # The second labeller labelled about 30 % of the labelled items.
    assert 0.2 < len(pairs) / len(entries) < 0.4
    # Items are left for the calibrator to label, and for the second to second.
    items = CalibrationItem.objects.filter(surface=benefits).count()
    assert items - len(entries) >= 20
    calibrator, second = (get_user_model().objects.get(username=n) for n in LABELLERS)
    assert next_item(benefits, calibrator) is not None
    assert next_item(benefits, second, second=True) is not None


def test_loading_again_adds_nothing(loaded: dict[str, Surface]) -> None:
    counts = (Answer.objects.count(), CalibrationItem.objects.count(),
              MatchLabel.objects.count())
    # Near-duplicates (the same quote and window once normalised) are drawn
    # once since issue 22, so the demo holds fewer items and labels than before.
    assert counts[2] > 200
    said: list[str] = []
    assert load_calibration(client=ApiClient.objects.get(name="demo"), say=said.append) == 0
    assert said == ["  calibration: benefits-chat kept as loaded before",
                    "  calibration: legal-review kept as loaded before"]
    assert (Answer.objects.count(), CalibrationItem.objects.count(),
            MatchLabel.objects.count()) == counts


def test_load_demo_creates_the_second_labeller() -> None:
    assert DEMO_ROLE_USERS["labeller2"] == CALIBRATOR
    assert set(LABELLERS) <= set(DEMO_ROLE_USERS)
