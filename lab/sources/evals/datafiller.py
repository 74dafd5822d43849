"""The ``datafiller`` suite: the Code du travail searched with the phrasings of DataFiller.

Protocol (the one that reproduces the dataset README's BM25 figures, R@10 0.187 and MRR@10
0.213 over 2,771 queries):

* a query is every variant of every group citing at least one Code du travail article that
  resolves (``/code-du-travail/l3221-3`` -> ``L3221-3``) to an article of the imported code;
  the group's title is not a query;
* relevant = those resolved articles (references to other sources are ignored);
* ``R@k`` = recall of the relevant set within the top k, averaged over queries (the other
  reading, "at least one relevant in the top k", is reported as ``hit@10``: it gives 0.377 for
  the README's BM25, not 0.187); ``MRR@10`` = reciprocal rank of the first relevant article;
* the BM25 reference is bm25s over the articles' text only, from ``fr-codes/code-du-travail
  .jsonl`` (first line of a number wins), bm25s's French stop words and the Snowball French
  stemmer: PyStemmer when installed, else the same algorithm as Postgres ships it
  (``ts_lexize('french_stem', …)``, a slightly older Snowball: 24 of 13.6k words differ).

The product rows are :func:`sources.ranking.search_articles` on the imported code, in force
on its snapshot date (today when it has none), 10 results, per mode.
"""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection

from core.embeddings import embedding_model_name
from lab.search.evals.metrics import mean, mrr_at_k, recall_at_k
from lab.sources.evals.lookup import SuiteUnavailable, code_as_of, require_codes, require_path
from sources.models import LegalCode
from sources.numbers import normalise_article_number
from sources.ranking import MODES, search_articles
from sources.selectors import versions_in_force

CODE = "code-du-travail"
CDT_PREFIX = f"/{CODE}/"
DEPTH = 10
README_BM25 = {"R@10": 0.187, "MRR@10": 0.213, "queries": 2771}
TARGET_R10 = 0.35
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class DatafillerQuery:
    text: str
    relevant: frozenset[str]  # stored article numbers ("L3221-3")


def hit_at_k(ranking: Sequence[str], relevant: set[str] | frozenset[str], k: int) -> float:
    """1 when at least one relevant article is in the top k, else 0."""
    return 1.0 if relevant.intersection(ranking[:k]) else 0.0


def score_rankings(
    rankings: Sequence[Sequence[str]], queries: Sequence[DatafillerQuery]
) -> dict[str, float]:
    """R@1, R@5, R@10 (recall of the relevant set), hit@10 and MRR@10, averaged."""
    pairs = list(zip(rankings, queries, strict=True))
    metrics: dict[str, float] = {}
    for k in (1, 5, 10):
        metrics[f"R@{k}"] = mean([recall_at_k(list(r), set(q.relevant), k) for r, q in pairs])
    metrics["hit@10"] = mean([hit_at_k(r, q.relevant, 10) for r, q in pairs])
    metrics["MRR@10"] = mean([mrr_at_k(list(r), set(q.relevant), 10) for r, q in pairs])
    return {name: round(value, 4) for name, value in metrics.items()}


def cdt_number(url: str) -> str | None:
    """'/code-du-travail/l3221-3' -> 'L3221-3'; None for any other source."""
    if not url.lower().startswith(CDT_PREFIX):
        return None
    slug = url[len(CDT_PREFIX) :].strip("/").split("/")[0].split("#")[0]
    return normalise_article_number(slug) if slug else None


def load_queries(
    groups: list[dict[str, Any]], known: set[str]
) -> tuple[list[DatafillerQuery], list[str], int]:
    """The queries, the cited Code du travail numbers not in ``known`` (with repeats), and
    how many groups gave queries."""
    queries: list[DatafillerQuery] = []
    unresolved: list[str] = []
    used = 0
    for group in groups:
        cited = [n for ref in group.get("refs", []) if (n := cdt_number(str(ref.get("url"))))]
        relevant = frozenset(n for n in cited if n in known)
        unresolved += [n for n in cited if n not in known]
        if relevant:
            used += 1
            queries += [DatafillerQuery(str(v), relevant) for v in group.get("variants", [])]
    return queries, unresolved, used


def read_corpus(path: Path) -> list[tuple[str, str]]:
    """(stored number, text) per article of the JSONL, the first line of a number kept."""
    corpus: dict[str, str] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                number = normalise_article_number(row["article"]) or str(row["article"])
                corpus.setdefault(number, str(row.get("text") or ""))
    return list(corpus.items())


class PostgresFrenchStemmer:
    """Snowball French as Postgres ships it, for bm25s (a callable on a list of words)."""

    def __call__(self, words: list[str]) -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT coalesce((ts_lexize('french_stem', w))[1], w) "
                "FROM unnest(%s::text[]) WITH ORDINALITY AS t(w, i) ORDER BY i",
                [list(words)],
            )
            return [str(row[0]) for row in cursor.fetchall()]


def french_stemmer() -> tuple[Callable[[list[str]], list[str]] | Any, str]:
    if importlib.util.find_spec("Stemmer") is not None:
        import Stemmer  # type: ignore[import-not-found]

        return Stemmer.Stemmer("french"), "Snowball French (PyStemmer)"
    return PostgresFrenchStemmer(), "Snowball French (Postgres french_stem; PyStemmer absent)"


def bm25s_rankings(
    corpus: Sequence[tuple[str, str]], queries: Sequence[DatafillerQuery]
) -> tuple[list[list[str]], str]:
    """The README's reference: bm25s, French stop words and stemmer, text only."""
    import bm25s  # type: ignore[import-untyped]

    stemmer, stemmer_name = french_stemmer()
    retriever = bm25s.BM25()
    texts = [text for _, text in corpus]
    retriever.index(
        bm25s.tokenize(texts, stopwords="fr", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )
    tokens = bm25s.tokenize(
        [q.text for q in queries],
        stopwords="fr",
        stemmer=stemmer,
        return_ids=False,
        show_progress=False,
    )
    rankings: list[list[str]] = [[] for _ in queries]
    asked = [index for index, words in enumerate(tokens) if words]
    if asked:
        found, scores = retriever.retrieve(
            [tokens[i] for i in asked], k=min(DEPTH, len(corpus)), show_progress=False
        )
        for row, index in enumerate(asked):
            # bm25s pads with zero-score articles: those matched no query word.
            rankings[index] = [
                corpus[int(doc)][0]
                for doc, value in zip(found[row], scores[row], strict=True)
                if value > 0
            ]
    version = getattr(bm25s, "__version__", "")
    return rankings, f"bm25s {version}, stop words fr, {stemmer_name}, article text only"


def product_rankings(
    queries: Sequence[DatafillerQuery],
    *,
    code: LegalCode,
    mode: str,
    progress: Progress | None = None,
) -> list[list[str]]:
    as_of = code_as_of(code)
    rankings = []
    for position, query in enumerate(queries, start=1):
        hits = search_articles(query=query.text, as_of=as_of, codes=[code], limit=DEPTH, mode=mode)
        rankings.append([hit.version.number for hit in hits])
        if progress is not None:
            progress(mode, position, len(queries))
    return rankings


def vector_coverage(code: LegalCode) -> dict[str, Any]:
    """How many of the code's versions in force (with a text) carry a vector of the model."""
    model = embedding_model_name()
    rows = versions_in_force(as_of=code_as_of(code), codes=[code]).filter(text_known=True)
    embedded = rows.filter(embedding_model=model, embedding__isnull=False).count()
    total = rows.count()
    return {
        "model": model,
        "embedded": embedded,
        "in_force": total,
        "share": round(embedded / total, 4) if total else 0.0,
    }


def _arm(
    rankings: list[list[str]], queries: Sequence[DatafillerQuery], started: float
) -> dict[str, Any]:
    seconds = time.perf_counter() - started
    return {
        **score_rankings(rankings, queries),
        "seconds": round(seconds, 1),
        "ms_per_query": round(1000 * seconds / max(len(queries), 1), 1),
    }


def run_datafiller(
    data_dir: Path,
    *,
    modes: Sequence[str] = MODES,
    limit_queries: int | None = None,
    every: int = 1,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The bm25s reference then each product mode, on the same queries."""
    requests = require_path(data_dir / "datafiller" / "requests.json", "pass --data-dir")
    code = require_codes([CODE], data_dir)[0]
    known = set(
        versions_in_force(as_of=code_as_of(code), codes=[code]).values_list("number", flat=True)
    )
    groups = json.loads(requests.read_text(encoding="utf-8"))
    queries, unresolved, used = load_queries(groups, known)
    if not queries:
        raise SuiteUnavailable(f"{requests}: no query cites an imported {CODE} article.")
    # A quick run: every Nth query (all groups stay represented), then at most N queries.
    queries = queries[:: max(1, every)]
    queries = queries[:limit_queries] if limit_queries else queries
    arms: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    corpus_path = data_dir / "fr-codes" / f"{CODE}.jsonl"
    if corpus_path.is_file() and importlib.util.find_spec("bm25s") is not None:
        started = time.perf_counter()
        rankings, setup = bm25s_rankings(read_corpus(corpus_path), queries)
        arms["bm25s"] = _arm(rankings, queries, started)
        notes.append(f"bm25s reference: {setup}.")
    else:
        notes.append("bm25s reference skipped: bm25s or fr-codes/code-du-travail.jsonl missing.")
    for mode in modes:
        started = time.perf_counter()
        arms[mode] = _arm(
            product_rankings(queries, code=code, mode=mode, progress=progress), queries, started
        )
    coverage = vector_coverage(code)
    if coverage["share"] < 1 and {"vector", "hybrid"} & set(modes):
        notes.append(
            f"only {coverage['embedded']}/{coverage['in_force']} articles have a "
            f"{coverage['model']} vector: the vector arm ranks those only."
        )
    return {
        "suite": "datafiller",
        "code": CODE,
        "as_of": code_as_of(code).isoformat(),
        "queries": len(queries),
        "every": max(1, every),
        "groups": used,
        "relevant_articles": len(set().union(*(q.relevant for q in queries))),
        "unresolved_refs": len(unresolved),
        "unresolved_distinct": sorted(set(unresolved)),
        "embedding": coverage,
        "arms": arms,
        "reference_readme_bm25": README_BM25,
        "target": {"R@10": TARGET_R10},
        "best_R@10": max(arms, key=lambda arm: arms[arm]["R@10"]) if arms else None,
        "notes": notes,
    }
