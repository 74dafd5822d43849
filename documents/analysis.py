"""Workspace-level reading: amendments and effective end dates, duplicate groups.

Runs after a batch is processed and embedded; rebuilds its results from stored fields
(fingerprints, MinHash signatures, metadata, embeddings), so it is idempotent and cheap.
It reads and decides only: ``documents.services.workspace_analyze`` writes what it found.
The explanations are written for the lawyer in the active language (a task runs in the
firm's); the document text they quote stays as written.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date

from django.db.models import Prefetch
from django.utils.translation import gettext, pgettext

from core.normalize import fold_accents
from documents.duplicates import group_duplicates
from documents.models import (
    Document,
    DocumentLink,
    DocumentParty,
    DocumentStatus,
    DuplicateKind,
    LinkKind,
)

READABLE = (DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED)
_TRANSLATION_MARKERS = re.compile(
    r"traduction|translation|übersetzung|traducci[oó]n|version (anglaise|française)", re.I
)
_WORD = re.compile(r"[a-z0-9]{4,}")


# A duplicate group: its kind, its documents' ids, the reason shown and the score.
DuplicateGroupFound = tuple[str, frozenset[int], str, float]


@dataclass(frozen=True)
class WorkspaceAnalysis:
    """What the analysis of a workspace found, for the service to store."""

    links: list[DocumentLink]  # the amendment links, unsaved
    end_dates_changed: list[Document]  # documents whose effective end date changed
    duplicate_groups: list[DuplicateGroupFound]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(fold_accents(text, casefold=True)))


def _documents(workspace_id: int) -> list[Document]:
    parties = Prefetch(
        "parties", queryset=DocumentParty.objects.select_related("entity").order_by("ordinal")
    )
    return list(
        Document.objects.filter(workspace_id=workspace_id, status__in=READABLE)
        .defer("text", "minhash")
        .prefetch_related(parties)
        .order_by("ref")
    )


def _entity_ids(document: Document) -> frozenset[int]:
    return frozenset(party.entity_id for party in document.parties.all())


def _party_names(document: Document) -> str:
    return ", ".join(party.entity.name for party in document.parties.all())


def _reasons(reasons: list[str]) -> str:
    # French sets its semicolons apart with a space: the separator is translated too.
    return pgettext("between reasons", "; ").join(reasons)


# --- Amendments ------------------------------------------------------------------------


def _parent_score(amendment: Document, candidate: Document) -> tuple[int, list[str]]:
    reasons = [gettext("same parties (%(parties)s)") % {"parties": _party_names(candidate)}]
    score = 1
    hints = amendment.amendment_hints
    cited = hints.get("parent_date_hint")
    if cited and candidate.signature_date and cited == candidate.signature_date.isoformat():
        score += 4
        message = gettext("cited date %(date)s = signature of %(contract)s")
        reasons.append(message % {"date": cited, "contract": candidate.ref})
    hint_words = _words(hints.get("parent_title_hint", ""))
    shared = hint_words & _words(f"{candidate.title} {candidate.contract_type}")
    if shared:
        score += len(shared)
        message = gettext("cited subject “%(subject)s”")
        reasons.append(message % {"subject": hints.get("parent_title_hint", "")})
    if (
        amendment.signature_date
        and candidate.signature_date
        and candidate.signature_date > amendment.signature_date
    ):
        score -= 5  # an amendment cannot precede the contract it modifies
    return score, reasons


def _link_amendments(documents: list[Document]) -> list[DocumentLink]:
    links = []
    contracts = [d for d in documents if not d.is_amendment]
    for amendment in (d for d in documents if d.is_amendment):
        parties = _entity_ids(amendment)
        candidates = [c for c in contracts if parties and parties <= _entity_ids(c)]
        scored = sorted(
            ((*_parent_score(amendment, c), c) for c in candidates),
            key=lambda item: (-item[0], item[2].ref),
        )
        if not scored or scored[0][0] < 1:
            continue
        # Two equally good parents: say nothing rather than guess.
        if len(scored) > 1 and scored[1][0] == scored[0][0] and scored[0][0] < 5:
            continue
        _, reasons, parent = scored[0]
        label = (
            gettext("Amendment no. %(number)d") % {"number": amendment.amendment_number}
            if amendment.amendment_number
            else gettext("amendment")
        )
        explanation = gettext("%(amendment)s (%(label)s) amends %(contract)s: %(reasons)s") % {
            "amendment": amendment.ref,
            "label": label,
            "contract": parent.ref,
            "reasons": _reasons(reasons),
        }
        links.append(
            DocumentLink(
                workspace_id=amendment.workspace_id,
                source=amendment,
                target=parent,
                kind=LinkKind.AMENDS,
                explanation=explanation,
            )
        )
    return links


def _effective_end_dates(documents: list[Document], links: list[DocumentLink]) -> None:
    by_parent: dict[int, list[Document]] = defaultdict(list)
    for link in links:
        by_parent[link.target.pk].append(link.source)
    for document in documents:
        document.effective_end_date = document.end_date
        document.effective_end_explanation = ""
        amendments = sorted(
            by_parent.get(document.pk, []),
            key=lambda a: (
                a.signature_date or document.signature_date or a.created_at.date(),
                a.amendment_number or 0,
            ),
        )
        for amendment in amendments:
            hints = amendment.amendment_hints
            new_end = hints.get("new_end_date")
            evidence = hints.get("new_end_evidence", "")
            if not new_end:
                continue
            before = document.effective_end_date
            document.effective_end_date = date.fromisoformat(new_end)
            values = {
                "before": before.isoformat() if before else pgettext("date", "unknown"),
                "after": new_end,
                "amendment": amendment.ref,
                "title": amendment.display_title,
                "signed": amendment.signature_date.isoformat() if amendment.signature_date else "",
            }
            if amendment.signature_date:
                message = gettext(
                    "End %(before)s moved to %(after)s by %(amendment)s (%(title)s of %(signed)s)"
                )
            else:
                message = gettext("End %(before)s moved to %(after)s by %(amendment)s (%(title)s)")
            explanation = message % values
            if evidence:
                message = gettext("%(explanation)s: “%(evidence)s”")
                explanation = message % {"explanation": explanation, "evidence": evidence}
            document.effective_end_explanation = explanation


# --- Duplicates --------------------------------------------------------------------------


def _translation_groups(documents: list[Document]) -> list[tuple[frozenset[int], str, float]]:
    groups = []
    by_key: dict[tuple[object, ...], list[Document]] = defaultdict(list)
    for document in documents:
        parties = _entity_ids(document)
        if parties and document.signature_date and document.language:
            key = (parties, document.signature_date, document.effective_end_date)
            by_key[key].append(document)
    for members in by_key.values():
        languages = {d.language for d in members}
        if len(members) < 2 or len(languages) < 2:
            continue
        marked = [d for d in members if _TRANSLATION_MARKERS.search(f"{d.title} {d.filename}")]
        similarity = _mean_embedding_similarity(members)
        if not marked and (similarity is None or similarity < 0.8):
            continue
        signals = [
            gettext("same parties"),
            gettext("same signature date"),
            gettext("same end date"),
            gettext("languages %(languages)s") % {"languages": ", ".join(sorted(languages))},
        ]
        if marked:
            message = gettext("%(contracts)s presents itself as a translation")
            signals.append(message % {"contracts": ", ".join(d.ref for d in marked)})
        if similarity is not None:
            message = gettext("embedding similarity %(score).2f")
            signals.append(message % {"score": similarity})
        groups.append((frozenset(d.pk for d in members), _reasons(signals), similarity or 1.0))
    return groups


def _mean_embedding_similarity(members: list[Document]) -> float | None:
    """Cosine between the documents' mean chunk vectors (None if not embedded)."""
    import numpy as np

    from documents.models import Chunk

    means = []
    for document in members:
        rows = list(
            Chunk.objects.filter(document=document, embedding__isnull=False).values_list(
                "embedding", flat=True
            )
        )
        if not rows:
            return None
        mean = np.mean(np.array(rows, dtype=np.float32), axis=0)
        means.append(mean / (np.linalg.norm(mean) or 1.0))
    scores = [float(np.dot(means[0], other)) for other in means[1:]]
    return min(scores) if scores else None


def _duplicate_groups(documents: list[Document]) -> list[DuplicateGroupFound]:
    by_ref = {d.ref: d for d in documents}
    full = {
        d.ref: d
        for d in Document.objects.filter(pk__in=[d.pk for d in documents]).only(
            "id", "ref", "text_fingerprint", "minhash"
        )
    }
    found = []
    for candidate in group_duplicates(
        fingerprints={ref: d.text_fingerprint for ref, d in full.items() if d.text_fingerprint},
        signatures={ref: d.minhash for ref, d in full.items() if d.minhash},
    ):
        ids = frozenset(by_ref[ref].pk for ref in candidate.ids)
        names = ", ".join(f"{ref} ({by_ref[ref].filename})" for ref in sorted(candidate.ids))
        if candidate.kind == "exact":
            reason = gettext("Same text (after normalisation): %(contracts)s") % {
                "contracts": names
            }
        else:
            message = gettext("Near-identical text (estimated Jaccard %(score).2f): %(contracts)s")
            reason = message % {"score": candidate.score, "contracts": names}
        found.append((candidate.kind, ids, reason, candidate.score))
    covered = {ids for _, ids, _, _ in found}
    for ids, reason, score in _translation_groups(documents):
        if ids not in covered:
            reason = gettext("Probable translation: %(reasons)s") % {"reasons": reason}
            found.append((DuplicateKind.TRANSLATION, ids, reason, score))
    return found


# --- Entry point -------------------------------------------------------------------------


def workspace_analysis(*, workspace_id: int) -> WorkspaceAnalysis:
    """Read the workspace's processed documents and decide their amendment links, effective
    end dates and duplicate groups; writes nothing (the caller holds the analysis lock)."""
    documents = _documents(workspace_id)
    before = {d.pk: (d.effective_end_date, d.effective_end_explanation) for d in documents}
    links = _link_amendments(documents)
    _effective_end_dates(documents, links)
    changed = [
        d for d in documents if before[d.pk] != (d.effective_end_date, d.effective_end_explanation)
    ]
    return WorkspaceAnalysis(links, changed, _duplicate_groups(documents))
