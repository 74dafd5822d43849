"""Where training examples come from: CUAD's annotated excerpts (and unannotated paragraphs of
the same contracts as negatives), our own definitions, ACORD's train-split queries, or a
firm's own labels (a CSV of text,type[,contract] rows).

ACORD's relevance labels (qrels) and its valid / test queries are never read here.
"""

from __future__ import annotations

import ast
import csv
import json
import random
import re
from collections import defaultdict
from pathlib import Path

from documents.clause_types._fit import Example
from documents.clause_types._french import FRENCH_EXAMPLES, FRENCH_OTHERS
from documents.clause_types._taxonomy import BY_KEY, CLAUSE_TYPES, CUES

# Unannotated paragraphs of each CUAD contract taken as negatives (no clause type).
NEGATIVES_PER_CONTRACT = 6
_PARAGRAPH = re.compile(r"\n\s*\n")
# ACORD's family names -> the type a query of the family gets unless a cue names another.
ACORD_FAMILY_TYPE = {
    "limitation of liability": "cap_on_liability",
    "indemnification": "indemnification",
    "affirmative covenants": "insurance",
    "restrictive covenants": "non_compete",
    "term": "expiration_date",
    "governing law": "governing_law",
    "liquidated damages": "liquidated_damages",
    "third party beneficiary clause": "third_party_beneficiary",
    "ip ownership/license": "license_grant",
}


# Types CUAD does not annotate, recognised in its texts by patterns we wrote: without them a
# CUAD indemnity would be a negative example (CUAD has no such category), and with them the
# types get hundreds of positives instead of a few definitions.
WEAK_PATTERNS: dict[str, re.Pattern[str]] = {
    "indemnification": re.compile(
        r"\bindemnif\w*\b.{0,300}\b(?:defend|hold\W+(?:\w+\W+){0,3}harmless|against\W+(?:any|all))",
        re.IGNORECASE | re.DOTALL,
    ),
    "exclusion_of_damages": re.compile(
        r"(?:consequential|incidental|indirect|special|punitive|exemplary)[\w ,]{0,60}damages"
        r"|lost\s+profits",
        re.IGNORECASE,
    ),
    "warranty_disclaimer": re.compile(
        r"merchantability|fitness\s+for\s+a\s+particular\s+purpose|\bas\s+is\b", re.IGNORECASE
    ),
    "exclusive_remedy": re.compile(
        r"(?:sole|exclusive)\s+(?:and\s+exclusive\s+)?remed", re.IGNORECASE
    ),
}
# Paragraphs a weak pattern finds, kept per contract and type (as positives of that type).
WEAK_PER_CONTRACT = 3


def weak_labels(text: str) -> frozenset[str]:
    return frozenset(key for key, pattern in WEAK_PATTERNS.items() if pattern.search(text))


class TrainingDataError(ValueError):
    """Training input that cannot be used, with what is wrong in it."""


def type_references(language: str) -> dict[str, tuple[str, ...]]:
    """Each type's texts written by us in ``language`` ("en": its label and definition; "fr":
    its label and French clauses): a firm's own clause type is told apart from these."""
    if language == "fr":
        return {e.key: (e.fr, *FRENCH_EXAMPLES.get(e.key, ())) for e in CLAUSE_TYPES}
    return {e.key: (e.en, e.definition) for e in CLAUSE_TYPES}


def definition_examples() -> list[Example]:
    """Each type's labels, definition and French clauses, written by us: prototypes for every
    type in both languages, and French clauses of no type."""
    typed = [
        Example(text, frozenset({entry.key}), "taxonomy", always_train=True)
        for entry in CLAUSE_TYPES
        for text in (entry.en, entry.fr, entry.definition, *FRENCH_EXAMPLES.get(entry.key, ()))
    ]
    others = [Example(text, frozenset(), "taxonomy", always_train=True) for text in FRENCH_OTHERS]
    return typed + others


def cuad_excerpts(cell: str) -> list[str]:
    """The excerpts of one CUAD master-clauses cell (a Python list literal), blanks dropped."""
    if not cell.startswith("["):
        return []
    try:
        values = ast.literal_eval(cell)
    except (ValueError, SyntaxError):
        return []
    return [str(value).strip() for value in values if str(value).strip()]


def cuad_examples(cuad_dir: Path, seed: int = 13) -> list[Example]:
    """CUAD's excerpts labelled with their categories (an excerpt in two categories has both),
    and unannotated paragraphs of the same contracts as negatives."""
    labels_csv = cuad_dir / "master_clauses.csv"
    if not labels_csv.is_file():
        raise TrainingDataError(f"{labels_csv} not found: pass --data-dir with a cuad/ folder.")
    columns = {entry.cuad: entry.key for entry in CLAUSE_TYPES if entry.cuad}
    examples: list[Example] = []
    rng = random.Random(seed)  # noqa: S311 (a reproducible sample, not a secret)
    # CUAD's rows hold whole contracts' excerpts; the limit is the process's, so it is put back.
    previous_limit = csv.field_size_limit(1 << 30)
    try:
        rows = _cuad_rows(labels_csv)
    finally:
        csv.field_size_limit(previous_limit)
    for row in rows:
        contract = row["Filename"]
        labelled: dict[str, set[str]] = defaultdict(set)
        for column, key in columns.items():
            for excerpt in cuad_excerpts(row.get(column, "")):
                labelled[excerpt].add(key)
        examples += [
            Example(t, frozenset(k) | weak_labels(t), contract) for t, k in labelled.items()
        ]
        examples += _negatives(cuad_dir, contract, list(labelled), rng)
    return examples


def _cuad_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def _negatives(
    cuad_dir: Path, contract: str, excerpts: list[str], rng: random.Random
) -> list[Example]:
    path = cuad_dir / "full_contract_txt" / (Path(contract).stem + ".txt")
    if not path.is_file():
        return []
    paragraphs = [
        p.strip() for p in _PARAGRAPH.split(path.read_text(encoding="utf-8", errors="replace"))
    ]
    probes = [excerpt[:60] for excerpt in excerpts]
    free = [
        p
        for p in paragraphs
        if 150 <= len(p) <= 2000
        and not any(probe in p or p[:60] in e for probe, e in zip(probes, excerpts, strict=True))
    ]
    chosen = rng.sample(free, min(NEGATIVES_PER_CONTRACT, len(free)))
    for pattern in WEAK_PATTERNS.values():
        found = [p for p in free if p not in chosen and pattern.search(p)]
        chosen += found[:WEAK_PER_CONTRACT]
    return [Example(p, weak_labels(p), contract) for p in chosen]


def acord_train_examples(acord_dir: Path) -> list[Example]:
    """ACORD's train-split queries, typed by their family (a cue in the text may name a more
    precise type of that family). Queries of the valid and test splits are never read."""
    path = acord_dir / "queries.jsonl"
    if not path.is_file():
        return []
    examples = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        metadata = row.get("metadata") or {}
        default = ACORD_FAMILY_TYPE.get(str(metadata.get("category", "")).lower())
        if metadata.get("split") != "train" or default is None:
            continue
        family = BY_KEY[default].family
        cued = [
            k
            for k, pattern in CUES.items()
            if BY_KEY[k].family == family and pattern.search(row["text"])
        ]
        examples.append(
            Example(
                str(row["text"]), frozenset(cued[:1] or [default]), "acord-train", always_train=True
            )
        )
    return examples


# A firm's labels file: a few thousand passages is plenty; this bounds memory and time.
MAX_LABELS_BYTES = 50 * 2**20


def labels_examples(path: Path) -> list[Example]:
    """A firm's own labels: a CSV with a header naming ``text`` and ``type`` (a taxonomy key,
    or empty for a passage of no type), and optionally ``contract`` (the held-out split keeps
    a contract's rows together; without it every row is its own contract)."""
    if not path.is_file():
        raise TrainingDataError(f"{path}: no such file.")
    if path.stat().st_size > MAX_LABELS_BYTES:
        raise TrainingDataError(f"{path}: larger than {MAX_LABELS_BYTES // 2**20} MB.")
    try:
        return _read_labels(path)
    except UnicodeDecodeError as exc:
        raise TrainingDataError(f"{path}: not UTF-8 text ({exc.reason}).") from exc
    except csv.Error as exc:
        raise TrainingDataError(f"{path}: not a readable CSV ({exc}).") from exc


def _read_labels(path: Path) -> list[Example]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or not {"text", "type"} <= set(reader.fieldnames):
            raise TrainingDataError(f"{path}: the header must name the columns text and type.")
        grouped: dict[tuple[str, str], set[str]] = defaultdict(set)
        for line, row in enumerate(reader, start=2):
            text, key = (row.get("text") or "").strip(), (row.get("type") or "").strip()
            if not text:
                raise TrainingDataError(f"{path}, line {line}: empty text.")
            if key and key not in BY_KEY:
                raise TrainingDataError(
                    f"{path}, line {line}: unknown type {key!r}; allowed: {', '.join(BY_KEY)}."
                )
            labels = grouped[(text, (row.get("contract") or "").strip() or f"row{line}")]
            if key:
                labels.add(key)
    if not grouped:
        raise TrainingDataError(f"{path}: no rows.")
    return [Example(text, frozenset(keys), group) for (text, group), keys in grouped.items()]
