"""The throwaway workspaces of the benchmarks (bench_ingest here, bench_search in search).

They live in one firm of their own, owned by one bench user, and are purged afterwards with
their audit rows (and the firm when nothing else uses it).
"""

from __future__ import annotations

from collections.abc import Callable

from documents.services import workspace_purge_throwaway
from workspaces.models import Firm, User, Workspace
from workspaces.services import firm_get_or_create, user_get_or_create, workspace_create

BENCH_FIRM = "Lexroom Bench"
BENCH_EMAIL = "bench@lexroom.local"


class BenchRefused(Exception):
    """A benchmark cannot run as asked; the message says what to change."""


def bench_workspace_find(slug: str) -> tuple[Firm, Workspace | None]:
    """The bench firm (created if needed) and its workspace ``slug``, if it already exists."""
    firm, _ = firm_get_or_create(name=BENCH_FIRM)
    return firm, Workspace.objects.filter(firm=firm, slug=slug).first()


def bench_workspace_create(*, firm: Firm, slug: str, actor: str) -> tuple[Workspace, User]:
    """A new workspace ``slug`` in the bench firm, owned by the bench user."""
    user, _ = user_get_or_create(email=BENCH_EMAIL, firm=firm, actor_label=actor)
    workspace, _ = workspace_create(
        firm=firm, slug=slug, title=f"Benchmark {slug}", owner=user, actor_label=actor
    )
    return workspace, user


def bench_workspace_release(
    workspace: Workspace, *, keep: bool, note: Callable[[str], None]
) -> None:
    """Keep the workspace, or delete it with its contents (the firm and user too when no
    other kept run still uses them)."""
    if keep:
        note(f"Kept workspace {workspace.slug} (firm {BENCH_FIRM}).")
        return
    workspace_purge_throwaway(workspace=workspace)
    note(f"Removed workspace {workspace.slug}.")
