"""Data-driven end-to-end cases (cases.json): realistic answers and their expected reports.

Each case is ``{"name", "answer", "sources": {marker: text}, "expect": {"verdict",
"outcomes"}}``; ``outcomes`` lists the citation outcomes in report order. A case
with an ``"xfail"`` reason documents a known bug: it states the correct
expectation and is expected to fail until the bug is fixed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verification import OUTCOMES, verify_answer

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases.json").read_text(encoding="utf-8")
)


def _params() -> list[Any]:
    params = []
    for case in CASES:
        marks = (
            [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
        )
        params.append(pytest.param(case, id=case["name"], marks=marks))
    return params


def test_cases_are_well_formed() -> None:
    assert len(CASES) >= 20
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names))
    for case in CASES:
        assert set(case) <= {"name", "answer", "sources", "expect", "xfail"}
        assert case["expect"]["verdict"] in ("pass", "flag", "fail")
        assert all(outcome in OUTCOMES for outcome in case["expect"]["outcomes"])
        assert case["sources"] and all(isinstance(t, str) for t in case["sources"].values())


@pytest.mark.parametrize("case", _params())
def test_case(case: dict[str, Any]) -> None:
    report = verify_answer(case["answer"], case["sources"])
    assert {
        "verdict": report.verdict,
        "outcomes": [citation.outcome for citation in report.citations],
    } == case["expect"]
    for citation in report.citations:
        if citation.outcome in ("verified", "verified-fuzzy"):
            # A verified quote resolves to a range of the source it names.
            text = case["sources"][citation.source_marker]
            assert citation.chunk_start is not None and citation.chunk_end is not None
            assert 0 <= citation.chunk_start < citation.chunk_end <= len(text)
