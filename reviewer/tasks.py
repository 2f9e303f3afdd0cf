"""Background work, through Django's Tasks framework: an index.

Each task lives in the service module whose work it runs, beside the
function that queues it, so a service queues its own task and nothing
imports back into it. The names here are the ones tasks were queued under
before (``reviewer.tasks.ingest_document``…): a row a database worker
queued then still finds its task."""

from reviewer.services.documents import ingest_document
from reviewer.services.judgements import judge_answer
from reviewer.services.reverify import reverify_surface

__all__ = ["ingest_document", "judge_answer", "reverify_surface"]
