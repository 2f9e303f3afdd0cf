"""The semantic stage's interface: does a passage support, contradict or not
settle a sentence? Asked of a model the operator supplies.

Everything else in this package checks provenance deterministically; this
module only defines how a model is asked and what it must answer, so that
its answer can be stored next to the deterministic verdict and never
replace it. A judge's accuracy is that of its model.

A judge that quotes its evidence has the quote checked here with citeguard's
own containment check (:func:`evidence_in_passage`): evidence the passage
does not hold is an :class:`InventedEvidence` error and the answer is
discarded.

Framework-free; backends live in :mod:`verification.judges`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal, Protocol, get_args

from .config import VerificationConfig
from .passage import locate_passage, passage_around, source_sentences
from .verify import verify_answer

__all__ = [
    "JUDGE_LABELS",
    "Attempted",
    "EntailmentJudge",
    "InventedEvidence",
    "JudgeError",
    "JudgeLabel",
    "JudgeMalformed",
    "JudgeRateLimited",
    "JudgeSetupError",
    "JudgeTimeout",
    "JudgeUnavailable",
    "Judgement",
    "evidence_in_passage",
    "judge_from_settings",
    "judge_open",
    "judge_premise",
    "judge_with_retries",
    "label_from_name",
]

JudgeLabel = Literal["supported", "contradicted", "not-enough-info"]
JUDGE_LABELS: tuple[JudgeLabel, ...] = get_args(JudgeLabel)

#: How model label names are read (lower-cased, "_" and " " as "-"): NLI
#: models say entailment / neutral / contradiction, fact-checking data sets
#: supports / refutes / not enough info.
_LABEL_NAMES: dict[str, JudgeLabel] = {
    "supported": "supported", "supports": "supported", "support": "supported",
    "entailment": "supported", "entailed": "supported", "entails": "supported",
    "contradicted": "contradicted", "contradiction": "contradicted",
    "contradicts": "contradicted", "refutes": "contradicted", "refuted": "contradicted",
    "not-enough-info": "not-enough-info", "not-enough-information": "not-enough-info",
    "nei": "not-enough-info", "neutral": "not-enough-info",
}


def label_from_name(name: str) -> JudgeLabel | None:
    """The label a model's class name stands for, or None for an unknown one."""
    return _LABEL_NAMES.get("-".join(name.strip().lower().replace("_", " ").split()))


@dataclass(frozen=True, slots=True)
class Judgement:
    """One model's answer for one (premise, hypothesis) pair.

    ``scores``: each label's probability when the model gives them (a
    classifier), else None (a chat model). ``evidence``: the passage
    sentence the model says it relies on, as it wrote it, and
    ``evidence_verified`` whether citeguard found it in the passage (an
    unverified quote never comes back: it raises :class:`InventedEvidence`).
    ``truncated``: the pair was longer than the model reads and its end was
    not seen (an NLI model's token limit)."""

    label: JudgeLabel
    model_id: str
    latency_ms: float
    scores: tuple[tuple[JudgeLabel, float], ...] | None = None
    evidence: str | None = None
    evidence_verified: bool = False
    truncated: bool = False


class EntailmentJudge(Protocol):
    """Anything that can judge a pair: ``kind`` names the backend ("onnx",
    "chat"), ``model_id`` the model as stored with each result."""

    @property
    def kind(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    def judge(self, premise: str, hypothesis: str) -> Judgement: ...


class JudgeSetupError(ValueError):
    """The judge cannot be built: a missing file, an unknown label, no URL."""


class JudgeError(Exception):
    """A call that gave no usable answer; ``kind`` is what is stored."""

    kind: ClassVar[str] = "error"
    #: Whether trying the same call again may succeed.
    transient: ClassVar[bool] = True


class JudgeTimeout(JudgeError):
    kind = "timeout"


class JudgeUnavailable(JudgeError):
    """The endpoint refused the call or failed (not a 429)."""

    kind = "unavailable"


class JudgeRateLimited(JudgeError):
    """HTTP 429; ``retry_after`` is the seconds the server asked to wait
    (None when it did not say)."""

    kind = "rate-limited"

    def __init__(self, message: str, *, retry_after: float | None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class JudgeMalformed(JudgeError):
    """The answer is not the JSON asked for, or lacks a label or its evidence."""

    kind = "malformed"


class InventedEvidence(JudgeError):
    """The model's evidence quote is not in the passage: its answer is discarded."""

    kind = "invented-evidence"
    transient = False

    def __init__(self, message: str, *, label: JudgeLabel, evidence: str, model_id: str) -> None:
        super().__init__(message)
        self.label, self.evidence, self.model_id = label, evidence, model_id


#: The evidence quote is checked as a quote of the passage with this
#: similarity threshold (the library's default for approximate matches).
EVIDENCE_THRESHOLD = 0.92


def evidence_in_passage(evidence: str, passage: str, *,
                        threshold: float = EVIDENCE_THRESHOLD) -> bool:
    """Whether ``evidence`` is a quote of ``passage``, by citeguard's own check:
    a one-quote answer citing the passage must come back ``verified`` (or
    ``verified-fuzzy`` at ``threshold``), as any quote in a real answer must."""
    quote = " ".join(evidence.split())
    if not quote:
        return False
    report = verify_answer(f"The source says \u201c{quote}\u201d [E1].", {"E1": passage},
                           config=VerificationConfig(threshold=threshold, check_claims=False))
    quoted = [(c.quote, c.outcome) for c in report.citations if c.quote is not None]
    # One quote, all of it: a quote mark inside the evidence would split it.
    return (len(quoted) == 1 and " ".join(quoted[0][0].split()) == quote
            and quoted[0][1] in ("verified", "verified-fuzzy"))


def judge_premise(sentence: str, source: str, *, match: tuple[int, int] | None = None,
                  skip: tuple[tuple[int, int], ...] = ()) -> tuple[int, int] | None:
    """The range of ``source`` a judge reads as the premise for ``sentence``:
    the sentences holding a quote's ``match``, or else the likely passage
    (1-3 adjacent sentences sharing most of the sentence's words); None when
    the source shares none of them. Offsets index ``source``."""
    if match is not None:
        around = passage_around(source, *match)
        return around.source_start, around.source_end
    passage = locate_passage(sentence, source_sentences(source, skip=skip))
    return None if passage is None else (passage.source_start, passage.source_end)


@dataclass(frozen=True, slots=True)
class Attempted:
    """What :func:`judge_with_retries` got: a judgement or the last error,
    how many calls it took, and whether it stopped for the budget."""

    judgement: Judgement | None
    error: JudgeError | None
    attempts: int
    over_budget: bool = False
    waited_seconds: float = 0.0


def judge_with_retries(
    judge: EntailmentJudge, premise: str, hypothesis: str, *,
    max_attempts: int = 3, max_wait_seconds: float = 30.0,
    may_call: Callable[[int], bool] = lambda made: True,
    sleep: Callable[[float], None] = time.sleep,
) -> Attempted:
    """Ask ``judge``, trying a transient error again up to ``max_attempts``
    calls. ``may_call(calls made so far)`` is asked before each call (a
    budget): False stops with ``over_budget``. A 429 waits its Retry-After
    (1 s when it gives none), and is given up when that is longer than
    ``max_wait_seconds``. Invented evidence is never retried."""
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts!r}")
    error: JudgeError | None = None
    made = 0
    waited = 0.0
    while made < max_attempts:
        if not may_call(made):
            return Attempted(None, error, made, over_budget=True, waited_seconds=waited)
        made += 1
        try:
            return Attempted(judge.judge(premise, hypothesis), None, made,
                             waited_seconds=waited)
        except JudgeError as failed:
            error = failed
        if not error.transient or made >= max_attempts:
            break
        if isinstance(error, JudgeRateLimited):
            wait = 1.0 if error.retry_after is None else error.retry_after
            if wait > max_wait_seconds:
                break
            sleep(wait)
            waited += wait
    return Attempted(None, error, made, waited_seconds=waited)


def judge_from_settings(
    kind: str, *, model_dir: str | Path | None = None, url: str | None = None,
    model: str | None = None, api_key: str | None = None, timeout_seconds: float = 30.0,
) -> EntailmentJudge:
    """A judge as the operator configured it: ``kind`` "onnx" (a folder with
    ``model.onnx``, ``tokenizer.json`` and a label map) or "chat" (an
    OpenAI-compatible endpoint ``url``, a ``model`` name, an optional key)."""
    if kind == "onnx":
        if not model_dir:
            raise JudgeSetupError("The onnx judge needs a model folder "
                                  "(CITEGUARD_JUDGE_MODEL_DIR).")
        from .judges.onnx_nli import OnnxNliJudge

        return OnnxNliJudge(Path(model_dir))
    if kind == "chat":
        if not url or not model:
            raise JudgeSetupError("The chat judge needs a URL and a model name "
                                  "(CITEGUARD_JUDGE_URL, CITEGUARD_JUDGE_MODEL).")
        from .judges.chat import ChatJudge

        return ChatJudge(url, model=model, api_key=api_key, timeout_seconds=timeout_seconds)
    raise JudgeSetupError(f"Unknown judge {kind!r}: use 'onnx' or 'chat'.")


def judge_open(target: str, *, model: str | None = None, api_key: str | None = None,
               timeout_seconds: float = 30.0) -> EntailmentJudge:
    """A judge from one string, as a command line gives it: an ``http(s)://``
    URL is a chat endpoint (``model`` required), anything else a model folder."""
    if target.startswith(("http://", "https://")):
        return judge_from_settings("chat", url=target, model=model, api_key=api_key,
                                   timeout_seconds=timeout_seconds)
    return judge_from_settings("onnx", model_dir=target)
