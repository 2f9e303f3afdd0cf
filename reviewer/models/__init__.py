from .documents import Chunk, Document, Page

__all__ = ["Chunk", "Document", "Page"]
