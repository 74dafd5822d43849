"""One place writes ingestion results: ``documents/services``. The pipeline, the tasks, the
views, the REST endpoints and the modules that read and decide (the analysis, the dashboard,
the selectors) call a service for every write; their source is read with :mod:`ast` to keep
it so."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DOCUMENTS = Path(__file__).resolve().parents[2] / "documents"
READERS = sorted(
    {
        DOCUMENTS / "pipeline.py",
        DOCUMENTS / "tasks.py",
        DOCUMENTS / "analysis.py",
        DOCUMENTS / "dashboard.py",
        DOCUMENTS / "selectors.py",
        *DOCUMENTS.glob("views*.py"),
        *DOCUMENTS.glob("api*.py"),
    }
)
# Names only the ORM uses for writes: flagged however they are called.
ORM_ONLY = {"bulk_create", "bulk_update", "get_or_create", "update_or_create"}
# Names other objects share (dict.update, set.update, a hash's update, a storage's save, a
# cache's delete): the ORM's take keyword arguments only, those others a positional one.
ORM_KEYWORDS_ONLY = {"save", "create", "update", "delete"}


def _writes(source: str) -> list[str]:
    """``line: .name(`` of each call in ``source`` that writes through the ORM."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = node.func.attr
        positional = bool(node.args)
        if name in ORM_ONLY or (name in ORM_KEYWORDS_ONLY and not positional):
            found.append(f"{node.lineno}: .{name}(")
    return found


def test_the_check_sees_orm_writes_and_not_other_updates():
    writes = """
IngestBatch.objects.filter(pk=batch.pk).update(processed=2)
batch.save(update_fields=["processed"])
Document.objects.create(workspace=workspace)
Document.objects.filter(pk=1).delete()
DocumentLink.objects.bulk_create(links, ignore_conflicts=True)
Entity.objects.get_or_create(name=name)
"""
    assert len(_writes(writes)) == 6
    others = """
context.update(extra)
seen.update(ids)
digest.update(data)
default_storage.save(name, content)
cache.delete(key)
"""
    assert _writes(others) == []


@pytest.mark.parametrize("path", READERS, ids=lambda path: path.name)
def test_module_reads_and_decides_only(path: Path):
    assert _writes(path.read_text(encoding="utf-8")) == []
