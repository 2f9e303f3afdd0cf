"""citeguard's verification core: markers, quotes, the passage behind every
cited sentence and the sentence's own facts, and coverage, checked
deterministically against the sources a RAG answer was given.

Framework-free: nothing here imports Django. Offsets are Python code points
(``text_offsets`` converts them to UTF-16 units and UTF-8 bytes).
"""

from .budget import DEFAULT_MAX_WORK, WorkBudgetExceeded, WorkEstimate
from .claims import CHECKS, ClaimFinding, Evidence, check_claim
from .config import DEFAULT_MARKER_PATTERNS, VerificationConfig
from .coverage import is_claim
from .diff import DiffRun, NegationContext, WordDiff, negation_context, word_diff
from .markers import MarkerGroup, canonical_label, parse_markers
from .matching import Alignment, Difference, align, compare
from .normalize import NormalizedText, OffsetMap, explain, normalize
from .offsets import TextOffsets, text_offsets
from .passage import Passage, locate_passage, source_sentences
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
    "CHECKS",
    "DEFAULT_MARKER_PATTERNS",
    "DEFAULT_MAX_WORK",
    "OUTCOMES",
    "REVIEW_OUTCOMES",
    "SENTENCE_STATUSES",
    "Alignment",
    "Citation",
    "ClaimFinding",
    "DiffRun",
    "Difference",
    "Evidence",
    "MarkerGroup",
    "NegationContext",
    "NormalizedText",
    "OffsetMap",
    "Outcome",
    "Passage",
    "Quote",
    "Report",
    "SentenceResult",
    "SentenceSpan",
    "SentenceStatus",
    "Source",
    "TextOffsets",
    "Verdict",
    "VerificationConfig",
    "WordDiff",
    "WorkBudgetExceeded",
    "WorkEstimate",
    "align",
    "canonical_label",
    "check_claim",
    "compare",
    "explain",
    "is_claim",
    "locate_passage",
    "negation_context",
    "normalize",
    "parse_markers",
    "parse_quotes",
    "source_sentences",
    "split_sentences",
    "text_offsets",
    "verify_answer",
    "word_diff",
]
