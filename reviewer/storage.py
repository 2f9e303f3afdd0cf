"""Reading stored files by byte range, whatever the storage.

Django's storage API opens a whole file. On the local disk that costs a seek;
on an S3-compatible store (django-storages) opening an object downloads it
whole before the first read. The viewer's byte ranges and the geometry's box
lookups want a few kilobytes of files that run to megabytes, so on such a
store they are ranged GETs of just those bytes.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.core.files import File
from django.core.files.storage import Storage

__all__ = ["STORAGE_ERRORS", "geometry_key", "iter_range", "pdf_key", "read_range",
           "store_once"]

try:  # what an S3-compatible store raises when it cannot be reached or refuses
    from botocore.exceptions import BotoCoreError, ClientError

    _REMOTE_ERRORS: tuple[type[Exception], ...] = (BotoCoreError, ClientError)
except ImportError:  # pragma: no cover - boto3 is a dependency
    _REMOTE_ERRORS = ()

#: What a storage raises when it cannot keep or give a file: the local disk's
#: OSError (full, read-only, gone) and the object store's errors.
STORAGE_ERRORS: tuple[type[Exception], ...] = (OSError, *_REMOTE_ERRORS)

_CHUNK = 64 * 1024


def _object(storage: Storage, name: str):  # type: ignore[no-untyped-def]
    """The store's object for ``name`` when ``storage`` is django-storages'
    S3Storage (it has a bucket), else None."""
    bucket = getattr(storage, "bucket", None)
    if bucket is None:
        return None
    from storages.utils import clean_name

    # The object's key as S3Storage makes it (its location prefix, if any).
    return bucket.Object(storage._normalize_name(clean_name(name)))  # type: ignore[attr-defined]


def pdf_key(sha256: str) -> str:
    """Where an uploaded PDF is kept: named by its SHA-256, so the same bytes
    are one object however often they are uploaded, and a name never stands
    for other bytes."""
    return f"documents/{sha256[:2]}/{sha256}.pdf"


def geometry_key(sha256: str) -> str:
    """Where a geometry blob is kept, named by its own SHA-256 (a re-ingestion
    that reads a PDF differently writes a new object beside the old one)."""
    return f"geometry/{sha256[:2]}/{sha256}.geo"


def store_once(storage: Storage, key: str, content: File) -> str:  # type: ignore[type-arg]
    """Keep ``content`` under ``key`` unless an object is there already,
    which, the key being the bytes' hash, holds the same bytes: a stored
    object is never written again. Returns the name kept under (``key``,
    unless a concurrent writer made the storage pick another)."""
    if storage.exists(key):
        return key
    return storage.save(key, content)


def read_range(storage: Storage, name: str, offset: int, size: int) -> bytes:
    """``size`` bytes of ``name`` from ``offset`` (fewer at its end)."""
    return b"".join(iter_range(storage, name, offset, size)) if size > 0 else b""


def iter_range(storage: Storage, name: str, offset: int, size: int) -> Iterator[bytes]:
    """The same bytes as :func:`read_range`, a chunk at a time (a response
    streams them)."""
    stored = _object(storage, name)
    if stored is not None:
        body = stored.get(Range=f"bytes={offset}-{offset + size - 1}")["Body"]
        try:
            while size > 0 and (data := body.read(min(_CHUNK, size))):
                size -= len(data)
                yield data
        finally:
            body.close()
        return
    with storage.open(name, "rb") as handle:
        handle.seek(offset)
        while size > 0 and (data := handle.read(min(_CHUNK, size))):
            size -= len(data)
            yield data
