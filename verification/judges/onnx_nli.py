"""A local NLI cross-encoder the operator supplies as a folder, run on CPU.

The folder holds ``model.onnx`` (a sequence-pair classifier: ``input_ids``
and, if it takes them, ``attention_mask`` and ``token_type_ids`` in, one row
of logits out), ``tokenizer.json`` (a Hugging Face ``tokenizers`` file) and
the label of each output: ``labels.json`` (a list, or ``{"0": name, ...}``)
or the ``id2label`` of a ``config.json``. Names are read as NLI or
fact-checking labels (entailment / neutral / contradiction, supports /
refutes / not enough info).

The pair is cut to the model's length (the tokenizer's own truncation, else
``max_position_embeddings`` of ``config.json``, else 512 tokens), and the
judgement says when it was.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from ..entailment import JudgeLabel, Judgement, JudgeSetupError, label_from_name

__all__ = ["DEFAULT_MAX_TOKENS", "OnnxNliJudge"]

DEFAULT_MAX_TOKENS = 512


def _label_names(folder: Path) -> list[str]:
    labels_file, config_file = folder / "labels.json", folder / "config.json"
    if labels_file.exists():
        raw: Any = json.loads(labels_file.read_text())
    elif config_file.exists() and "id2label" in (config := json.loads(config_file.read_text())):
        raw = config["id2label"]
    else:
        raise JudgeSetupError(f"{folder} has no labels.json and no config.json with id2label: "
                              "say which output is which label.")
    if isinstance(raw, dict):
        try:
            by_index = {int(key): str(value) for key, value in raw.items()}
        except ValueError:
            raise JudgeSetupError(f"{folder}: label indexes must be numbers, got "
                                  f"{sorted(raw)!r}.") from None
        if sorted(by_index) != list(range(len(by_index))):
            raise JudgeSetupError(f"{folder}: label indexes must be 0..n-1, got "
                                  f"{sorted(by_index)!r}.")
        return [by_index[i] for i in range(len(by_index))]
    if isinstance(raw, list) and all(isinstance(name, str) for name in raw):
        return list(raw)
    raise JudgeSetupError(f"{folder}: the label map must be a list of names or an "
                          "{index: name} object.")


def _max_tokens(folder: Path, tokenizer: Tokenizer) -> int:
    if tokenizer.truncation is not None:
        return int(tokenizer.truncation["max_length"])
    config_file = folder / "config.json"
    if config_file.exists():
        config = json.loads(config_file.read_text())
        if isinstance(config.get("max_position_embeddings"), int):
            return int(config["max_position_embeddings"])
    return DEFAULT_MAX_TOKENS


class OnnxNliJudge:
    """An NLI cross-encoder from ``folder``; ``model_id`` names the folder and
    the first 12 hex digits of ``model.onnx``'s SHA-256."""

    kind = "onnx"

    def __init__(self, folder: Path) -> None:
        import onnxruntime  # type: ignore[import-untyped]

        for name in ("model.onnx", "tokenizer.json"):
            if not (folder / name).is_file():
                raise JudgeSetupError(f"{folder} has no {name}: the onnx judge needs "
                                      "model.onnx, tokenizer.json and a label map.")
        names = _label_names(folder)
        labels: list[JudgeLabel] = []
        for name in names:
            label = label_from_name(name)
            if label is None:
                raise JudgeSetupError(f"{folder}: label {name!r} is none of supported, "
                                      "contradicted, not-enough-info (or their NLI names).")
            labels.append(label)
        self.labels = tuple(labels)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.max_tokens = _max_tokens(folder, self.tokenizer)
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.no_padding()
        model_bytes = (folder / "model.onnx").read_bytes()
        digest = hashlib.sha256(model_bytes).hexdigest()[:12]
        self.model_id = f"{folder.name}@{digest}"
        self.session = onnxruntime.InferenceSession(model_bytes,
                                                    providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        if "input_ids" not in self.inputs:
            raise JudgeSetupError(f"{folder}/model.onnx takes {self.inputs!r}, not input_ids.")
        unknown = set(self.inputs) - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown:
            raise JudgeSetupError(f"{folder}/model.onnx also takes {sorted(unknown)!r}: only "
                                  "input_ids, attention_mask and token_type_ids are fed.")
        outputs = self.session.get_outputs()
        width = outputs[0].shape[-1] if outputs and outputs[0].shape else None
        if isinstance(width, int) and width != len(labels):
            raise JudgeSetupError(f"{folder}: the model has {width} outputs but the label map "
                                  f"names {len(labels)}.")

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        started = time.perf_counter()
        encoding = self.tokenizer.encode(premise, hypothesis)
        feeds = {
            "input_ids": np.array([encoding.ids], dtype=np.int64),
            "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([encoding.type_ids], dtype=np.int64),
        }
        logits = np.asarray(self.session.run(None, {name: feeds[name] for name in self.inputs})[0],
                            dtype=np.float64).reshape(-1)
        if logits.shape[0] != len(self.labels):
            raise JudgeSetupError(f"the model gave {logits.shape[0]} scores for "
                                  f"{len(self.labels)} labels")
        exps = np.exp(logits - logits.max())
        probabilities = exps / exps.sum()
        scores: dict[JudgeLabel, float] = {}
        for label, probability in zip(self.labels, probabilities, strict=True):
            scores[label] = scores.get(label, 0.0) + float(probability)
        best = max(scores, key=lambda label: scores[label])
        return Judgement(
            label=best, model_id=self.model_id,
            latency_ms=(time.perf_counter() - started) * 1000,
            scores=tuple(scores.items()), truncated=bool(encoding.overflowing))
