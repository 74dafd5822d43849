"""bench_search --contracts N --chunks-per-contract M [--queries Q] [--seed S] [--json] ...

Generates a seeded synthetic data room (search.bench), rebuilds the shared full-text and HNSW
indexes (timed), then measures the real search code, each call in its own tenant-scope
transaction as a request would run it: filter-only listing, the full-text and vector arms
alone, hybrid search with and without filters, and reranking when its model is available
offline. Run it on a dedicated data directory: the indexes it drops and rebuilds are shared by
every workspace of the database.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.management.base import CommandError, CommandParser
from django.db import connection
from django.test.utils import override_settings

from documents.embeddings import Encoder, get_encoder, pick_device, resolve_model_path
from documents.management.model_command import ModelCommand
from documents.models import Document, Entity
from documents.services import workspace_contents_delete, workspace_purge_throwaway
from search import bench
from search.models import TextStats
from search.ranking import _cross_encoder, rank_chunks
from search.selectors.plain import search_data_room
from search.services import text_stats_refresh
from workspaces.models import Workspace
from workspaces.services import firm_get_or_create, user_get_or_create, workspace_create
from workspaces.tenancy import workspace_scope

BENCH_FIRM = "Lexroom Bench"
BENCH_EMAIL = "bench@lexroom.local"
ACTOR = "system:bench_search"
MAX_CHUNKS = 5_000_000
WARMUP_QUERIES = 10
# A CPU cross-encoder takes seconds per query: a sample is enough to see its cost.
RERANK_QUERIES = 20
TARGETS = {"filter_only_p95_ms": 100, "hybrid_p50_ms": 40, "hybrid_p95_ms": 150}
MEASURED = ("filter_only", "fts", "vector", "hybrid", "hybrid_filtered", "hybrid_rerank")


def _summary(samples_ms: list[float]) -> dict[str, float]:
    p50, p95, p99 = np.percentile(np.asarray(samples_ms), [50, 95, 99])
    return {
        "p50": round(float(p50), 2),
        "p95": round(float(p95), 2),
        "p99": round(float(p99), 2),
        "mean": round(float(np.mean(samples_ms)), 2),
        "n": len(samples_ms),
    }


def make_queries(count: int, seed: int) -> list[str]:
    """Seeded clause-search queries in both languages, from the benchmark's vocabulary."""
    rng = random.Random(seed + 10)  # noqa: S311 - reproducible, not secret
    queries = []
    for _ in range(count):
        theme = rng.choice(bench.THEMES)
        phrases = theme.fr if rng.random() < 0.6 else theme.en
        words = rng.sample(phrases, rng.randint(1, 2))
        if rng.random() < 0.2:
            other = rng.choice(bench.THEMES)
            words.append(rng.choice(other.fr + other.en))
        queries.append(" ".join(words))
    return queries


def make_filters(
    count: int, seed: int, entity_ids: list[int], labels: list[str], laws: list[str]
) -> list[dict[str, Any]]:
    """Seeded filter combinations: one to three of entity, type, law and date windows.

    Values come from the room itself: the tool refuses a type or law no contract has.
    """
    rng = random.Random(seed + 20)  # noqa: S311
    combos: list[dict[str, Any]] = []
    for _ in range(count):
        filters: dict[str, Any] = {}
        for kind in rng.sample(["entity", "type", "law", "signature", "end"], rng.randint(1, 3)):
            if kind == "entity":
                filters["entity_ids"] = [rng.choice(entity_ids)]
            elif kind == "type":
                filters["contract_types"] = rng.sample(labels, min(len(labels), rng.randint(1, 2)))
            elif kind == "law":
                key = "in" if rng.random() < 0.8 else "not_in"
                filters["governing_law"] = {key: [rng.choice(laws)]}
            else:
                after = date(2015, 1, 1) + timedelta(days=rng.randrange(365 * 10))
                before = after + timedelta(days=rng.randint(180, 365 * 4))
                field = "signature_date" if kind == "signature" else "end_date"
                filters[field] = {"after": after.isoformat(), "before": before.isoformat()}
        combos.append(filters)
    return combos


def _shorten(line: str, width: int = 300) -> str:
    return line if len(line) <= width else f"{line[:width]}..."


class _StatementLog:
    """Statements run on the connection, with their durations (for EXPLAIN)."""

    def __init__(self) -> None:
        self.statements: list[tuple[float, str, Any]] = []

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.statements.append((time.perf_counter() - started, sql, params))


class Command(ModelCommand):
    help = "Benchmark search latency and index builds on a seeded synthetic data room."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--contracts", type=int, required=True, help="Contracts (N).")
        parser.add_argument(
            "--chunks-per-contract", type=int, required=True, help="Chunks per contract (M)."
        )
        parser.add_argument("--queries", type=int, default=200, help="Queries per measurement.")
        parser.add_argument("--seed", type=int, default=42, help="Seed of everything generated.")
        parser.add_argument("--keep", action="store_true", help="Keep the workspace afterwards.")
        parser.add_argument(
            "--reuse",
            action="store_true",
            help="Reuse the workspace of the same N, M and seed if complete (and keep it).",
        )
        parser.add_argument(
            "--maintenance-work-mem",
            default="2GB",
            help="maintenance_work_mem for the index builds (the HNSW graph should fit).",
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object.")

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = int(options.get("verbosity", 1))
        contracts, per_contract = options["contracts"], options["chunks_per_contract"]
        queries, seed = options["queries"], options["seed"]
        if contracts <= 0 or per_contract <= 0:
            raise CommandError("--contracts and --chunks-per-contract must be positive numbers.")
        if contracts * per_contract > MAX_CHUNKS:
            raise CommandError(
                f"{contracts} x {per_contract} = {contracts * per_contract} chunks is more than "
                f"the {MAX_CHUNKS} this benchmark generates; lower --contracts or "
                "--chunks-per-contract."
            )
        if queries <= 0:
            raise CommandError("--queries must be a positive number.")

        encoder = get_encoder()
        encoder.encode(["warm-up: limitation de responsabilité"])
        plan = bench.plan_data_room(
            contracts=contracts, chunks_per_contract=per_contract, seed=seed
        )
        slug = f"bench-search-{contracts}x{per_contract}-{seed}"
        workspace, reused = self._workspace(slug, plan, reuse=options["reuse"])
        try:
            generate_s, index_build_s = self._prepare(
                workspace, plan, encoder, reused, options["maintenance_work_mem"]
            )
            latency, slowest = self._measure(workspace, queries, seed)
            explain = self._explain(workspace, slowest)
        finally:
            if options["keep"] or options["reuse"]:
                self._note(f"Kept workspace {slug} (firm {BENCH_FIRM}).")
            else:
                self._remove(workspace)
        hybrid, filter_only = latency["hybrid"], latency["filter_only"]
        result = {
            "contracts": contracts,
            "chunks": plan.chunks,
            "dimension": encoder.dimension,
            "model": encoder.name,
            "device": encoder.device,
            "workspace": slug,
            "reused": reused,
            "queries": queries,
            "cpus": os.cpu_count() or 0,
            "generate_s": generate_s,
            "index_build_s": index_build_s,
            "latency_ms": latency,
            "targets": {
                **TARGETS,
                "met": {
                    "filter_only_p95": filter_only["p95"] <= TARGETS["filter_only_p95_ms"],
                    "hybrid_p50": hybrid["p50"] <= TARGETS["hybrid_p50_ms"],
                    "hybrid_p95": hybrid["p95"] <= TARGETS["hybrid_p95_ms"],
                },
            },
            "explain": explain,
        }
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
        else:
            self._print(result)

    # --- set-up and tear-down -------------------------------------------------------------

    def _workspace(self, slug: str, plan: bench.Plan, *, reuse: bool) -> tuple[Workspace, bool]:
        """The benchmark's workspace, and whether it already holds the whole plan."""
        firm, _ = firm_get_or_create(name=BENCH_FIRM)
        existing = Workspace.objects.filter(firm=firm, slug=slug).first()
        if existing is not None:
            if not reuse:
                raise CommandError(
                    f"Workspace {slug!r} already exists in {BENCH_FIRM!r}; run with --reuse "
                    "(reused if complete, regenerated otherwise)."
                )
            if bench.complete(workspace=existing, plan=plan):
                self._note(f"Reusing workspace {slug}.")
                return existing, True
            # A run interrupted mid-way: start its contents again from scratch.
            workspace_contents_delete(workspace=existing)
            return existing, False
        user, _ = user_get_or_create(email=BENCH_EMAIL, firm=firm, actor_label=ACTOR)
        workspace, _ = workspace_create(
            firm=firm, slug=slug, title=f"Benchmark {slug}", owner=user, actor_label=ACTOR
        )
        return workspace, False

    def _remove(self, workspace: Workspace) -> None:
        """Delete the workspace and its contents; the firm and user too when unused (runs
        kept with --keep, or bench_ingest's, still use the firm)."""
        workspace_purge_throwaway(workspace=workspace)
        self._note(f"Removed workspace {workspace.slug}.")

    def _prepare(
        self,
        workspace: Workspace,
        plan: bench.Plan,
        encoder: Encoder,
        reused: bool,
        maintenance_work_mem: str,
    ) -> tuple[float | None, dict[str, Any]]:
        """Generate (unless reused) with the shared indexes dropped, then rebuild them, timed."""
        indexes = bench.SharedIndexes(encoder.dimension)
        if reused:
            built: dict[str, Any] = {"gin": None, "hnsw": None, "skipped": "reused workspace"}
            with workspace_scope(workspace):
                computed = TextStats.objects.filter(workspace=workspace).exists()
            if not computed:
                built["text_stats"] = self._text_stats(workspace)  # runs kept by older code
            return None, built
        # Loading into indexed tables costs far more than building the indexes afterwards.
        indexes.drop()
        try:
            started = time.perf_counter()
            topics = bench.make_topics(plan.seed)
            centroids = bench.topic_centroids(topics, encoder.encode)
            self._note(f"Topic centroids embedded in {time.perf_counter() - started:.1f} s")
            with workspace_scope(workspace):
                self._note(f"Generating {plan.contracts} contracts, {plan.chunks} chunks...")
                document_ids = bench.write_metadata(workspace=workspace, plan=plan)
                self._note(
                    f"Contracts and parties written at {time.perf_counter() - started:.1f} s"
                )
                bench.write_chunks(
                    workspace=workspace,
                    plan=plan,
                    document_ids=document_ids,
                    centroids=centroids,
                    topics=topics,
                    model=encoder.name,
                    progress=self._progress(started),
                )
            generate_s = round(time.perf_counter() - started, 2)
            self._note(f"Generated in {generate_s} s; building indexes...")
            workers = max(0, min(7, (os.cpu_count() or 1) - 1))
            index_build_s: dict[str, Any] = indexes.rebuild(
                maintenance_work_mem=maintenance_work_mem, workers=workers
            )
        finally:
            indexes.restore()
        # BM25 statistics, as ingestion computes them after each batch.
        index_build_s["text_stats"] = self._text_stats(workspace)
        self._note(f"Indexes built: {index_build_s}")
        return generate_s, index_build_s

    def _text_stats(self, workspace: Workspace) -> float:
        started = time.perf_counter()
        with workspace_scope(workspace):
            text_stats_refresh(workspace_id=workspace.pk)
        return round(time.perf_counter() - started, 2)

    # --- measuring ------------------------------------------------------------------------

    def _timed(self, workspace: Workspace, call: Callable[[], object]) -> float:
        """Milliseconds of one call in its own tenant-scope transaction, as a request runs."""
        started = time.perf_counter()
        with workspace_scope(workspace):
            call()
        return (time.perf_counter() - started) * 1000

    def _calls(self, workspace: Workspace, queries: int, seed: int) -> dict[str, list[Any]]:
        """For each measurement, the seeded calls to time (closures over query and filters)."""
        with workspace_scope(workspace):
            entity_ids = list(
                Entity.objects.filter(workspace=workspace).values_list("id", flat=True)
            )
            documents = Document.objects.filter(workspace=workspace)
            labels = sorted(set(documents.values_list("contract_type", flat=True)) - {""})
            laws = sorted(set(documents.values_list("governing_law", flat=True)) - {""})
        texts = make_queries(queries, seed)
        filters = make_filters(queries, seed, entity_ids, labels, laws)
        ws_id = workspace.pk
        encoder = get_encoder()

        def listing(f: dict[str, Any]) -> Callable[[], object]:
            return lambda: search_data_room(workspace=workspace, filters=f, limit=20)

        def arm(q: str, arms: tuple[str, ...]) -> Callable[[], object]:
            return lambda: rank_chunks(
                workspace_id=ws_id, query=q, document_ids=None, arms=arms, use_rerank=False
            )

        def hybrid(q: str, f: dict[str, Any] | None) -> Callable[[], object]:
            return lambda: search_data_room(workspace=workspace, query=q, filters=f, limit=20)

        return {
            "filter_only": [listing(f) for f in filters],
            "fts": [arm(q, ("fts",)) for q in texts],
            "vector": [arm(q, ("vector",)) for q in texts],
            "hybrid": [hybrid(q, None) for q in texts],
            "hybrid_filtered": [hybrid(q, f) for q, f in zip(texts, filters, strict=True)],
            # The encoder itself, uncached: what a query never seen by this process adds.
            "query_embedding": [lambda q=q: encoder.encode_queries([q]) for q in texts],
        }

    def _measure(
        self, workspace: Workspace, queries: int, seed: int
    ) -> tuple[dict[str, Any], tuple[str, Callable[[], object]] | None]:
        """Latency summaries per measurement, and the slowest call of the slowest arm."""
        calls = self._calls(workspace, queries, seed)
        latency: dict[str, Any] = {}
        worst: dict[str, tuple[float, Callable[[], object]]] = {}
        # Reranking is measured on its own below: "hybrid" is the latency without it.
        with override_settings(LEXROOM_RERANK="off"):
            for name, measured in calls.items():
                for call in measured[:WARMUP_QUERIES]:
                    self._timed(workspace, call)
                samples = [self._timed(workspace, call) for call in measured]
                latency[name] = _summary(samples)
                slowest = int(np.argmax(samples))
                worst[name] = (samples[slowest], measured[slowest])
                self._note(f"  {name}: {latency[name]}")
        latency["hybrid_rerank"] = self._measure_rerank(workspace, calls["hybrid"])
        arms = {name: latency[name]["p95"] for name in worst if name != "query_embedding"}
        slowest_arm = max(arms, key=lambda name: arms[name]) if arms else None
        ordered = {name: latency[name] for name in (*MEASURED, "query_embedding")}
        return ordered, (slowest_arm, worst[slowest_arm][1]) if slowest_arm else None

    def _measure_rerank(
        self, workspace: Workspace, calls: list[Callable[[], object]]
    ) -> dict[str, Any]:
        unavailable = self._rerank_unavailable()
        if unavailable:
            return {"skipped": unavailable}
        with override_settings(LEXROOM_RERANK="on"):
            self._timed(workspace, calls[0])
            samples = [self._timed(workspace, call) for call in calls[:RERANK_QUERIES]]
        return _summary(samples)

    def _rerank_unavailable(self) -> str | None:
        """Why the rerank model cannot be loaded offline (None when it can)."""
        name = settings.LEXROOM_RERANK_MODEL
        if not name:
            return "LEXROOM_RERANK_MODEL is empty"
        try:
            path = resolve_model_path(name)
            if not Path(path).is_dir():
                from huggingface_hub import try_to_load_from_cache

                if not isinstance(try_to_load_from_cache(path, "config.json"), str):
                    return f"{name} is not in the local Hugging Face cache"
            _cross_encoder(name, pick_device(settings.LEXROOM_EMBEDDING_DEVICE))
        except Exception as exc:  # a missing or broken model is a reason to skip, not fail
            return f"{name} cannot be loaded: {exc}"[:300]
        return None

    def _explain(
        self, workspace: Workspace, slowest: tuple[str, Callable[[], object]] | None
    ) -> dict[str, Any]:
        """EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of the slowest arm's worst call."""
        if slowest is None:
            return {}
        arm, call = slowest
        log = _StatementLog()
        with override_settings(LEXROOM_RERANK="off"), connection.execute_wrapper(log):
            self._timed(workspace, call)
        settings_sql = [entry for entry in log.statements if entry[1].startswith("SET LOCAL")]
        queries = [
            entry
            for entry in log.statements
            if entry[1].lstrip().upper().startswith(("SELECT", "WITH"))
            and "set_config" not in entry[1]
        ]
        if not queries:
            return {"arm": arm}
        seconds, sql, params = max(queries, key=lambda entry: entry[0])
        with (
            workspace_scope(workspace),
            connection.cursor() as cursor,
        ):
            for _, setting, setting_params in settings_sql:
                cursor.execute(setting, setting_params)
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
            # Vector literals make plan lines kilobytes long: the shape is what matters.
            plan = [_shorten(str(row[0])) for row in cursor.fetchall()]
        return {
            "arm": arm,
            "statements": len(queries),
            "slowest_statement_ms": round(seconds * 1000, 2),
            "sql": " ".join(sql.split())[:400],
            "plan": plan[:40],
        }

    # --- output ---------------------------------------------------------------------------

    def _note(self, message: str) -> None:
        if self.verbosity >= 1:
            self.stderr.write(message)

    def _progress(self, started: float) -> Callable[[int, int], None]:
        last = [0.0]

        def progress(done: int, total: int) -> None:
            # Every 15 s at most, and at the end: a line per batch is noise.
            now = time.monotonic()
            if done < total and now - last[0] < 15:
                return
            last[0] = now
            elapsed = time.perf_counter() - started
            self._note(f"  chunks {done}/{total} ({done / max(elapsed, 1e-9):.0f}/s)")

        return progress

    def _print(self, result: dict[str, Any]) -> None:
        write = self.stdout.write
        write(
            f"{result['contracts']} contracts, {result['chunks']} chunks, {result['model']} "
            f"(dim {result['dimension']}); generated in {result['generate_s']} s; index builds "
            f"{result['index_build_s']}"
        )
        for name, summary in result["latency_ms"].items():
            if "skipped" in summary:
                write(f"  {name:<16} skipped: {summary['skipped']}")
            else:
                write(
                    f"  {name:<16} p50 {summary['p50']:>8.1f}  p95 {summary['p95']:>8.1f}  "
                    f"p99 {summary['p99']:>8.1f}  mean {summary['mean']:>8.1f} ms"
                )
        write(f"Targets met: {result['targets']['met']}")
        if result["explain"]:
            write(f"Slowest arm {result['explain']['arm']}:")
            for line in result["explain"].get("plan", []):
                write(f"  {line}")
