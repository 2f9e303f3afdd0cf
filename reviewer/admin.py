from typing import Any

from django import forms
from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from reviewer.models import (
    Answer,
    ApiClient,
    CalibrationItem,
    Chunk,
    CitationVerdict,
    DeletionRecord,
    Document,
    MatchLabel,
    Page,
    ReviewDecision,
    SentenceVerdict,
    Surface,
    SurfaceChange,
    Workspace,
)
from reviewer.models.surfaces import REASON_MAX
from reviewer.services.deletion import answer_delete, document_delete
from reviewer.services.surfaces import TRACKED_SETTINGS, surface_update
from verification.claims import CHECKS


class _NoAdd:
    """Rows that only ingestion or the API create: an admin "add" form would
    save a half-made row (a chunk without its document's text, an answer
    without its verdicts), so it is refused with a 403."""

    def has_add_permission(self, request: object) -> bool:
        return False


class _ReadOnly(_NoAdd):
    """Listed and inspected, never added, changed or deleted here."""

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


class _NoDelete:
    """Parts of a document or an answer's verdict: removing one would break
    what cites it or the trail, so the admin never deletes them."""

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


class _SoftDelete:
    """The admin's delete hides the row (a soft delete with a DeletionRecord),
    never removing it or what points at it (decisions, verdict history)."""

    def _soft_delete(self, request: HttpRequest, obj: Any) -> None:
        reason = f"Deleted in the admin by {request.user.get_username()}"
        user = request.user if request.user.is_authenticated else None
        if isinstance(obj, Answer):
            answer_delete(answer=obj, deleted_by=user, reason=reason)  # type: ignore[arg-type]
        else:
            document_delete(document=obj, deleted_by=user, reason=reason)  # type: ignore[arg-type]

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        self._soft_delete(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for obj in queryset:
            self._soft_delete(request, obj)

    def get_deleted_objects(self, objs: Any, request: HttpRequest
                            ) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
        # Nothing else goes with it, so nothing else needs a permission or
        # is protected (the default collector would list the decisions).
        objs = list(objs)
        model = objs[0]._meta if objs else None
        label = str(model.verbose_name_plural) if model else ""
        return ([f"{model.verbose_name if model else ''}: {obj} (hidden, kept with its "
                 "history)" for obj in objs], {label: len(objs)} if objs else {}, set(), [])


class _CharCounters:
    """Each text field with a limit shows "n / limit characters" as one types,
    as on the site's pages (static/js/char-counter.mjs; Django's forms give
    the maxlength and refuse more with an error naming the limit)."""

    class Media:
        js = (forms.Script("js/char-counter.mjs", type="module"),)


class PageInline(admin.TabularInline[Page, Document]):
    model = Page
    extra = 0
    can_delete = False
    readonly_fields = ("number", "width", "height", "rotation", "text_start", "text_end")


@admin.register(Document)
class DocumentAdmin(_CharCounters, _SoftDelete, _NoAdd, admin.ModelAdmin[Document]):
    list_display = ("title", "workspace", "status", "page_count", "created", "superseded_by")
    list_filter = ("status", "workspace")
    search_fields = ("title", "sha256")
    # A document stays in its workspace: its versions and citations are there.
    readonly_fields = ("workspace", "sha256", "size_bytes", "status", "error_kind", "error",
                       "page_count", "superseded_by", "created", "updated")
    exclude = ("text", "furniture", "geometry")
    inlines = (PageInline,)

    def get_readonly_fields(self, request: HttpRequest, obj: Document | None = None
                            ) -> Any:
        # A ready document's file is what its highlights are drawn on.
        fields = tuple(super().get_readonly_fields(request, obj))
        return (*fields, "file") if obj is not None and obj.status == obj.Status.READY \
            else fields


@admin.register(Chunk)
class ChunkAdmin(_NoDelete, _NoAdd, admin.ModelAdmin[Chunk]):
    list_display = ("__str__", "document", "index", "start", "end", "page_first", "page_last")
    list_filter = ("document",)
    search_fields = ("text",)
    readonly_fields = ("document", "index", "start", "end", "text", "page_first", "page_last")


@admin.register(Page)
class PageAdmin(_NoDelete, _NoAdd, admin.ModelAdmin[Page]):
    list_display = ("__str__", "width", "height", "rotation")
    list_select_related = ("document",)


@admin.register(ApiClient)
class ApiClientAdmin(_CharCounters, admin.ModelAdmin[ApiClient]):
    list_display = ("name", "workspace", "token_hint", "created", "revoked_at")
    list_filter = ("workspace",)
    readonly_fields = ("token_hint", "created")
    actions = ("revoke",)

    @admin.action(description="Revoke the selected clients' tokens")
    def revoke(self, request: object, queryset: object) -> None:
        for client in queryset:  # type: ignore[attr-defined]
            client.revoke()


@admin.register(Workspace)
class WorkspaceAdmin(_CharCounters, admin.ModelAdmin[Workspace]):
    """Who shares what: its clients (tokens) read, cite and supersede only
    its documents; its users see only its answers and documents."""

    list_display = ("name", "created")
    search_fields = ("name",)
    filter_horizontal = ("users",)


class SentenceInline(admin.TabularInline[SentenceVerdict, Answer]):
    model = SentenceVerdict
    extra = 0
    can_delete = False
    fields = ("index", "status", "claim", "text")
    readonly_fields = fields


@admin.register(Answer)
class AnswerAdmin(_SoftDelete, _NoAdd, admin.ModelAdmin[Answer]):
    list_display = ("pk", "external_id", "surface", "model", "verdict", "action",
                    "review_state", "created")
    list_filter = ("verdict", "action", "review_state", "surface")
    search_fields = ("external_id", "question", "text")
    list_select_related = ("surface", "client")
    readonly_fields = [f.name for f in Answer._meta.fields]
    inlines = (SentenceInline,)


@admin.register(CitationVerdict)
class CitationVerdictAdmin(_NoDelete, _NoAdd, admin.ModelAdmin[CitationVerdict]):
    list_display = ("pk", "answer", "outcome", "marker", "score", "source_marker")
    list_filter = ("outcome",)
    readonly_fields = [f.name for f in CitationVerdict._meta.fields]


class SurfaceForm(forms.ModelForm[Surface]):
    claim_checks_off = forms.MultipleChoiceField(
        required=False, choices=[(check, check) for check in CHECKS],
        widget=forms.CheckboxSelectMultiple, label="Paraphrase checks turned off",
        help_text="A sentence's own facts checked against its passage: each check finds "
                  "changed claims and raises false alarms at its own rate (the calibration "
                  "page's precision per check, bench/support.py).")
    change_reason = forms.CharField(
        required=False, max_length=REASON_MAX,
        help_text="Why the settings change: kept in the surface's history with who and when.")

    class Meta:
        model = Surface
        fields = ("name", *TRACKED_SETTINGS)


@admin.register(Surface)
class SurfaceAdmin(_CharCounters, admin.ModelAdmin[Surface]):
    form = SurfaceForm
    list_display = ("name", "policy", "high_stakes", "threshold", "min_coverage",
                    "require_quotes")
    list_filter = ("high_stakes", "policy")
    list_editable = ("high_stakes",)

    def save_model(self, request: HttpRequest, obj: Surface, form: Any, change: bool) -> None:
        """A change of settings goes through ``surface_update``, as on the
        surfaces page, so the admin cannot change a threshold or policy
        without a SurfaceChange saying who, when and from what to what."""
        settings = [name for name in form.changed_data if name in TRACKED_SETTINGS]
        if not change or not settings:
            super().save_model(request, obj, form, change)
            return
        others = [name for name in form.changed_data
                  if name not in TRACKED_SETTINGS and name != "change_reason"]
        with transaction.atomic():
            if others:
                Surface.objects.filter(pk=obj.pk).update(
                    **{name: getattr(obj, name) for name in others})
            surface_update(
                surface=obj, changed_by=request.user,
                reason=form.cleaned_data.get("change_reason")
                or "Changed in the admin (no reason given)",
                **{name: getattr(obj, name) for name in settings})


@admin.register(SurfaceChange)
class SurfaceChangeAdmin(_ReadOnly, admin.ModelAdmin[SurfaceChange]):
    """The surfaces' history, read-only: the surfaces page records it (a flag
    ticked in the Surface list here is not recorded)."""

    list_display = ("surface", "changed_by", "created", "reason")
    list_filter = ("surface",)
    list_select_related = ("surface", "changed_by")
    readonly_fields = ("surface", "changed_by", "changes", "reason", "evidence", "created")


@admin.register(ReviewDecision)
class ReviewDecisionAdmin(_ReadOnly, admin.ModelAdmin[ReviewDecision]):
    """The audit trail, read-only: decisions are made on the review page and
    never changed or deleted (an undo is a row of its own)."""

    list_display = ("answer", "decision", "from_state", "to_state", "reviewer", "created")
    list_filter = ("decision",)
    list_select_related = ("reviewer",)
    readonly_fields = ("answer", "decision", "from_state", "to_state", "undoes", "reviewer",
                       "note", "unopened_failures", "created")


@admin.register(MatchLabel)
class MatchLabelAdmin(_ReadOnly, admin.ModelAdmin[MatchLabel]):
    """Labels are given on /calibrate/ and moved with its export and import;
    the admin only lists them."""

    list_display = ("item", "label", "labeller_name", "imported", "created")
    list_filter = ("label", "imported", "item__surface")
    list_select_related = ("item",)
    search_fields = ("labeller_name", "item__quote")
    readonly_fields = ("item", "citation", "labeller", "labeller_name", "label", "imported",
                       "created")


@admin.register(CalibrationItem)
class CalibrationItemAdmin(_ReadOnly, admin.ModelAdmin[CalibrationItem]):
    """Items are drawn on /calibrate/; the admin only lists them."""

    list_display = ("pk", "surface", "stratum", "score", "outcome", "settled_label", "created")
    list_filter = ("surface", "stratum", "outcome")
    search_fields = ("quote",)
    readonly_fields = ("surface", "citation", "answer", "quote", "source_text", "match_start",
                       "match_end", "furniture", "source_marker", "score", "outcome",
                       "threshold", "stratum", "position", "content_hash", "document", "pages",
                       "settled_label", "settled_by", "settled_at", "created")


@admin.register(DeletionRecord)
class DeletionRecordAdmin(_ReadOnly, admin.ModelAdmin[DeletionRecord]):
    """Who deleted what, when and why, and each purge of a deleted
    document's files: read-only."""

    list_display = ("created", "action", "kind", "object_id", "description", "deleted_by")
    list_filter = ("action", "kind")
    list_select_related = ("deleted_by",)
    search_fields = ("description", "reason")
    readonly_fields = ("kind", "object_id", "description", "action", "deleted_by", "reason",
                       "created")
