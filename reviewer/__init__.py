"""citeguard's Django project: models, ingestion, services, selectors, views."""

import sys

# PyMuPDF 2.0 imports its optional layout analyser, pymupdf.layout, when it is
# imported, and the analyser builds ONNX inference sessions then: about a
# second and 100 MB in every process that imports pymupdf (each web and task
# worker, the ingestion forkserver, every manage.py command, migrate
# included). citeguard never calls what it serves (Page.get_layout(), and
# find_tables()' layout hints): text comes from get_text() and tables from
# reviewer.ingestion.tables. PyMuPDF takes an ImportError of it for "not
# installed". Every process of the project imports this package before
# pymupdf (the settings, the WSGI module and the forkserver's preload all
# live under it); one that imported pymupdf first keeps what it loaded.
sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
