"""The search benchmark behind ``manage.py bench_search``: seeded synthetic data rooms (up to
millions of chunks) and the real search code timed on them.

Parts: ``_vocabulary`` (the legal vocabulary, from ``vocabulary.json``), ``_plan`` (what a
room holds), ``_corpus`` (sentences and clustered vectors), ``_write`` (ORM and binary COPY),
``_indexes`` (the shared GIN and HNSW indexes, dropped and rebuilt), ``_workload`` (seeded
queries and filters), ``_latency``, ``_explain``, ``_run`` (one run, end to end), and
``_ui`` (the HTML pages over the same room, behind ``bench_ui``).
Runtime code never imports this package.
"""

from __future__ import annotations

from lab.search.bench._corpus import (
    SENTENCES_PER_TOPIC,
    TOPICS,
    SentencePool,
    Topic,
    make_topics,
    topic_centroids,
    vector_rows,
)
from lab.search.bench._indexes import GIN_INDEX, SharedIndexes, hnsw_definition, hnsw_index_name
from lab.search.bench._latency import MEASURED
from lab.search.bench._plan import Plan, PlannedDocument, plan_data_room
from lab.search.bench._run import MAX_CHUNKS, TARGETS, SearchBenchOptions, run_search_bench
from lab.search.bench._ui import UiBenchOptions, run_ui_bench, url_params
from lab.search.bench._vocabulary import THEMES, Theme
from lab.search.bench._workload import make_filters, make_queries
from lab.search.bench._write import CHUNK_BATCH_ROWS, complete, write_chunks, write_metadata

__all__ = [
    "CHUNK_BATCH_ROWS",
    "GIN_INDEX",
    "MAX_CHUNKS",
    "MEASURED",
    "SENTENCES_PER_TOPIC",
    "TARGETS",
    "THEMES",
    "TOPICS",
    "Plan",
    "PlannedDocument",
    "SearchBenchOptions",
    "SentencePool",
    "SharedIndexes",
    "Theme",
    "Topic",
    "UiBenchOptions",
    "complete",
    "hnsw_definition",
    "hnsw_index_name",
    "make_filters",
    "make_queries",
    "make_topics",
    "plan_data_room",
    "run_search_bench",
    "run_ui_bench",
    "topic_centroids",
    "url_params",
    "vector_rows",
    "write_chunks",
    "write_metadata",
]
