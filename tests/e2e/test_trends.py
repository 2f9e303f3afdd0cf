"""The trends page in a real browser, with the demo's five weeks of history:
the model change shows as a step in the fabricated-marker chart, marked and
labelled with the new model; filters go in the URL and survive a reload."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from reviewer.demo_history import HISTORY_DAYS, SWITCH_AFTER_DAYS
from reviewer.models import TrendAlert

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def history(demo_site: Any, load_more_demo: Any) -> Any:
    load_more_demo("--history")
    return demo_site


def _trends(page: Any, site: Any, query: str = "") -> None:
    page.goto(f"{site.url}/trends/{query}")
    page.wait_for_selector("figure[data-chart='outcome-fabricated-marker'] svg")


def test_the_model_change_is_a_marked_step_on_the_fabricated_marker_chart(
        page: Any, history: Any) -> None:
    _trends(page, history)
    switch_day = (datetime.now(UTC).date() - timedelta(days=HISTORY_DAYS - SWITCH_AFTER_DAYS))
    chart = page.locator("figure[data-chart='outcome-fabricated-marker']")
    marker = chart.locator("g.change-marker.change-rise[data-change='fabricated-marker']")
    assert marker.count() == 1
    label = marker.locator("text.change-label").text_content()
    assert label.startswith("▲") and "new: model-b" in label and "benefits-chat" in label
    assert switch_day.strftime("%Y-%m-%d") in marker.locator("title").first.text_content()

    # The step itself: model-b's points sit well above model-a's.
    def mean_height(model: str) -> float:
        ys = chart.locator(f"g.series[data-series='{model}'] circle").evaluate_all(
            "cs => cs.map(c => parseFloat(c.getAttribute('cy')))")
        assert ys, model
        return sum(ys) / len(ys)

    assert mean_height("model-b") < mean_height("model-a") - 40  # SVG y grows downwards
    # The marker stands at the first day of model-b: its x is model-b's first point's.
    first_b = chart.locator("g.series[data-series='model-b'] circle").first
    assert marker.locator("line").get_attribute("x1") == first_b.get_attribute("cx")
    # And the change is listed in words above the charts.
    assert page.locator("li.change[data-outcome='fabricated-marker']").count() == 1
    assert TrendAlert.objects.filter(outcome="fabricated-marker", model="*",
                                     day=switch_day).exists()


def test_filters_update_the_charts_and_live_in_the_url(page: Any, history: Any) -> None:
    _trends(page, history)
    page.select_option("select[name=model]", "model-a")
    page.click(".filters button[type=submit]")
    page.wait_for_url("**/trends/?*model=model-a*")
    chart = page.locator("figure[data-chart='outcome-fabricated-marker']")
    chart.locator("g.series[data-series='model-a']").wait_for()
    assert chart.locator("g.series[data-series='model-b']").count() == 0
    assert "model=model-a" in page.locator("a.export").first.get_attribute("href")
    page.reload()
    assert page.locator("select[name=model]").input_value() == "model-a"
    assert chart.locator("g.series[data-series='model-b']").count() == 0


@pytest.mark.demo_scan
@pytest.mark.docs_screenshots
def test_trends_screenshots_for_the_docs(page: Any, history: Any, tmp_path: Any) -> None:
    """docs/trends.png at 1280 wide (CITEGUARD_SCREENSHOTS=docs, bin/screenshots)."""
    folder = os.environ.get("CITEGUARD_SCREENSHOTS") or str(tmp_path)
    page.set_viewport_size({"width": 1280, "height": 1100})
    _trends(page, history, "?surface=benefits-chat")
    page.wait_for_timeout(300)
    page.screenshot(path=f"{folder}/trends.png")
    assert os.path.getsize(f"{folder}/trends.png") > 10_000
