"""Playbook curation for firm admins: the firm's playbooks and their versions (read only: an
edit is a new version), imported from a YAML or JSON file with every problem and its line
shown, exported as a file to edit."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from compliance.models import Playbook, Rule
from compliance.playbooks import MAX_BYTES, PlaybookInvalid, dump_playbook, parse_playbook
from compliance.services import playbook_import, playbook_spec
from workspaces.admin import FirmScopedAdmin
from workspaces.models import User


class RuleInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Rule
    fields = ("key", "title", "clause_type", "kind", "severity", "params", "applies_to",
              "except_for")  # fmt: skip
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Playbook)
class PlaybookAdmin(FirmScopedAdmin):
    list_display = ("title", "key", "version", "current", "language", "created_at")
    list_filter = ("current", "language")
    search_fields = ("key", "title")
    readonly_fields = ("firm", "key", "version", "title", "language", "description", "current",
                       "created_at", "created_by", "export")  # fmt: skip
    inlines = (RuleInline,)
    change_list_template = "admin/compliance/playbook/change_list.html"

    # A version is never edited nor deleted: an import makes the next one.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    @admin.display(description=_("Export"))
    def export(self, playbook: Playbook) -> str:
        url = reverse("admin:compliance_playbook_export", args=[playbook.pk])
        return format_html('<a href="{}">YAML</a> · <a href="{}?format=json">JSON</a>', url, url)

    def get_urls(self) -> list[URLPattern]:
        own = [
            path("import/", self.admin_site.admin_view(self.import_view),
                 name="compliance_playbook_import"),
            path("<int:playbook_id>/export/", self.admin_site.admin_view(self.export_view),
                 name="compliance_playbook_export"),
        ]  # fmt: skip
        return own + super().get_urls()

    def export_view(self, request: HttpRequest, playbook_id: int) -> HttpResponse:
        playbook = self.get_queryset(request).filter(pk=playbook_id).first()
        if playbook is None:
            raise Http404(gettext("No such playbook."))
        fmt = "json" if request.GET.get("format") == "json" else "yaml"
        body = dump_playbook(playbook_spec(playbook), fmt=fmt)
        response = HttpResponse(body, content_type=f"application/{fmt}; charset=utf-8")
        filename = f"{playbook.key}-v{playbook.version}.{fmt}"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def import_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_module_permission(request):
            raise PermissionDenied
        problems: list[str] = []
        if request.method == "POST":
            text, problems = _posted_text(request)
            if not problems:
                try:
                    spec = parse_playbook(text)
                except PlaybookInvalid as exc:
                    problems = [str(problem) for problem in exc.problems]
                else:
                    user = request.user
                    assert isinstance(user, User)  # noqa: S101 - admin_view signs in first
                    playbook, created = playbook_import(firm=user.firm, spec=spec, user=user)
                    if created:
                        message = gettext("%(title)s: version %(version)d stored.")
                    else:
                        message = gettext("%(title)s: unchanged (version %(version)d).")
                    values = {"title": playbook.title, "version": playbook.version}
                    self.message_user(request, message % values)
                    return HttpResponseRedirect(reverse("admin:compliance_playbook_changelist"))
            messages.error(request, gettext("Nothing was stored: fix the file, import it again."))
        context = {
            **self.admin_site.each_context(request),
            "title": _("Import a playbook"),
            "problems": problems,
            "opts": self.model._meta,
        }
        # A refused file is the client's to fix: 400, with every problem on the page.
        status = 400 if problems else 200
        return render(request, "admin/compliance/playbook/import.html", context, status=status)


def _posted_text(request: HttpRequest) -> tuple[str, list[str]]:
    """The file's text (or the pasted one), or why it cannot be read."""
    upload = request.FILES.get("file")
    if upload is None:
        text = request.POST.get("text", "")
        if len(text.encode()) > MAX_BYTES:
            return "", [gettext("The file is over 1 MB.")]
        return text, []
    if upload.size is None or upload.size > MAX_BYTES:
        return "", [gettext("The file is over 1 MB.")]
    try:
        return upload.read().decode("utf-8"), []
    except UnicodeDecodeError:
        return "", [gettext("The file is not UTF-8 text.")]
