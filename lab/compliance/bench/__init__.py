"""bench_compliance: the default English playbook over the CUAD eval workspace.

The workspace is the one ``eval_compliance --suite cuad`` indexes (the same ``--limit``, the
same index): chunks, embeddings and clause-type tags are stored, so a scan only reads them.
Reported: contracts per second, where the time goes (reading the articles, classifying, i.e.
``of_type`` over the stored tags or the heading cues, the rule checks, storing the flags), and
the proof that nothing is re-encoded: the encoder runs once per position-rule wording on the
first scan, never on a re-scan, and no chunk waits for an embedding.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from compliance.checks import Timings
from compliance.models import RuleKind
from compliance.playbooks import DEFAULTS, PlaybookSpec, parse_playbook
from compliance.scanning import wording_encoder_calls, wording_vectors_forget
from core.embeddings import embedding_model_name
from documents.models import Chunk
from documents.selectors import chunks_pending_embedding
from lab.compliance.evals import cuad_index, selected
from lab.compliance.evals.cuad import scan_workspace
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

PLAYBOOK = DEFAULTS / "en-commercial.yaml"


def _wordings(spec: PlaybookSpec) -> set[str]:
    texts: set[str] = set()
    for rule in spec.rules:
        if rule.kind == RuleKind.POSITION:
            texts |= {rule.params["preferred"], *rule.params.get("fallbacks", [])}
            texts |= set(rule.params.get("unacceptable", []))
    return texts


def _timed_scan(workspace: Workspace, spec: PlaybookSpec) -> dict[str, Any]:
    timings, misses = Timings(), wording_encoder_calls()
    started = time.perf_counter()
    scan, playbook = scan_workspace(workspace, spec, timings=timings)
    seconds = time.perf_counter() - started
    parts = {
        "read_articles": timings.read,
        "classify": timings.classify,
        "rules": timings.rules,
        "store_flags": timings.store,
    }
    parts["other"] = max(0.0, seconds - sum(parts.values()))
    checked = timings.classify + timings.rules
    return {
        "playbook": playbook,
        "contracts": scan.documents_done,
        "flags": scan.flags_raised,
        "seconds": round(seconds, 3),
        "contracts_per_second": round(scan.documents_done / seconds, 1) if seconds else None,
        "seconds_per_100_contracts": round(100 * seconds / scan.documents_done, 2)
        if scan.documents_done
        else None,
        "time_share": {name: round(value / seconds, 4) for name, value in parts.items()},
        "classify_vs_rules": {
            "classify": round(timings.classify / checked, 4) if checked else 0.0,
            "rules": round(timings.rules / checked, 4) if checked else 0.0,
        },
        "encoder_calls": wording_encoder_calls() - misses,
    }


def run_compliance_bench(*, data_dir: Path, limit: int | None) -> dict[str, Any]:
    """The first scan (the rules' wordings encoded) and a re-scan (nothing encoded)."""
    contracts, _held_out = selected(data_dir / "cuad", limit)
    indexed = cuad_index(contracts, limit=limit)
    workspace = indexed.workspace
    spec = parse_playbook(PLAYBOOK.read_text(encoding="utf-8"))
    wording_vectors_forget()  # the first scan of this process encodes the wordings
    with workspace_scope(workspace):
        pending_before = chunks_pending_embedding(workspace_id=workspace.pk)
        chunks = Chunk.objects.filter(document__workspace=workspace)
        total_chunks = chunks.count()
        tagged = chunks.filter(clause_type_keys__len__gt=0).count()
    first = _timed_scan(workspace, spec)
    rescan = _timed_scan(workspace, spec)
    with workspace_scope(workspace):
        pending_after = chunks_pending_embedding(workspace_id=workspace.pk)
    return {
        "bench": "compliance",
        "workspace": workspace.slug,
        "model": embedding_model_name(),
        "chunks": total_chunks,
        "chunks_tagged": tagged,
        "classification": "stored tags" if tagged else "heading cues (workspace untagged)",
        "position_wordings": len(_wordings(spec)),
        "chunks_pending_embedding": {"before": pending_before, "after": pending_after},
        "index_reused": indexed.reused,
        "index_seconds": round(indexed.seconds, 1),
        "scan": first,
        "rescan": rescan,
    }
