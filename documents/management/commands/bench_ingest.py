"""bench_ingest --source DIR [--limit N] [--json] [--workspace SLUG] [--keep].

Ingests real files end to end in this process, in a throwaway workspace, on the configured
embedding model and device, and reports where the time goes: per-stage seconds (the
services' ``timed(...)`` blocks), throughput, and the raw encoder throughput measured in the
same run on the same chunks, so the pipeline's overhead over pure embedding is one ratio.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from documents.embeddings import Encoder, get_encoder
from documents.management.model_command import ModelCommand
from documents.metrics import stage_timings
from documents.models import Chunk, Document, DocumentStatus
from documents.pipeline import Progress, run_in_process, store_files
from documents.services import workspace_purge_throwaway
from workspaces.models import User, Workspace
from workspaces.services import firm_get_or_create, user_get_or_create, workspace_create
from workspaces.tenancy import workspace_scope

BENCH_FIRM = "Lexroom Bench"
BENCH_EMAIL = "bench@lexroom.local"
ACTOR = "system:bench"
RAW_SAMPLE_CHUNKS = 2000
# Targets for end-to-end chunks/s over raw encoder chunks/s. A GPU encoder is so fast that
# the fixed per-document work (parsing, SQL) weighs more, hence the lower bar there.
RATIO_MIN_CPU = 0.8
RATIO_MIN_GPU = 0.7
_WARMUP_TEXTS = [
    "ARTICLE 1 — OBJET. Le présent contrat a pour objet la fourniture de services.",
    "Section 12. Governing Law. This Agreement shall be governed by the laws of New York.",
    "The term of this Agreement is five (5) years from the Effective Date.",
    "Fait à Paris, en deux exemplaires originaux.",
] * 4


def _per_s(items: int, seconds: float) -> float:
    return round(items / seconds, 2) if seconds > 0 else 0.0


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports kilobytes, macOS bytes.
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


class Command(ModelCommand):
    help = "Benchmark ingestion end to end on a folder of files, in a throwaway workspace."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--source", type=Path, required=True, help="Folder of files.")
        parser.add_argument(
            "--limit",
            type=int,
            default=0,
            help="Ingest the first N files by name (0 = all).",
        )
        parser.add_argument(
            "--workspace", help="Slug of the throwaway workspace (default: bench-<unix time>)."
        )
        parser.add_argument(
            "--keep", action="store_true", help="Keep the workspace and its documents."
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object.")

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = int(options.get("verbosity", 1))
        files = self._files(options["source"], options["limit"])

        # Model loading is a one-off per process, not ingestion cost: load and warm up first.
        started = time.perf_counter()
        encoder = get_encoder()
        encoder.encode(_WARMUP_TEXTS)
        model_load_s = time.perf_counter() - started
        self._note(f"Encoder {encoder.name} on {encoder.device} ready in {model_load_s:.1f} s")

        workspace, user = self._workspace(options["workspace"] or f"bench-{int(time.time())}")
        try:
            result = self._measure(workspace, user, files, encoder)
        finally:
            if options["keep"]:
                self._note(f"Kept workspace {workspace.slug} (firm {BENCH_FIRM}).")
            else:
                self._remove(workspace)
        result = {
            "source": str(options["source"]),
            **result,
            "model_load_s": round(model_load_s, 2),
        }
        result = self._environment(result, encoder)
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
        else:
            self._print(result)

    # --- set-up and tear-down -------------------------------------------------------------

    def _files(self, source: Path, limit: int) -> list[Path]:
        if limit < 0:
            raise CommandError("--limit must be 0 (all) or a positive number.")
        if not source.is_dir():
            raise CommandError(f"--source {source}: no such folder.")
        files = sorted(
            (p for p in source.iterdir() if p.is_file() and not p.name.startswith(".")),
            key=lambda p: p.name,
        )
        if not files:
            raise CommandError(f"--source {source}: the folder has no files.")
        return files[:limit] if limit else files

    def _workspace(self, slug: str) -> tuple[Workspace, User]:
        firm, _ = firm_get_or_create(name=BENCH_FIRM)
        if Workspace.objects.filter(firm=firm, slug=slug).exists():
            # It would be reused (documents already present, not re-measured) and then deleted.
            raise CommandError(
                f"Workspace {slug!r} already exists in {BENCH_FIRM!r}; pick another slug."
            )
        user, _ = user_get_or_create(email=BENCH_EMAIL, firm=firm, actor_label=ACTOR)
        workspace, _ = workspace_create(
            firm=firm, slug=slug, title=f"Benchmark {slug}", owner=user, actor_label=ACTOR
        )
        return workspace, user

    def _remove(self, workspace: Workspace) -> None:
        """Delete the workspace and everything in it; the firm and user too when unused."""
        workspace_purge_throwaway(workspace=workspace)
        self._note(f"Removed workspace {workspace.slug}.")

    # --- measuring ------------------------------------------------------------------------

    def _measure(
        self, workspace: Workspace, user: User, files: list[Path], encoder: Encoder
    ) -> dict[str, Any]:
        self._note(f"Storing {len(files)} files in workspace {workspace.slug}...")
        started = time.perf_counter()
        batch, results = store_files(workspace=workspace, paths=files, user=user)
        store_files_s = time.perf_counter() - started

        started = time.perf_counter()
        with stage_timings() as totals:
            loops = run_in_process(workspace=workspace, batch=batch, progress=self._progress())
        run_s = time.perf_counter() - started
        wall_s = store_files_s + run_s

        with workspace_scope(workspace):
            in_batch = Document.objects.filter(pk__in=batch.document_ids)
            documents = in_batch.count()
            failed = in_batch.filter(status=DocumentStatus.FAILED).count()
            chunks = Chunk.objects.filter(workspace=workspace)
            chunk_count = chunks.count()
            ids = list(chunks.order_by("document_id", "ordinal").values_list("pk", flat=True))
            # Spread the sample over the whole run: chunk lengths vary from one contract to
            # the next, and the encoder's speed with them.
            sample_ids = ids[:: max(1, len(ids) // RAW_SAMPLE_CHUNKS)][:RAW_SAMPLE_CHUNKS]
            texts = list(
                Chunk.objects.filter(pk__in=sample_ids)
                .order_by("document_id", "ordinal")
                .values_list("index_text", flat=True)
            )
        refused = sum(1 for r in results if r.error)

        raw_chunks_per_s = 0.0
        if texts:
            self._note(f"Raw encoder: {len(texts)} chunks...")
            started = time.perf_counter()
            encoder.encode(texts)
            raw_chunks_per_s = len(texts) / (time.perf_counter() - started)

        store_s = store_files_s + totals.get("store", 0.0)
        stage_seconds = {
            "store": store_s,
            "parse": totals.get("parse", 0.0),
            "metadata": totals.get("metadata", 0.0),
            "chunk": totals.get("chunk", 0.0),
            "embed": totals.get("embed", 0.0),
            "analyze": loops.get("analyze", 0.0),
        }
        # Transactions, row locks, the chunk queries of the embed loop, the vector index:
        # what no stage claims. Reported so the shares add up to the wall time.
        stage_seconds["other"] = max(0.0, wall_s - sum(stage_seconds.values()))
        stages: dict[str, dict[str, float]] = {
            name: {"s": round(seconds, 2), "share": round(seconds / wall_s, 4) if wall_s else 0.0}
            for name, seconds in stage_seconds.items()
        }
        stages["store"] |= {
            "files_s": round(store_files_s, 2),
            "db_writes_s": round(totals.get("store", 0.0), 2),
        }
        for name in ("parse", "metadata"):
            stages[name]["docs_per_s"] = _per_s(documents, stage_seconds[name])
        stages["chunk"]["chunks_per_s"] = _per_s(chunk_count, stage_seconds["chunk"])
        stages["embed"] |= {
            "chunks_per_s": _per_s(chunk_count, stage_seconds["embed"]),
            # The whole embed loop (queries, vector writes) against the encoder alone.
            "loop_s": round(loops.get("embed", 0.0), 2),
        }

        chunks_per_s = chunk_count / wall_s if wall_s else 0.0
        ratio = chunks_per_s / raw_chunks_per_s if raw_chunks_per_s else 0.0
        ratio_min = RATIO_MIN_CPU if encoder.device == "cpu" else RATIO_MIN_GPU
        return {
            "documents": documents,
            "failed": failed + refused,
            "chunks": chunk_count,
            "wall_s": round(wall_s, 2),
            "docs_per_s": _per_s(documents, wall_s),
            "chunks_per_s": round(chunks_per_s, 2),
            "stages": stages,
            "raw_encoder_chunks_per_s": round(raw_chunks_per_s, 2),
            "ratio": round(ratio, 4),
            "targets": {"ratio_min": ratio_min, "ratio_ok": ratio >= ratio_min},
        }

    def _environment(self, result: dict[str, Any], encoder: Encoder) -> dict[str, Any]:
        import torch

        cuda_mb = None
        if encoder.device.startswith("cuda"):
            cuda_mb = round(torch.cuda.max_memory_allocated() / (1024 * 1024), 1)
        ordered = {
            "source": result["source"],
            "documents": result["documents"],
            "failed": result["failed"],
            "chunks": result["chunks"],
            "device": encoder.device,
            "dtype": encoder.dtype,
            "model": encoder.name,
            "dimension": encoder.dimension,
            "batch_size": encoder.batch_size,
            "model_load_s": result["model_load_s"],
        }
        return (
            ordered
            | {key: value for key, value in result.items() if key not in ordered}
            | {
                "peak_rss_mb": _peak_rss_mb(),
                "cuda_max_allocated_mb": cuda_mb,
                "torch": str(torch.__version__),
                "cpus": os.cpu_count() or 0,
            }
        )

    # --- output ---------------------------------------------------------------------------

    def _note(self, message: str) -> None:
        if self.verbosity >= 1:
            self.stderr.write(message)

    def _progress(self) -> Progress:
        last: dict[str, float] = {}

        def progress(stage: str, done: int, total: int) -> None:
            # Every 10 s at most, and at the end of each stage: a line per document is noise.
            now = time.monotonic()
            if done < total and now - last.get(stage, 0.0) < 10:
                return
            last[stage] = now
            self._note(f"  {stage}: {done}/{total}")

        return progress

    def _print(self, result: dict[str, Any]) -> None:
        write = self.stdout.write
        write(
            f"{result['documents']} documents ({result['failed']} failed), {result['chunks']} "
            f"chunks from {result['source']}"
        )
        write(
            f"Model {result['model']} on {result['device']} (dim {result['dimension']}, batch "
            f"{result['batch_size']}), loaded in {result['model_load_s']} s; torch "
            f"{result['torch']}, {result['cpus']} CPUs"
        )
        write(
            f"End to end: {result['wall_s']} s, {result['docs_per_s']} docs/s, "
            f"{result['chunks_per_s']} chunks/s"
        )
        for name, stage in result["stages"].items():
            rates = ", ".join(
                f"{value} {key.removesuffix('_per_s')}/s"
                for key, value in stage.items()
                if key.endswith("_per_s")
            )
            write(f"  {name:<9} {stage['s']:>8.2f} s  {stage['share']:>6.1%}  {rates}")
        verdict = "ok" if result["targets"]["ratio_ok"] else "below target"
        write(
            f"Raw encoder: {result['raw_encoder_chunks_per_s']} chunks/s; ratio "
            f"{result['ratio']} (target >= {result['targets']['ratio_min']}: {verdict})"
        )
        cuda = result["cuda_max_allocated_mb"]
        write(
            f"Peak RSS {result['peak_rss_mb']} MB"
            + (f", CUDA max allocated {cuda} MB" if cuda is not None else "")
        )
