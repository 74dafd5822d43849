"""The legal library's benchmark behind ``manage.py bench_legal``.

Measures, on this machine: the import of the five ``fr-codes`` end to end (read, store, index,
renvois), then their embeddings timed apart; ``article_get`` latency over random articles in
force; ``search_articles`` (hybrid, 10 results: what the ``search_legal_codes`` tool runs)
latency over DataFiller phrasings; the peak RSS.

The stored library is left as found, twice over: the five codes are imported afresh under
``bench-<slug>`` slugs (so the user's rows are never touched nor locked: an embedding run
going on meanwhile is not disturbed, and every row is a creation, as in a first import), and
the whole import and embedding run inside one ``transaction.atomic()`` that is rolled back at
the end by raising :class:`_RollBack`. The latencies are measured afterwards, on the library
as stored.
"""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.db import transaction

from core.embeddings import get_encoder
from lab.sources.evals.lookup import SuiteUnavailable, code_as_of, require_path
from sources.embedding import article_passage, versions_embed
from sources.importing import HISTORY_FILE, read_codes_jsonl, read_history
from sources.models import ArticleVersion, LegalCode
from sources.ranking import search_articles
from sources.selectors import article_get, today_paris, versions_in_force
from sources.services import code_import

Note = Callable[[str], None]
BENCH_PREFIX = "bench-"
TARGET_GET_P95_MS = 20.0
TARGET_SEARCH_P95_MS = 150.0


class _RollBack(Exception):
    """Raised at the end of the import block so that nothing of it is committed."""


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    if not ordered:
        return {"p50_ms": 0.0, "p95_ms": 0.0, "max_ms": 0.0}
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(p95, 2),
        "max_ms": round(ordered[-1], 2),
    }


def _per_s(count: int, seconds: float) -> float:
    return round(count / seconds, 1) if seconds else 0.0


def _import_all(files: list[Path], note: Note) -> tuple[list[dict[str, Any]], list[LegalCode]]:
    history_path = files[0].parent / HISTORY_FILE
    history = read_history(history_path) if history_path.is_file() else {}
    reports, codes = [], []
    for path in files:
        for record in read_codes_jsonl(path, history):
            record.slug = f"{BENCH_PREFIX}{record.slug}"
            started = time.perf_counter()
            report = code_import(record=record)
            reports.append({**report.as_dict(), "wall_s": round(time.perf_counter() - started, 2)})
            codes.append(LegalCode.objects.get(slug=record.slug))
            note(f"  imported {record.slug}: {report.versions} versions in {report.seconds} s")
    return reports, codes


def _embed(codes: list[LegalCode], sample: int | None, note: Note) -> dict[str, Any]:
    pending = ArticleVersion.objects.filter(code__in=codes, text_known=True)
    total = pending.count()
    encoder = get_encoder()
    started = time.perf_counter()
    if sample:
        rows = list(pending.select_related("code").order_by("?")[:sample])
        encoder.encode([article_passage(row) for row in rows])
        seconds = time.perf_counter() - started
        per_s = len(rows) / seconds if seconds else 0.0
        note(f"  embedded a sample of {len(rows)} in {seconds:.1f} s")
        return {
            "model": encoder.name,
            "versions": total,
            "sample": len(rows),
            "sample_s": round(seconds, 2),
            "versions_per_s": round(per_s, 1),
            "seconds": round(total / per_s, 1) if per_s else None,
            "extrapolated": True,
        }
    done = versions_embed(codes=codes)
    seconds = time.perf_counter() - started
    return {
        "model": encoder.name,
        "versions": done,
        "seconds": round(seconds, 1),
        "versions_per_s": _per_s(done, seconds),
        "extrapolated": False,
    }


def bench_import(
    data_dir: Path, *, embed: bool, embed_sample: int | None, note: Note
) -> dict[str, Any]:
    """The five codes imported afresh (and embedded), then rolled back."""
    folder = require_path(data_dir / "fr-codes", "pass --data-dir")
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise SuiteUnavailable(f"{folder}: no *.jsonl code here.")
    result: dict[str, Any] = {}
    try:
        with transaction.atomic():
            # A bench left behind by a killed run is dropped (inside the rolled-back block too).
            LegalCode.objects.filter(slug__startswith=BENCH_PREFIX).delete()
            started = time.perf_counter()
            reports, codes = _import_all(files, note)
            seconds = time.perf_counter() - started
            versions = sum(r["versions"] for r in reports)
            result["import"] = {
                "codes": reports,
                "articles": sum(r["articles"] for r in reports),
                "versions": versions,
                "renvois": sum(r["renvois"] for r in reports),
                "seconds": round(seconds, 1),
                "versions_per_s": _per_s(versions, seconds),
            }
            result["embed"] = _embed(codes, embed_sample, note) if embed else None
            raise _RollBack
    except _RollBack:
        note("  import rolled back: the stored library is as it was")
    return result


def bench_get(count: int, rng: random.Random) -> dict[str, Any]:
    codes = list(LegalCode.objects.filter(versions__gt=0))
    pool = [
        (code, number)
        for code in codes
        for number in versions_in_force(as_of=code_as_of(code), codes=[code]).values_list(
            "number", flat=True
        )
    ]
    if not pool:
        raise SuiteUnavailable("no article is imported: run import_legal_codes first.")
    samples = []
    for code, number in rng.sample(pool, min(count, len(pool))):
        started = time.perf_counter()
        article_get(code=code, number=number, as_of=code_as_of(code))
        samples.append(1000 * (time.perf_counter() - started))
    stats = percentiles(samples)
    return {
        "calls": len(samples),
        **stats,
        "target_p95_ms": TARGET_GET_P95_MS,
        "ok": stats["p95_ms"] <= TARGET_GET_P95_MS,
    }


def bench_search(data_dir: Path, count: int, rng: random.Random) -> dict[str, Any]:
    path = require_path(data_dir / "datafiller" / "requests.json", "pass --data-dir")
    groups = json.loads(path.read_text(encoding="utf-8"))
    phrasings = sorted({str(v) for group in groups for v in group.get("variants", [])})
    queries = rng.sample(phrasings, min(count + 1, len(phrasings)))
    as_of = today_paris()
    started = time.perf_counter()
    search_articles(query=queries[0], as_of=as_of, limit=10, mode="hybrid")
    first_ms = 1000 * (time.perf_counter() - started)
    samples = []
    for query in queries[1:]:
        started = time.perf_counter()
        search_articles(query=query, as_of=as_of, limit=10, mode="hybrid")
        samples.append(1000 * (time.perf_counter() - started))
    stats = percentiles(samples)
    return {
        "queries": len(samples),
        "mode": "hybrid",
        "codes": "all imported",
        "first_query_ms": round(first_ms, 1),
        **stats,
        "target_p95_ms": TARGET_SEARCH_P95_MS,
        "ok": stats["p95_ms"] <= TARGET_SEARCH_P95_MS,
    }


def peak_rss_mb() -> float:
    # Linux reports kilobytes.
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def machine() -> dict[str, Any]:
    model = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cpus": os.cpu_count() or 0, "cpu_model": model, "python": platform.python_version()}


def run_bench(
    data_dir: Path,
    *,
    queries: int = 200,
    embed: bool = True,
    embed_sample: int | None = None,
    import_codes: bool = True,
    note: Note = print,
    seed: int = 7,
) -> dict[str, Any]:
    rng = random.Random(seed)  # noqa: S311 - sampling, not security
    result: dict[str, Any] = {"machine": machine()}
    if import_codes:
        note("importing the five fr-codes (rolled back at the end)…")
        result |= bench_import(data_dir, embed=embed, embed_sample=embed_sample, note=note)
    note(f"article_get over {queries} random articles in force…")
    result["get_article"] = bench_get(queries, rng)
    note(f"search_articles (hybrid) over {queries} DataFiller phrasings…")
    result["search_legal_codes"] = bench_search(data_dir, queries, rng)
    result["embedding_model"] = get_encoder().name
    result["peak_rss_mb"] = peak_rss_mb()
    return result
