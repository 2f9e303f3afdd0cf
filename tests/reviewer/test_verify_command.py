"""`manage.py verify` as a user runs it: real processes, real exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.once import ONCE

ROOT = Path(__file__).resolve().parents[2]
pytestmark = ONCE  # the command runs with a database of its own (none) whatever the pass
SOURCE = "Employer  match vests after\ntwo years of ser-\nvice."


def answer(text: str, **extra: object) -> dict[str, object]:
    return {"answer": text, "sources": [{"marker": "S1", "text": SOURCE}], **extra}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "verify", *args],
        cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60,
        # No database is configured to exist: the command must not need one.
        env={"PATH": "/usr/bin:/bin", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"},
    )


def test_verified_answer_exits_zero_with_report(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(answer(
        'The plan says "Employer match vests after two years" [S1].', id="a-1")))
    result = run(str(path))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["id"] == "a-1"
    assert report["verdict"] == "pass"
    citation = report["sentences"][0]["citations"][0]
    assert citation["outcome"] == "verified"
    assert SOURCE[citation["chunk_start"]:citation["chunk_end"]] == (
        "Employer  match vests after\ntwo years"
    )


def test_flagged_answer_exits_one() -> None:
    result = run("-", stdin=json.dumps(answer(
        'The plan says "Employer match vests immediately" [S1].')))
    assert result.returncode == 1
    assert json.loads(result.stdout)["sentences"][0]["citations"][0]["outcome"] == (
        "quote-not-found"
    )


def test_fabricated_marker_fails_and_exits_one() -> None:
    result = run("-", stdin=json.dumps(answer("Vesting is immediate [S9].")))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["verdict"] == "fail"
    assert report["counts"]["fabricated-marker"] == 1


def test_jsonl_gives_one_report_per_line_in_order(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    lines = [
        answer('"Employer match vests after two years" [S1].', id="ok"),
        answer("It vests at once [S9].", id="bad"),
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    result = run(str(path))
    assert result.returncode == 1
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["id"], r["verdict"]) for r in reports] == [("ok", "pass"), ("bad", "fail")]


def test_threshold_option_changes_the_decision() -> None:
    payload = json.dumps(answer('"Employer match vest after two years" [S1].'))
    assert run("-", stdin=payload).returncode == 0  # one letter off: verified-fuzzy
    strict = run("--threshold", "1.0", "-", stdin=payload)
    assert strict.returncode == 1
    report = json.loads(strict.stdout)
    assert report["threshold"] == 1.0
    assert report["sentences"][0]["citations"][0]["outcome"] == "quote-not-found"


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("{not json", "malformed JSON at line 1, column 2"),
        ('{"sources": []}', '"answer" is required'),
        ('{"answer": "x", "sources": [{"text": "y"}]}', 'sources[0] needs a "marker"'),
        ('{"answer": "x", "sources": [{"marker": "S1", "text": "a"}, {"marker": "s1", "text": '
         '"b"}]}', "given twice"),
        ("", "malformed JSON"),
    ],
)
def test_bad_input_exits_two_with_one_line_message(stdin: str, message: str) -> None:
    result = run("-", stdin=stdin)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_jsonl_line_is_named_and_other_lines_still_reported(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(
        json.dumps(answer('"Employer match vests after two years" [S1].', id="first")) + "\n"
        + '{"answer": 3, "sources": []}\n'
        + json.dumps(answer('"Employer match vests after two years" [S1].', id="third")) + "\n"
    )
    result = run(str(path))
    assert result.returncode == 2
    assert [json.loads(x)["id"] for x in result.stdout.splitlines()] == ["first", "third"]
    assert result.stderr.strip() == (
        'CommandError: line 2: "answer" is required and must be a string'
    )


def test_missing_file_and_bad_threshold_exit_two(tmp_path: Path) -> None:
    missing = run(str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = run("--threshold", "1.5", "-", stdin=json.dumps(answer("x")))
    assert bad.returncode == 2 and "threshold must be in (0, 1]" in bad.stderr


def test_hostile_html_is_reported_as_plain_text() -> None:
    hostile = '<script>alert(1)</script> "Employer match vests after two years" [S1].'
    result = run("-", stdin=json.dumps(answer(hostile)))
    assert result.returncode == 0
    assert json.loads(result.stdout)["sentences"][0]["text"].startswith("<script>")


def test_vendor_formats_are_converted_offline(tmp_path: Path) -> None:
    fixture = json.loads((ROOT / "tests/verification/formats/openai_file_search.json")
                         .read_text())
    del fixture["format"]
    path = tmp_path / "openai.json"
    path.write_text(json.dumps(fixture))
    result = run("--format", "openai", str(path))
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert any("quotes were not available" in note for note in report["notes"])
    outcomes = {c["outcome"] for s in report["sentences"] for c in s["citations"]}
    assert outcomes <= {"unquoted", "fabricated-marker"} and "unquoted" in outcomes
    anthropic = (ROOT / "tests/verification/formats/anthropic_text.json").read_text()
    result = run("-", stdin=anthropic)  # the "format" key inside is enough
    assert result.returncode in (0, 1), result.stderr
    assert {c["outcome"] for s in json.loads(result.stdout)["sentences"]
            for c in s["citations"]} & {"verified", "verified-fuzzy"}


def test_a_malformed_vendor_payload_exits_two_naming_the_path() -> None:
    result = run("--format", "anthropic", "-", stdin=json.dumps({"request": {}, "response": {}}))
    assert result.returncode == 2
    assert "request" in result.stderr and "Traceback" not in result.stderr
