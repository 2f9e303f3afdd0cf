from django.contrib import admin

from reviewer.models import ApiClient, Chunk, Document, Page


class PageInline(admin.TabularInline[Page, Document]):
    model = Page
    extra = 0
    can_delete = False
    readonly_fields = ("number", "width", "height", "rotation", "text_start", "text_end")


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin[Document]):
    list_display = ("title", "status", "page_count", "created", "superseded_by")
    list_filter = ("status",)
    search_fields = ("title", "sha256")
    readonly_fields = ("sha256", "size_bytes", "status", "error_kind", "error", "page_count",
                       "superseded_by", "created", "updated")
    exclude = ("text", "furniture", "geometry")
    inlines = (PageInline,)


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin[Chunk]):
    list_display = ("__str__", "document", "index", "start", "end", "page_first", "page_last")
    list_filter = ("document",)
    search_fields = ("text",)
    readonly_fields = ("document", "index", "start", "end", "text", "page_first", "page_last")


@admin.register(Page)
class PageAdmin(admin.ModelAdmin[Page]):
    list_display = ("__str__", "width", "height", "rotation")
    list_select_related = ("document",)


@admin.register(ApiClient)
class ApiClientAdmin(admin.ModelAdmin[ApiClient]):
    list_display = ("name", "token_hint", "created", "revoked_at")
    readonly_fields = ("token_hint", "created")
    actions = ("revoke",)

    @admin.action(description="Revoke the selected clients' tokens")
    def revoke(self, request: object, queryset: object) -> None:
        for client in queryset:  # type: ignore[attr-defined]
            client.revoke()
