"""Background work, through Django's Tasks framework."""

from django.tasks import task

from reviewer.services.documents import document_ingest
from reviewer.services.judgements import judgements_run
from reviewer.services.reverify import reverification_run


@task()
def ingest_document(document_id: int) -> str:
    """Ingest one uploaded document; returns its final status."""
    return str(document_ingest(document_id=document_id).status)


@task()
def reverify_surface(run_id: int) -> str:
    """Re-verify a surface's stored answers (a ``ReverificationRun``); returns
    the run's final status. A failure marks the run failed and is raised again,
    so the task backend records it too."""
    return str(reverification_run(run_id=run_id).status)


@task()
def judge_answer(answer_id: int) -> int:
    """Ask the operator's model about an answer's cited passages (the
    semantic stage); returns how many judgement rows it stored."""
    return len(judgements_run(answer_id=answer_id))
