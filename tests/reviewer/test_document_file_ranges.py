"""The viewer's PDF by byte range: what pdf.js asks for of a long PDF (its
end, then each page's objects) is what it gets, and nothing lets a range
reach another version's bytes or past the end."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def _get(client: Any, document: Any, **headers: str) -> Any:
    return client.get(f"/documents/{document.pk}/file", headers=headers)


def _body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_whole_file_says_ranges_are_taken_and_names_its_version(
        logged_in: Any, document: Any, report_pdf: Any) -> None:
    response = _get(logged_in, document)
    assert response.status_code == 200
    assert _body(response) == report_pdf.data
    assert response["Accept-Ranges"] == "bytes"
    assert response["ETag"] == f'"{document.sha256}"'
    assert response["Cache-Control"] == "private, no-cache"
    assert response["Content-Type"] == "application/pdf"


@pytest.mark.parametrize(("header", "first", "last"), [
    ("bytes=0-99", 0, 99),
    ("bytes=100-", 100, None),  # to the end
    ("bytes=-64", -64, None),  # the last 64 bytes: where pdf.js reads the trailer
    ("bytes=10-999999999", 10, None),  # past the end: cut at the end
])
def test_one_range_is_a_206_with_exactly_those_bytes(
        logged_in: Any, document: Any, report_pdf: Any, header: str, first: int,
        last: int | None) -> None:
    data = report_pdf.data
    start = first if first >= 0 else len(data) + first
    end = len(data) - 1 if last is None else last
    response = _get(logged_in, document, Range=header)
    assert response.status_code == 206
    assert _body(response) == data[start:end + 1]
    assert response["Content-Range"] == f"bytes {start}-{end}/{len(data)}"
    assert int(response["Content-Length"]) == end - start + 1


def test_a_range_past_the_end_is_a_416_naming_the_size(
        logged_in: Any, document: Any, report_pdf: Any) -> None:
    response = _get(logged_in, document, Range=f"bytes={len(report_pdf.data)}-")
    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{len(report_pdf.data)}"


@pytest.mark.parametrize("headers", [
    {"Range": "bytes=0-9,20-29"},  # several: the whole file, as RFC 9110 allows
    {"Range": "bytes=0-9", "If-Range": '"another-version"'},  # not this version
    {"Range": "lines=1-2"},  # not bytes
])
def test_what_is_not_one_byte_range_of_this_version_gets_the_whole_file(
        logged_in: Any, document: Any, report_pdf: Any, headers: dict[str, str]) -> None:
    response = _get(logged_in, document, **headers)
    assert response.status_code == 200
    assert _body(response) == report_pdf.data


def test_the_version_held_is_a_304(logged_in: Any, document: Any) -> None:
    response = _get(logged_in, document, **{"If-None-Match": f'"{document.sha256}"'})
    assert response.status_code == 304 and not response.content
    assert response["ETag"] == f'"{document.sha256}"'


def test_a_range_is_checked_like_the_whole_file(client: Any, document: Any) -> None:
    response = _get(client, document, Range="bytes=0-99")  # not logged in
    assert response.status_code in (302, 403)
    assert response.get("Content-Range") is None
