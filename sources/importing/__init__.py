"""Readers for the formats the codes come in. They only read: ``sources.services`` writes."""

from __future__ import annotations

from sources.importing._html import html_to_text
from sources.importing._jsonl import HISTORY_FILE, read_codes_jsonl, read_history
from sources.importing._legi import read_legi_json
from sources.importing._records import CodeRecord, ImportProblem, VersionRecord

__all__ = [
    "HISTORY_FILE",
    "CodeRecord",
    "ImportProblem",
    "VersionRecord",
    "html_to_text",
    "read_codes_jsonl",
    "read_history",
    "read_legi_json",
]
