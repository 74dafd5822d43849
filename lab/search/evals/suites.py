"""The eval suites behind ``manage.py eval_search``: brenalis, acord, datafiller, and
acord-cut (the search's relevance cut calibrated on ACORD).

Each suite reads its dataset from the shared data folder at run time (nothing of it is
copied into the repository), indexes it through the product's ingestion path into its own
workspace, and returns one JSON-ready dict.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from core.embeddings import embedding_model_name
from documents.models import IngestBatch
from documents.pipeline import store_dataroom
from lab.report import Reporter
from lab.search.evals._brenalis import brenalis_checks
from lab.search.evals._cut import cut_calibration
from lab.search.evals._index import (
    IndexedCorpus,
    Store,
    corpus_index,
    entries_store,
    fingerprint,
    log,
    reporting_to,
    short_ref,
)
from lab.search.evals._judged import judged_report
from lab.search.evals._retrieval import (
    CorpusDocument,
    EvalQuery,
    Metric,
    mrr,
    ndcg,
    recall,
    run_arms,
    star_precision,
)
from workspaces.models import User, Workspace

SPLITS = ("train", "valid", "test")
CDT_PREFIX = "/code-du-travail/"


@dataclass(frozen=True)
class EvalOptions:
    data_dir: Path
    split: str = "test"
    limit_queries: int | None = None
    max_corpus: int | None = None
    reindex: bool = False
    oversample: int = 200
    # ACORD: also the hybrid arm reranked (LEXROOM_RERANKER), as the arm "hybrid+rerank".
    rerank: bool = False


def default_data_dir() -> Path:
    return Path(settings.BASE_DIR).parent / "shared" / "data"


class DatasetMissing(FileNotFoundError):
    """The shared data folder lacks the suite's files."""


def _require(path: Path) -> Path:
    if not path.exists():
        raise DatasetMissing(f"{path} is not available (pass --data DIR).")
    return path


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with _require(path).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# --- brenalis -----------------------------------------------------------------------------


def run_brenalis(options: EvalOptions) -> dict[str, Any]:
    path = _require(options.data_dir / "dataroom-brenalis" / "exemple_data_room.json")

    def store(workspace: Workspace, user: User) -> IngestBatch:
        batch, _results = store_dataroom(workspace=workspace, path=path, user=user)
        return batch

    entries = json.loads(path.read_text(encoding="utf-8"))
    indexed = corpus_index(
        suite="brenalis",
        corpus_fingerprint=fingerprint(entries),
        expected_documents=len(entries),
        store=store,
        corpus_id_by_ref={f"c{n:02d}": f"c{n:02d}" for n in range(1, len(entries) + 1)},
        reindex=options.reindex,
    )
    started = time.perf_counter()
    checks = brenalis_checks(indexed)
    passed = sum(1 for check in checks if check.passed)
    return {
        "suite": "brenalis",
        "checks": [check.as_dict() for check in checks],
        "passed": passed,
        "total": len(checks),
        "score": round(passed / len(checks), 4) if checks else 0.0,
        "model": embedding_model_name(),
        "index_seconds": round(indexed.seconds, 1),
        "index_reused": indexed.reused,
        "eval_seconds": round(time.perf_counter() - started, 1),
    }


# --- shared by the retrieval suites -------------------------------------------------------


def _subset(
    documents: list[CorpusDocument], queries: Sequence[EvalQuery], max_corpus: int | None
) -> list[CorpusDocument]:
    """At most ``max_corpus`` documents: all relevant to the queries, then the first others.

    Relevant documents are never dropped (a query's gold must stay findable), so the subset
    can exceed ``max_corpus`` when the queries have more relevant documents than that.
    """
    if max_corpus is None:
        return documents
    wanted = set().union(*(query.relevant for query in queries)) if queries else set()
    kept = [document for document in documents if document.corpus_id in wanted]
    room = max(0, max_corpus - len(kept))
    others = [document for document in documents if document.corpus_id not in wanted][:room]
    order = {id(document): index for index, document in enumerate(documents)}
    return sorted(kept + others, key=lambda document: order[id(document)])


def _index_documents(
    suite: str, documents: list[CorpusDocument], options: EvalOptions
) -> IndexedCorpus:
    taken: set[str] = set()
    entries = []
    corpus_id_by_ref = {}
    for document in documents:
        ref = short_ref(document.corpus_id, taken)
        corpus_id_by_ref[ref] = document.corpus_id
        entries.append(
            {
                "id": ref,
                "filename": f"{document.corpus_id}.txt",
                "title": document.title,
                "content": document.text,
            }
        )
    store: Store = entries_store(entries, label=f"eval {suite}")
    return corpus_index(
        suite=suite,
        corpus_fingerprint=fingerprint(entries),
        expected_documents=len(entries),
        store=store,
        corpus_id_by_ref=corpus_id_by_ref,
        reindex=options.reindex,
    )


def _retrieval_report(
    *,
    suite: str,
    split: str,
    options: EvalOptions,
    documents: list[CorpusDocument],
    queries: list[EvalQuery],
    metrics: dict[str, Metric],
    language: str,
    bm25_depth: int,
    notes: list[str],
    judged_metrics: dict[str, Metric] | None = None,
    adapter_splits: tuple[list[EvalQuery], list[EvalQuery]] | None = None,
) -> dict[str, Any]:
    if options.limit_queries is not None:
        queries = queries[: options.limit_queries]
    documents = _subset(documents, queries, options.max_corpus)
    log(f"[{suite}] {len(queries)} queries over {len(documents)} documents")
    indexed = _index_documents(suite, documents, options)
    if indexed.failed:
        notes.append(f"{len(indexed.failed)} documents failed ingestion: {indexed.failed[:10]}")
    started = time.perf_counter()
    arms, arm_notes = run_arms(
        indexed=indexed,
        documents=documents,
        queries=queries,
        metrics=metrics,
        language=language,
        oversample=options.oversample,
        bm25_depth=bm25_depth,
    )
    if options.max_corpus is not None:
        notes.append(
            f"subset corpus (--max-corpus {options.max_corpus}): scores are higher than on "
            "the full corpus; use them as a regression floor only."
        )
    report: dict[str, Any] = {
        "suite": suite,
        "split": split,
        "queries": len(queries),
        "corpus_documents": len(documents),
        "protocol": "corpus",
        "arms": {name: result.summary() for name, result in arms.items()},
        "model": embedding_model_name(),
        "oversample": options.oversample,
        "index_seconds": round(indexed.seconds, 1),
        "index_reused": indexed.reused,
        "eval_seconds": round(time.perf_counter() - started, 1),
        "notes": notes + arm_notes,
    }
    if judged_metrics is not None:
        report["judged"] = judged_report(
            indexed,
            queries,
            judged_metrics,
            oversample=options.oversample,
            rerank=options.rerank,
            adapter_splits=adapter_splits,
        )
    return report


# --- acord --------------------------------------------------------------------------------


def _acord_qrels(path: Path) -> dict[str, dict[str, int]]:
    grades: dict[str, dict[str, int]] = {}
    with _require(path).open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            grades.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return grades


def _acord_queries(root: Path, split: str) -> list[EvalQuery]:
    """The split's queries that have a relevant clause, in queries.jsonl order (so
    --limit-queries takes the same first N every time)."""
    qrels = _acord_qrels(root / "qrels" / f"{split}.tsv")
    return [
        EvalQuery(text=str(row["text"]), grades=qrels[str(row["_id"])])
        for row in _read_jsonl(root / "queries.jsonl")
        if str(row["_id"]) in qrels and any(g > 0 for g in qrels[str(row["_id"])].values())
    ]


def run_acord(options: EvalOptions) -> dict[str, Any]:
    root = options.data_dir / "acord"
    if options.split not in SPLITS:
        raise ValueError(f"--split must be one of {', '.join(SPLITS)}")
    documents = [
        CorpusDocument(str(row["_id"]), str(row.get("title") or ""), str(row["text"]))
        for row in _read_jsonl(root / "corpus.jsonl")
    ]
    queries = _acord_queries(root, options.split)
    # Scoring test: the search adapter is fitted on train (stopped on valid) as well.
    splits = (
        (_acord_queries(root, "train"), _acord_queries(root, "valid"))
        if options.split == "test"
        else None
    )
    return _retrieval_report(
        suite="acord",
        split=options.split,
        options=options,
        documents=documents,
        queries=queries,
        metrics={"ndcg@5": ndcg(5), "ndcg@10": ndcg(10), "recall@10": recall(10)},
        judged_metrics={
            "ndcg@5": ndcg(5),
            "ndcg@10": ndcg(10),
            "p@5_3star": star_precision(5, 3),
            "p@5_4star": star_precision(5, 4),
            "p@5_5star": star_precision(5, 5),
        },
        language="english",
        bm25_depth=100,
        adapter_splits=splits,
        notes=[
            "gain = qrel grade (0-4), log2 discount, ideal DCG from the query's judgements; "
            "recall@10 counts grade > 0 as relevant.",
            "reference (dataset authors, BM25): nDCG@5 0.104, nDCG@10 0.113; "
            "target nDCG@5 >= 0.30.",
        ],
    )


def run_acord_cut(options: EvalOptions) -> dict[str, Any]:
    """The relevance cut's thresholds calibrated on ACORD's train (or valid) queries, over
    the acord suite's own index (reused)."""
    if options.split == "test":
        raise ValueError("acord-cut calibrates: use --split train (or valid), never test")
    root = options.data_dir / "acord"
    documents = [
        CorpusDocument(str(row["_id"]), str(row.get("title") or ""), str(row["text"]))
        for row in _read_jsonl(root / "corpus.jsonl")
    ]
    queries = _acord_queries(root, options.split)[: options.limit_queries]
    documents = _subset(documents, queries, options.max_corpus)
    log(f"[acord-cut] {len(queries)} {options.split} queries over {len(documents)} documents")
    indexed = _index_documents("acord", documents, options)
    return {
        "suite": "acord-cut",
        "split": options.split,
        "queries": len(queries),
        "model": embedding_model_name(),
        "calibration": cut_calibration(indexed, queries),
    }


# --- datafiller ---------------------------------------------------------------------------


def _article_of(url: str) -> str | None:
    """'/code-du-travail/l3221-3' -> 'l3221-3' (lower case); None for any other source."""
    if not url.lower().startswith(CDT_PREFIX):
        return None
    slug = url[len(CDT_PREFIX) :].strip("/").split("/")[0].split("#")[0]
    return slug.lower() or None


def run_datafiller(options: EvalOptions) -> dict[str, Any]:
    documents: list[CorpusDocument] = []
    by_key: dict[str, str] = {}
    duplicates = 0
    for row in _read_jsonl(options.data_dir / "fr-codes" / "code-du-travail.jsonl"):
        article = str(row["article"])
        if article.lower() in by_key:
            duplicates += 1  # one article number listed twice: the first line wins
            continue
        by_key[article.lower()] = article
        title = " — ".join(
            part
            for part in (str(row.get("code_title") or ""), " > ".join(row.get("path") or []))
            if part
        )
        documents.append(CorpusDocument(article, title, str(row.get("text") or "")))
    path = _require(options.data_dir / "datafiller" / "requests.json")
    groups = json.loads(path.read_text(encoding="utf-8"))
    queries: list[EvalQuery] = []
    unresolved: set[str] = set()
    for group in groups:
        articles = [a for ref in group.get("refs", []) if (a := _article_of(str(ref["url"])))]
        present = {by_key[a]: 1 for a in articles if a in by_key}
        unresolved.update(a for a in articles if a not in by_key)
        if present:
            queries += [EvalQuery(text=str(v), grades=present) for v in group.get("variants", [])]
    notes = [
        "queries: every phrasing of every group citing Code du travail articles found in the "
        "corpus; relevant = those articles.",
        f"{len(unresolved)} cited articles are not in the corpus snapshot (ignored); "
        f"{duplicates} duplicate article line(s) skipped.",
        "reference (dataset README, bm25s + French stemmer): R@10 0.187, MRR@10 0.213 over "
        "2,771 queries; target R@10 >= 0.35.",
        "datafiller has no splits: --split is ignored (nothing is tuned on it).",
    ]
    return _retrieval_report(
        suite="datafiller",
        split="all",
        options=options,
        documents=documents,
        queries=queries,
        metrics={
            "recall@1": recall(1),
            "recall@5": recall(5),
            "recall@10": recall(10),
            "recall@100": recall(100),
            "mrr@10": mrr(10),
        },
        language="french",
        bm25_depth=100,
        notes=notes,
    )


SUITES: dict[str, Callable[[EvalOptions], dict[str, Any]]] = {
    "brenalis": run_brenalis,
    "acord": run_acord,
    "acord-cut": run_acord_cut,
    "datafiller": run_datafiller,
}


def run_suite(name: str, options: EvalOptions, reporter: Reporter | None = None) -> dict[str, Any]:
    """Run one suite, its progress notes going to ``reporter`` (stderr without one); raises
    DatasetMissing when its data is not there."""
    if reporter is None:
        return SUITES[name](options)
    with reporting_to(reporter):
        return SUITES[name](options)
