"""CUAD for the compliance evals: its contracts indexed through ingestion (once), their
annotations per clause type, and the contracts the clause-type classifier never learned from.

The held-out contracts are those ``train_clause_types`` keeps out: the same examples'
contracts (``cuad_examples``; our definitions and ACORD's queries are always trained on and
name no contract), split by ``split_by_group`` with the same share and seed.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from documents.clause_types import (
    CLAUSE_TYPES,
    HELD_OUT,
    cuad_examples,
    cuad_excerpts,
    split_by_group,
)
from lab.documents.evals import file_key
from lab.search.evals import IndexedCorpus, corpus_index, entries_store, fingerprint, log

SUITE = "cuad"
SPLIT_SEED = 13  # train_clause_types' split_by_group(examples, HELD_OUT, seed=13)
# Clause-type key -> CUAD's category (column), for the types CUAD annotates.
MAPPED = {entry.key: entry.cuad for entry in CLAUSE_TYPES if entry.cuad}


class CuadMissing(FileNotFoundError):
    """The CUAD folder lacks its texts or its labels."""


@dataclass(frozen=True)
class CuadContract:
    ref: str  # the document's ref in the eval workspace
    filename: str  # CUAD's "Filename" (the classifier's training group)
    text_path: Path
    excerpts: dict[str, list[str]]  # clause-type key -> the annotated clause texts


def cuad_contracts(cuad_dir: Path) -> list[CuadContract]:
    """Every CUAD contract with a text file, in the CSV's file-name order; refs ``cuad-NNN``
    are positions in that order, so a subset keeps the refs of the whole."""
    labels, texts_dir = cuad_dir / "master_clauses.csv", cuad_dir / "full_contract_txt"
    if not labels.is_file() or not texts_dir.is_dir():
        raise CuadMissing(f"No CUAD dataset at {cuad_dir}: expected {labels} and {texts_dir}.")
    texts = {file_key(path.name): path for path in texts_dir.glob("*.txt")}
    # CUAD's cells hold whole clauses; the limit is the process's, so it is put back.
    previous_limit = csv.field_size_limit(1 << 30)
    try:
        with labels.open(encoding="utf-8-sig", newline="") as handle:
            rows = sorted(csv.DictReader(handle), key=lambda row: row["Filename"])
    finally:
        csv.field_size_limit(previous_limit)
    contracts = []
    for position, row in enumerate(rows, start=1):
        path = texts.get(file_key(row["Filename"]))
        if path is None:
            continue
        excerpts = {key: cuad_excerpts(row.get(column, "")) for key, column in MAPPED.items()}
        contracts.append(CuadContract(f"cuad-{position:03d}", row["Filename"], path, excerpts))
    return contracts


def held_out_filenames(cuad_dir: Path) -> frozenset[str]:
    """The CUAD contracts the clause-type classifier was scored on, never trained on."""
    examples = cuad_examples(cuad_dir)
    _train, held_out = split_by_group(examples, HELD_OUT, seed=SPLIT_SEED)
    return frozenset(examples[i].group for i in held_out)


def selected(cuad_dir: Path, limit: int | None) -> tuple[list[CuadContract], frozenset[str]]:
    """The contracts to index (all, or the first ``limit`` held-out ones) and the held out."""
    contracts, held_out = cuad_contracts(cuad_dir), held_out_filenames(cuad_dir)
    if limit:
        contracts = [c for c in contracts if c.filename in held_out][:limit]
    return contracts, held_out


def cuad_index(
    contracts: list[CuadContract], *, limit: int | None, reindex: bool = False
) -> IndexedCorpus:
    """The contracts indexed through ingestion (tagged by the classifier when one exists for
    the embedding model), or the index a previous run left. A subset gets its own workspace,
    so a small run never replaces the full index."""
    entries = [
        {
            "id": contract.ref,
            "filename": contract.text_path.name,
            "title": contract.text_path.stem,
            "content": contract.text_path.read_text(encoding="utf-8", errors="replace"),
        }
        for contract in contracts
    ]
    suite = f"{SUITE}-{limit}" if limit else SUITE
    log(f"[{suite}] {len(entries)} contracts")
    return corpus_index(
        suite=suite,
        corpus_fingerprint=fingerprint(entries),
        expected_documents=len(entries),
        store=entries_store(entries, label=f"eval {suite}"),
        corpus_id_by_ref={contract.ref: contract.filename for contract in contracts},
        reindex=reindex,
    )
