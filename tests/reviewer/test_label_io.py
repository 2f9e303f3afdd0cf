"""Labels export and import: a round trip into a clean database, formula-safe
cells, a file with every kind of bad row reported by line while the good ones
are kept, whole-file refusals, and the labels page."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from reviewer.models import CalibrationItem, MatchLabel, Surface, Workspace
from reviewer.services import label_io
from reviewer.services.calibration import content_hash
from reviewer.services.label_io import ImportLimits, LabelImportRefused, labels_import

pytestmark = pytest.mark.django_db

T1 = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)
T2 = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)
T3 = datetime(2026, 3, 3, 8, 5, 1, tzinfo=UTC)
SOURCE = "Before the window.\nThe plan pays =SUM(A1) on\nthe first day. After it."
WINDOW = (19, 45)  # "The plan pays =SUM(A1) on\n"


@pytest.fixture
def people() -> dict[str, Any]:
    roles = {"sue": "supervisor", "cal": "calibrator", "rita": "reviewer"}
    users = {}
    for name, role in roles.items():
        users[name] = get_user_model().objects.create(username=name)
        users[name].groups.add(Group.objects.get(name=role))
        # Label files pool every workspace: these people are in all (the one).
        Workspace.objects.default().users.add(users[name])
    return users


@pytest.fixture
def surfaces() -> dict[str, Surface]:
    return {name: Surface.objects.create(name=name) for name in ("chat", "legal")}


def _item(surface: Surface, quote: str, source: str, start: int, end: int, score: float,
          position: int, **fields: Any) -> CalibrationItem:
    return CalibrationItem.objects.create(
        surface=surface, quote=quote, source_text=source, match_start=start, match_end=end,
        score=score, stratum=fields.pop("stratum", "0.85–0.90"), position=position,
        content_hash=content_hash(surface.name, quote, source[start:end]), **fields)


def _label(item: CalibrationItem, name: str, label: str, when: datetime,
           user: Any = None) -> MatchLabel:
    return MatchLabel.objects.create(item=item, labeller=user, labeller_name=name,
                                     label=label, created=when)


@pytest.fixture
def labelled(surfaces: dict[str, Surface], people: dict[str, Any]) -> dict[str, Any]:
    """Three items: one in chat with a formula-like quote, a multi-line source
    text and two disagreeing labels settled "changed"; one in chat labelled
    by "-dash" (a formula-like name); one in legal, unlabelled-then-labelled."""
    chat, legal = surfaces["chat"], surfaces["legal"]
    first = _item(chat, "=SUM(A1) on the first day", SOURCE, *WINDOW, 0.8731234567891, 1,
                  settled_label="changed", settled_by=people["sue"], settled_at=T3)
    _label(first, "cal", "faithful", T1, people["cal"])
    _label(first, "bob", "changed", T2)
    second = _item(chat, "Employer match vests", "Employer match vests after two years.",
                   0, 20, 1.0, 2)
    _label(second, "-dash", "other", T3)
    third = _item(legal, "a quote", "Some legal text with a quote in it.", 21, 28, 0.5, 1)
    _label(third, "cal", "faithful", T2, people["cal"])
    return {"items": [first, second, third]}


def _body(response: Any) -> str:
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def _snapshot() -> set[tuple[Any, ...]]:
    """Every label with its item's content, as the round trip must keep it."""
    return {(label.item.surface.name, label.item.quote, label.item.source_text,
             label.item.match_start, label.item.match_end, label.item.score, label.label,
             label.labeller_name, label.created, label.item.settled_label)
            for label in MatchLabel.objects.select_related("item__surface")}


def _upload(client: Any, name: str, data: bytes, fmt: str = "auto") -> Any:
    return client.post("/labels/import", {"file": SimpleUploadedFile(name, data),
                                          "format": fmt})


# ---- export ----------------------------------------------------------------------

def test_the_csv_export_has_one_row_per_label_with_formula_cells_escaped(
    client: Any, people: dict[str, Any], labelled: dict[str, Any]
) -> None:
    client.force_login(people["cal"])
    response = client.get("/labels/export?format=csv&surface=chat")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert re.fullmatch(r'attachment; filename="citeguard-labels-chat-\d{8}-\d{4}\.csv"',
                        response["Content-Disposition"])
    rows = list(csv.DictReader(io.StringIO(_body(response))))
    assert [(r["labeller"], r["label"]) for r in rows] == [
        ("cal", "faithful"), ("bob", "changed"), ("'-dash", "other")]
    first = rows[0]
    assert first["quote"] == "'=SUM(A1) on the first day"
    assert first["source_text"] == SOURCE  # a multi-line cell, quoted
    assert (first["match_start"], first["match_end"]) == ("19", "45")
    assert first["score"] == "0.8731234567891"
    assert first["time"] == "2026-03-01T09:30:15.123456+00:00"
    assert first["settled_label"] == "changed" and rows[2]["settled_label"] == ""
    assert first["surface"] == "chat"


def test_the_jsonl_export_of_every_surface_keeps_values_as_they_are(
    client: Any, people: dict[str, Any], labelled: dict[str, Any]
) -> None:
    client.force_login(people["sue"])
    response = client.get("/labels/export?format=jsonl")
    assert response.status_code == 200
    assert "citeguard-labels-all-" in response["Content-Disposition"]
    rows = [json.loads(line) for line in _body(response).splitlines()]
    assert [(r["surface"], r["labeller"]) for r in rows] == [
        ("chat", "cal"), ("chat", "bob"), ("chat", "-dash"), ("legal", "cal")]
    assert rows[0]["quote"] == "=SUM(A1) on the first day"
    assert rows[0]["score"] == 0.8731234567891 and rows[0]["match_start"] == 19
    assert rows[3]["time"] == "2026-03-02T17:00:00+00:00"


def test_the_export_refuses_an_unknown_format_or_surface(
    client: Any, people: dict[str, Any], labelled: dict[str, Any]
) -> None:
    client.force_login(people["sue"])
    assert client.get("/labels/export?format=xlsx").status_code == 400
    missing = client.get("/labels/export?format=csv&surface=nowhere")
    assert missing.status_code == 404 and "no surface 'nowhere'" in missing.content.decode()


# ---- round trip ------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_an_export_imports_into_a_clean_database_unchanged(
    client: Any, people: dict[str, Any], labelled: dict[str, Any], fmt: str
) -> None:
    before = _snapshot()
    client.force_login(people["sue"])
    exported = _body(client.get(f"/labels/export?format={fmt}")).encode()
    MatchLabel.objects.all().delete()
    CalibrationItem.objects.all().delete()

    response = _upload(client, f"labels.{fmt}", exported)
    assert response.status_code == 200
    report = response.context["report"]
    assert (report.rows, report.labels_created, report.items_created,
            report.duplicates_skipped, report.items_settled, report.errors) == (
        4, 4, 3, 0, 1, ())
    assert _snapshot() == before
    assert CalibrationItem.objects.count() == 3  # the two labels of one item share it
    assert set(CalibrationItem.objects.values_list("stratum", flat=True)) == {"imported"}
    assert not MatchLabel.objects.filter(imported=False).exists()
    assert not MatchLabel.objects.filter(labeller__isnull=False).exists()
    chat = CalibrationItem.objects.filter(surface__name="chat").order_by("position")
    assert [item.position for item in chat] == [1, 2]
    assert chat[0].quote.startswith("=SUM") and chat[0].settled_by is None

    # The same file again: every label is there already.
    again = _upload(client, f"labels.{fmt}", exported).context["report"]
    assert (again.labels_created, again.items_created, again.duplicates_skipped) == (0, 0, 4)
    assert MatchLabel.objects.count() == 4


def test_an_import_finds_the_items_here_and_adds_new_ones_after_them(
    people: dict[str, Any], labelled: dict[str, Any]
) -> None:
    """A row naming a match already here (same surface, quote and window,
    whatever the context around it) labels that item; its score stays."""
    third = labelled["items"][2]
    rows = [
        {"surface": "legal", "quote": "a quote", "source_text": "with a quote",
         "match_start": 5, "match_end": 12, "score": 0.99, "label": "changed",
         "labeller": "zoe", "time": "2026-04-01T10:00:00Z"},
        {"surface": "legal", "quote": "new", "source_text": "new", "score": 0.7,
         "label": "other", "labeller": "zoe"},
    ]
    data = "".join(json.dumps(row) + "\n" for row in rows).encode()
    report = labels_import(data=data, fmt="jsonl", imported_by=people["sue"])
    assert (report.labels_created, report.items_created, report.errors) == (2, 1, ())
    third.refresh_from_db()
    assert third.score == 0.5
    assert list(third.labels.values_list("labeller_name", "label")) == [
        ("cal", "faithful"), ("zoe", "changed")]
    assert third.labels.get(labeller_name="zoe").created == datetime(2026, 4, 1, 10,
                                                                     tzinfo=UTC)
    new = CalibrationItem.objects.get(surface__name="legal", quote="new")
    assert (new.position, new.match_start, new.match_end, new.stratum) == (2, 0, 3, "imported")
    assert new.content_hash == content_hash("legal", "new", "new")


# ---- bad rows --------------------------------------------------------------------

def _good(**fields: Any) -> dict[str, Any]:
    return {"surface": "chat", "quote": "the quote", "source_text": "here is the quote.",
            "match_start": 8, "match_end": 17, "score": 0.9, "label": "faithful",
            "labeller": "ann", "time": "2026-05-01T12:00:00+02:00", **fields}


def test_a_jsonl_file_with_bad_rows_reports_each_by_line_and_keeps_the_good_ones(
    people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    no_label = _good()
    del no_label["label"]
    lines: list[str | bytes] = [
        json.dumps(_good()),                                             # 1 good
        '{"surface": "chat", "quote": ',                                 # 2 not JSON
        json.dumps(no_label),                                            # 3 missing label
        json.dumps(_good(label="maybe")),                                # 4 unknown label
        json.dumps(_good(score=1.5)),                                    # 5 score past 1
        json.dumps(_good()).replace("0.9", "NaN"),                       # 6 score not finite
        json.dumps(_good(surface="nowhere")),                            # 7 unknown surface
        json.dumps(_good(quote="  ")),                                   # 8 empty quote
        json.dumps(_good(quote="x" * 51)),                               # 9 too long
        json.dumps(_good(match_end=19)),                                 # 10 window past end
        json.dumps(_good(match_end=None)),                               # 11 start alone
        json.dumps(_good(labeller="l" * 151)),                           # 12 long labeller
        json.dumps(_good(time="yesterday")),                             # 13 not ISO 8601
        json.dumps(_good(quote="the\0quote")),                           # 14 NUL
        json.dumps(_good(quote="the quote")).replace("the quote", "\\ud800", 1),  # 15
        json.dumps(_good(labeller="bob", time="2026-05-02T00:00:00")),   # 16 second label
        json.dumps(_good(labeller="cat")),                               # 17 a third label
        json.dumps(_good(label="other")),                                # 18 duplicate
        "",                                                              # 19 blank
        "[1, 2]",                                                        # 20 not an object
        json.dumps(_good(quote="bad X")).encode().replace(b"X", b"\xff"),  # 21 not UTF-8
        json.dumps(_good(quote="other", source_text="other", match_start=None,
                         match_end=None, time=None, labeller="=cmd")),   # 22 good
        "[" * 100_000 + "]" * 100_000,                                   # 23 too deep
    ]
    data = b"\n".join(line if isinstance(line, bytes) else line.encode() for line in lines)
    before = timezone.now()
    report = labels_import(data=data, fmt="jsonl", imported_by=people["sue"],
                           limits=ImportLimits(text_chars=50))
    by_line = dict(report.errors)
    assert sorted(by_line) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 20, 21, 23]
    assert [line for line, _ in report.errors] == sorted(by_line)
    assert by_line[2].startswith("not valid JSON")
    assert by_line[3] == "label is missing"
    assert by_line[4] == "label must be one of faithful, changed, other, not 'maybe'"
    assert by_line[5] == by_line[6].replace("nan", "1.5") == \
        "score must be a number from 0 to 1, not 1.5"
    assert by_line[7].startswith("there is no surface 'nowhere' here (surfaces: chat, legal)")
    assert by_line[8] == "quote is empty"
    assert by_line[9] == "quote has 51 characters; the limit is 50"
    assert by_line[10] == "the window 8–19 is not inside the source text (18 characters)"
    assert by_line[11] == "match_start and match_end go together: give both or neither"
    assert by_line[12] == "labeller has 151 characters; the limit is 150"
    assert by_line[13] == "time must be an ISO 8601 date and time, not 'yesterday'"
    assert by_line[14] == "quote holds a NUL character"
    assert "not valid UTF-8" in by_line[15] and "not valid UTF-8" in by_line[21]
    assert by_line[17] == "this match has 2 labels already (ann, bob); a third is not imported"
    assert by_line[20] == "a line must hold one JSON object"
    assert by_line[23] == "not valid JSON (nested too deeply)"
    assert (report.rows, report.labels_created, report.items_created,
            report.duplicates_skipped) == (22, 3, 2, 1)

    item = CalibrationItem.objects.get(quote="the quote")
    assert list(item.labels.values_list("labeller_name", "label", "created")) == [
        ("ann", "faithful", datetime(2026, 5, 1, 10, tzinfo=UTC)),  # +02:00 in the file
        ("bob", "faithful", datetime(2026, 5, 2, tzinfo=UTC)),  # naive: UTC
    ]
    whole = CalibrationItem.objects.get(quote="other")
    assert (whole.match_start, whole.match_end) == (0, 5)  # no offsets: the whole text
    assert whole.labels.get().labeller_name == "=cmd"  # JSONL cells are never escaped
    assert before <= whole.labels.get().created <= timezone.now()  # no time: now


def test_a_csv_file_with_bad_rows_counts_lines_of_multi_line_cells(
    people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    text = (
        "surface,quote,source_text,score,label,labeller,notes\r\n"       # 1
        'chat,the quote,"here is\nthe quote\nover lines",0.9,faithful,ann,\r\n'  # 2-4 good
        "chat,the quote,here,0.9,same,ann,\r\n"                           # 5 unknown label
        "chat,too,few\r\n"                                                # 6 cells
        "chat,q,src,high,faithful,ann,\r\n"                               # 7 score
        "chat,'=HYPERLINK(1),'=HYPERLINK(1) here,0.5,changed,'-amy,\r\n"  # 8 good, escaped
        "\r\n"                                                            # 9 blank
        'legal,"a ""quoted"" quote",x,0.1,other,"ann\nsmith",note\r\n'   # 10-11 good
        "chat,q,src,0.5,faithful,,\r\n"                                   # 12 no labeller
        'chat,"two\nlines",src,0.5,wrong,ann,\r\n'                       # 13-14: first line
    )
    report = labels_import(data=text.encode(), fmt="csv", imported_by=people["sue"])
    assert [line for line, _ in report.errors] == [5, 6, 7, 12, 13]
    assert dict(report.errors)[6] == "the row has 3 cells; the header has 7"
    assert dict(report.errors)[12] == "labeller is missing"
    assert (report.labels_created, report.items_created) == (3, 3)
    escaped = CalibrationItem.objects.get(surface__name="chat", quote="=HYPERLINK(1)")
    assert escaped.source_text == "=HYPERLINK(1) here"
    assert escaped.labels.get().labeller_name == "-amy"
    assert MatchLabel.objects.filter(labeller_name="ann\nsmith", label="other").exists()
    assert CalibrationItem.objects.get(quote="the quote").source_text == \
        "here is\nthe quote\nover lines"


def test_a_csv_file_with_a_wrong_header_is_one_error_and_imports_nothing(
    people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    text = "surface,quote,text,score,label,label\nchat,q,q,0.5,faithful,faithful\n"
    report = labels_import(data=text.encode(), fmt="csv", imported_by=people["sue"])
    assert len(report.errors) == 1
    line, message = report.errors[0]
    assert line == 1
    assert "it lacks source_text, labeller" in message and "it repeats label" in message
    assert not MatchLabel.objects.exists() and not CalibrationItem.objects.exists()


def test_a_file_past_the_row_limit_is_refused_whole(
    people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    data = "".join(json.dumps(_good(labeller=f"p{n}")) + "\n" for n in range(3)).encode()
    with pytest.raises(LabelImportRefused, match="3 rows; the limit is 2"):
        labels_import(data=data, fmt="jsonl", imported_by=people["sue"],
                      limits=ImportLimits(max_rows=2))
    assert not MatchLabel.objects.exists() and not CalibrationItem.objects.exists()


def test_only_a_supervisor_may_import_even_past_the_view(
    people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    with pytest.raises(LabelImportRefused, match="supervisor"):
        labels_import(data=json.dumps(_good()).encode(), fmt="jsonl",
                      imported_by=people["cal"])
    assert not MatchLabel.objects.exists()


# ---- the page and its import -----------------------------------------------------

def test_an_oversize_file_is_refused_with_a_sentence(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    client.force_login(people["sue"])
    line = (json.dumps(_good()) + "\n").encode()
    data = line * (label_io.DEFAULT_LIMITS.max_bytes // len(line) + 1)
    response = _upload(client, "big.jsonl", data)
    assert response.status_code == 400
    assert "the limit is 10 MB (10,000,000 bytes)" in response.content.decode()
    assert not MatchLabel.objects.exists()


@pytest.mark.parametrize(("name", "fmt", "sentence"), [
    (None, "auto", "Choose a CSV or JSONL file of labels to import."),
    ("labels.txt", "auto", "Cannot tell the format of &#x27;labels.txt&#x27; from its name"),
    ("labels.csv", "xml", "The format must be CSV or JSONL, not &#x27;xml&#x27;."),
])
def test_an_import_without_a_file_or_format_is_a_400_with_a_sentence(
    client: Any, people: dict[str, Any], name: str | None, fmt: str, sentence: str
) -> None:
    client.force_login(people["sue"])
    data: dict[str, Any] = {"format": fmt}
    if name:
        data["file"] = SimpleUploadedFile(name, json.dumps(_good()).encode())
    response = client.post("/labels/import", data)
    assert response.status_code == 400
    assert sentence in response.content.decode()


def test_the_format_chosen_overrides_the_file_name(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    client.force_login(people["sue"])
    response = _upload(client, "labels.txt", json.dumps(_good()).encode(), fmt="jsonl")
    assert response.status_code == 200
    assert response.context["report"].labels_created == 1


def test_the_import_report_lists_bad_rows_escaped(
    client: Any, people: dict[str, Any], surfaces: dict[str, Surface]
) -> None:
    client.force_login(people["sue"])
    data = "\n".join([json.dumps(_good()), json.dumps(_good(surface="<script>x</script>"))])
    response = _upload(client, "labels.jsonl", data.encode())
    assert response.status_code == 200
    html = response.content.decode()
    assert "1 label and 1 match imported" in html and "1 bad row." in html
    table = html.split('class="import-errors"', 1)[1].split("</table>", 1)[0]
    assert "<td>2</td>" in table
    assert "&lt;script&gt;x&lt;/script&gt;" in table and "<script>" not in table


def test_the_labels_page_counts_per_surface_and_offers_import_to_supervisors(
    client: Any, people: dict[str, Any], labelled: dict[str, Any]
) -> None:
    MatchLabel.objects.filter(labeller_name="-dash").update(imported=True)
    client.force_login(people["sue"])
    html = client.get("/labels/").content.decode()
    row = html.split('id="labels-chat"', 1)[1].split("</tr>", 1)[0]
    # items, labelled, labels, faithful, changed, other, imported
    assert re.findall(r"<td>(\d+)</td>", row) == ["2", "2", "3", "1", "1", "1", "1"]
    assert 'href="/labels/export?format=jsonl&amp;surface=chat"' in row
    assert 'id="labels-import"' in html
    client.force_login(people["cal"])
    html = client.get("/labels/").content.decode()
    assert 'id="labels-import"' not in html and 'href="/labels/export?format=csv"' in html
