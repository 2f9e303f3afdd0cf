"""A judge behind an OpenAI-compatible chat-completions endpoint (vLLM,
Ollama, hosted APIs), asked over plain ``urllib``.

The model is asked for JSON: ``{"label": "supported" | "contradicted" |
"not enough information", "evidence": "<the passage sentence, verbatim>"}``.
Its evidence is checked with citeguard's own containment check
(:func:`~verification.entailment.evidence_in_passage`): a quote the passage
does not hold raises :class:`~verification.entailment.InventedEvidence` and
the answer is discarded. A supported or contradicted label without evidence
is malformed: the model must show where the passage says so.
"""

from __future__ import annotations

import email.utils
import json
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from typing import Any

from ..entailment import (
    InventedEvidence,
    JudgeMalformed,
    Judgement,
    JudgeRateLimited,
    JudgeSetupError,
    JudgeTimeout,
    JudgeUnavailable,
    evidence_in_passage,
    label_from_name,
)

__all__ = ["SYSTEM_PROMPT", "ChatJudge", "retry_after_seconds"]

SYSTEM_PROMPT = (
    "You check whether a PASSAGE supports a CLAIM. Answer with one JSON object and nothing "
    'else: {"label": "supported" | "contradicted" | "not enough information", '
    '"evidence": "<the one sentence of the PASSAGE your label relies on, copied verbatim>"}. '
    "supported: the passage states the claim. contradicted: the passage states something "
    "that cannot be true together with the claim. not enough information: neither; then "
    "evidence may be null. Never paraphrase the evidence: copy it exactly from the passage."
)
#: Shortest evidence taken as a sentence: a word or two is found in any passage.
MIN_EVIDENCE_WORDS = 3
#: How much of an error body is kept in the message.
_BODY_EXCERPT = 300


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """A Retry-After header in seconds: delay-seconds or an HTTP date; None
    when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class ChatJudge:
    """``url`` is the API base (``…/v1``); calls go to ``{url}/chat/completions``.
    ``model_id`` is the model the endpoint says answered, else ``model``."""

    kind = "chat"

    def __init__(self, url: str, *, model: str, api_key: str | None = None,
                 timeout_seconds: float = 30.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise JudgeSetupError(f"The chat judge's URL must start with http:// or https://, "
                                  f"got {url!r}.")
        if timeout_seconds <= 0:
            raise JudgeSetupError(f"timeout_seconds must be positive, got {timeout_seconds!r}")
        self.endpoint = url.rstrip("/") + "/chat/completions"
        self.model = self.model_id = model
        self.api_key = api_key
        self.timeout_seconds = timeout_seconds

    def _request(self, premise: str, hypothesis: str) -> urllib.request.Request:
        body = {
            "model": self.model, "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": f"PASSAGE:\n{premise}\n\nCLAIM:\n{hypothesis}"},
            ],
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return urllib.request.Request(self.endpoint, data=json.dumps(body).encode(),
                                      headers=headers, method="POST")

    def _post(self, premise: str, hypothesis: str) -> Any:
        try:
            with urllib.request.urlopen(self._request(premise, hypothesis),
                                        timeout=self.timeout_seconds) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            excerpt = error.read()[:_BODY_EXCERPT].decode(errors="replace")
            if error.code == 429:
                raise JudgeRateLimited(
                    f"HTTP 429 from {self.endpoint}: {excerpt}",
                    retry_after=retry_after_seconds(error.headers.get("Retry-After"))) from None
            raise JudgeUnavailable(f"HTTP {error.code} from {self.endpoint}: {excerpt}") from None
        except TimeoutError:
            raise JudgeTimeout(f"no answer from {self.endpoint} within "
                               f"{self.timeout_seconds:g} s") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                raise JudgeTimeout(f"no answer from {self.endpoint} within "
                                   f"{self.timeout_seconds:g} s") from None
            raise JudgeUnavailable(f"{self.endpoint}: {error.reason}") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise JudgeMalformed(f"{self.endpoint} answered with no JSON: "
                                 f"{raw[:_BODY_EXCERPT]!r}") from None

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        started = time.perf_counter()
        data = self._post(premise, hypothesis)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise JudgeMalformed(f"not a chat completion: {str(data)[:_BODY_EXCERPT]}") from None
        model_id = str(data.get("model") or self.model)
        answer = _answer_object(content)
        label = label_from_name(str(answer.get("label", "")))
        if label is None:
            raise JudgeMalformed(f"label {answer.get('label')!r} is none of supported, "
                                 "contradicted, not enough information")
        evidence = answer.get("evidence")
        if evidence is not None and not isinstance(evidence, str):
            raise JudgeMalformed(f"evidence must be a string or null, got {evidence!r}")
        evidence = (evidence or "").strip() or None
        if evidence is None and label != "not-enough-info":
            raise JudgeMalformed(f"the label {label!r} came without its evidence sentence")
        verified = False
        if evidence is not None:
            verified = (len(evidence.split()) >= MIN_EVIDENCE_WORDS
                        and evidence_in_passage(evidence, premise))
            if not verified:
                raise InventedEvidence(
                    f"the evidence quoted for {label!r} is not in the passage: {evidence!r}",
                    label=label, evidence=evidence, model_id=model_id)
        return Judgement(label=label, model_id=model_id,
                         latency_ms=(time.perf_counter() - started) * 1000,
                         evidence=evidence, evidence_verified=verified)


def _answer_object(content: Any) -> dict[str, Any]:
    """The model's JSON object; a single ```json fence around it is allowed."""
    if not isinstance(content, str):
        raise JudgeMalformed(f"the message content is not text: {content!r}")
    text = content.strip()
    if text.startswith("```") and text.endswith("```"):
        text = text[3:-3].removeprefix("json").strip()
    try:
        answer = json.loads(text)
    except ValueError:
        raise JudgeMalformed(f"the answer is not JSON: {content[:_BODY_EXCERPT]!r}") from None
    if not isinstance(answer, dict):
        raise JudgeMalformed(f"the answer is not a JSON object: {content[:_BODY_EXCERPT]!r}")
    return answer

