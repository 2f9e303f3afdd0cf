"""With DEBUG=0, /static/ is served by the app itself (WhiteNoise): the review
page's CSS, htmx and the pdf.js viewer, with the types browsers insist on
(module scripts need a JavaScript type, WebAssembly.instantiateStreaming
needs application/wasm)."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
from pathlib import Path

from deploy import recipe
from tests.once import ONCE

pytestmark = ONCE


def fetch(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_static_files_answer_with_their_types(production_env: dict[str, str],
                                              tmp_path: Path) -> None:
    with recipe.serve(production_env, tmp_path, nginx=False, workers=1) as running:
        status, _, page = fetch(running.port, "/accounts/login/")
        assert status == 200
        # The page links the hashed names collectstatic wrote.
        css = re.search(rb'href="(/static/css/citeguard\.[0-9a-f]{12}\.css)"', page)
        htmx = re.search(rb'src="(/static/django_htmx/htmx[^"]*\.[0-9a-f]{12}\.js)"', page)
        assert css and htmx, page[:2000]
        expected = {
            css[1].decode(): "text/css",
            htmx[1].decode(): "text/javascript",
            # pdf.js loads these by their plain names, relative to its folder.
            "/static/vendor/pdfjs/build/pdf.min.mjs": "text/javascript",
            "/static/vendor/pdfjs/build/pdf.worker.min.mjs": "text/javascript",
            "/static/vendor/pdfjs/web/pdf_viewer.mjs": "text/javascript",
            "/static/vendor/pdfjs/web/pdf_viewer.css": "text/css",
            "/static/vendor/pdfjs/wasm/openjpeg.wasm": "application/wasm",
            "/static/vendor/pdfjs/wasm/qcms_bg.wasm": "application/wasm",
            "/static/js/citeguard-viewer.mjs": "text/javascript",
        }
        for path, content_type in expected.items():
            status, headers, body = fetch(running.port, path)
            assert status == 200, path
            assert headers["content-type"].split(";")[0] == content_type, (path, headers)
            assert body, path
        # Hashed names never change content, so browsers may keep them for ever.
        _, headers, _ = fetch(running.port, css[1].decode())
        assert "immutable" in headers["cache-control"]
        assert headers.get("content-encoding") == "gzip"
        assert fetch(running.port, "/static/css/no-such-file.css")[0] == 404


def test_forwarded_proto_is_believed_only_when_told() -> None:
    """Behind a proxy that terminates TLS, Django must know the request was
    https (secure cookies, HSTS, no redirect loop), but only when the operator
    says a proxy sets the header: otherwise any client could claim it."""
    probe = "import reviewer.settings as s; print(getattr(s, 'SECURE_PROXY_SSL_HEADER', None))"
    base = {k: v for k, v in os.environ.items() if k != "TRUST_X_FORWARDED_PROTO"}
    told = subprocess.run([sys.executable, "-c", probe],
                          env={**base, "TRUST_X_FORWARDED_PROTO": "1"},
                          capture_output=True, text=True, check=True, cwd=recipe.ROOT)
    untold = subprocess.run([sys.executable, "-c", probe], env=base, capture_output=True,
                            text=True, check=True, cwd=recipe.ROOT)
    assert told.stdout.strip() == "('HTTP_X_FORWARDED_PROTO', 'https')"
    assert untold.stdout.strip() == "None"
