"""Clause ranking inside Postgres: full-text and vector arms, fused by reciprocal rank.

Both arms run in the caller's tenant transaction (RLS applies) and take the same candidate
document ids, so filters and tenancy hold in each arm. Optional cross-encoder reranking
runs over the fused top-N.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from django.conf import settings
from django.db import connection

from documents.embeddings import get_encoder, load_cross_encoder
from documents.normalize import fold_accents
from documents.textsearch import QUERY_CONFIGS

# SQL here is assembled from constants (configurations, integer dimensions, fixed clauses);
# every value from a caller is a bound parameter (ruff S608 is silenced for this file).
RRF_K = 60
# Chunks ts_rank pre-selects for BM25 rescoring (BM25 unnests each candidate's tsvector).
BM25_CANDIDATES = 300
# Chunks the rarest query words may match between them; more common words only score.
MATCH_BUDGET = 2000
# Matching chunks ranked at most. Past it, chunks holding every query word are tried first.
CANDIDATE_CAP = 4000
# Chunks holding every query word that make the any-word search unnecessary.
ENOUGH_ALL_WORDS_HITS = 30
# Filters leaving at most this many documents: exact vector search over their chunks
# (measured at 1M chunks: 3 contracts 13 ms, 100 contracts 95 ms; HNSW 4 and 30 ms, but a
# filtered HNSW scan may stop short of the few matching chunks in a real workspace).
EXACT_VECTOR_MAX_DOCUMENTS = 20
# Operators of websearch syntax: a query using them is parsed as such, otherwise its words
# are OR-ed (a natural-language question rarely has every word in one clause).
_WEBSEARCH = re.compile(r'"|\bOR\b|(?:^|\s)-\w')
_ARTICLE_REF = re.compile(
    r"\b(?:article|art\.?|clause|section|§)\s*(\d+(?:\.\d+)*|premier|1er|[IVXLC]+)\b", re.I
)
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


@dataclass
class ChunkHit:
    chunk_id: int
    document_id: int
    score: float = 0.0
    fts_rank: float | None = None
    vector_similarity: float | None = None
    reference_match: bool = False
    rerank_score: float | None = None
    arms: list[str] = field(default_factory=list)


def _doc_filter(document_ids: Sequence[int] | None) -> tuple[str, list[Any]]:
    if document_ids is None:
        return "", []
    return " AND c.document_id = ANY(%s)", [list(document_ids)]


def _query_words(query: str) -> dict[str, list[str]]:
    """The query's words, each with its French and English stems (lexemes).

    A word that either language treats as a stop word is dropped ("for", "de"): under the
    other configuration it would match nearly every chunk.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT token, stem FROM ("
            "  SELECT token FROM unnest(tsvector_to_array(to_tsvector('simple', %s))) AS token"
            "  WHERE to_tsvector('french', token) <> ''::tsvector"
            "    AND to_tsvector('english', token) <> ''::tsvector"
            ") words, LATERAL ("
            "  SELECT unnest(tsvector_to_array(to_tsvector('french', token)))"
            "  UNION SELECT unnest(tsvector_to_array(to_tsvector('english', token)))"
            ") AS stems(stem) ORDER BY token, stem",
            [query],
        )
        words: dict[str, list[str]] = {}
        for token, stem in cursor.fetchall()[:64]:
            words.setdefault(token, []).append(stem)
        return words


def _quote(stem: str) -> str:
    return "'" + stem.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsquery_text(stems: Sequence[str]) -> str:
    return " | ".join(_quote(stem) for stem in stems)


def _all_words_query(words: dict[str, list[str]], kept: set[str]) -> str:
    """Every word (in either language's stem) must be there: few candidates, fast."""
    groups = [[s for s in stems if s in kept] for stems in words.values()]
    groups = [group for group in groups if group]
    if len(groups) < 2:
        return ""
    return " & ".join("(" + " | ".join(_quote(s) for s in group) + ")" for group in groups)


def _websearch_query(query: str) -> str:
    parts = " || ".join(f"websearch_to_tsquery('{config}', %s)" for config in QUERY_CONFIGS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT ({parts})::text", [query] * len(QUERY_CONFIGS))
        row = cursor.fetchone()
    return str(row[0]) if row and row[0] else ""


@dataclass(frozen=True)
class TermStats:
    df: dict[str, int]  # chunks holding each stem (stems found nowhere are left out)
    idf: dict[str, float]
    mean_length: float


def _term_stats(workspace_id: int, stems: Sequence[str]) -> TermStats | None:
    """Document frequencies, BM25 idf and mean chunk length from the workspace's text
    statistics (None before they were first computed)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT chunks, mean_length FROM search_textstats WHERE workspace_id = %s",
            [workspace_id],
        )
        totals = cursor.fetchone()
        if totals is None or not totals[0]:
            return None
        cursor.execute(
            "SELECT lexeme, chunks FROM search_lexemestat"
            " WHERE workspace_id = %s AND lexeme = ANY(%s) AND chunks > 0",
            [workspace_id, list(stems)],
        )
        df = {str(lexeme): int(count) for lexeme, count in cursor.fetchall()}
    total = float(totals[0])
    idf = {stem: math.log(1 + (total - n + 0.5) / (n + 0.5)) for stem, n in df.items()}
    return TermStats(df, idf, float(totals[1]) or 1.0)


def fts_arm(
    *, workspace_id: int, query: str, document_ids: Sequence[int] | None, limit: int
) -> list[tuple[int, int, float]]:
    """(chunk id, document id, score) for chunks matching the query, best first.

    Scored by BM25 (k1 1.2, b 0.75, heading/title positions counted twice) over the chunks
    ``ts_rank`` ranks first; ``ts_rank`` alone when the query uses websearch syntax or the
    workspace's statistics are not computed yet.

    Cost is bounded whatever the workspace size: chunks are matched on the query's rarest
    words only (their document frequencies summing to at most ``MATCH_BUDGET``), all query
    words still count in the score. A query made only of very common words matches chunks
    holding all its words first, and at most ``CANDIDATE_CAP`` matching chunks are ranked.
    """
    folded = fold_accents(query)
    where, params = _doc_filter(document_ids)
    stats = None
    if _WEBSEARCH.search(query):
        # Explicit operators ("quoted phrase", -word, OR): the user's syntax is respected.
        rank_text = _websearch_query(folded)
        matches = [rank_text]
    else:
        words = _query_words(folded)
        stems = sorted({stem for group in words.values() for stem in group})
        stats = _term_stats(workspace_id, stems) if stems else None
        if stats is not None:
            stems = [stem for stem in stems if stem in stats.df]
        rank_text = _tsquery_text(stems)
        matches = [rank_text]
        if stats is not None and stems:
            selective = _selective_stems(stems, stats.df)
            matches = [_tsquery_text(selective)]
            if sum(stats.df[stem] for stem in selective) > CANDIDATE_CAP:
                # Every word is common: chunks holding all of them first.
                matches.insert(0, _all_words_query(words, set(stems)))
    if not rank_text:
        return []  # only stop words or punctuation, or words found nowhere
    preselect = max(limit * 3, BM25_CANDIDATES) if stats is not None else limit
    # ts_rank, not ts_rank_cd, to preselect: a third of the cost (measured), and BM25 decides.
    candidates = (
        "SELECT id, document_id, search_vector, ts_rank(search_vector, %s::tsquery) AS rank "
        "FROM (SELECT c.id, c.document_id, c.search_vector FROM documents_chunk c"
        f"  WHERE c.workspace_id = %s AND c.search_vector @@ %s::tsquery{where} LIMIT %s"
        ") matched ORDER BY rank DESC, id LIMIT %s"
    )
    rows: list[tuple[int, int, float]] = []
    with connection.cursor() as cursor:
        if stats is None:
            cursor.execute(
                candidates, [rank_text, workspace_id, rank_text, *params, CANDIDATE_CAP, preselect]
            )
            return [(row[0], row[1], float(row[3])) for row in cursor.fetchall()]
        for match_text in filter(None, matches):
            candidate_params = [rank_text, workspace_id, match_text, *params, CANDIDATE_CAP]
            cursor.execute(
                f"WITH candidates AS ({candidates}), "
                "terms AS (SELECT * FROM unnest(%s::text[], %s::float8[]) AS t(lexeme, idf)) "
                "SELECT c.id, c.document_id, sum(t.idf * (u.tf * 2.2) / "
                "  (u.tf + 1.2 * (0.25 + 0.75 * length(c.search_vector) / %s))) AS score "
                "FROM candidates c CROSS JOIN LATERAL ("
                "  SELECT x.lexeme, array_length(x.positions, 1)"
                "    + (SELECT count(*) FROM unnest(x.weights) w WHERE w = 'A') AS tf"
                "  FROM unnest(c.search_vector) AS x(lexeme, positions, weights)"
                ") u JOIN terms t ON t.lexeme = u.lexeme "
                "GROUP BY c.id, c.document_id ORDER BY score DESC, c.id LIMIT %s",
                [
                    *candidate_params,
                    preselect,
                    list(stats.idf),
                    list(stats.idf.values()),
                    stats.mean_length,
                    limit,
                ],
            )
            rows = [(row[0], row[1], float(row[2])) for row in cursor.fetchall()]
            if len(rows) >= min(limit, ENOUGH_ALL_WORDS_HITS):
                break
    return rows


def _selective_stems(stems: Sequence[str], df: dict[str, int]) -> list[str]:
    """The rarest stems, while their chunk counts add up to at most ``MATCH_BUDGET`` (at least
    one). A chunk with none of them holds only common words: BM25 would rank it low anyway."""
    chosen: list[str] = []
    matched = 0
    for stem in sorted(stems, key=lambda s: (df[s], s)):
        if chosen and matched + df[stem] > MATCH_BUDGET:
            break
        chosen.append(stem)
        matched += df[stem]
    return chosen


def embed_query(query: str) -> tuple[list[float], int, str]:
    encoder = get_encoder()
    return _embed_query_cached(encoder.name, query)


@lru_cache(maxsize=2048)
def _embed_query_cached(model_name: str, query: str) -> tuple[list[float], int, str]:
    # Agents and users repeat queries (paging, refinements): the encoder is the slow part.
    encoder = get_encoder()
    vector = encoder.encode_queries([query])[0]
    return [float(x) for x in vector], encoder.dimension, encoder.name


def vector_arm(
    *,
    workspace_id: int,
    query_vector: list[float],
    dimension: int,
    model: str,
    document_ids: Sequence[int] | None,
    limit: int,
) -> list[tuple[int, int, float]]:
    """(chunk id, document id, cosine similarity), nearest first.

    Via the HNSW index, or exactly over the candidate documents' chunks when the filters
    leave few documents: a filtered HNSW scan gives up after ``hnsw.max_scan_tuples`` and
    could return nothing for a single contract in a large workspace.
    """
    dim = int(dimension)
    where, params = _doc_filter(document_ids)
    literal = "[" + ",".join(f"{x:.7f}" for x in query_vector) + "]"
    distance = f"c.embedding::vector({dim}) <=> %s::vector({dim})"
    exact = document_ids is not None and len(document_ids) <= EXACT_VECTOR_MAX_DOCUMENTS
    sql = (
        f"SELECT c.id, c.document_id, 1 - ({distance}) "
        "FROM documents_chunk c "
        # The dimension is a literal so the planner can match the partial index on it.
        f"WHERE c.workspace_id = %s AND c.embedding_dim = {dim} AND c.embedding_model = %s{where} "
        # "+ 0": an expression the HNSW index cannot serve, so the document index is used.
        f"ORDER BY {f'({distance}) + 0' if exact else distance} LIMIT %s"
    )
    with connection.cursor() as cursor:
        # Filtered HNSW scans keep going until `limit` rows pass the filters.
        cursor.execute("SET LOCAL hnsw.iterative_scan = 'relaxed_order'")
        cursor.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(1000, int(limit)))}")
        cursor.execute(sql, [literal, workspace_id, model, *params, literal, limit])
        rows = [(row[0], row[1], float(row[2])) for row in cursor.fetchall()]
    rows.sort(key=lambda row: (-row[2], row[0]))
    return rows


def article_refs(query: str) -> list[str]:
    """Article numbers a query names ("article 8", "clause 12.3", "Article premier")."""
    refs = []
    for match in _ARTICLE_REF.finditer(query):
        raw = match.group(1)
        if raw.lower() in {"premier", "1er"}:
            refs.append("1")
        elif raw.isdigit() or "." in raw:
            refs.append(raw)
        elif raw.upper() == raw:
            refs.append(str(_roman(raw.upper())))
    return refs


def _roman(numeral: str) -> int:
    total = 0
    for index, char in enumerate(numeral):
        value = _ROMAN[char]
        following = _ROMAN[numeral[index + 1]] if index + 1 < len(numeral) else 0
        total += -value if value < following else value
    return total


def reference_arm(
    *, workspace_id: int, refs: list[str], document_ids: Sequence[int] | None, limit: int
) -> list[tuple[int, int, float]]:
    if not refs:
        return []
    where, params = _doc_filter(document_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.id, c.document_id FROM documents_chunk c "
            f"WHERE c.workspace_id = %s AND c.article_ref = ANY(%s){where} "
            "ORDER BY c.document_id, c.ordinal LIMIT %s",
            [workspace_id, refs, *params, limit],
        )
        return [(row[0], row[1], 1.0) for row in cursor.fetchall()]


def fuse(ranked_lists: dict[str, list[tuple[int, int, float]]], k: int = RRF_K) -> list[ChunkHit]:
    """Reciprocal rank fusion: each arm adds 1 / (k + rank) to a chunk's score."""
    hits: dict[int, ChunkHit] = {}
    for arm, rows in ranked_lists.items():
        for rank, (chunk_id, document_id, value) in enumerate(rows, start=1):
            hit = hits.setdefault(chunk_id, ChunkHit(chunk_id, document_id))
            hit.score += 1.0 / (k + rank)
            hit.arms.append(arm)
            if arm == "fts":
                hit.fts_rank = value
            elif arm == "vector":
                hit.vector_similarity = value
            elif arm == "reference":
                hit.reference_match = True
    return sorted(hits.values(), key=lambda hit: (-hit.score, hit.chunk_id))


@cache
def _cross_encoder(name: str, device: str) -> Any:
    return load_cross_encoder(name, device)


def rerank(query: str, hits: list[ChunkHit], texts: dict[int, str]) -> list[ChunkHit]:
    """Cross-encoder scores over the fused top-N; below the threshold a hit is cut as noise."""
    from documents.embeddings import pick_device

    model = _cross_encoder(
        settings.LEXROOM_RERANK_MODEL, pick_device(settings.LEXROOM_EMBEDDING_DEVICE)
    )
    pairs = [(query, texts[hit.chunk_id]) for hit in hits]
    scores = model.predict(pairs, show_progress_bar=False) if pairs else []
    for hit, score in zip(hits, scores, strict=True):
        hit.rerank_score = float(score)
    kept = [h for h in hits if (h.rerank_score or 0.0) >= settings.LEXROOM_RERANK_THRESHOLD]
    return sorted(kept, key=lambda hit: (-(hit.rerank_score or 0.0), hit.chunk_id))


def rerank_enabled() -> bool:
    setting = settings.LEXROOM_RERANK
    if setting == "auto":
        from documents.embeddings import pick_device

        return (
            bool(settings.LEXROOM_RERANK_MODEL)
            and pick_device(settings.LEXROOM_EMBEDDING_DEVICE) == "cuda"
        )
    return setting == "on"


def rank_chunks(
    *,
    workspace_id: int,
    query: str,
    document_ids: Sequence[int] | None,
    arms: Sequence[str] = ("fts", "vector"),
    oversample: int = 100,
    use_rerank: bool | None = None,
) -> list[ChunkHit]:
    """Chunks for ``query`` among ``document_ids`` (None: the whole workspace), best first."""
    lists: dict[str, list[tuple[int, int, float]]] = {}
    if "fts" in arms:
        lists["fts"] = fts_arm(
            workspace_id=workspace_id, query=query, document_ids=document_ids, limit=oversample
        )
    if "vector" in arms:
        vector, dimension, model = embed_query(query)
        rows = vector_arm(
            workspace_id=workspace_id,
            query_vector=vector,
            dimension=dimension,
            model=model,
            document_ids=document_ids,
            limit=oversample,
        )
        # Far neighbours are not evidence; keep them only if full-text also found them.
        floor = settings.LEXROOM_VECTOR_MIN_SIMILARITY
        fts_ids = {row[0] for row in lists.get("fts", [])}
        lists["vector"] = [row for row in rows if row[2] >= floor or row[0] in fts_ids]
    refs = article_refs(query)
    if refs:
        lists["reference"] = reference_arm(
            workspace_id=workspace_id, refs=refs, document_ids=document_ids, limit=oversample
        )
    hits = fuse(lists)
    if use_rerank is None:
        use_rerank = rerank_enabled()
    if use_rerank and hits:
        top = hits[: settings.LEXROOM_RERANK_TOP_N]
        texts = _chunk_texts([hit.chunk_id for hit in top])
        hits = rerank(query, top, texts)
    return hits


def _chunk_texts(chunk_ids: list[int]) -> dict[int, str]:
    grouped: dict[int, str] = defaultdict(str)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, index_text FROM documents_chunk WHERE id = ANY(%s)", [chunk_ids])
        for chunk_id, text in cursor.fetchall():
            grouped[chunk_id] = text
    return grouped
