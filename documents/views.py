"""HTML pages: home (the user's workspaces), a workspace's dashboard, the upload page and
an upload's progress, one document."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from documents.dashboard import (
    batch_files,
    batch_get,
    document_table,
    filter_choices,
    workspace_overview_for_user,
)
from documents.facts import facts
from documents.forms import DocumentFilterForm
from documents.pipeline import store_uploads
from documents.selectors import (
    batch_status,
    chunk_page,
    chunk_page_cursor,
    document_chunks,
    document_duplicates,
    document_get,
    document_links,
    document_provenance,
)
from documents.services import JSON_SOURCES
from documents.viewer_notes import article_notes
from workspaces.models import Role, User
from workspaces.selectors import (
    RoleRequired,
    workspace_get_for_member,
    workspace_member_role,
    workspace_members,
)
from workspaces.tenancy import workspace_scope

MAX_FILES_PER_UPLOAD = 200
UPLOADERS = (Role.OWNER, Role.EDITOR)
# The dashboard's columns: sort key (None: not sortable) and heading.
COLUMNS = (
    ("ref", _("Ref.")),
    ("title", _("Title")),
    ("contract_type", _("Type")),
    (None, _("Parties")),
    ("signature_date", _("Signed")),
    ("effective_end_date", _("Ends")),
    ("governing_law", _("Law")),
    ("status", _("Status")),
    (None, _("Warnings")),
    (None, _("Amendments and duplicates")),
)


def _user(request: HttpRequest) -> User:
    return cast(User, request.user)


def _page_or_partial(
    request: HttpRequest, template: str, partial: str, context: dict[str, Any]
) -> HttpResponse:
    """The whole page, or for an htmx request (a poll) only its ``{% partialdef %}``."""
    if request.htmx:  # type: ignore[attr-defined]
        template = f"{template}#{partial}"
    return render(request, template, context)


@login_required
def document_index(request: HttpRequest, slug: str) -> HttpResponse:
    """The workspace dashboard (``/w/<slug>/``, also ``/w/<slug>/documents/``): the documents
    table, filtered, sorted and paged from the URL; htmx polls the table while some document
    is being processed."""
    user = _user(request)
    workspace = workspace_get_for_member(user=user, slug=slug)
    # workspace_get_for_member read the user's role with the workspace (no second query).
    role = workspace_member_role(user=user, workspace=workspace)
    form = DocumentFilterForm(request.GET, choices=filter_choices(workspace=workspace))
    problems = form.problems()
    asked = form.page_number()
    table = document_table(workspace=workspace, filters=form.filters(), page_number=asked)
    paginator = table.page.paginator
    if asked > table.page.number:
        message = gettext("There is no page %(asked)d: showing page %(page)d of %(pages)d.")
        problems.append(
            message % {"asked": asked, "page": table.page.number, "pages": paginator.num_pages}
        )
    context = {
        "workspace": workspace,
        "role": Role(role).label if role else "",
        "can_upload": role in UPLOADERS,
        "form": form,
        "filters": form.filters(),
        "problems": problems,
        "columns": COLUMNS,
        "table": table,
        "page_links": paginator.get_elided_page_range(table.page.number),
        "ellipsis": paginator.ELLIPSIS,
        "members": workspace_members(workspace=workspace),
    }
    return _page_or_partial(request, "documents/index.html", "document-table", context)


@login_required
@require_http_methods(["GET", "POST"])
def document_upload(request: HttpRequest, slug: str) -> HttpResponse:
    """The upload page; its POST stores the files, queues them and goes to the batch's page."""
    user = _user(request)
    try:
        workspace = workspace_get_for_member(user=user, slug=slug, min_role=Role.EDITOR)
    except RoleRequired as exc:
        return HttpResponse(str(exc), status=403)
    if request.method == "GET":
        return render(request, "documents/upload.html", {"workspace": workspace})
    files = request.FILES.getlist("files")
    if not files:
        messages.error(request, gettext("Choose at least one file."))
        return redirect("document_upload", slug=slug)
    if len(files) > MAX_FILES_PER_UPLOAD:
        message = gettext("At most %(count)d files per upload (use a ZIP).")
        messages.error(request, message % {"count": MAX_FILES_PER_UPLOAD})
        return redirect("document_upload", slug=slug)
    with workspace_scope(workspace):  # the request's scope narrowed to this workspace
        batch, _ = store_uploads(workspace=workspace, uploads=files, user=user, label="web upload")
    return redirect("batch_detail", slug=slug, batch_id=batch.pk)


@login_required
def batch_detail(request: HttpRequest, slug: str, batch_id: int) -> HttpResponse:
    """An upload's progress: each file's result, then its documents' processing, polled by
    htmx every second until the batch is finished."""
    workspace = workspace_get_for_member(user=_user(request), slug=slug)
    batch = batch_get(workspace=workspace, batch_id=batch_id)
    if batch is None:
        raise Http404(gettext("No such upload."))
    context = {
        "workspace": workspace,
        "batch": batch,
        "status": batch_status(batch=batch),
        "files": batch_files(batch=batch),
    }
    return _page_or_partial(request, "documents/batch.html", "batch-progress", context)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The user's workspaces: their role, documents, last upload and ingestion state."""
    workspaces = [
        (workspace, Role(workspace.member_role).label)  # type: ignore[attr-defined]
        for workspace in workspace_overview_for_user(user=_user(request))
    ]
    return render(request, "documents/home.html", {"workspaces": workspaces})


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
    read = document_provenance(document=document)
    rows = facts(read.values)
    page = chunk_page(chunks=chunks, after=after)
    notes = article_notes(document)
    for chunk in page.chunks:
        chunk.notes = notes.get(chunk.pk, [])  # type: ignore[attr-defined]
    context = {
        "workspace": workspace,
        "document": document,
        "facts": [row for row in rows if row.field != "party"],
        "party_facts": [row for row in rows if row.field == "party"],
        "identifiers": read.identifiers,
        "articles": page,
        "contract_notes": notes.get(None, []),
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
    if document.source in JSON_SOURCES:  # stored as a JSON entry (data room, decision)
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
    # Opened directly anyway (an HTML original, say), it runs no script and reaches nothing.
    response["Content-Security-Policy"] = "sandbox"
    return response


def _cursor(raw: str | None) -> int | None:
    """A non-negative integer from the URL (``?after=<ordinal>``, ``?article=<chunk id>``);
    anything else is None (the top of the articles, nothing cited)."""
    try:
        value = int(raw or "")
    except ValueError:
        return None
    return value if value >= 0 else None
