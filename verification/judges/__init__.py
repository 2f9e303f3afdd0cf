"""The semantic stage's backends (:mod:`verification.entailment`): a local NLI
cross-encoder run with onnxruntime (:mod:`.onnx_nli`) and an
OpenAI-compatible chat endpoint (:mod:`.chat`)."""
