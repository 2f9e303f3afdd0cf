"""One request at a time through the test live server, when the test database
is SQLite in memory.

Django's live server shares the test's in-memory SQLite connection with every
request thread (the database exists only inside that connection), and one
sqlite3 connection used by two threads at once fails at random ("bad
parameter or other API misuse"). Pages now make requests side by side (the
viewer fetches the cited PDFs on idle while an htmx panel loads, the review
page beats its presence), so the test server takes them in turn. Only the
tests use this: a real server has a connection per thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

_one_at_a_time = threading.Lock()


class SerialRequestsMiddleware:
    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        with _one_at_a_time:
            return self.get_response(request)
