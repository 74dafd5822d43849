"""A checked draft becomes the answer shown: citations resolved against the database, quotes
verified against the stored text, a listing completed, or the code's own abstention."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext

from agents.chat._answer import (
    Draft,
    cited_numbers,
    completion_text,
    listing_gaps,
    segments,
    substituted,
    verify_quotes,
    without_citations,
)
from agents.chat._links import safe_links
from agents.chat._sources import Source, SourceBook
from agents.selectors import cited_texts, existing_citations, workspace_owner_names
from sources.caselaw import decision_texts, for_firm
from sources.selectors import version_texts, versions_existing
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

PUBLIC_KINDS = frozenset({"law", "decision"})  # the codes and case law: no workspace


def source_link(workspace: Workspace, source: Source) -> str:
    """The document viewer at the cited article (or at the contract's top); the Codes page
    at the article's version, for the law."""
    if source.kind in PUBLIC_KINDS:
        return source.url or ""
    url = reverse("document_detail", args=[workspace.slug, source.contract_id])
    if source.chunk_id is not None:
        url += f"?article={source.chunk_id}#chunk-{source.chunk_id}"
    return url


def resolved(workspace: Workspace, book: SourceBook, numbers: list[int]) -> list[dict[str, Any]]:
    cited = []
    for n in numbers:
        source = book.get(n)
        if source is not None:
            entry = asdict(source)
            entry["label"] = book.label(source)
            entry["url"] = source_link(workspace, source)
            cited.append(entry)
    return cited


def escalation(workspace: Workspace) -> str:
    with workspace_scope(workspace):
        owners = workspace_owner_names(workspace=workspace)
    names = ", ".join(owners) or gettext("the workspace's owner")
    return gettext("the lawyers in charge of this matter (%(names)s)") % {"names": names}


def abstention(workspace: Workspace, missing: str) -> Draft:
    """The code's own abstention, when no checked answer could be had from the model."""
    return Draft(
        gettext("I cannot give an answer I can back with the data room's documents."),
        [],
        "abstain",
        missing,
        escalation(workspace),
    )


def _dangling(workspace: Workspace, book: SourceBook, numbers: list[int]) -> list[int]:
    """Cited numbers whose article or contract is no longer in the workspace (or, for the
    law, whose version is no longer stored)."""
    everything = [s for n in numbers if (s := book.get(n)) is not None]
    law = [s for s in everything if s.kind == "law"]
    stored_law = versions_existing(s.version_id for s in law if s.version_id is not None)
    gone = [s.n for s in law if s.version_id not in stored_law]
    # A decision is public and cached: never gone from under the answer.
    sources = [s for s in everything if s.kind not in PUBLIC_KINDS]
    with workspace_scope(workspace):
        chunks, contracts = existing_citations(
            workspace=workspace,
            chunk_ids=[s.chunk_id for s in sources if s.chunk_id is not None],
            contract_ids=[s.contract_id for s in sources if s.chunk_id is None],
        )
    return gone + [
        s.n
        for s in sources
        if (s.chunk_id not in chunks if s.chunk_id is not None else s.contract_id not in contracts)
    ]


def safe_draft(draft: Draft) -> tuple[Draft, int]:
    """The draft's texts without images or links to hosts off the allow-list (every surface
    shows what is stored: the page, the events, MCP, REST and the command), and how many
    were taken out."""
    answer, in_answer = safe_links(draft.answer)
    missing, in_missing = safe_links(draft.missing)
    escalate_to, in_escalation = safe_links(draft.escalate_to)
    removed = in_answer.total + in_missing.total + in_escalation.total
    return replace(draft, answer=answer, missing=missing, escalate_to=escalate_to), removed


def finish(workspace: Workspace, book: SourceBook, draft: Draft) -> dict[str, Any]:
    """The answer as stored and shown, with the checks the code made on the way."""
    draft, links_removed = safe_draft(draft)
    dangling = _dangling(workspace, book, cited_numbers(draft))
    checks: dict[str, Any] = {"dangling_citations": dangling, "links_removed": links_removed}
    if dangling:
        # Gone since the tool read them (re-ingested, deleted): not cited, not shown; an
        # answer left citing nothing is no answer the documents back.
        draft = replace(
            draft,
            answer=without_citations(draft.answer, set(dangling)),
            citations=[n for n in draft.citations if n not in dangling],
        )
        if draft.confidence != "abstain" and not cited_numbers(draft):
            draft = abstention(workspace, _gone())
    numbers = cited_numbers(draft)
    cited = [s for n in numbers if (s := book.get(n)) is not None]
    sources = [s for s in cited if s.kind not in PUBLIC_KINDS]
    with workspace_scope(workspace):
        stored = cited_texts(
            workspace=workspace,
            chunk_ids=[s.chunk_id for s in sources if s.chunk_id is not None],
            contract_ids=[s.contract_id for s in sources if s.chunk_id is None],
        )
    stored += version_texts(s.version_id for s in cited if s.version_id is not None)
    # In the firm's own turn and cache, as the tool that read them: never the install's.
    with for_firm(firm_id=workspace.firm_id):
        stored += decision_texts(s.decision_id for s in cited if s.decision_id is not None)
    text, quotes = verify_quotes(draft.answer, stored)
    checks["quotes"] = asdict(quotes)
    confidence = draft.confidence
    if quotes.removed and confidence == "high":
        confidence = "medium"  # it put words in a document's mouth: not shown as certain
    gaps = listing_gaps(draft, book)
    checks["listing_completed_by_code"] = gaps
    if gaps:
        text = f"{text}\n\n{completion_text(gaps, book.listings[-1])}"
    return {
        "answer": substituted(text, book),
        "segments": segments(text, book),
        "citations": resolved(workspace, book, numbers),
        "confidence": confidence,
        "missing": draft.missing or None,
        "escalate_to": draft.escalate_to or None,
        "checks": checks,
    }


def _gone() -> str:
    return gettext(
        "the documents the answer cited, which are no longer in the data room (deleted or "
        "re-ingested since they were read): ask again"
    )
