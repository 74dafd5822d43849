"""Search of the codes: BM25 over the French full-text index, cosine over the vectors, fused
by reciprocal rank (``search.ranking.fuse``, the contracts' own fusion).

Every arm ranks only the versions :func:`sources.selectors.versions_in_force` returns for the
date asked: the window is in the SQL of each arm, never applied after ranking. SQL here is
assembled from constants; every value is a bound parameter.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Count, Max

from core.embeddings import ModelUnavailable, embedding_model_name
from core.normalize import fold_accents
from search.ranking import ArmRow, embed_query, fuse
from sources.models import ArticleVersion, LegalCode
from sources.numbers import normalise_article_number
from sources.renvois import extract_references
from sources.selectors import (
    as_of_check,
    codes_all,
    codes_get,
    snapshot_warnings,
    versions_in_force,
)

logger = logging.getLogger(__name__)
MODES = ("hybrid", "fts", "vector")
ARM_DEPTH = 100
MAX_LIMIT = 50
BM25_K1, BM25_B = 1.2, 0.75
# A word in more than this share of the articles scores but does not select.
RARE_SHARE = 0.05
_NUMBER_IN_QUERY = re.compile(
    r"\b(?:art(?:icle)?\.?\s*)?((?:L\.?\s?O|[LRDA])\.?\s?\*?\s?\d{1,4}(?:-\d{1,4}){1,3})\b"
    # "article 1240": a bare number, only after the word (else any figure would be one).
    r"|\bart(?:icle)?\.?\s*(\d{1,4}(?:-\d{1,4}){0,3})\b",
    re.IGNORECASE,
)


@dataclass
class LegalHit:
    version: ArticleVersion
    score: float
    arms: list[str] = field(default_factory=list)
    fts_rank: float | None = None
    vector_similarity: float | None = None


def _pool_sql(as_of: dt.date, codes: Sequence[LegalCode] | None) -> tuple[str, list[Any]]:
    """The ids of the versions in force: the selector's own SQL, as a subquery."""
    query = versions_in_force(as_of=as_of, codes=codes).order_by().values("id").query
    sql, params = query.sql_with_params()
    return sql, list(params)


def query_stems(query: str) -> list[str]:
    """The query's French stems, stop words out, accents folded like the index."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('french', %s)))",
            [fold_accents(query)[:2000]],
        )
        return sorted(str(row[0]) for row in cursor.fetchall())[:64]


def _quote(stem: str) -> str:
    return "'" + stem.replace("\\", "\\\\").replace("'", "''") + "'"


def fts_arm(
    query: str, *, as_of: dt.date, codes: Sequence[LegalCode] | None, limit: int
) -> list[ArmRow]:
    """(version id, code id, BM25), best first, over the versions in force."""
    stems = query_stems(query)
    if not stems:
        return []
    pool, params = _pool_sql(as_of, codes)
    n, avgdl = _pool_stats(pool, params, as_of, codes)
    df = _document_frequencies(stems, codes)
    # Rare words select the candidates, every word scores them (a word in one article in
    # twenty, "cas", "durée", would otherwise unnest thousands of articles per query).
    # A word no article holds selects nothing: it is not "rare".
    rare = [stem for stem in stems if 0 < df[stem] <= RARE_SHARE * n] or stems
    selecting = " | ".join(_quote(stem) for stem in rare)
    sql = (
        "WITH q AS (SELECT * FROM unnest(%s::text[], %s::float[]) AS q(lexeme, df)),"
        " hits AS (SELECT v.id, v.code_id, length(v.search_vector)::float AS dl, t.lexeme,"
        "   coalesce(array_length(t.positions, 1), 1)::float AS tf"
        "  FROM sources_articleversion v, unnest(v.search_vector) AS t"
        f"  WHERE v.search_vector @@ %s::tsquery AND v.id IN ({pool}) AND t.lexeme = ANY(%s))"
        " SELECT h.id, h.code_id, sum("
        "   ln(1 + (%s - q.df + 0.5) / (q.df + 0.5))"
        f"  * h.tf * {BM25_K1 + 1} / (h.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * h.dl"
        "   / greatest(%s, 1)))) AS score"
        " FROM hits h JOIN q USING (lexeme)"
        " GROUP BY h.id, h.code_id ORDER BY score DESC, h.id LIMIT %s"
    )
    arguments = [stems, [df[stem] for stem in stems], selecting, *params, stems, n, avgdl]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*arguments, limit])
        return [(int(i), int(c), float(s)) for i, c, s in cursor.fetchall()]


def _document_frequencies(stems: list[str], codes: Sequence[LegalCode] | None) -> dict[str, float]:
    """How many stored versions (of ``codes``) hold each stem, in one round trip: each count
    goes through the GIN index (every version, not only those in force: close enough for
    BM25's weights)."""
    code_filter = " AND v.code_id = ANY(%s)" if codes is not None else ""
    sql = (
        "SELECT s.stem, (SELECT count(*) FROM sources_articleversion v"
        f"  WHERE v.search_vector @@ s.query::tsquery{code_filter})"
        " FROM unnest(%s::text[], %s::text[]) AS s(stem, query)"
    )
    params: list[Any] = [[code.pk for code in codes]] if codes is not None else []
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, stems, [_quote(stem) for stem in stems]])
        return {str(stem): float(count) for stem, count in cursor.fetchall()}


_STATS: dict[tuple[Any, ...], tuple[float, float]] = {}
_STATS_ENTRIES = 64


def _pool_stats(
    pool: str, params: list[Any], as_of: dt.date, codes: Sequence[LegalCode] | None
) -> tuple[float, float]:
    """BM25's corpus statistics (versions in force, their mean length) for this date and
    these codes, kept per process until a code is imported again."""
    imported = LegalCode.objects.aggregate(last=Max("imported_at"), n=Count("id"))
    ids = tuple(sorted(code.pk for code in codes)) if codes is not None else None
    key = (as_of, ids, imported["last"], imported["n"])
    if key not in _STATS:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*)::float, coalesce(avg(length(search_vector)), 1)::float "
                f"FROM sources_articleversion WHERE id IN ({pool})",
                params,
            )
            n, avgdl = cursor.fetchone()
        if len(_STATS) >= _STATS_ENTRIES:
            _STATS.clear()
        _STATS[key] = (float(n), float(avgdl))
    return _STATS[key]


def vector_arm(
    query: str, *, as_of: dt.date, codes: Sequence[LegalCode] | None, limit: int
) -> list[ArmRow]:
    """(version id, code id, cosine similarity), nearest first, over the embedded versions
    in force (exact: a few tens of thousands of articles at most)."""
    vector, dim, model = embed_query(query)
    pool, params = _pool_sql(as_of, codes)
    literal = "[" + ",".join(f"{x:.7f}" for x in vector) + "]"
    distance = f"v.embedding::vector({int(dim)}) <=> %s::vector({int(dim)})"
    sql = (
        f"SELECT v.id, v.code_id, 1 - ({distance}) FROM sources_articleversion v "
        f"WHERE v.id IN ({pool}) AND v.embedding_model = %s AND v.embedding_dim = {int(dim)} "
        f"ORDER BY {distance} LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [literal, *params, model, literal, limit])
        return [(int(i), int(c), float(s)) for i, c, s in cursor.fetchall()]


def asked_articles(query: str) -> dict[str, str | None]:
    """The article numbers the query writes, in order, each with the code it names ("article
    1240 du code civil": code-civil; "L. 231-1": None, any code searched). Read by the
    renvois' own parser, and by a plain pattern for what it leaves ("art. 12", "L1234-9")."""
    asked: dict[str, str | None] = {}
    for mention in extract_references(query[:2000], present_code=None):
        number = normalise_article_number(mention.number) if mention.kind == "article" else None
        if number and number not in asked:
            asked[number] = mention.code
    for prefixed, bare in _NUMBER_IN_QUERY.findall(query[:2000]):
        number = normalise_article_number(prefixed or bare)
        if number and number not in asked:
            asked[number] = None
    return asked


def number_arm(query: str, *, as_of: dt.date, codes: Sequence[LegalCode] | None) -> list[ArmRow]:
    """Articles whose number the query writes ("article L1234-9"), in the code it names if
    it names one: a lawyer's exact ask, in the query's order."""
    asked = asked_articles(query)
    if not asked:
        return []
    rows = (
        versions_in_force(as_of=as_of, codes=codes)
        .filter(number__in=list(asked))
        .select_related("code")
        .only("id", "code_id", "number", "code__slug")[:50]
    )
    order = list(asked)
    wanted = [v for v in rows if asked[v.number] in (None, v.code.slug)]
    wanted.sort(key=lambda v: (order.index(v.number), v.code_id))
    return [(v.id, v.code_id, 1.0) for v in wanted[:20]]


_COVERAGE: dict[tuple[Any, ...], tuple[float, bool]] = {}
COVERAGE_TTL_S = 60.0


def vectors_cover(codes: Sequence[LegalCode] | None, as_of: dt.date) -> bool:
    """Whether every version in force of ``codes`` (with a text) has a vector of the current
    model. A library half embedded (a code imported with ``--no-embed``, or still being
    embedded) is searched by full-text and numbers only: a vector arm over some codes would
    rank their articles above the others' whatever the question. Kept a minute."""
    model = embedding_model_name()
    ids = tuple(sorted(code.pk for code in codes)) if codes is not None else None
    key = (as_of, ids, model)
    now = time.monotonic()
    cached = _COVERAGE.get(key)
    if cached is None or now - cached[0] > COVERAGE_TTL_S:
        rows = versions_in_force(as_of=as_of, codes=codes).filter(text_known=True)
        missing = rows.exclude(embedding_model=model).exists()
        if len(_COVERAGE) >= _STATS_ENTRIES:
            _COVERAGE.clear()
        cached = _COVERAGE[key] = (now, not missing)
    return cached[1]


def search_articles(
    *,
    query: str,
    as_of: dt.date,
    codes: Sequence[LegalCode] | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> list[LegalHit]:
    """The articles in force on ``as_of`` best matching ``query``, best first."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    if codes is not None and not codes:
        return []  # no code imported (or none asked): nothing to rank
    limit = max(1, min(int(limit), MAX_LIMIT))
    depth = max(ARM_DEPTH, limit)
    arms: dict[str, list[ArmRow]] = {}
    numbers = number_arm(query, as_of=as_of, codes=codes) if mode == "hybrid" else []
    if numbers:
        arms["reference"] = numbers
    if mode in {"hybrid", "fts"}:
        arms["fts"] = fts_arm(query, as_of=as_of, codes=codes, limit=depth)
    if mode == "vector":
        arms["vector"] = vector_arm(query, as_of=as_of, codes=codes, limit=depth)
    elif mode == "hybrid" and vectors_cover(codes, as_of):
        try:
            arms["vector"] = vector_arm(query, as_of=as_of, codes=codes, limit=depth)
        except ModelUnavailable:
            # The encoder is missing or broken: the firm's IT must act, but full-text and
            # the article numbers still answer (the contracts' search says so on its page).
            logger.warning("codes search without vectors: the embedding model is unavailable")
    # The articles the query names by number come first, then the ranking (a lawyer typing
    # "L. 231-1" wants that article, not the ones most like it).
    fused = sorted(fuse(arms), key=lambda hit: not hit.reference_match)[:limit]
    rows = ArticleVersion.objects.select_related("code").in_bulk([h.chunk_id for h in fused])
    return [
        LegalHit(
            version=rows[hit.chunk_id],
            score=hit.score,
            arms=hit.arms,
            fts_rank=hit.fts_rank,
            vector_similarity=hit.vector_similarity,
        )
        for hit in fused
        if hit.chunk_id in rows
    ]


@dataclass(frozen=True)
class CodesSearch:
    codes: list[LegalCode]  # the codes searched
    hits: list[LegalHit]
    warnings: list[str]  # said with every answer on a date the imported texts may not know


def codes_search(
    *, query: str, as_of: dt.date, names: Sequence[str] | None, limit: int
) -> CodesSearch:
    """The codes ``names`` names (every code when none; each named one checked for the
    date), their articles in force on ``as_of`` ranked for ``query``: what the codes page
    and the ``search_legal_codes`` tool answer. Raises :class:`~sources.selectors.SourceError`."""
    codes = codes_get(names) if names else list(codes_all())
    for code in codes if names else []:
        as_of_check(code, as_of)
    hits = search_articles(query=query, as_of=as_of, codes=codes, limit=limit)
    return CodesSearch(codes, hits, snapshot_warnings(codes, as_of))
