"""``manage.py load_demo``: the data a newcomer needs to see the product.

An admin account (demo/demo) and one per role (reviewer, reviewer2,
supervisor, calibrator; each name is its password), four generated PDFs (a benefits plan
summary, a clinical guideline, a two-column contract, a scanned letter read by
OCR, left out with its answer where tesseract is not installed), three surfaces with
different failure policies, and answers that exercise every outcome. Safe to
run again: the PDFs are built to the same bytes every time, so each is found
as already uploaded (a changed one becomes the next version under its
document_key, never a copy), and answers are found by id.

``--history`` adds five weeks of backdated answers with a model change in
them for the trends page (reviewer.demo_history; a few seconds).
``--calibration`` adds a labelled calibration set: enough labels on
benefits-chat for the calibration page to recommend a threshold, a handful on
legal-review, by calibrator and labeller2 (reviewer.demo_calibration; a few
seconds). It is loaded before the history, so that it draws from its own
answers only.
``--no-scan`` leaves out the scanned letter and the answer citing it, as
where tesseract is missing: reading it by OCR is a second or more of every
load, which the browser tests (a fresh demo each) do not need.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer import demo
from reviewer.demo_calibration import load_calibration
from reviewer.demo_history import load_history
from reviewer.models import ApiClient, Document, Surface, Workspace
from reviewer.roles import CALIBRATOR, REVIEWER, SUPERVISOR, sync_roles
from reviewer.services.answers import AnswerRejected, answer_submit
from reviewer.services.clients import api_client_create
from reviewer.services.documents import document_ingest, document_upload, ocr_languages
from reviewer.services.priority import answers_priority_restamp

DEMO_USER = "demo"
#: One account per role, each with its name as password (the admin is demo).
DEMO_ROLE_USERS = {"reviewer": REVIEWER, "reviewer2": REVIEWER, "supervisor": SUPERVISOR,
                   "calibrator": CALIBRATOR, "labeller2": CALIBRATOR}


class Command(BaseCommand):
    help = "Load the demo: user demo/demo, four PDFs, surfaces and answers for every outcome."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--history", action="store_true",
                            help="also five weeks of backdated answers with a model change, "
                                 "for the trends page")
        parser.add_argument("--calibration", action="store_true",
                            help="also a labelled calibration set, for the calibration pages")
        parser.add_argument("--no-scan", action="store_true",
                            help="leave out the scanned letter (read by OCR, a second or more) "
                                 "and the answer citing it")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=DEMO_USER, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password(DEMO_USER)
            user.save(update_fields=["password"])
        # The migration made the roles, but a flushed database (every
        # transactional test, hence every browser test after the first) has
        # lost them.
        sync_roles(Group, Permission, ContentType)
        for username, role in DEMO_ROLE_USERS.items():
            person, created = user_model.objects.get_or_create(username=username)
            if created:
                person.set_password(username)
                person.save(update_fields=["password"])
            person.groups.add(Group.objects.get(name=role))
            # They review the demo's answers, which are the default workspace's.
            Workspace.objects.default().users.add(person)
        for name, fields in demo.SURFACES.items():
            surface, _ = Surface.objects.update_or_create(name=name, defaults=fields)
            # Written around surface_update: an answer loaded before keeps its
            # queue priority only if its high stakes did not change.
            answers_priority_restamp(surface_ids=[surface.pk], high_stakes=surface.high_stakes)

        positions, answers = demo.loadable(() if options["no_scan"] else ocr_languages())
        skipped = [title for index, (title, _build) in enumerate(demo.DOCUMENTS.values())
                   if index not in positions]
        if skipped and options["no_scan"]:
            self.stdout.write(f"  skipped {', '.join(skipped)} and the answers citing it "
                              "(--no-scan)")
        elif skipped:
            self.stdout.write(f"  skipped {', '.join(skipped)} and the answers citing it: "
                              "it is a scan, and tesseract (which bin/setup installs) is "
                              "not installed with its language")
        documents: dict[int, Document] = {}
        for index, (key, (title, build)) in enumerate(demo.DOCUMENTS.items()):
            if index not in positions:
                continue
            document = document_upload(data=build(), filename=f"{title}.pdf", title=title,
                                       document_key=key,
                                       ocr_language=demo.SCANNED.get(key, "")).document
            if document.status in (Document.Status.QUEUED, Document.Status.PROCESSING):
                document = document_ingest(document_id=document.pk)
            if document.status != Document.Status.READY:
                raise CommandError(f"demo document {title!r} failed: {document.error}")
            documents[index] = document

        client = ApiClient.objects.filter(name="demo").first()
        if client is None:
            client, _ = api_client_create(name="demo")
        for spec in answers:
            payload = {
                key: spec[key] for key in ("id", "surface", "model", "question", "answer")
            }
            payload["sources"] = [
                {"marker": marker, "document": documents[index].pk}
                for marker, index in spec["sources"]
            ]
            try:
                result = answer_submit(client=client, data=payload).result
            except AnswerRejected as error:
                if error.code != "id-conflict":
                    raise CommandError(f"demo answer {spec['id']!r}: {error}") from None
                # Stored by an earlier demo against other documents: keep it.
                self.stdout.write(f"  answer {spec['id']} kept as stored ({error})")
                continue
            self.stdout.write(f"  answer {result['answer']:>3}  {result['verdict']:<4}  "
                              f"{result['action']:<10} {spec['id']}")
        if options["calibration"]:
            load_calibration(client=client, say=self.stdout.write)
        if options["history"]:
            load_history(client=client, say=self.stdout.write)
        self.stdout.write(f"demo loaded: {len(documents)} documents, {len(answers)} "
                          "answers; log in as demo / demo (admin), or as reviewer, reviewer2, "
                          "supervisor, calibrator or labeller2 (password: the same name)")
