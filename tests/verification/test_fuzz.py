"""Any strings at all, as answer and sources: verify_answer() raises nothing
but a work-budget refusal, every offset it reports is in bounds, and no
answer goes over its budget silently. The slowest answer's time is printed
(a figure to watch, not asserted: timings are for bench/verify.py)."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.figures import figure
from verification import Report, VerificationConfig, WorkBudgetExceeded, verify_answer
from verification import pool as pool_module
from verification.budget import WorkMeter

# Characters that reach every parser: quotes, brackets, markers, line breaks,
# hyphens, ligatures, a soft hyphen, a lone surrogate, NUL, combining marks.
_ALPHABET = st.sampled_from(
    list("abc xyz ABC 0123 .,;:!? \"'“”‘’«»[]【】†()-–—\n\t\u00ad\ufb01\u0301\x00\ud800S")
)
_TEXT = st.text(alphabet=_ALPHABET, max_size=120) | st.text(max_size=60)
_MARKS = "\"\u201c\u201d"


@st.composite
def _quote(draw: st.DrawFn, sources: dict[str, str]) -> str:
    """A quote taken from a source, cut anywhere and then edited by a
    character or not (so the exact, fuzzy and seeded paths all run), or any
    text at all."""
    texts = [t for t in sources.values() if t]
    if not texts or draw(st.integers(0, 4)) == 0:
        return draw(_TEXT)
    text = draw(st.sampled_from(texts))
    a = draw(st.integers(0, len(text)))
    b = draw(st.integers(a, len(text)))
    quote = text[a:b]
    if quote and draw(st.booleans()):
        at = draw(st.integers(0, len(quote) - 1))
        quote = quote[:at] + draw(st.text(alphabet=_ALPHABET, max_size=2)) + quote[at + 1 :]
    return quote


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, dict[str, str], VerificationConfig]:
    labels = draw(st.lists(st.sampled_from(["S1", "S2", "S3", "1", "doc7"]), max_size=3,
                           unique=True))
    # A source of a few pieces: long enough, now and then, for seeds to chain.
    sources = {label: "".join(draw(st.lists(_TEXT, max_size=6))) for label in labels}
    parts = [draw(_TEXT)]
    for _ in range(draw(st.integers(0, 3))):
        quote = draw(_quote(sources))
        marker = draw(st.sampled_from([*labels, "S9", "1-3", "S1; S2", ""]))
        if draw(st.booleans()):
            # Marks open after a space and close before one: the parser's
            # own rules, so that most of these quotes are quotes.
            quoted = f' "{quote.strip(_MARKS).strip()}"'
        else:
            quoted = f' <quote source="{marker}">{quote}</quote>'
        parts.append(quoted + (f" [{marker}]" if marker else "") + draw(_TEXT))
    config = VerificationConfig(
        threshold=draw(st.sampled_from([0.5, 0.92, 1.0])),
        # Seeding from 1 character up runs the seeded path on short strings;
        # small budgets make the refusal happen.
        seed_min_chars=draw(st.sampled_from([None, 1, 20, 500])),
        max_work=draw(st.sampled_from([None, 1, 500, 50_000, 5_000_000_000])),
    )
    return "".join(parts), sources, config


def _in(start: int | None, end: int | None, size: int) -> bool:
    if start is None or end is None:
        return start is None and end is None
    return 0 <= start <= end <= size


def _check_offsets(report: Report, answer: str, sources: dict[str, str]) -> None:
    texts = {label.lower(): text for label, text in sources.items()}
    for sentence in report.sentences:
        assert 0 <= sentence.start <= sentence.end <= len(answer)
        for c in sentence.citations:
            assert _in(c.quote_start, c.quote_end, len(answer))
            assert _in(c.marker_start, c.marker_end, len(answer))
            if c.source_marker is not None:
                size = len(texts[c.source_marker.lower()])
                assert _in(c.chunk_start, c.chunk_end, size)
            else:
                assert c.chunk_start is None and c.chunk_end is None
            if c.closest_marker is not None:
                size = len(texts[c.closest_marker.lower()])
                assert _in(c.closest_start, c.closest_end, size)


class _Meters:
    """Every meter verify_answer creates, to see what each answer spent."""

    def __init__(self) -> None:
        self.made: list[WorkMeter] = []

    def __call__(self, limit: int | None) -> WorkMeter:
        meter = WorkMeter(limit)
        self.made.append(meter)
        return meter


def test_any_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    meters = _Meters()
    monkeypatch.setattr(pool_module, "WorkMeter", meters)
    seconds: list[float] = []
    refused = aligned = 0

    @settings(max_examples=300, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(cases())
    def check(case: tuple[str, dict[str, str], VerificationConfig]) -> None:
        nonlocal refused, aligned
        answer, sources, config = case
        meters.made.clear()
        started = time.perf_counter()
        try:
            report = verify_answer(answer, sources, config=config)
        except WorkBudgetExceeded as error:
            refused += 1
            assert config.max_work is not None
            assert error.limit == config.max_work < error.work
            report = None
        except ValueError as error:
            # Two markers one label apart ("S1" and "s1") are refused by design.
            assert "given twice" in str(error) or "is empty" in str(error)
            return
        finally:
            seconds.append(time.perf_counter() - started)
        (meter,) = meters.made
        # Never over the budget unnoticed: what was spent stays within it.
        assert config.max_work is None or meter.spent <= config.max_work
        aligned += meter.spent > 0
        if report is not None:
            _check_offsets(report, answer, sources)

    check()
    figure(f"fuzz: {len(seconds)} answers, slowest {max(seconds) * 1000:.1f} ms, "
           f"{aligned} aligned fuzzily within it, {refused} refused over their budget")
    # Both ends ran: fuzzy alignment, and the refusal of small budgets.
    assert aligned and refused
