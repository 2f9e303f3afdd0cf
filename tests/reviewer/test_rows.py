"""insert_rows stores exactly what bulk_create would, on SQLite and PostgreSQL."""

from typing import Any

import pytest
from django.db import connection
from django.forms.models import model_to_dict

from reviewer.models import Answer, AnswerSource, CitationVerdict, SentenceVerdict, Surface
from reviewer.services.rows import insert_rows

pytestmark = pytest.mark.django_db


def new_answer(external_id: str) -> Answer:
    return Answer.objects.create(
        external_id=external_id, surface=Surface.objects.get_or_create(name="rows")[0],
        text="t", verdict="pass", action="serve", coverage=1.0, threshold=0.9, elapsed_ms=1.0,
    )


CITATION = {
    "position": 0, "outcome": "verified-fuzzy", "marker": "S1", "markers": ["S1", "S2"],
    "marker_start": 10, "marker_end": 14, "quote": "“Ünïcode” ﬁ — \\ 'quotes' \"too\"",
    "quote_start": 1, "quote_end": 9, "score": 0.9375, "source_marker": "S1",
    "chunk_start": 0, "chunk_end": None, "message": "a message with % and %s in it",
    "normalizations": ["ligature", "case"],
    "differences": [{"op": "replace", "quote": "7", "source": "10", "reasons": ["number"]},
                    {"nested": {"list": [1, 2.5, None, True]}}],
    "document_id": None, "document_start": None, "document_end": None,
    "pages": [{"page": 3, "rects": [[1.5, 2.25, 3.0, 4.125]]}], "superseded": True,
}


def stored(model: type[Any], answer: Answer) -> list[dict[str, Any]]:
    rows = []
    for obj in model.objects.filter(answer=answer).order_by("pk"):
        row = model_to_dict(obj)
        row.pop("id")
        row.pop("answer")
        row.pop("sentence", None)
        rows.append(row)
    return rows


def test_rows_read_back_as_bulk_create_stores_them() -> None:
    by_orm, by_insert = new_answer("orm"), new_answer("insert")
    sentences = [{"index": i, "start": i * 10, "end": i * 10 + 9, "text": f"Sentence {i}.",
                  "claim": i % 2 == 0, "status": "verified"} for i in range(3)]
    orm_sentences = SentenceVerdict.objects.bulk_create(
        SentenceVerdict(answer=by_orm, **s) for s in sentences)
    CitationVerdict.objects.bulk_create(
        [CitationVerdict(answer=by_orm, sentence=orm_sentences[1], **CITATION)])
    AnswerSource.objects.bulk_create([AnswerSource(answer=by_orm, position=0, marker="S1",
                                                   text="Source\x0btext\n")])

    ids = dict(insert_rows(SentenceVerdict, [{"answer_id": by_insert.pk, **s} for s in sentences],
                           returning=("index", "id")))
    insert_rows(CitationVerdict,
                [{"answer_id": by_insert.pk, "sentence_id": ids[1], **CITATION}])
    # Missing keys take the field's default, as in a model instance.
    insert_rows(AnswerSource, [{"answer_id": by_insert.pk, "position": 0, "marker": "S1",
                                "text": "Source\x0btext\n"}])

    for model in (SentenceVerdict, CitationVerdict, AnswerSource):
        assert stored(model, by_insert) == stored(model, by_orm), model.__name__
    assert stored(AnswerSource, by_insert)[0]["furniture"] == []
    assert CitationVerdict.objects.get(answer=by_insert).sentence.index == 1
    # JSON is stored as JSON, not as a string: the database can look inside it.
    for answer in (by_insert, by_orm):
        assert CitationVerdict.objects.filter(answer=answer, markers__1="S2",
                                              differences__0__reasons__0="number").exists()


def test_returning_pairs_each_row_with_its_id_across_batches() -> None:
    answer = new_answer("many")
    count = 3 * connection.ops.bulk_batch_size(
        [f for f in SentenceVerdict._meta.concrete_fields if not f.primary_key], [None]) + 7
    rows = [{"answer_id": answer.pk, "index": i, "start": i, "end": i + 1, "text": str(i),
             "claim": False, "status": "framing"} for i in range(count)]
    returned = insert_rows(SentenceVerdict, rows, returning=("index", "id"))
    assert len(returned) == count
    by_id = dict(SentenceVerdict.objects.filter(answer=answer).values_list("id", "text"))
    assert all(by_id[pk] == str(index) for index, pk in returned)


def test_a_misspelt_column_is_an_error_not_a_dropped_value() -> None:
    answer = new_answer("typo")
    with pytest.raises(ValueError, match="no column staus"):
        insert_rows(SentenceVerdict, [{"answer_id": answer.pk, "index": 0, "start": 0, "end": 1,
                                       "text": "x", "claim": False, "staus": "framing"}])
    assert not SentenceVerdict.objects.exists()


def test_fields_set_on_save_must_be_given() -> None:
    with pytest.raises(ValueError, match="created is set on save"):
        insert_rows(Surface, [{"name": "no-created"}])
    assert insert_rows(Surface, []) == []
