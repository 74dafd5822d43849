"""HTML pages: a workspace's documents (with upload), one document."""

from __future__ import annotations

from pathlib import PurePath
from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from documents.pipeline import store_uploads
from documents.selectors import (
    chunk_page,
    chunk_page_cursor,
    document_chunks,
    document_duplicates,
    document_get,
    document_links,
    document_list,
    duplicate_groups,
)
from workspaces.models import Role, User
from workspaces.selectors import RoleRequired, membership_role, workspace_get_for_member

MAX_FILES_PER_UPLOAD = 200
MAX_NAMES_SHOWN = 20  # a 2,000-member ZIP gives a few messages, not a page of them


def _user(request: HttpRequest) -> User:
    return cast(User, request.user)


@login_required
def document_index(request: HttpRequest, slug: str) -> HttpResponse:
    user = _user(request)
    workspace = workspace_get_for_member(user=user, slug=slug)
    role = membership_role(user=user, workspace=workspace)
    context = {
        "workspace": workspace,
        "documents": document_list(workspace=workspace),
        "duplicates": duplicate_groups(workspace=workspace),
        "can_upload": role in (Role.OWNER, Role.EDITOR),
    }
    template = "documents/index.html"
    if request.htmx:  # type: ignore[attr-defined]
        template += "#document-table"
    return render(request, template, context)


@login_required
@require_POST
def document_upload(request: HttpRequest, slug: str) -> HttpResponse:
    user = _user(request)
    try:
        workspace = workspace_get_for_member(user=user, slug=slug, min_role=Role.EDITOR)
    except RoleRequired as exc:
        return HttpResponse(str(exc), status=403)
    files = request.FILES.getlist("files")
    if not files:
        messages.error(request, gettext("Choose at least one file."))
        return redirect("document_index", slug=slug)
    if len(files) > MAX_FILES_PER_UPLOAD:
        message = gettext("At most %(count)d files per upload (use a ZIP).")
        messages.error(request, message % {"count": MAX_FILES_PER_UPLOAD})
        return redirect("document_index", slug=slug)
    _, results = store_uploads(workspace=workspace, uploads=files, user=user, label="web upload")
    stored = [r.name for r in results if r.document is not None]
    if stored:
        shown = ", ".join(stored[:MAX_NAMES_SHOWN])
        if len(stored) > MAX_NAMES_SHOWN:
            shown += " " + gettext("and %(count)d more") % {"count": len(stored) - MAX_NAMES_SHOWN}
        message = ngettext(
            "%(count)d file stored and queued for processing: %(names)s",
            "%(count)d files stored and queued for processing: %(names)s",
            len(stored),
        )
        messages.success(request, message % {"count": len(stored), "names": shown})
    refused = [r.error for r in results if r.error]
    for error in refused[:MAX_NAMES_SHOWN]:
        messages.error(request, gettext("Refused: %(error)s") % {"error": error})
    if len(refused) > MAX_NAMES_SHOWN:
        more = len(refused) - MAX_NAMES_SHOWN
        messages.error(request, gettext("and %(count)d more refused") % {"count": more})
    return redirect("document_index", slug=slug)


@login_required
def document_detail(request: HttpRequest, slug: str, ref: str) -> HttpResponse:
    """One contract: its facts and where they came from, links, duplicates, articles.

    ``?article=<chunk id>`` (a citation) opens the page of articles holding that chunk, with
    it marked; a chunk of another document is ignored (nothing about it leaks).
    """
    user = _user(request)
    workspace = workspace_get_for_member(user=user, slug=slug)
    document = document_get(workspace=workspace, ref=ref)
    chunks = document_chunks(document=document)
    cited = _cursor(request.GET.get("article"))
    found, after = (
        chunk_page_cursor(chunks=chunks, chunk_id=cited) if cited is not None else (False, None)
    )
    if not found:
        cited, after = None, _cursor(request.GET.get("after"))
    context = {
        "workspace": workspace,
        "document": document,
        "articles": chunk_page(chunks=chunks, after=after),
        "cited": cited,
        "links": document_links(document=document),
        "duplicates": document_duplicates(document=document),
    }
    return render(request, "documents/detail.html", context)


# What the stored original is served as, by the type detected at upload.
CONTENT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "txt": "text/plain; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
}


@login_required
def document_original(request: HttpRequest, slug: str, ref: str) -> FileResponse:
    """The stored original, as an attachment (never rendered inline: it is untrusted)."""
    user = _user(request)
    workspace = workspace_get_for_member(user=user, slug=slug)
    document = document_get(workspace=workspace, ref=ref)
    filename, content_type = document.filename, CONTENT_TYPES.get(document.media_type)
    if document.source == "dataroom":  # stored as the data room's JSON entry
        filename, content_type = f"{PurePath(filename).stem}.json", "application/json"
    try:
        original = default_storage.open(document.original, "rb")
    except (FileNotFoundError, SuspiciousFileOperation):
        raise Http404(gettext("The original file is missing.")) from None
    response = FileResponse(
        original,
        as_attachment=True,
        filename=filename,
        content_type=content_type or "application/octet-stream",
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _cursor(raw: str | None) -> int | None:
    """A non-negative integer from the URL (``?after=<ordinal>``, ``?article=<chunk id>``);
    anything else is None (the top of the articles, nothing cited)."""
    try:
        value = int(raw or "")
    except ValueError:
        return None
    return value if value >= 0 else None
