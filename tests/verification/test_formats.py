"""convert(): Anthropic and OpenAI answers to the native payload, then verified.

The fixtures in ``formats/`` are shaped like the vendors' documented JSON: an
Anthropic Messages request with citation-enabled documents and its response
(text blocks with ``char_location``, ``content_block_location`` and
``page_location`` citations), and an OpenAI Responses request with the
``file_search`` tool and ``include: ["file_search_call.results"]`` and its
response (a ``file_search_call`` with results, a ``message`` whose
``output_text`` carries ``file_citation`` annotations).
"""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from verification import Report, Source, verify_answer
from verification.formats import QUOTES_UNAVAILABLE, FormatError, convert
from verification.payload import parse_answer_payload

FIXTURES = Path(__file__).parent / "formats"
PAGES: list[str] = json.loads((FIXTURES / "anthropic_pdf_pages.json").read_text())

PLAN = (
    "Summary Plan Description, Section 4. Eligibility: employees may join the plan after "
    "90 days of service. The employer matches 50% of contributions up to 6% of pay. "
    "Employer matching contributions vest after two years of service. Employee salary "
    "deferrals are always fully vested."
)
LEAVE = (
    "Primary caregivers receive 16 weeks of parental leave at full pay.\n\n"
    "Secondary caregivers receive 6 weeks of parental leave at full pay.\n\n"
    "Leave must begin within 12 months of the birth or adoption."
)
TRAVEL = (
    "Economy class is required for flights under six hours. Business class may be booked "
    "for flights of six hours or longer with director approval."
)
SPD_A = ("Employer matching contributions vest after two years of service. Employee salary "
         "deferrals are always fully vested.")
SPD_B = "The employer matches 50% of contributions up to 6% of pay."
FAQ = "Primary caregivers receive 16 weeks of parental leave at full pay."

#: What convert() inserts into an Anthropic answer: a quote block and its marker.
INSERTED = re.compile(r' ?<quote source="S\d+">.*?</quote> \[S\d+\]', re.DOTALL)


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return data


def extract(pdf: bytes) -> list[str]:
    """The application's PDF extractor, stubbed: the fixture's pages."""
    assert pdf.startswith(b"%PDF-1.7")
    return list(PAGES)


def verified(native: dict[str, Any]) -> Report:
    payload = parse_answer_payload(native)
    sources = [Source(marker=s.marker, text=s.text or "") for s in payload.sources]
    return verify_answer(payload.answer, sources, answer_id=payload.id)


def citation(data: dict[str, Any], block: int, index: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = data["response"]["content"][block]["citations"][index]
    return found


def outcomes(report: Report) -> list[tuple[str, str | None]]:
    return [(c.outcome, c.marker) for c in report.citations]


def conversation(documents: list[dict[str, Any]], content: list[dict[str, Any]],
                 **response: Any) -> dict[str, Any]:
    """A minimal Anthropic pair: one user turn holding ``documents``."""
    return {
        "format": "anthropic",
        "request": {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
            {"role": "user", "content": [*documents, {"type": "text", "text": "Question?"}]},
        ]},
        "response": {"id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
                     "model": "claude-sonnet-4-5", "content": content,
                     "stop_reason": "end_turn", "stop_sequence": None,
                     "usage": {"input_tokens": 610, "output_tokens": 42}, **response},
    }


def text_document(data: str, title: str | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "type": "document", "source": {"type": "text", "media_type": "text/plain", "data": data},
        "citations": {"enabled": True},
    }
    if title is not None:
        document["title"] = title
    return document


# --------------------------------------------------------------------------- Anthropic


def test_anthropic_conversion_field_by_field() -> None:
    native = convert(load("anthropic_text"))

    assert list(native) == ["id", "surface", "model", "question", "answer", "sources", "notes"]
    assert native["id"] is None  # the caller's id only: it is the idempotency key
    assert native["surface"] == "benefits"
    assert native["model"] == "claude-sonnet-4-5-20250929"
    assert native["question"] == (
        "When does the employer match vest, and how much parental leave do I get?"
    )
    # Every request document is a source, cited or not; a custom content
    # document's blocks are joined with a blank line.
    assert native["sources"] == [
        {"marker": "S1", "text": PLAN},
        {"marker": "S2", "text": LEAVE},
        {"marker": "S3", "text": TRAVEL},
    ]
    assert native["answer"] == (
        "Based on the plan documents:\n\n"
        "Employer matching contributions vest after two years of service"
        ' <quote source="S1">Employer matching contributions vest after two years of service. '
        "</quote> [S1], while your own salary deferrals are always fully vested"
        ' <quote source="S1">Employee salary deferrals are always fully vested.</quote> [S1].'
        "\n\nAs a primary caregiver you get 16 weeks of parental leave at full pay"
        ' <quote source="S2">Primary caregivers receive 16 weeks of parental leave at full pay.'
        "</quote> [S2]. Secondary caregivers get 6 weeks, and leave must start within 12 months"
        ' of the birth or adoption <quote source="S2">Secondary caregivers receive 6 weeks of'
        " parental leave at full pay.\n\nLeave must begin within 12 months of the birth or"
        " adoption.</quote> [S2]."
    )
    assert native["notes"] == [
        "Sources are the request's documents: [S1] Retirement Plan SPD (plain text); "
        "[S2] Parental Leave FAQ (custom content); [S3] Travel Policy (plain text).",
        "Vendor message id: msg_01XFDUDYJgAACzvnptvVoYEL.",
    ]


def test_anthropic_answer_is_the_vendor_text_with_quotes_inserted() -> None:
    data = load("anthropic_text")
    native = convert(data)
    vendor = "".join(block["text"] for block in data["response"]["content"])
    assert INSERTED.sub("", native["answer"]) == vendor


def test_faithful_char_location_citations_verify_where_the_vendor_said() -> None:
    data = load("anthropic_text")
    report = verified(convert(data))

    assert report.verdict == "pass"
    assert outcomes(report) == [("verified", "S1"), ("verified", "S1"),
                                ("verified", "S2"), ("verified", "S2")]
    assert report.coverage == 1.0
    first, second = report.citations[:2]
    vendor_first, vendor_second = citation(data, 1), citation(data, 3)
    # Our own match lands on the vendor's range (its cited_text ends with the
    # sentence chunk's trailing space, which quotes trim).
    assert (first.chunk_start, first.chunk_end) == (
        vendor_first["start_char_index"], vendor_first["end_char_index"] - 1)
    assert (second.chunk_start, second.chunk_end) == (
        vendor_second["start_char_index"], vendor_second["end_char_index"])


def test_a_content_block_range_is_quoted_as_our_blocks() -> None:
    """The API's cited_text is the cited blocks run together; the quote is our
    text of those blocks, which it was checked to equal."""
    data = load("anthropic_text")
    assert citation(data, 7)["cited_text"] == (
        "Secondary caregivers receive 6 weeks of parental leave at full pay."
        "Leave must begin within 12 months of the birth or adoption."
    )
    report = verified(convert(data))
    last = report.citations[-1]
    assert last.outcome == "verified" and last.source_marker == "S2"
    assert last.quote == LEAVE[LEAVE.index("Secondary") :]


def test_a_tampered_number_in_cited_text_is_quote_altered() -> None:
    data = load("anthropic_text")
    cited = citation(data, 1)
    cited["cited_text"] = cited["cited_text"].replace("two years", "three years")

    report = verified(convert(data))
    first = report.citations[0]
    assert first.outcome == "quote-altered"
    assert first.marker == "S1"
    assert "“three” for “two” (number)" in first.message
    assert report.verdict == "flag"


def test_cited_text_that_is_not_in_the_document_is_quote_not_found() -> None:
    data = load("anthropic_text")
    citation(data, 1)["cited_text"] = "Employer contributions vest immediately upon hire."

    report = verified(convert(data))
    assert report.citations[0].outcome == "quote-not-found"
    assert report.citations[0].marker == "S1"
    assert report.verdict == "flag"


def test_a_citation_of_the_wrong_document_is_wrong_source_with_notes() -> None:
    data = load("anthropic_text")
    citation(data, 1)["document_index"] = 2

    native = convert(data)
    assert native["notes"][1:3] == [
        "response.content[1].citations[0]: document_title 'Retirement Plan SPD' is not the "
        "title of document 2 ('Travel Policy').",
        "response.content[1].citations[0]: the vendor's range 163-228 is outside [S3]'s text "
        "(142 characters).",
    ]
    report = verified(native)
    assert report.citations[0].outcome == "wrong-source"
    assert report.citations[0].source_marker == "S1"


def test_document_index_out_of_range_is_a_format_error_naming_the_path() -> None:
    data = load("anthropic_text")
    citation(data, 1)["document_index"] = 3
    with pytest.raises(FormatError) as caught:
        convert(data)
    assert str(caught.value) == (
        "response.content[1].citations[0].document_index 3 is out of range "
        "(the request has 3 documents)"
    )


def test_a_shifted_char_range_is_noted_and_the_quote_still_verifies() -> None:
    data = load("anthropic_text")
    cited = citation(data, 1)
    cited["start_char_index"] -= 2
    cited["end_char_index"] -= 2

    native = convert(data)
    assert "response.content[1].citations[0]: the vendor's start_char_index 161 does not " \
        "match [S1]'s text, found at 163." in native["notes"]
    assert verified(native).verdict == "pass"


def test_the_documented_example_raises_no_location_note() -> None:
    """The citations guide's own example: "The grass is green." at [0, 20),
    whose range includes the space after the sentence."""
    data = conversation(
        [text_document("The grass is green. The sky is blue.", "Example Document")],
        [
            {"type": "text", "text": "According to the document, "},
            {"type": "text", "text": "the grass is green", "citations": [
                {"type": "char_location", "cited_text": "The grass is green.",
                 "document_index": 0, "document_title": "Example Document",
                 "start_char_index": 0, "end_char_index": 20}]},
            {"type": "text", "text": " and "},
            {"type": "text", "text": "the sky is blue", "citations": [
                {"type": "char_location", "cited_text": "The sky is blue.",
                 "document_index": 0, "document_title": "Example Document",
                 "start_char_index": 20, "end_char_index": 36}]},
            {"type": "text", "text": "."},
        ],
    )
    native = convert(data)
    assert native["answer"] == (
        'According to the document, the grass is green <quote source="S1">The grass is green.'
        '</quote> [S1] and the sky is blue <quote source="S1">The sky is blue.</quote> [S1].'
    )
    assert native["notes"] == [
        "Sources are the request's documents: [S1] Example Document (plain text).",
        "Vendor message id: msg_01Aq9w938a90dw8q.",
    ]
    assert native["question"] == "Question?"
    report = verified(native)
    assert report.verdict == "pass" and len(report.sentences) == 1


def test_a_cited_full_stop_keeps_its_quote_in_the_sentence() -> None:
    data = conversation([text_document("Parking is free for staff. Visitors pay.")], [
        {"type": "text", "text": "Staff park for free"},
        {"type": "text", "text": ". ", "citations": [
            {"type": "char_location", "cited_text": "Parking is free for staff. ",
             "document_index": 0, "document_title": None,
             "start_char_index": 0, "end_char_index": 27}]},
        {"type": "text", "text": "Visitors pay five dollars a day."},
    ])
    native = convert(data)
    assert native["answer"] == (
        'Staff park for free <quote source="S1">Parking is free for staff. </quote> [S1]. '
        "Visitors pay five dollars a day."
    )
    report = verified(native)  # the next sentence does not borrow the quote
    assert [s.status for s in report.sentences] == ["verified", "uncited-claim"]


def test_a_quote_closing_tag_inside_cited_text_cannot_break_the_block() -> None:
    source = "Close a quotation with </quote> in the template. Then save the file."
    data = conversation([text_document(source)], [
        {"type": "text", "text": "The template closes quotations with a closing tag", "citations": [
            {"type": "char_location", "cited_text": "Close a quotation with </quote> in the "
             "template. ", "document_index": 0, "document_title": None,
             "start_char_index": 0, "end_char_index": 49}]},
        {"type": "text", "text": "."},
    ])
    native = convert(data)
    assert '<quote source="S1">Close a quotation with \uff1c/quote> in the template. </quote> ' \
        "[S1]." in native["answer"]
    report = verified(native)
    assert outcomes(report) == [("verified", "S1")]
    assert report.citations[0].quote == "Close a quotation with \uff1c/quote> in the template."


def test_the_models_own_quote_in_a_cited_block_is_checked_against_that_document() -> None:
    data = load("anthropic_text")
    data["response"]["content"][1]["text"] = (
        'The plan says "Employer matching contributions vest after two years of service"'
    )
    report = verified(convert(data))
    first = report.citations[0]
    assert (first.outcome, first.marker, first.quote) == (
        "verified", "S1", "Employer matching contributions vest after two years of service")
    assert report.verdict == "pass"


def test_a_cited_block_of_several_sentences_is_noted() -> None:
    data = load("anthropic_text")
    data["response"]["content"][5]["text"] = (
        "Primary caregivers are covered. They get 16 weeks at full pay."
    )
    notes = convert(data)["notes"]
    assert "response.content[5] holds 2 sentences; its citations are attached to the last " \
        "one, so the others may show as uncited claims." in notes


def test_a_block_range_that_does_not_hold_the_text_is_noted() -> None:
    data = load("anthropic_text")
    cited = citation(data, 5)
    cited["cited_text"] = "Leave must begin within 12 months of the birth or adoption."
    native = convert(data)
    assert "response.content[5].citations[0]: the vendor's blocks 0-1 (end exclusive) of [S2] " \
        "do not hold the text; it is in block 2." in native["notes"]


def test_pdf_documents_need_the_applications_extractor() -> None:
    with pytest.raises(FormatError) as caught:
        convert(load("anthropic_pdf"))
    assert str(caught.value).startswith(
        "request.messages[0].content[0] is a PDF document: the verification library cannot "
        "extract PDF text")
    assert "pdf_text=" in str(caught.value)


def test_pdf_pages_become_one_source_and_page_locations_are_checked() -> None:
    native = convert(load("anthropic_pdf"), pdf_text=extract)

    assert native["model"] == "claude-opus-4-1-20250805"
    assert native["question"] == "How many days a week can I work from home?"
    assert native["sources"] == [{"marker": "S1", "text": "\f".join(PAGES)}]
    assert native["answer"] == (
        "According to the handbook, you can work remotely up to three days per week with your "
        "manager's approval <quote source=\"S1\">Remote work is allowed up to three days per "
        'week with manager approval.</quote> [S1]. Expense receipts are due within 30 days '
        '<quote source="S1">Receipts must be submitted within 30 days of purchase.</quote> [S1].'
    )
    # The second citation claims page 2; the sentence is on page 3.
    assert native["notes"] == [
        "Sources are the request's documents: [S1] Employee Handbook 2025 (PDF).",
        "response.content[3].citations[0]: the text is not on the vendor's page 2 of [S1] "
        "but on page 3.",
        "Vendor message id: msg_01Hk3s9yRq4XbKz2LmNw8PtA.",
    ]
    report = verified(native)
    assert report.verdict == "pass"
    assert outcomes(report) == [("verified", "S1"), ("verified", "S1")]


def test_pages_past_the_extracted_text_are_noted() -> None:
    data = load("anthropic_pdf")
    cited = citation(data, 1)
    cited["start_page_number"], cited["end_page_number"] = 7, 8
    notes = convert(data, pdf_text=extract)["notes"]
    assert "response.content[1].citations[0]: the vendor's page range 7-8 (end exclusive) is " \
        "not within [S1]'s 3 extracted pages." in notes


def test_documents_are_numbered_across_messages() -> None:
    data = conversation([text_document("Dental coverage starts after 30 days.", "Dental")], [
        {"type": "text", "text": "Vision coverage starts on day one", "citations": [
            {"type": "char_location", "cited_text": "Vision coverage starts on day one.",
             "document_index": 1, "document_title": "Vision", "start_char_index": 0,
             "end_char_index": 34}]},
        {"type": "text", "text": "."},
    ])
    data["request"]["messages"][1:1] = [
        {"role": "assistant", "content": "Anything else?"},
        {"role": "user", "content": [text_document("Vision coverage starts on day one.", "Vision"),
                                     {"type": "text", "text": "And vision?"}]},
    ]
    native = convert(data)
    assert [s["marker"] for s in native["sources"]] == ["S1", "S2"]
    assert native["sources"][1]["text"] == "Vision coverage starts on day one."
    assert native["question"] == "And vision?"  # the last user turn's text
    assert outcomes(verified(native)) == [("verified", "S2")]


def test_given_fields_override_the_vendors() -> None:
    data = load("anthropic_text")
    data.update(id="ticket-4471", model="claude-via-gateway", question="Vesting?")
    native = convert(data)
    assert (native["id"], native["model"], native["question"]) == (
        "ticket-4471", "claude-via-gateway", "Vesting?")


def test_a_truncated_response_is_noted() -> None:
    data = load("anthropic_text")
    data["response"]["stop_reason"] = "max_tokens"
    assert convert(data)["notes"][1] == (
        "The response stopped early (stop_reason 'max_tokens'): the answer may be incomplete."
    )


def test_thinking_blocks_are_not_part_of_the_answer() -> None:
    data = load("anthropic_text")
    data["response"]["content"].insert(0, {
        "type": "thinking", "thinking": "The user asks about vesting [S9].",
        "signature": "EuYBCkQYAiJA"})
    assert convert(data)["answer"] == convert(load("anthropic_text"))["answer"]


# --------------------------------------------------------------------------- OpenAI


def test_openai_conversion_field_by_field() -> None:
    native = convert(load("openai_file_search"))

    assert native["id"] is None and native["surface"] is None
    assert native["model"] == "gpt-4.1-2025-04-14"
    assert native["question"] == (
        "When does my employer match vest, and what is the parental leave?"
    )
    # One source per file, in first-appearance order; a file's results joined.
    assert native["sources"] == [
        {"marker": "S1", "text": f"{SPD_A}\n\n{SPD_B}"},
        {"marker": "S2", "text": FAQ},
    ]
    assert native["answer"] == (
        "The employer match vests after two years of service, and your own deferrals are "
        "always fully vested. [S1] The match is 50% of your contributions, up to 6% of pay. "
        "[S1]\n\nPrimary caregivers receive 16 weeks of paid parental leave. [S2] Under the "
        "2019 policy, the match vested over five years. [S3]"
    )
    assert native["notes"] == [
        QUOTES_UNAVAILABLE,
        "Sources are the file search results: [S1] retirement_plan_spd.pdf "
        "(file-9FhqPMRJ2nUvXb4ZkTe1Lc, 2 results); [S2] parental_leave_faq.md "
        "(file-3KzQwY7pNvRb2XcLm8TdHs, 1 result).",
        "[S3] cites file-Wm5Tq1Rz8YbVn3XkPc6JdE (retirement_plan_2019.pdf), which no "
        "file_search result returned: it is reported as a fabricated marker.",
        "Vendor response id: resp_68a1f0d9c0b48190a2d4c6e8f0b1a3c5.",
    ]


def test_openai_markers_land_after_the_sentences_they_cite() -> None:
    report = verified(convert(load("openai_file_search")))

    cited = [(s.text, [c.marker for c in s.citations]) for s in report.sentences]
    assert cited == [
        ("The employer match vests after two years of service, and your own deferrals are "
         "always fully vested. [S1]", ["S1"]),
        ("The match is 50% of your contributions, up to 6% of pay. [S1]", ["S1"]),
        ("Primary caregivers receive 16 weeks of paid parental leave. [S2]", ["S2"]),
        ("Under the 2019 policy, the match vested over five years. [S3]", ["S3"]),
    ]
    assert [s.status for s in report.sentences] == [
        "unquoted", "unquoted", "unquoted", "fabricated-marker"]


def test_a_citation_of_a_file_no_search_returned_is_a_fabricated_marker() -> None:
    report = verified(convert(load("openai_file_search")))
    fabricated = [c for c in report.citations if c.outcome == "fabricated-marker"]
    assert [c.marker for c in fabricated] == ["S3"]
    assert report.verdict == "fail"
    assert report.reasons[0] == (
        "1 fabricated marker: it was not among the sources given to the model.")


def test_openai_notes_say_quotes_were_unavailable() -> None:
    data = load("openai_file_search")
    data["response"]["output"][1]["content"][0]["annotations"].pop()  # the 2019 citation
    native = convert(data)
    assert native["notes"][0] == (
        "This format carries no quoted spans: markers and coverage were checked; "
        "quotes were not available."
    )
    report = verified(native)
    # Nothing quoted: every citation is a valid marker, the 2019 sentence is uncited.
    assert {c.outcome for c in report.citations} == {"unquoted"}
    assert report.sentences[-1].status == "uncited-claim"


def test_citations_at_one_index_share_a_bracket() -> None:
    data = load("openai_file_search")
    annotations = data["response"]["output"][1]["content"][0]["annotations"]
    annotations[2]["file_id"], annotations[2]["index"] = "file-9FhqPMRJ2nUvXb4ZkTe1Lc", 218
    answer = convert(data)["answer"]
    assert "paid parental leave. [S1, S2] Under" in answer


def test_markers_at_the_start_and_inside_a_word_are_spaced() -> None:
    data = load("openai_file_search")
    annotations = data["response"]["output"][1]["content"][0]["annotations"]
    annotations[0]["index"], annotations[1]["index"] = 0, 7  # "The emp|loyer"
    native = convert(data)
    assert native["answer"].startswith("[S1] The emp [S1] loyer match")
    assert ("response.output[1].content[0].annotations[1]: index 7 falls inside a word."
            in native["notes"])


def test_citations_without_search_results_are_refused() -> None:
    data = load("openai_file_search")
    data["request"]["include"] = []
    del data["response"]["output"][0]["results"]
    with pytest.raises(FormatError) as caught:
        convert(data)
    assert str(caught.value) == (
        "response.output holds file citations but no file_search_call results; send the "
        'request with include: ["file_search_call.results"]: without the retrieved text the '
        "citations cannot be checked"
    )


def test_a_search_without_results_and_no_citations_is_only_noted() -> None:
    data = load("openai_file_search")
    search = data["response"]["output"][0]
    del search["results"]
    search["search_results"] = None  # the guide's example shape
    data["response"]["output"][1]["content"][0]["annotations"] = []
    native = convert(data)
    assert native["sources"] == []
    assert native["notes"][-3:-1] == [
        '1 of 1 file_search_call item(s) carry no results (request include: '
        '["file_search_call.results"]).',
        "The response carries no file citations.",
    ]


def test_openai_question_model_and_other_annotations() -> None:
    data = load("openai_file_search")
    data["request"]["input"] = "What is the vesting schedule?"
    del data["response"]["model"]
    data["response"]["output"][1]["content"][0]["annotations"].append(
        {"type": "url_citation", "start_index": 0, "end_index": 10,
         "title": "Plan FAQ", "url": "https://example.com/faq"})
    native = convert(data)
    assert native["question"] == "What is the vesting schedule?"
    assert native["model"] == "gpt-4.1"
    assert "1 url_citation annotation(s) were not checked." in native["notes"]


def test_an_index_past_the_text_is_a_format_error() -> None:
    data = load("openai_file_search")
    data["response"]["output"][1]["content"][0]["annotations"][1]["index"] = 992
    with pytest.raises(FormatError) as caught:
        convert(data)
    assert str(caught.value) == (
        "response.output[1].content[0].annotations[1].index 992 is out of range "
        "(the text has 275 characters)"
    )


# --------------------------------------------------------------------------- native and errors


def test_native_payloads_pass_through_unchanged() -> None:
    native = {"id": "a-1", "answer": "Vesting takes two years [S1].",
              "sources": [{"marker": "S1", "text": "Vesting takes two years."}]}
    assert convert(native) == native
    assert convert({**native, "format": "native"}) == {**native, "format": "native"}


def _set(path: str, value: Any) -> Any:
    """A mutation of the fixture: ``value`` at ``path`` (dots and [i])."""

    def mutate(data: dict[str, Any]) -> None:
        keys = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]
        target: Any = data
        for key in keys[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value

    return mutate


_DELETE = object()


@pytest.mark.parametrize(
    ("fixture", "mutate", "message"),
    [
        ("anthropic_text", _set("format", "gemini"),
         "format 'gemini' is not one of native, anthropic, openai"),
        ("anthropic_text", _set("request", _DELETE), '"request" is required'),
        ("anthropic_text", _set("response", [1]), "response must be an object, not a list"),
        ("anthropic_text", _set("id", ["x"]), "id must be a string, not a list"),
        ("anthropic_text", _set("request.messages", _DELETE), "request.messages is missing"),
        ("anthropic_text", _set("request.messages[0].content[0].source", _DELETE),
         "request.messages[0].content[0].source is missing"),
        ("anthropic_text", _set("request.messages[0].content[0].source.data", 42),
         "request.messages[0].content[0].source.data must be a string, not a number"),
        ("anthropic_text", _set("request.messages[0].content[1].source.content[1].type",
                                "document"),
         "request.messages[0].content[1].source.content[1].type 'document' is not a custom "
         "content block"),
        ("anthropic_text", _set("request.messages[0].content[2].source",
                                {"type": "url", "url": "https://example.com/travel.pdf"}),
         "request.messages[0].content[2].source.type 'url' is not supported"),
        ("anthropic_text", _set("request.messages[0].content[3]",
                                {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90",
                                 "content": [text_document("Nested.")]}),
         "request.messages[0].content[3].content[0] is a document inside a tool result"),
        ("anthropic_text", _set("response.content", _DELETE), "response.content is missing"),
        ("anthropic_text", _set("response.content", {"type": "text"}),
         "response.content must be a list, not an object"),
        ("anthropic_text", _set("response.content[1]", "text"),
         "response.content[1] must be an object, not a string"),
        ("anthropic_text", _set("response.content[1].text", 7),
         "response.content[1].text must be a string, not a number"),
        ("anthropic_text", _set("response.content[1].citations", {"type": "char_location"}),
         "response.content[1].citations must be a list, not an object"),
        ("anthropic_text", _set("response.content[1].citations[0].document_index", "0"),
         "response.content[1].citations[0].document_index must be a non-negative integer, "
         "not '0'"),
        ("anthropic_text", _set("response.content[1].citations[0].cited_text", _DELETE),
         "response.content[1].citations[0].cited_text is missing"),
        ("anthropic_text", _set("response.content[1].citations[0].start_char_index", -1),
         "response.content[1].citations[0].start_char_index must be a non-negative integer"),
        ("anthropic_text", _set("response.content[1].citations[0].type",
                                "web_search_result_location"),
         "response.content[1].citations[0].type 'web_search_result_location' is not "
         "supported"),
        ("anthropic_text", _set("response", {"type": "error", "error": {
            "type": "overloaded_error", "message": "Overloaded"}}),
         "response is an API error"),
        ("anthropic_pdf", _set("request.messages[0].content[0].source.data", "not base64!"),
         "request.messages[0].content[0].source.data is not valid base64"),
        ("openai_file_search", _set("response.output", _DELETE), "response.output is missing"),
        ("openai_file_search", _set("response.output[0]", "fs_1"),
         "response.output[0] must be an object, not a string"),
        ("openai_file_search", _set("response.output[0].results", {"file_id": "file-1"}),
         "response.output[0].results must be a list, not an object"),
        ("openai_file_search", _set("response.output[0].results[1].text", _DELETE),
         "response.output[0].results[1].text is missing"),
        ("openai_file_search", _set("response.output[1].content", "text"),
         "response.output[1].content must be a list, not a string"),
        ("openai_file_search", _set("response.output[1].content[0].text", ["a"]),
         "response.output[1].content[0].text must be a string, not a list"),
        ("openai_file_search", _set("response.output[1].content[0].annotations[0].index", True),
         "response.output[1].content[0].annotations[0].index must be a non-negative integer, "
         "not True"),
        ("openai_file_search", _set("response.output[1].content[0].annotations[2].file_id",
                                    _DELETE),
         "response.output[1].content[0].annotations[2].file_id is missing"),
        ("openai_file_search", _set("response.error", {"code": "server_error",
                                                       "message": "The server had an error"}),
         "response.error is set"),
    ],
)
def test_malformed_input_is_a_format_error_naming_the_path(
    fixture: str, mutate: Any, message: str
) -> None:
    data = copy.deepcopy(load(fixture))
    mutate(data)
    with pytest.raises(FormatError) as caught:
        convert(data, pdf_text=extract)
    assert message in str(caught.value)


def test_the_input_must_be_an_object() -> None:
    with pytest.raises(FormatError, match="the input must be an object, not a list"):
        convert([{"format": "openai"}])  # type: ignore[arg-type]


def test_format_error_is_a_value_error() -> None:
    assert issubclass(FormatError, ValueError)


def test_base64_fixture_is_a_pdf_stand_in() -> None:
    data = load("anthropic_pdf")["request"]["messages"][0]["content"][0]["source"]["data"]
    assert base64.b64decode(data).startswith(b"%PDF-1.7")
