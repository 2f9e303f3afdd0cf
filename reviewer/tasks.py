"""Background work, through Django's Tasks framework."""

from django.tasks import task

from reviewer.services.documents import document_ingest


@task()
def ingest_document(document_id: int) -> str:
    """Ingest one uploaded document; returns its final status."""
    return str(document_ingest(document_id=document_id).status)
