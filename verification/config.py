"""The one configuration record of a verification run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .budget import DEFAULT_MAX_WORK, SEED_MATCH_MIN_CHARS

__all__ = ["DEFAULT_MARKER_PATTERNS", "LABEL_PATTERN", "VerificationConfig"]

#: A marker label: an optional short alphabetic prefix and a number (``S1``,
#: ``12``, ``doc3``). A bracket with anything else in it (``[sic]``,
#: ``[emphasis added]``) is not a marker.
LABEL_PATTERN = r"[A-Za-z]{0,8}\d{1,5}"

#: Default marker syntaxes. Each pattern has a ``body`` group holding one label,
#: a list (``1, 3``; ``S1; S3``) or a range (``1-3``). Adjacent groups
#: (``[1][2]``) are separate matches.
DEFAULT_MARKER_PATTERNS: tuple[str, ...] = (
    # [S1]  [1]  [1, 3]  [1-3]  [S1; S3]
    r"\[(?P<body>\s*{label}(?:\s*(?:[,;]|[-\u2013])\s*{label})*\s*)\]",
    # 【1†source】 (the OpenAI file-search style)
    r"\u3010(?P<body>{label})(?:\u2020[^\u3011]*)?\u3011",
)


#: The claim checks ``verification.claims`` knows (its ``CHECKS``, named here
#: so that the configuration needs no import of the checks).
_CLAIM_CHECKS = frozenset({"number", "negation", "quantifier", "modal", "comparative", "entity"})


@dataclass(frozen=True, slots=True)
class VerificationConfig:
    """How strictly an answer is checked. Immutable; pass as ``config=``.

    threshold
        Minimum similarity (0..1, rapidfuzz's normalised Indel similarity) for
        an approximate match to count as ``verified-fuzzy``. 0.92 until
        calibration on labelled matches sets one per surface.
    min_coverage
        Attributed claims / claims below this flags the answer.
    require_quotes
        When true, a valid marker with nothing quoted (``unquoted``) flags.
    marker_patterns
        Regular expressions for markers; ``{label}`` is replaced by
        ``label_pattern``. See :data:`DEFAULT_MARKER_PATTERNS`.
    max_range_expansion
        ``[1-500]`` is taken as a range only up to this many labels.
    max_work
        Fuzzy-alignment work one answer may cost (see
        :mod:`verification.budget`); past it ``verify_answer`` raises
        :class:`~verification.budget.WorkBudgetExceeded`. ``None``: no limit.
    check_claims
        Locate the passage behind every cited sentence and check the
        sentence's own numbers, negations, quantifiers, modals, order words
        and names against it (``claim-mismatch``, ``claim-unsupported``).
    claim_checks
        Which of the sentence's own facts are checked against its passage:
        ``number``, ``negation``, ``quantifier``, ``modal``, ``comparative``,
        ``entity`` (all by default; ``bench/support.py`` prints what each
        costs in false alarms and finds on real claims).
    min_support
        An unquoted citation of a claim whose best passage holds less than
        this weighted share of the sentence's content words is
        ``claim-unsupported``. With 0 (the default) only a source that shares
        none of them is: on real answers a source sharing a word is often
        one of several a sentence draws on, and precision comes first.
    seed_min_chars
        Quotes this long or longer (normalised characters) are aligned from
        exact seeds, in linear time; ``None`` aligns every quote by window
        search (the old path, kept for comparison in ``bench/verify.py``).
    """

    threshold: float = 0.92
    min_coverage: float = 1.0
    require_quotes: bool = False
    marker_patterns: tuple[str, ...] = field(default=DEFAULT_MARKER_PATTERNS)
    label_pattern: str = LABEL_PATTERN
    max_range_expansion: int = 50
    max_work: int | None = DEFAULT_MAX_WORK
    seed_min_chars: int | None = SEED_MATCH_MIN_CHARS
    check_claims: bool = True
    claim_checks: tuple[str, ...] = ("number", "negation", "quantifier", "modal", "comparative",
                                     "entity")
    min_support: float = 0.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.claim_checks) - _CLAIM_CHECKS)
        if unknown:
            raise ValueError(f"unknown claim checks {unknown}; the checks are "
                             f"{', '.join(sorted(_CLAIM_CHECKS))}")
        if not 0.0 <= self.min_support <= 1.0:
            raise ValueError(f"min_support must be in [0, 1], got {self.min_support!r}")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold!r}")
        if self.max_work is not None and self.max_work < 1:
            raise ValueError(f"max_work must be positive or None, got {self.max_work!r}")
        if self.seed_min_chars is not None and self.seed_min_chars < 1:
            raise ValueError(
                f"seed_min_chars must be positive or None, got {self.seed_min_chars!r}")
        if not 0.0 <= self.min_coverage <= 1.0:
            raise ValueError(f"min_coverage must be in [0, 1], got {self.min_coverage!r}")
        for pattern in self.marker_patterns:
            if "(?P<body>" not in pattern:
                raise ValueError(f"marker pattern {pattern!r} needs a (?P<body>...) group")
            try:
                re.compile(pattern.replace("{label}", self.label_pattern))
            except re.error as error:
                raise ValueError(
                    f"marker pattern {pattern!r} is not a valid regular expression: {error}"
                ) from None
