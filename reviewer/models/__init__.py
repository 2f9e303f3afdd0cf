from .answers import (
    Answer,
    AnswerSource,
    Assignment,
    CitationVerdict,
    MatchLabel,
    ReviewDecision,
    SentenceVerdict,
    Surface,
)
from .clients import ApiClient
from .documents import Chunk, Document, Page
from .stats import AnswerStats, QueueGroup, TrendAlert
from .surfaces import SurfaceChange

__all__ = [
    "Answer",
    "AnswerSource",
    "AnswerStats",
    "ApiClient",
    "Assignment",
    "Chunk",
    "CitationVerdict",
    "Document",
    "MatchLabel",
    "Page",
    "QueueGroup",
    "ReviewDecision",
    "SentenceVerdict",
    "Surface",
    "SurfaceChange",
    "TrendAlert",
]
