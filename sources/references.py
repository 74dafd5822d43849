"""Renvois: the references an article's text makes, stored as written, resolved at a date.

A stored :class:`~sources.models.Renvoi` names its target (code slug, article number or
range), never a row: "l'article L. 121-3" means the version of L121-3 in force on the date
the lawyer asks about, found through :func:`sources.selectors.versions_in_force` like every
other read.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from dataclasses import dataclass, field

from django.db.models import QuerySet

from sources.models import ArticleVersion, LegalCode, ReferenceKind, Renvoi
from sources.numbers import number_sort_key
from sources.renvois import extract_references
from sources.selectors import versions_in_force

MAX_DEPTH = 2
MAX_GRAPH_NODES = 60
MAX_RANGE_MEMBERS = 25


def renvois_rebuild(*, version_ids: list[int], code: LegalCode) -> int:
    """Re-extract the renvois of these versions (their text changed or is new)."""
    if not version_ids:
        return 0
    Renvoi.objects.filter(source_id__in=version_ids).delete()
    rows: list[Renvoi] = []
    versions = ArticleVersion.objects.filter(id__in=version_ids, text_known=True)
    for version_id, text in versions.values_list("id", "text").iterator(chunk_size=2000):
        for mention in extract_references(text, present_code=code.slug):
            rows.append(
                Renvoi(
                    source_id=version_id,
                    raw=mention.raw[:400],
                    start=mention.start,
                    kind=mention.kind,
                    target_code=(mention.code or "")[:120],
                    target_code_named=mention.code_named[:200],
                    target_number=mention.number[:40],
                    target_number_end=mention.number_end[:40],
                    precision=mention.precision[:120],
                    unresolved_text=mention.unresolved_text[:300],
                )
            )
    Renvoi.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


@dataclass
class ResolvedRenvoi:
    """One reference as read on a date: its targets in force then, or why there are none."""

    renvoi: Renvoi
    targets: list[ArticleVersion] = field(default_factory=list)
    # "", "text" (a loi or décret), "code_not_imported", "not_in_force".
    unresolved: str = ""

    def as_dict(self) -> dict[str, object]:
        renvoi = self.renvoi
        return {
            "raw": renvoi.raw,
            "kind": renvoi.kind,
            "code": renvoi.target_code or None,
            "code_named": renvoi.target_code_named or None,
            "number": renvoi.target_number or None,
            "number_end": renvoi.target_number_end or None,
            "precision": renvoi.precision or None,
            "text": renvoi.unresolved_text or None,
            "unresolved": self.unresolved or None,
            "targets": [{"code": t.code.slug, "number": t.number} for t in self.targets],
        }


def renvois_out(version: ArticleVersion, *, as_of: dt.date) -> list[ResolvedRenvoi]:
    """What ``version`` refers to, each target resolved to its version in force on ``as_of``."""
    renvois = list(version.renvois.order_by("start"))
    slugs = {r.target_code for r in renvois if r.target_code}
    codes = {c.slug: c for c in LegalCode.objects.filter(slug__in=slugs)}
    resolved: list[ResolvedRenvoi] = []
    for renvoi in renvois:
        resolved.append(_resolve(renvoi, codes, as_of))
    return resolved


def _resolve(renvoi: Renvoi, codes: dict[str, LegalCode], as_of: dt.date) -> ResolvedRenvoi:
    if renvoi.kind == ReferenceKind.TEXT:
        return ResolvedRenvoi(renvoi, unresolved="text")
    code = codes.get(renvoi.target_code)
    if code is None:
        return ResolvedRenvoi(renvoi, unresolved="code_not_imported")
    in_force = versions_in_force(as_of=as_of, codes=[code]).select_related("code")
    if renvoi.kind == ReferenceKind.RANGE:
        targets = _range_members(
            in_force, renvoi.target_number, renvoi.target_number_end or renvoi.target_number
        )
    else:
        targets = list(in_force.filter(number=renvoi.target_number)[:1])
    return ResolvedRenvoi(renvoi, targets, "" if targets else "not_in_force")


def _range_members(
    in_force: QuerySet[ArticleVersion], first: str, last: str
) -> list[ArticleVersion]:
    low, high = number_sort_key(first), number_sort_key(last)
    if high < low:
        low, high = high, low
    prefix = low[0]
    # Narrowed in SQL to the numbers both ends share ("L1233-3 à L1233-7": "L1233-"), and
    # only the numbers read: the members' rows (≤ MAX_RANGE_MEMBERS) are loaded after.
    shared = _shared_stem(first, last)
    candidates = in_force.filter(number__startswith=shared) if shared else in_force
    numbers = [
        (pk, number)
        for pk, number in candidates.values_list("id", "number")
        if number[: len(prefix)] == prefix and low <= number_sort_key(number) <= high
    ]
    numbers.sort(key=lambda item: number_sort_key(item[1]))
    wanted = [pk for pk, _number in numbers[:MAX_RANGE_MEMBERS]]
    rows = ArticleVersion.objects.select_related("code").in_bulk(wanted)
    return [rows[pk] for pk in wanted if pk in rows]


def _shared_stem(first: str, last: str) -> str:
    """What every number between ``first`` and ``last`` starts with: their common start,
    cut after its last letter or dash ("L1233-3"/"L1233-7" → "L1233-"; "L1"/"L10" → "L")."""
    common = ""
    for a, b in zip(first, last, strict=False):
        if a != b:
            break
        common += a
    while common and common[-1].isdigit():
        common = common[:-1]
    return common


def cited_by(version: ArticleVersion, *, as_of: dt.date) -> list[ArticleVersion]:
    """The articles in force on ``as_of`` whose text refers to ``version``'s article,
    directly or inside a range."""
    slug, number = version.code.slug, version.number
    sources = versions_in_force(as_of=as_of).values("id")
    direct = Renvoi.objects.filter(
        target_code=slug, target_number=number, source_id__in=sources
    ).exclude(kind=ReferenceKind.RANGE)
    source_ids = set(direct.values_list("source_id", flat=True))
    key = number_sort_key(number)
    ranges = Renvoi.objects.filter(
        target_code=slug, kind=ReferenceKind.RANGE, source_id__in=sources
    ).values_list("source_id", "target_number", "target_number_end")
    for source_id, first, last in ranges:
        low, high = sorted([number_sort_key(first), number_sort_key(last or first)])
        if key[0] == low[0] and low <= key <= high:
            source_ids.add(source_id)
    source_ids.discard(version.pk)
    rows = ArticleVersion.objects.filter(id__in=source_ids).select_related("code")
    return sorted(rows, key=lambda v: (v.code.title, number_sort_key(v.number)))


@dataclass
class RenvoiGraph:
    root: ArticleVersion
    nodes: dict[int, tuple[ArticleVersion, int]] = field(default_factory=dict)
    edges: list[tuple[int, int, Renvoi]] = field(default_factory=list)
    unresolved: list[tuple[int, ResolvedRenvoi]] = field(default_factory=list)
    truncated: bool = False


def renvoi_graph(root: ArticleVersion, *, as_of: dt.date, depth: int) -> RenvoiGraph:
    """The articles ``root`` refers to, and those they refer to, up to ``depth`` hops (≤ 2),
    each at its version in force on ``as_of``."""
    depth = max(0, min(int(depth), MAX_DEPTH))
    graph = RenvoiGraph(root=root, nodes={root.pk: (root, 0)})
    queue: deque[tuple[ArticleVersion, int]] = deque([(root, 0)])
    while queue:
        current, hops = queue.popleft()
        if hops >= depth:
            continue
        for resolved in renvois_out(current, as_of=as_of):
            if resolved.unresolved:
                graph.unresolved.append((current.pk, resolved))
            for target in resolved.targets:
                graph.edges.append((current.pk, target.pk, resolved.renvoi))
                if target.pk in graph.nodes:
                    continue
                if len(graph.nodes) >= MAX_GRAPH_NODES:
                    graph.truncated = True
                    continue
                graph.nodes[target.pk] = (target, hops + 1)
                queue.append((target, hops + 1))
    return graph
