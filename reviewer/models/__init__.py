from .clients import ApiClient
from .documents import Chunk, Document, Page

__all__ = ["ApiClient", "Chunk", "Document", "Page"]
