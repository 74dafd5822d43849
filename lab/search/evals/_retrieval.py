"""Retrieval suites (ACORD, DataFiller): each arm of rank_chunks against a bm25s reference.

A query's ranking is the order of the documents of its ranked chunks (a document's best
chunk decides), mapped back to the dataset's own ids, then scored with the suite's metrics.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lab.search.evals._index import IndexedCorpus, log, scope
from lab.search.evals.metrics import (
    dedupe,
    mean,
    mrr_at_k,
    ndcg_at_k,
    recall_at_k,
    star_precision_at_k,
)
from search.ranking import rank_chunks

# The product's arms, as rank_chunks names them, and whether the clause-type prior applies
# ("hybrid" is what search runs; "hybrid_no_prior" shows what the prior adds); "bm25" is the
# outside reference.
ARMS: dict[str, tuple[tuple[str, ...], bool]] = {
    "fts": (("fts",), False),
    "vector": (("vector",), False),
    "hybrid": (("fts", "vector"), True),
    "hybrid_no_prior": (("fts", "vector"), False),
}


@dataclass(frozen=True)
class EvalQuery:
    text: str
    grades: dict[str, int]  # corpus id -> grade; > 0 is relevant

    @property
    def relevant(self) -> set[str]:
        return {doc_id for doc_id, grade in self.grades.items() if grade > 0}


@dataclass(frozen=True)
class CorpusDocument:
    corpus_id: str
    title: str
    text: str


# A metric may have no value for a query (star precision when no clause has the stars).
Metric = Callable[[Sequence[str], EvalQuery], float | None]


def ndcg(k: int) -> Metric:
    return lambda ranking, query: ndcg_at_k(ranking, query.grades, k)


def recall(k: int) -> Metric:
    return lambda ranking, query: recall_at_k(ranking, query.relevant, k)


def mrr(k: int) -> Metric:
    return lambda ranking, query: mrr_at_k(ranking, query.relevant, k)


def star_precision(k: int, stars: int) -> Metric:
    """P@k over clauses rated at least ``stars`` (grade = stars - 1)."""
    return lambda ranking, query: star_precision_at_k(ranking, query.grades, k, stars - 1)


@dataclass
class ArmResult:
    metrics: dict[str, float]
    empty_fraction: float
    seconds: float
    rankings: list[list[str]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            **{name: round(value, 4) for name, value in self.metrics.items()},
            "empty_fraction": round(self.empty_fraction, 4),
            "seconds": round(self.seconds, 1),
        }


def score(
    rankings: list[list[str]], queries: Sequence[EvalQuery], metrics: dict[str, Metric]
) -> dict[str, float]:
    scores: dict[str, float] = {}
    for name, metric in metrics.items():
        values = [metric(ranking, query) for ranking, query in zip(rankings, queries, strict=True)]
        scores[name] = mean([value for value in values if value is not None])
    return scores


def product_arm(
    *,
    indexed: IndexedCorpus,
    arm: str,
    queries: Sequence[EvalQuery],
    metrics: dict[str, Metric],
    oversample: int,
    judged_only: bool = False,
    rerank: bool = False,
) -> ArmResult:
    """Rank every query with rank_chunks(arms=...) in the eval workspace's tenant scope; with
    ``judged_only``, among the query's judged documents only (ACORD's protocol), through the
    same ranking restricted to those documents; with ``rerank``, then reranked as configured
    (``LEXROOM_RERANKER``)."""
    started = time.perf_counter()
    rankings = []
    to_corpus = indexed.corpus_id_by_document
    to_document = {corpus_id: pk for pk, corpus_id in to_corpus.items()}
    for position, query in enumerate(queries, start=1):
        judged = [to_document[c] for c in query.grades if c in to_document] if judged_only else None
        with scope(indexed.workspace):
            hits = rank_chunks(
                workspace_id=indexed.workspace.pk,
                query=query.text,
                document_ids=judged,
                arms=ARMS[arm][0],
                use_prior=ARMS[arm][1],
                oversample=oversample,
                # Arms are compared raw unless the reranked arm is asked for.
                use_rerank=rerank,
            )
        rankings.append(
            dedupe(to_corpus[hit.document_id] for hit in hits if hit.document_id in to_corpus)
        )
        if position % 500 == 0:
            log(f"  {arm}: {position}/{len(queries)} queries")
    return ArmResult(
        metrics=score(rankings, queries, metrics),
        empty_fraction=mean([0.0 if ranking else 1.0 for ranking in rankings]),
        seconds=time.perf_counter() - started,
        rankings=rankings,
    )


def judged_arm(
    *,
    indexed: IndexedCorpus,
    arm: str,
    queries: Sequence[EvalQuery],
    metrics: dict[str, Metric],
    oversample: int,
    label: str = "arm",
    rerank: bool = False,
) -> ArmResult:
    """ACORD's protocol: :func:`product_arm` with each query among its judged clauses only."""
    log(f"  ranking {len(queries)} queries among their judged clauses, {arm} {label}")
    return product_arm(
        indexed=indexed,
        arm=arm,
        queries=queries,
        metrics=metrics,
        oversample=oversample,
        judged_only=True,
        rerank=rerank,
    )


def stemmer_available() -> bool:
    return importlib.util.find_spec("Stemmer") is not None


def bm25_arm(
    *,
    documents: Sequence[CorpusDocument],
    queries: Sequence[EvalQuery],
    metrics: dict[str, Metric],
    language: str,
    depth: int,
) -> tuple[ArmResult, str]:
    """bm25s over the documents' plain text; returns the result and what it was run with."""
    import bm25s  # type: ignore[import-untyped]

    started = time.perf_counter()
    stemmer = None
    if stemmer_available():
        import Stemmer  # type: ignore[import-not-found]

        stemmer = Stemmer.Stemmer(language)
    stopwords = {"english": "en", "french": "fr"}.get(language, language)
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(
            [document.text for document in documents],
            stopwords=stopwords,
            stemmer=stemmer,
            show_progress=False,
        ),
        show_progress=False,
    )
    tokens = bm25s.tokenize(
        [query.text for query in queries],
        stopwords=stopwords,
        stemmer=stemmer,
        return_ids=False,
        show_progress=False,
    )
    k = min(depth, len(documents))
    rankings: list[list[str]] = [[] for _ in queries]
    asked = [index for index, query_tokens in enumerate(tokens) if query_tokens]
    if asked:
        found, scores = retriever.retrieve(
            [tokens[index] for index in asked], k=k, show_progress=False
        )
        for row, index in enumerate(asked):
            # bm25s pads with zero-score documents: those matched no query term.
            rankings[index] = [
                documents[int(doc)].corpus_id
                for doc, value in zip(found[row], scores[row], strict=True)
                if value > 0
            ]
    setup = f"bm25s {bm25s.__version__ if hasattr(bm25s, '__version__') else ''}".strip()
    setup += f", stopwords {stopwords}, " + (
        f"{language} stemmer (PyStemmer)" if stemmer else "no stemmer (PyStemmer not installed)"
    )
    result = ArmResult(
        metrics=score(rankings, queries, metrics),
        empty_fraction=mean([0.0 if ranking else 1.0 for ranking in rankings]),
        seconds=time.perf_counter() - started,
        rankings=rankings,
    )
    return result, setup


def run_arms(
    *,
    indexed: IndexedCorpus,
    documents: Sequence[CorpusDocument],
    queries: Sequence[EvalQuery],
    metrics: dict[str, Metric],
    language: str,
    oversample: int,
    bm25_depth: int,
) -> tuple[dict[str, ArmResult], list[str]]:
    """Every product arm, then the bm25s reference; notes say how the reference ran."""
    results: dict[str, ArmResult] = {}
    for arm in ARMS:
        log(f"  ranking {len(queries)} queries with the {arm} arm")
        results[arm] = product_arm(
            indexed=indexed, arm=arm, queries=queries, metrics=metrics, oversample=oversample
        )
    notes = []
    try:
        results["bm25"], setup = bm25_arm(
            documents=documents,
            queries=queries,
            metrics=metrics,
            language=language,
            depth=bm25_depth,
        )
        notes.append(f"bm25 reference: {setup}, over the same texts (no title prefix).")
    except ImportError:
        notes.append("bm25 reference skipped: bm25s is not installed.")
    return results, notes
