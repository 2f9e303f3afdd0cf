from .answers import (
    Answer,
    AnswerSource,
    Assignment,
    CitationVerdict,
    ReviewDecision,
    SentenceVerdict,
    Surface,
)
from .calibration import KIND_LABELS, CalibrationItem, MatchLabel
from .clients import ApiClient
from .deletion import DeletionRecord
from .documents import Chunk, Document, Page
from .judgements import Judgement
from .stats import AnswerStats, QueueGroup, TrendAlert, TrendAlertEvent
from .surfaces import SurfaceChange
from .verdicts import ReverificationRun, VerdictRecord
from .workspaces import Workspace

__all__ = [
    "KIND_LABELS",
    "Answer",
    "AnswerSource",
    "AnswerStats",
    "ApiClient",
    "Assignment",
    "CalibrationItem",
    "Chunk",
    "CitationVerdict",
    "DeletionRecord",
    "Document",
    "Judgement",
    "MatchLabel",
    "Page",
    "QueueGroup",
    "ReverificationRun",
    "ReviewDecision",
    "SentenceVerdict",
    "Surface",
    "SurfaceChange",
    "TrendAlert",
    "TrendAlertEvent",
    "VerdictRecord",
    "Workspace",
]
