"""bench_fairness: does one firm's abuse move another firm's latency? Two phases, one JSON.

    python manage.py bench_fairness --seconds 30 --json

Two throwaway firms on a live server (uvicorn) with a task worker (qcluster) and a fake
case-law site on loopback that the product reads with its real spacing between requests.
Firm B runs a lawyer's normal session (search, the viewer, MCP tools, case law, a small
upload timed until it is processed) alone, then again while firm A abuses in every way at
once: many live streams of one answer, PDFs made to be slow to read, parallel case-law
searches, and a playbook import whose pattern would explode a backtracking regex engine.
The report gives B's p95 per action in both phases and their ratio, 5xx answers, whether
B's upload was processed and how fast, what A got, and that nothing stored was lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from django.conf import settings
from django.core.management.base import CommandError

from agents.models import Turn, TurnStatus
from agents.services import turn_ask
from documents.models import Document, DocumentStatus
from documents.pipeline import run_in_process, store_dataroom
from documents.services import workspace_purge_throwaway
from lab.agents.bench._abuse import FirmA, FirmB, Tally, firm_a_abuse, firm_b_session
from lab.agents.bench._load import free_port, percentile
from lab.agents.bench.mcp import _start_server, _stop_server, _wait_ready
from workspaces.models import Role, User, Workspace
from workspaces.services import (
    firm_get_or_create,
    membership_set,
    user_get_or_create,
    workspace_create,
)
from workspaces.tenancy import workspace_scope
from workspaces.tokens import token_create

DEMO_ROOM = Path(settings.BASE_DIR) / "demo" / "dataroom.json"
TARGET_RATIO = 1.5
TARGET_UPLOAD_S = 30.0
# B's uploads: the warm-up's and one in each phase.
B_UPLOADS = 3
# How long A's documents may take to end (indexed or failed) once the abuse stops.
SETTLE_TIMEOUT_S = 180.0
Note = Callable[[str], None]


def _user(firm: Any, email: str, password: str, *, admin: bool = False) -> User:
    user, _ = user_get_or_create(email=email, firm=firm, actor_label="system:bench")
    user.set_password(password)
    user.is_firm_admin = admin
    user.save(update_fields=["password", "is_firm_admin"])
    return user


@dataclass
class World:
    """The two throwaway firms: A's room, admin and viewer (with a running answer), B's."""

    room_a: Workspace
    room_b: Workspace
    a_admin: User
    a_viewer: User
    b_owner: User
    turn_id: int
    password: str


def _setup(note: Note, password: str) -> World:
    suffix = secrets.token_hex(3)
    rooms, owners = [], []
    for side in ("A", "B"):
        firm, _ = firm_get_or_create(name=f"Lexroom Fairness {side} {suffix}")
        owner = _user(firm, f"fair-{side.lower()}-{suffix}@lexroom.local", password, admin=True)
        workspace, _ = workspace_create(
            firm=firm,
            slug=f"bench-fair-{side.lower()}-{suffix}",
            title=f"Fairness {side}",
            owner=owner,
        )
        rooms.append(workspace)
        owners.append(owner)
    room_a, room_b = rooms
    viewer = _user(room_a.firm, f"fair-a-viewer-{suffix}@lexroom.local", password)
    # An editor: the same person uploads, streams and searches (what a viewer could too).
    membership_set(workspace=room_a, user=viewer, role=Role.EDITOR, actor_label="system:bench")
    note(f"importing the demo room into {room_b.slug} (removed afterwards)")
    with workspace_scope(room_b):
        batch, _results = store_dataroom(workspace=room_b, path=DEMO_ROOM, user=owners[1])
    run_in_process(workspace=room_b, batch=batch)
    # An answer "running elsewhere": its live stream waits for it (what A opens many of).
    turn = turn_ask(workspace=room_a, user=viewer, question="Quelle est la durée du bail ?")
    with workspace_scope(room_a):
        Turn.objects.filter(pk=turn.pk).update(status=TurnStatus.RUNNING)
    return World(room_a, room_b, owners[0], viewer, owners[1], turn.pk, password)


def _await_settled(workspace: Workspace, *, timeout_s: float) -> float | None:
    """Seconds until every document of ``workspace`` is indexed or failed (None: not in time):
    how long A's slow PDFs kept a worker after the abuse stopped."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        counts = _counts(workspace)
        if counts["indexed"] + counts["failed"] == counts["documents"]:
            return round(time.perf_counter() - started, 1)
        time.sleep(1.0)
    return None


def _reasons(workspace: Workspace) -> list[str]:
    with workspace_scope(workspace):
        failed = Document.objects.filter(workspace=workspace, status=DocumentStatus.FAILED)
        return sorted({document.status_reason[:200] for document in failed})


def _counts(workspace: Workspace) -> dict[str, int]:
    with workspace_scope(workspace):
        documents = Document.objects.filter(workspace=workspace)
        return {
            "documents": documents.count(),
            "indexed": documents.filter(status=DocumentStatus.EMBEDDED).count(),
            "failed": documents.filter(status=DocumentStatus.FAILED).count(),
        }


@contextlib.contextmanager
def _fake_case_law() -> Iterator[str]:
    """The fake case-law site of the test suite, served on loopback (a checkout only)."""
    try:
        from tests.sources.fake_caselaw import FakeCaseLaw, serve
    except ImportError as exc:  # an installed wheel has no tests
        raise CommandError(
            "bench_fairness runs from a checkout (it serves tests' fake site)."
        ) from exc
    server, _thread = serve(FakeCaseLaw())
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def _children_env(site: str) -> Iterator[dict[str, str]]:
    """The server's and the worker's environment: the case-law sites are the fake one (set
    here for the length of the run, then restored: the server helper reads os.environ)."""
    changed = {"LEXROOM_ARIANEWEB_URL": site, "LEXROOM_OPENDATA_URL": f"{site}/recherche/api"}
    saved = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)
    try:
        yield dict(os.environ)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _start_worker(env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    with log_path.open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop_worker(worker: subprocess.Popen[bytes]) -> float:
    """Seconds the worker took to stop on SIGTERM (killed after 60)."""
    started = time.perf_counter()
    worker.terminate()
    try:
        worker.wait(timeout=60)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, 9)
        worker.wait()
    return round(time.perf_counter() - started, 1)


class _Memory:
    """The largest resident size of the server's process tree, sampled every 0.5 s."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_mb, self._stop = pid, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(self.pid)
                total = 0
                for process in [root, *root.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        total = max(total, process.memory_info().rss)
                self.peak_mb = max(self.peak_mb, total / 2**20)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return round(self.peak_mb, 1)


def _p95s(tally: Tally) -> dict[str, dict[str, float]]:
    out = {}
    for action, values in sorted(tally.latencies.items()):
        ordered = sorted(values)
        out[action] = {
            "n": len(ordered),
            "p50": round(percentile(ordered, 0.5), 1),
            "p95": round(percentile(ordered, 0.95), 1),
        }
    return out


async def _phases(a: FirmA, b: FirmB, options: dict[str, Any], note: Note) -> dict[str, Any]:
    seconds, timeout = options["seconds"], TARGET_UPLOAD_S * 4
    # Not counted: each server process and the worker load the encoder on first use.
    note("warm-up: firm B's session once, not counted")
    await firm_b_session(b, clients=2 * options["workers"], seconds=3, upload_timeout_s=timeout)
    note(f"phase 1: firm B alone, {seconds} s")
    alone, upload_alone = await firm_b_session(
        b, clients=options["clients"], seconds=seconds, upload_timeout_s=timeout
    )
    note(f"phase 2: firm B while firm A abuses, {seconds} s")
    abuse, stop = Tally(), asyncio.Event()
    attack = asyncio.create_task(
        firm_a_abuse(
            a,
            abuse,
            stop,
            streams=options["streams"],
            pdfs=options["pdfs"],
            case_law=options["case_law"],
        )
    )
    await asyncio.sleep(2.0)  # the abuse is under way before B starts
    abused, upload_abused = await firm_b_session(
        b, clients=options["clients"], seconds=seconds, upload_timeout_s=timeout
    )
    stop.set()
    hostile_batches = await attack
    return {
        "alone": alone,
        "abused": abused,
        "abuse": abuse,
        "upload_s": {"alone": upload_alone, "abused": upload_abused},
        "hostile_batches": hostile_batches,
    }


def _report(result: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    alone, abused = _p95s(result["alone"]), _p95s(result["abused"])
    ratios = {
        action: round(abused[action]["p95"] / alone[action]["p95"], 2)
        if action in abused and alone[action]["p95"]
        else None
        for action in alone
    }
    five_xx = {
        "alone": result["alone"].server_errors(),
        "abused": result["abused"].server_errors(),
        "firm_a": result["abuse"].server_errors(),
    }
    uploads = result["upload_s"]
    met = {
        "ratio_at_most_1_5": all(r is not None and r <= TARGET_RATIO for r in ratios.values()),
        "no_5xx": five_xx["alone"] == 0 and five_xx["abused"] == 0,
        "b_upload_within_30_s": uploads["abused"] is not None
        and uploads["abused"] <= TARGET_UPLOAD_S,
        "nothing_lost": extra["nothing_lost"],
    }
    return {
        "b_alone_ms": alone,
        "b_abused_ms": abused,
        "p95_ratio": ratios,
        "five_xx": five_xx,
        "b_upload_processed_s": uploads,
        "firm_a_answers": dict(sorted(result["abuse"].statuses.items())),
        "error_samples": {
            "b_alone": result["alone"].samples,
            "b_abused": result["abused"].samples,
            "firm_a": result["abuse"].samples,
        },
        **extra,
        "targets": {"p95_ratio": TARGET_RATIO, "b_upload_s": TARGET_UPLOAD_S},
        "met": met,
        "all_met": all(met.values()),
    }


def _live(world: World, options: dict[str, Any], note: Note) -> dict[str, Any]:
    """Server, worker and fake site up; both phases; A's documents left to settle; all down."""
    password = world.password
    _token, raw_a = token_create(
        user=world.a_viewer, name="bench_fairness", workspaces=[world.room_a], expires_days=1
    )
    raw_b = [
        token_create(user=world.b_owner, name=f"bench_fairness {n}", workspaces=[world.room_b],
                     expires_days=1)[1]
        for n in range(options["clients"])
    ]  # fmt: skip
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with tempfile.NamedTemporaryFile(prefix="bench_fairness-", suffix=".log", delete=False) as f:
        log_path = Path(f.name)
    with _fake_case_law() as site, _children_env(site) as env:
        server = _start_server(port, options["workers"], log_path, rate_limited=True)
        worker = _start_worker(env, log_path)
        memory = _Memory(server.pid)
        try:
            _wait_ready(base_url, server, log_path)
            note(f"server on {base_url}, a worker, the fake case-law site on {site}")
            a = FirmA(base_url, world.room_a.slug, raw_a, world.a_viewer.email,
                      world.a_admin.email, password, world.turn_id)  # fmt: skip
            b = FirmB(base_url, world.room_b.slug, raw_b, world.b_owner.email, password)
            result = asyncio.run(_phases(a, b, options, note))
            result["settled_s"] = _await_settled(world.room_a, timeout_s=SETTLE_TIMEOUT_S)
        finally:
            result_peak_mb = memory.stop()
            worker_stop_s = _stop_worker(worker)
            _stop_server(server)
    result |= {"peak_mb": result_peak_mb, "worker_stop_s": worker_stop_s, "log": str(log_path)}
    return result


def run(options: dict[str, Any], note: Note) -> dict[str, Any]:
    if not 1 <= options["clients"] <= 10 or not 1 <= options["seconds"] <= 600:
        raise CommandError("--clients must be 1..10 (a token each) and --seconds 1..600.")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    world = _setup(note, secrets.token_urlsafe(18))
    room_a, room_b = world.room_a, world.room_b
    before = {"a": _counts(room_a), "b": _counts(room_b)}
    result = _live(world, options, note)
    after = {"a": _counts(room_a), "b": _counts(room_b)}
    extra = {
        "documents": {
            "before": before,
            "after": after,
            "b_uploads": B_UPLOADS,
            "a_hostile_uploads": len(result["hostile_batches"]),
        },
        "nothing_lost": after["b"]["documents"] == before["b"]["documents"] + B_UPLOADS
        and after["b"]["indexed"] == after["b"]["documents"],
        "a_documents_settled_after_abuse_s": result["settled_s"],
        "a_failure_reasons": _reasons(room_a),
        "server_peak_rss_mb": result["peak_mb"],
        "worker_stop_s": result["worker_stop_s"],
        "options": {
            k: options[k] for k in ("seconds", "clients", "streams", "pdfs", "case_law", "workers")
        },
        "server_log": result["log"],
    }
    report = _report(result, extra)
    if not options["keep"]:
        for workspace in (room_a, room_b):
            workspace_purge_throwaway(workspace=workspace)
    return report
