"""citeguard's verification core: markers, quotes and coverage, checked
deterministically against the sources a RAG answer was given.

Framework-free: nothing here imports Django. Offsets are Python code points.
"""

from .budget import DEFAULT_MAX_WORK, WorkBudgetExceeded, WorkEstimate
from .config import DEFAULT_MARKER_PATTERNS, VerificationConfig
from .coverage import is_claim
from .diff import DiffRun, NegationContext, WordDiff, negation_context, word_diff
from .markers import MarkerGroup, canonical_label, parse_markers
from .matching import Alignment, Difference, align, compare
from .normalize import NormalizedText, OffsetMap, explain, normalize
from .quotes import Quote, parse_quotes
from .report import (
    OUTCOMES,
    REVIEW_OUTCOMES,
    SENTENCE_STATUSES,
    Citation,
    Outcome,
    Report,
    SentenceResult,
    SentenceStatus,
    Verdict,
)
from .sentences import SentenceSpan, split_sentences
from .verify import Source, verify_answer

__all__ = [
    "DEFAULT_MARKER_PATTERNS",
    "DEFAULT_MAX_WORK",
    "OUTCOMES",
    "REVIEW_OUTCOMES",
    "SENTENCE_STATUSES",
    "Alignment",
    "Citation",
    "DiffRun",
    "Difference",
    "MarkerGroup",
    "NegationContext",
    "NormalizedText",
    "OffsetMap",
    "Outcome",
    "Quote",
    "Report",
    "SentenceResult",
    "SentenceSpan",
    "SentenceStatus",
    "Source",
    "Verdict",
    "VerificationConfig",
    "WordDiff",
    "WorkBudgetExceeded",
    "WorkEstimate",
    "align",
    "canonical_label",
    "compare",
    "explain",
    "is_claim",
    "negation_context",
    "normalize",
    "parse_markers",
    "parse_quotes",
    "split_sentences",
    "verify_answer",
    "word_diff",
]
