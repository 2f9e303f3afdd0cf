"""Judges the tests make themselves: no model weights can be fetched here.

``build_tiny_nli`` writes an operator folder (``model.onnx`` built with
``onnx.helper``, ``tokenizer.json`` built with ``tokenizers``, a label map)
whose model is a few arithmetic nodes: it counts the tokens "not" and
"maybe" in the pair and says contradiction for a "not", neutral for a
"maybe", entailment otherwise. Real plumbing, a model whose answer the test
controls.

``LoopbackChat`` is an ``http.server`` on 127.0.0.1 speaking the
chat-completions protocol, answering from a script of responses.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: The tiny model's vocabulary: specials first, then the words the tests use.
VOCAB_WORDS = ("not", "maybe", "the", "plan", "vests", "after", "two", "years", "employer",
               "match", "does", "of", "service", "three", "pays", "bonus", "a", "annual",
               "is", "fee", "no")
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")


def build_tiny_nli(folder: Path, *, max_tokens: int = 64, labels: str = "labels.json") -> Path:
    """Write the tiny NLI model's folder and return it. ``labels``:
    "labels.json" or "config.json" (an ``id2label``), where the map goes."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {token: index for index, token in enumerate((*SPECIALS, *VOCAB_WORDS))}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tokenizer.save(str(folder / "tokenizer.json"))

    # logits = counts(not, maybe) @ W + B, over the tokens the mask keeps.
    watched = numpy_helper.from_array(np.array([[[vocab["not"], vocab["maybe"]]]],
                                               dtype=np.int64), "watched")
    weights = numpy_helper.from_array(np.array([[-5.0, 0.0, 10.0], [-5.0, 10.0, 0.0]],
                                               dtype=np.float32), "W")
    bias = numpy_helper.from_array(np.array([2.0, 1.0, 0.0], dtype=np.float32), "B")
    last = numpy_helper.from_array(np.array([2], dtype=np.int64), "last_axis")
    tokens_axis = numpy_helper.from_array(np.array([1], dtype=np.int64), "tokens_axis")
    nodes = [
        helper.make_node("Unsqueeze", ["input_ids", "last_axis"], ["ids3"]),
        helper.make_node("Equal", ["ids3", "watched"], ["hits"]),
        helper.make_node("Cast", ["hits"], ["hits_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["attention_mask", "last_axis"], ["mask3"]),
        helper.make_node("Cast", ["mask3"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["hits_f", "mask_f"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "tokens_axis"], ["counts"], keepdims=0),
        helper.make_node("MatMul", ["counts", "W"], ["scaled"]),
        helper.make_node("Add", ["scaled", "B"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny-nli",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                       ["batch", "tokens"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])],
        initializer=[watched, weights, bias, last, tokens_axis])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))

    names = ["entailment", "neutral", "contradiction"]
    config: dict[str, Any] = {"max_position_embeddings": max_tokens}
    if labels == "config.json":
        config["id2label"] = {str(i): name for i, name in enumerate(names)}
    else:
        (folder / "labels.json").write_text(json.dumps(names))
    (folder / "config.json").write_text(json.dumps(config))
    return folder


@dataclass
class Reply:
    """One scripted response: a chat answer ``content`` (status 200), or a
    raw ``status``/``body``/``headers``; ``delay`` seconds before it."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    model: str = "loopback-judge-1"


#: As an answer's evidence: the server quotes the first sentence of the
#: passage it was sent (what an honest judge does).
FROM_PASSAGE = "<<the first sentence of the passage>>"


def answer(label: str, evidence: str | None = FROM_PASSAGE) -> Reply:
    return Reply(content=json.dumps({"label": label, "evidence": evidence}))


def _first_sentence(request: dict[str, Any]) -> str:
    passage = request["messages"][-1]["content"].split("PASSAGE:\n", 1)[1]
    passage = passage.split("\n\nCLAIM:", 1)[0]
    end = passage.find(". ")
    return passage if end < 0 else passage[:end + 1]


@dataclass
class LoopbackChat:
    """The server's script (taken in order; the last reply repeats) and the
    request bodies it received."""

    url: str = ""
    script: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def next_reply(self) -> Reply:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]


@contextmanager
def loopback_chat(*replies: Reply) -> Iterator[LoopbackChat]:
    """A chat-completions server on 127.0.0.1 (a free port) for the block."""
    state = LoopbackChat(script=list(replies) or [answer("not enough information", None)])
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with lock:
                state.requests.append(body)
                state.headers.append(dict(self.headers))
                reply = state.next_reply()
            if self.path != "/v1/chat/completions":
                reply = Reply(status=404, body=b'{"error": "no such path"}')
            content = reply.content
            if content is not None and FROM_PASSAGE in content:
                content = content.replace(FROM_PASSAGE, json.dumps(_first_sentence(body))[1:-1])
            if reply.delay:
                time.sleep(reply.delay)
            data = reply.body
            if data is None:
                data = json.dumps({
                    "id": "chatcmpl-loopback", "object": "chat.completion",
                    "model": reply.model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                }).encode()
            try:
                self.send_response(reply.status)
                for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
