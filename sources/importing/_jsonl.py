"""The codes JSONL (one article per line: code, code_title, article, path, text, source) and
its history index (``HISTORY_versions_index.tsv``: per article file, the dates it was created
(A), modified (M), repealed (D) or renamed (R…), with the amending text).

The JSONL holds each article's text at the snapshot; the history gives the windows. The text
is the last version's; earlier versions are known by their dates only, and articles repealed
before the snapshot by their number only.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sources.importing._records import CodeRecord, ImportProblem, VersionRecord
from sources.numbers import stored_number

HISTORY_FILE = "HISTORY_versions_index.tsv"
# Events on or before this day carry no real date (the history's git epoch).
UNKNOWN_DAY = dt.date(1970, 12, 31)
_REQUIRED = ("code", "code_title", "article", "text")


@dataclass(frozen=True)
class Event:
    day: dt.date
    kind: str  # "A", "M" or "D" (a rename ends the old file and creates the new one)
    amended_by: str


def read_history(path: Path) -> dict[str, list[Event]]:
    """Events per article file, in date order."""
    events: dict[str, list[Event]] = defaultdict(list)
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            for line, row in enumerate(csv.DictReader(handle, delimiter="\t"), start=2):
                _history_row(row, line, path, events)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ImportProblem(f"{path}: cannot read ({exc})") from None
    for found in events.values():
        # Git's epoch stands for "date unknown" in this history: such an event cannot be
        # placed; a creation dropped this way reads as "in force since before the history".
        found[:] = [event for event in found if event.day > UNKNOWN_DAY]
        found.sort(key=lambda event: (event.day, event.kind != "D"))
    return events


def _history_row(
    row: dict[str, Any], line: int, path: Path, events: dict[str, list[Event]]
) -> None:
    try:
        day = dt.date.fromisoformat(str(row.get("date_effective") or ""))
    except ValueError:
        raise ImportProblem(f"{path}:{line}: date {row.get('date_effective')!r}") from None
    status, file = str(row.get("status") or ""), str(row.get("path") or "")
    amended_by = str(row.get("amending_text") or "")[:300]
    if not file or not status:
        raise ImportProblem(f"{path}:{line}: a row needs a status and a path")
    if status.startswith("R"):
        events[file].append(Event(day, "D", amended_by))
        if renamed := str(row.get("path_renamed_to") or ""):
            events[renamed].append(Event(day, "A", amended_by))
    elif status in {"A", "M", "D"}:
        events[file].append(Event(day, status, amended_by))
    else:
        raise ImportProblem(f"{path}:{line}: unknown status {status!r}")


def read_codes_jsonl(path: Path, history: dict[str, list[Event]]) -> list[CodeRecord]:
    """The codes of one JSONL file (usually one). Raises :class:`ImportProblem`."""
    codes: dict[str, CodeRecord] = {}
    seen: set[str] = set()
    try:
        with path.open(encoding="utf-8") as handle:
            for line_number, line in enumerate(handle, start=1):
                if line.strip():
                    _jsonl_line(line, line_number, path, history, codes, seen)
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportProblem(f"{path}: cannot read ({exc})") from None
    if not codes:
        raise ImportProblem(f"{path}: no article in this file")
    for slug, code in codes.items():
        _repealed_only(code, slug, history, seen)
        days = [e.day for file, found in history.items() if f"/{slug}/" in file for e in found]
        code.snapshot_date = max(days) if days else None
    return list(codes.values())


def _jsonl_line(
    line: str,
    line_number: int,
    path: Path,
    history: dict[str, list[Event]],
    codes: dict[str, CodeRecord],
    seen: set[str],
) -> None:
    where = f"{path}:{line_number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ImportProblem(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(row, dict) or any(not isinstance(row.get(k), str) for k in _REQUIRED):
        raise ImportProblem(f"{where}: needs string fields {', '.join(_REQUIRED)}")
    slug = row["code"].strip()[:120]
    code = codes.setdefault(
        slug, CodeRecord(slug=slug, title=row["code_title"].strip(), source_format="codes-jsonl")
    )
    number = stored_number(row["article"])
    if not number:
        raise ImportProblem(f"{where}: the article has no number")
    source = str(row.get("source") or "")
    seen.add(source)
    trail = [str(p) for p in row.get("path") or [] if str(p).strip()]
    code.versions.extend(
        _windows(history.get(source, []), number, row["text"], trail, len(code.versions))
    )


def _windows(
    events: list[Event], number: str, text: str, trail: list[str], position: int
) -> list[VersionRecord]:
    """The versions the events delimit; the last (or only) one has the text."""
    versions: list[VersionRecord] = []
    start: Event | None = None
    # No creation in the history: the article existed before it (an unknown start).
    alive = not events or events[0].kind != "A"
    for event in events:
        if alive and (start is None or event.day > start.day):
            state = "ABROGE" if event.kind == "D" else "MODIFIE"
            versions.append(_version(number, start, event.day, state, trail, position))
        alive = event.kind != "D"
        start = event if alive else None
    if alive:
        versions.append(_version(number, start, None, "VIGUEUR", trail, position))
    if versions:
        versions[-1].text, versions[-1].text_known = text, True
    return versions


def _version(
    number: str,
    start: Event | None,
    end: dt.date | None,
    state: str,
    trail: list[str],
    position: int,
) -> VersionRecord:
    valid_from = start.day if start else None
    return VersionRecord(
        number=number,
        article_key=number,
        version_key=f"{number}@{valid_from.isoformat() if valid_from else 'origin'}",
        state=state,
        valid_from=valid_from,
        valid_to=end,
        text="",
        text_known=False,
        path=trail,
        amended_by=start.amended_by if start else "",
        position=position,
    )


def _repealed_only(
    code: CodeRecord, slug: str, history: dict[str, list[Event]], seen: set[str]
) -> None:
    """Articles repealed before the snapshot: in the history, not in the JSONL. An article
    missing from the snapshot is not in force at it, whatever its history's last event says:
    only its closed windows are kept (an open one would be a ghost in force)."""
    position = len(code.versions)
    for file, events in sorted(history.items()):
        if f"/{slug}/" not in file or file in seen or not Path(file).stem.startswith("article-"):
            continue
        name = Path(file).stem.removeprefix("article-")
        number = stored_number(name)
        windows = [w for w in _windows(events, number, "", [], position) if w.valid_to]
        if not events or not windows:
            continue
        for version in windows:
            version.text_known = False
        code.versions.extend(windows)
        position += 1
