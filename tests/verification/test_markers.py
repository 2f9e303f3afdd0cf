"""parse_markers(): marker syntaxes, labels, positions, exclusions and configuration."""

from __future__ import annotations

import re

import pytest

from verification import MarkerGroup, VerificationConfig, canonical_label, parse_markers


def labels(answer: str, **kwargs: object) -> list[tuple[str, ...]]:
    return [g.labels for g in parse_markers(answer, **kwargs)]  # type: ignore[arg-type]


def assert_positions_exact(answer: str, groups: tuple[MarkerGroup, ...]) -> None:
    for group in groups:
        assert answer[group.start : group.end] == group.text


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Match vests after two years [S1].", [("S1",)]),
        ("Match vests after two years [1].", [("1",)]),
        ("Match vests after two years [1, 3].", [("1", "3")]),
        ("Match vests after two years [1,3].", [("1", "3")]),
        ("Match vests after two years [S1; S3].", [("S1", "S3")]),
        ("Match vests after two years [1-3].", [("1", "2", "3")]),
        ("Match vests after two years [1\u20133].", [("1", "2", "3")]),  # en dash
        ("Match vests after two years [S1-S3].", [("S1", "S2", "S3")]),
        ("Match vests after two years [1-2, 5].", [("1", "2", "5")]),
        ("Match vests after two years [1][2].", [("1",), ("2",)]),
        ("Match vests after two years \u30101\u2020source\u3011.", [("1",)]),
        ("Match vests \u30103\u2020plan.pdf\u3011 after \u30104\u3011.", [("3",), ("4",)]),
        ("Match vests [doc3].", [("DOC3",)]),
        ("Match vests [ S2 ].", [("S2",)]),
    ],
)
def test_marker_syntaxes(answer: str, expected: list[tuple[str, ...]]) -> None:
    groups = parse_markers(answer)
    assert [g.labels for g in groups] == expected
    assert_positions_exact(answer, groups)


def test_adjacent_groups_are_separate_with_exact_positions() -> None:
    answer = "It vests after two years [1][2] and is portable [S3]."
    groups = parse_markers(answer)
    assert [(g.start, g.end, g.text) for g in groups] == [
        (25, 28, "[1]"),
        (28, 31, "[2]"),
        (48, 52, "[S3]"),
    ]
    assert_positions_exact(answer, groups)


def test_groups_come_back_in_answer_order_across_syntaxes() -> None:
    answer = "A \u30102\u2020src\u3011 then [1] then \u30103\u3011."
    assert labels(answer) == [("2",), ("1",), ("3",)]


@pytest.mark.parametrize("label", ["s1", "S1", " s1 ", "[s1]", "\u3010s1\u3011"])
def test_canonical_label_is_case_insensitive(label: str) -> None:
    assert canonical_label(label) == "S1"


def test_lower_case_markers_get_canonical_labels() -> None:
    assert labels("Vests [s1]; ports [S1, s2].") == [("S1",), ("S1", "S2")]


def test_duplicate_labels_in_one_group_collapse() -> None:
    assert labels("Vests [S1, s1].") == [("S1",)]


@pytest.mark.parametrize(
    "answer",
    [
        "The plan [sic] vests.",
        "The plan vests [emphasis added].",
        "See the [appendix] for details.",
        "Use [x] to mark boxes.",
        "An empty [] bracket.",
    ],
)
def test_non_marker_brackets_are_ignored(answer: str) -> None:
    assert parse_markers(answer) == ()


def test_range_expansion_is_capped() -> None:
    config = VerificationConfig(max_range_expansion=5)
    assert labels("[1-5]", config=config) == [("1", "2", "3", "4", "5")]
    # Beyond the cap the two ends are kept as separate labels, not 1..500.
    assert labels("[1-500]") == [("1", "500")]


def test_exclude_drops_groups_starting_inside_a_range() -> None:
    answer = 'The plan says "vests after two years [18]" [S1].'
    quote_start = answer.index('"')
    quote_end = answer.index('"', quote_start + 1) + 1
    groups = parse_markers(answer, exclude=[(quote_start, quote_end)])
    assert [g.labels for g in groups] == [("S1",)]
    assert answer[groups[0].start : groups[0].end] == "[S1]"
    # Without the exclusion, the quote's own reference is a marker.
    assert labels(answer) == [("18",), ("S1",)]


def test_custom_marker_pattern() -> None:
    config = VerificationConfig(marker_patterns=(r"\(source:\s*(?P<body>{label})\)",))
    answer = "It vests after two years (source: s2). Also [S1]."
    groups = parse_markers(answer, config=config)
    assert [g.labels for g in groups] == [("S2",)]  # [S1] is no longer a marker syntax
    assert groups[0].text == "(source: s2)"
    assert_positions_exact(answer, groups)


def test_custom_label_pattern() -> None:
    config = VerificationConfig(label_pattern=r"DOC-\d+")
    assert labels("See [DOC-7] and [S1].", config=config) == [("DOC-7",)]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold": 0.0},
        {"threshold": 1.5},
        {"threshold": -0.2},
        {"min_coverage": -0.1},
        {"min_coverage": 1.01},
        {"marker_patterns": (r"\[S\d+\]",)},  # no body group
    ],
)
def test_invalid_config_raises_value_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        VerificationConfig(**kwargs)  # type: ignore[arg-type]


def test_malformed_marker_pattern_raises_value_error_at_construction() -> None:
    with pytest.raises(ValueError):
        VerificationConfig(marker_patterns=(r"\[(?P<body>{label}",))


def test_boundary_config_values_are_accepted() -> None:
    config = VerificationConfig(threshold=1.0, min_coverage=0.0)
    assert config.threshold == 1.0
    assert config.min_coverage == 0.0


def test_config_is_frozen() -> None:
    config = VerificationConfig()
    with pytest.raises((AttributeError, TypeError)):
        config.threshold = 0.5  # type: ignore[misc]


def test_positions_exact_in_a_longer_answer() -> None:
    answer = (
        "Employer match vests after two years [S1]. Loans are capped at 50% [S2, S3]; "
        "hardship withdrawals need approval \u3010S4\u2020plan\u3011 [sic]."
    )
    groups = parse_markers(answer)
    assert [g.labels for g in groups] == [("S1",), ("S2", "S3"), ("S4",)]
    assert_positions_exact(answer, groups)
    assert [m.start() for m in re.finditer(r"\[S1\]|\[S2|\u3010", answer)] == [
        g.start for g in groups
    ]
