"""PDF ingestion: text with per-character geometry, furniture, chunks, highlights.

Plain library code with no Django imports, so it can run (and be tested) in a
worker process or on its own.
"""

from reviewer.ingestion.chunking import chunk_text
from reviewer.ingestion.extract import (
    PAGE_SEPARATOR,
    DocumentGeometry,
    ExtractedDocument,
    ExtractionError,
    ExtractionErrorKind,
    PageInfo,
    TextLines,
    extract_pdf,
)
from reviewer.ingestion.furniture import FurnitureConfig, find_furniture
from reviewer.ingestion.locate import PageRects, bounding_box, locate
from reviewer.ingestion.ocr import OcrOptions, OcrPage, OcrReport

__all__ = [
    "PAGE_SEPARATOR",
    "DocumentGeometry",
    "ExtractedDocument",
    "ExtractionError",
    "ExtractionErrorKind",
    "FurnitureConfig",
    "OcrOptions",
    "OcrPage",
    "OcrReport",
    "PageInfo",
    "PageRects",
    "TextLines",
    "bounding_box",
    "chunk_text",
    "extract_pdf",
    "find_furniture",
    "locate",
]
