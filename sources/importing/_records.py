"""What an importer reads a code into, before anything is written."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


class ImportProblem(ValueError):
    """Bad input, with where it is (file, line or article): nothing of the code is written."""


@dataclass
class VersionRecord:
    number: str
    article_key: str
    version_key: str
    state: str
    valid_from: dt.date | None
    valid_to: dt.date | None
    text: str = ""
    text_known: bool = True
    source_id: str = ""
    path: list[str] = field(default_factory=list)
    amended_by: str = ""
    position: int = 0


@dataclass
class CodeRecord:
    slug: str
    title: str
    source_format: str
    legi_id: str = ""
    snapshot_date: dt.date | None = None
    versions: list[VersionRecord] = field(default_factory=list)

    @property
    def valid_from(self) -> dt.date | None:
        starts = [v.valid_from for v in self.versions if v.valid_from is not None]
        return min(starts) if starts else None
