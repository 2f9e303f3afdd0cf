"""Finding rate changes (``reviewer.changepoint``) and reporting each once.

``trend_alerts_check`` runs when the trends page is viewed and from
``manage.py check_trends`` (cron). It reads the summary table's daily counts,
compares the days asked for, and for each first day of a change stores a
``TrendAlert`` and writes one WARNING line on the ``citeguard.alerts`` logger
(JSON: outcome, model, surface, day, rate, baseline interval). The unique
constraint on (day, surface, model, outcome) makes a second run, or a second
process, find it stored and stay silent.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, date, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from reviewer.changepoint import BASELINE_DAYS
from reviewer.models import TrendAlert
from reviewer.selectors.trends import compare_days, daily_series

__all__ = ["trend_alerts_check"]

logger = logging.getLogger("citeguard.alerts")

#: Days compared before the first one checked, so a change already running
#: then is known as one and not reported again as new.
_LEAD_IN_DAYS = BASELINE_DAYS


def trend_alerts_check(*, days: int = 7, today: date | None = None) -> list[TrendAlert]:
    """Compare the last ``days`` days up to ``today`` (UTC) and store and log
    the changes not reported before; returns the new alerts."""
    today = today or timezone.now().astimezone(UTC).date()
    first = today - timedelta(days=max(1, days) - 1)
    lead_in = first - timedelta(days=_LEAD_IN_DAYS)
    series = daily_series(lead_in - timedelta(days=BASELINE_DAYS), today)
    span = [lead_in + timedelta(days=n) for n in range((today - lead_in).days + 1)]
    new: list[TrendAlert] = []
    for key, comparisons in compare_days(series, span).items():
        for comparison in comparisons:
            if comparison.day < first or not comparison.starts_change:
                continue
            new_models = ""
            if key.model == TrendAlert.ALL_MODELS:
                before: set[str] = set()
                for back in range(1, BASELINE_DAYS + 1):
                    before |= series.models.get(
                        (key.surface_id, comparison.day - timedelta(days=back)), set())
                new_models = ", ".join(sorted(
                    series.models.get((key.surface_id, comparison.day), set()) - before))[:400]
            alert = TrendAlert(
                day=comparison.day, surface_id=key.surface_id, model=key.model,
                outcome=key.outcome, direction=comparison.direction,
                answers=comparison.answers, hits=comparison.hits,
                baseline_answers=comparison.baseline_answers,
                baseline_hits=comparison.baseline_hits,
                low=comparison.interval[0], high=comparison.interval[1],
                baseline_low=comparison.baseline_interval[0],
                baseline_high=comparison.baseline_interval[1], new_models=new_models)
            if _store_once(alert):
                _log(alert, series.surface_names.get(key.surface_id, str(key.surface_id)))
                new.append(alert)
    return new


def _store_once(alert: TrendAlert) -> bool:
    """Insert the alert unless it is stored already (by an earlier run or a
    concurrent one); True when this call stored it."""
    if TrendAlert.objects.filter(day=alert.day, surface_id=alert.surface_id, model=alert.model,
                                 outcome=alert.outcome).exists():
        return False
    try:
        with transaction.atomic():
            alert.save(force_insert=True)
    except IntegrityError:
        return False
    return True


def _log(alert: TrendAlert, surface: str) -> None:
    logger.warning(json.dumps({
        "event": "rate-change", "change": "rise" if alert.direction > 0 else "fall",
        "outcome": alert.outcome, "surface": surface, "model": alert.model,
        "day": alert.day.isoformat(), "rate": round(alert.rate, 4),
        "answers": alert.answers, "with_outcome": alert.hits,
        "interval": [round(alert.low, 4), round(alert.high, 4)],
        "baseline_rate": round(alert.baseline_rate, 4),
        "baseline_interval": [round(alert.baseline_low, 4), round(alert.baseline_high, 4)],
        "baseline_answers": alert.baseline_answers, "new_models": alert.new_models,
    }, sort_keys=True))
