import pytest

from verification.payload import PayloadError, SourceRef, parse_answer_payload


def test_full_payload_is_parsed_and_markers_canonicalised() -> None:
    payload = parse_answer_payload({
        "id": 7, "surface": "benefits", "model": "m-1", "question": "Q?",
        "answer": "A [1].",
        "sources": [{"marker": 1, "text": "t"}, {"marker": "[s2]", "chunk": 42},
                    {"marker": "S3", "document": 5, "start": 100, "end": 900}],
    })
    assert payload.id == "7" and payload.surface == "benefits" and payload.question == "Q?"
    assert payload.sources == (
        SourceRef(marker="1", text="t"),
        SourceRef(marker="S2", chunk=42),
        SourceRef(marker="S3", document=5, start=100, end=900),
    )
    assert payload.sources[0].is_inline and not payload.sources[1].is_inline


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "must be a JSON object"),
        ({"sources": []}, '"answer" is required'),
        ({"answer": "x"}, '"sources" is required'),
        ({"answer": "x", "sources": ["S1"]}, "sources[0] must be an object"),
        ({"answer": "x", "sources": [{"marker": " ", "text": "t"}]}, 'needs a "marker"'),
        ({"answer": "x", "sources": [{"marker": "S1"}]}, 'needs "text", "chunk" or "document"'),
        ({"answer": "x", "sources": [{"marker": "S1", "text": 3}]}, "text must be a string"),
        ({"answer": "x", "sources": [{"marker": "S1", "chunk": -1}]}, "non-negative integer"),
        ({"answer": "x", "sources": [{"marker": "S1", "chunk": True}]}, "non-negative integer"),
        ({"answer": "x", "sources": [{"marker": "S1", "document": 1, "start": 9, "end": 3}]},
         "end (3) is before start (9)"),
        ({"answer": "x", "sources": [{"marker": "S1", "text": "a"}, {"marker": "s1", "text": "b"}]},
         "given twice"),
        ({"answer": "x", "sources": [], "id": {"a": 1}}, '"id" must be a string'),
    ],
)
def test_bad_payloads_name_the_problem(data: object, message: str) -> None:
    with pytest.raises(PayloadError, match=None) as caught:
        parse_answer_payload(data)
    assert message in str(caught.value)
