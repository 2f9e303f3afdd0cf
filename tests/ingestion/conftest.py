"""Session fixtures: the generated PDFs of tests/factories.py."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument
from tests.factories import (
    LIGATURE_FONTS,
    BuiltPdf,
    build_report,
    build_upright_landscape,
)


@pytest.fixture(scope="session")
def pdf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pdfs")


@pytest.fixture(scope="session")
def report(pdf_dir: Path) -> BuiltPdf:
    return build_report(pdf_dir / "report.pdf")


@pytest.fixture(scope="session")
def report_doc(report: BuiltPdf) -> ExtractedDocument:
    return report.extract()


@pytest.fixture(scope="session")
def upright_landscape(pdf_dir: Path) -> BuiltPdf:
    return build_upright_landscape(pdf_dir / "landscape.pdf")


@pytest.fixture(scope="session")
def ligature_font() -> Path:
    for path in LIGATURE_FONTS:
        if path.exists():
            font = pymupdf.Font(fontfile=str(path))
            if font.has_glyph(0xFB01) and font.has_glyph(0xFB02):
                return path
    pytest.skip("no system font with ﬁ/ﬂ ligature glyphs (looked for DejaVu)")


@pytest.fixture(scope="session")
def ligature_pdf(pdf_dir: Path, ligature_font: Path) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="dejavu", fontfile=str(ligature_font))
    page.insert_text((72, 100), "The \ufb01nal \ufb02ow of \ufb01gures", fontname="dejavu",
                     fontsize=12)
    data: bytes = doc.tobytes()
    doc.close()
    (pdf_dir / "ligatures.pdf").write_bytes(data)
    return data


@pytest.fixture(scope="session")
def three_pages(pdf_dir: Path) -> bytes:
    doc = pymupdf.open()
    for k in range(3):
        doc.new_page().insert_text((72, 72), f"Page {k + 1} says something.")
    data: bytes = doc.tobytes()
    doc.close()
    (pdf_dir / "three.pdf").write_bytes(data)
    return data
