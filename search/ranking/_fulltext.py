"""The full-text arm: BM25 over the chunks' tsvectors, matched on the query's rarest words.

SQL here is assembled from constants (configurations, fixed clauses); every value from a
caller is a bound parameter (ruff S608 is silenced for the ranking package).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.normalize import fold_accents
from documents.textsearch import QUERY_CONFIGS
from search.ranking._common import ArmRow, doc_filter
from search.replica import read_connection

# Chunks ts_rank pre-selects for BM25 rescoring (BM25 unnests each candidate's tsvector).
BM25_CANDIDATES = 300
# Chunks the rarest query words may match between them; more common words only score.
MATCH_BUDGET = 2000
# Matching chunks ranked at most. Past it, chunks holding every query word are tried first.
CANDIDATE_CAP = 4000
# Chunks holding every query word that make the any-word search unnecessary.
ENOUGH_ALL_WORDS_HITS = 30
# Operators of websearch syntax: a query using them is parsed as such, otherwise its words
# are OR-ed (a natural-language question rarely has every word in one clause).
_WEBSEARCH = re.compile(r'"|\bOR\b|(?:^|\s)-\w')


def _query_words(query: str) -> dict[str, list[str]]:
    """The query's words, each with its French and English stems (lexemes).

    A word that either language treats as a stop word is dropped ("for", "de"): under the
    other configuration it would match nearly every chunk.
    """
    with read_connection().cursor() as cursor:
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


# French function words Postgres' French stop list lacks (accents folded): alone they are
# no query either.
# fmt: off
_FUNCTION_WORDS = frozenset({
    "les", "ou", "cet", "cette", "quoi", "dont", "leurs", "ils", "elles", "si", "donc", "ni",
    "car", "comme", "tout", "tous", "toute", "toutes", "entre", "vers", "chez", "sous", "sans",
    "plus", "quel", "quelle", "quels", "quelles", "etre", "avoir", "fait",
})
# fmt: on


def has_content_word(query: str) -> bool:
    """Whether the query holds a word that is no stop word in French or English: a query of
    only "le la les de" or punctuation would match every contract as weakly as any."""
    return any(word not in _FUNCTION_WORDS for word in _query_words(fold_accents(query)))


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
    with read_connection().cursor() as cursor:
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
    with read_connection().cursor() as cursor:
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


@dataclass(frozen=True)
class _Plan:
    """How to search: ``rank_text`` scores, each of ``matches`` in turn selects candidates;
    ``stats`` None means plain ts_rank (websearch syntax, or no statistics yet)."""

    rank_text: str
    matches: list[str]
    stats: TermStats | None


def _plan(workspace_id: int, query: str) -> _Plan:
    folded = fold_accents(query)
    if _WEBSEARCH.search(query):
        # Explicit operators ("quoted phrase", -word, OR): the user's syntax is respected.
        rank_text = _websearch_query(folded)
        return _Plan(rank_text, [rank_text], None)
    words = _query_words(folded)
    stems = sorted({stem for group in words.values() for stem in group})
    stats = _term_stats(workspace_id, stems) if stems else None
    if stats is None:
        return _Plan(_tsquery_text(stems), [_tsquery_text(stems)], None)
    stems = [stem for stem in stems if stem in stats.df]
    rank_text = _tsquery_text(stems)
    if not stems:
        return _Plan(rank_text, [rank_text], stats)
    selective = _selective_stems(stems, stats.df)
    matches = [_tsquery_text(selective)]
    if sum(stats.df[stem] for stem in selective) > CANDIDATE_CAP:
        # Every word is common: chunks holding all of them first.
        matches.insert(0, _all_words_query(words, set(stems)))
    return _Plan(rank_text, matches, stats)


def fts_arm(
    *,
    workspace_id: int,
    query: str,
    document_ids: Sequence[int] | None,
    limit: int,
    clause_types: Sequence[str] = (),
) -> list[ArmRow]:
    """(chunk id, document id, score) for chunks matching the query, best first.

    Scored by BM25 (k1 1.2, b 0.75, heading/title positions counted twice) over the chunks
    ``ts_rank`` ranks first; ``ts_rank`` alone when the query uses websearch syntax or the
    workspace's statistics are not computed yet.

    Cost is bounded whatever the workspace size: chunks are matched on the query's rarest
    words only (their document frequencies summing to at most ``MATCH_BUDGET``), all query
    words still count in the score. A query made only of very common words matches chunks
    holding all its words first, and at most ``CANDIDATE_CAP`` matching chunks are ranked.
    """
    plan = _plan(workspace_id, query)
    if not plan.rank_text:
        return []  # only stop words or punctuation, or words found nowhere
    where, params = doc_filter(document_ids, clause_types)
    preselect = max(limit * 3, BM25_CANDIDATES) if plan.stats is not None else limit
    # ts_rank, not ts_rank_cd, to preselect: a third of the cost (measured), and BM25 decides.
    candidates = (
        "SELECT id, document_id, search_vector, ts_rank(search_vector, %s::tsquery) AS rank "
        "FROM (SELECT c.id, c.document_id, c.search_vector FROM documents_chunk c"
        f"  WHERE c.workspace_id = %s AND c.search_vector @@ %s::tsquery{where} LIMIT %s"
        ") matched ORDER BY rank DESC, id LIMIT %s"
    )
    with read_connection().cursor() as cursor:
        if plan.stats is None:
            cursor.execute(
                candidates,
                [plan.rank_text, workspace_id, plan.rank_text, *params, CANDIDATE_CAP, preselect],
            )
            return [(row[0], row[1], float(row[3])) for row in cursor.fetchall()]
        rows: list[ArmRow] = []
        for match_text in filter(None, plan.matches):
            candidate_params = [plan.rank_text, workspace_id, match_text, *params, CANDIDATE_CAP]
            cursor.execute(
                _BM25.format(candidates=candidates),
                [
                    *candidate_params,
                    preselect,
                    list(plan.stats.idf),
                    list(plan.stats.idf.values()),
                    plan.stats.mean_length,
                    limit,
                ],
            )
            rows = [(row[0], row[1], float(row[2])) for row in cursor.fetchall()]
            if len(rows) >= min(limit, ENOUGH_ALL_WORDS_HITS):
                break
    return rows


# BM25 over the preselected candidates: tf counts heading/title (weight A) positions twice.
_BM25 = (
    "WITH candidates AS ({candidates}), "
    "terms AS (SELECT * FROM unnest(%s::text[], %s::float8[]) AS t(lexeme, idf)) "
    "SELECT c.id, c.document_id, sum(t.idf * (u.tf * 2.2) / "
    "  (u.tf + 1.2 * (0.25 + 0.75 * length(c.search_vector) / %s))) AS score "
    "FROM candidates c CROSS JOIN LATERAL ("
    "  SELECT x.lexeme, array_length(x.positions, 1)"
    "    + (SELECT count(*) FROM unnest(x.weights) w WHERE w = 'A') AS tf"
    "  FROM unnest(c.search_vector) AS x(lexeme, positions, weights)"
    ") u JOIN terms t ON t.lexeme = u.lexeme "
    "GROUP BY c.id, c.document_id ORDER BY score DESC, c.id LIMIT %s"
)


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
