"""``search_case_law``: one ordered list over the sources, A before B before C, then newest
first, paged by offset without dropping or repeating a decision.

ArianeWeb takes one source per request and sorts by date only, so each (source, class) is
its own stream, read page by page as far as the asked page needs, and the streams of a class
are merged by date. The order is a pure function of the sites' answers (ties broken by
source, then id), so consecutive pages agree. Dates are filtered exactly here (the site
filters by year at best); a date filter's stream stops at its first decision older than
``date_from`` (the streams are newest first). The open data has no paging: one window of
hits is fetched per query and paged here.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from sources.caselaw._ariane import PAGE_SIZE, ArianeWebClient, hit
from sources.caselaw._http import CaseLawError
from sources.caselaw._opendata import TA_CODES, OpenDataClient
from sources.caselaw._records import Fetches, remember

JURISDICTIONS = {"CE+TC": ("AW_DCE", "AW_DTC"), "CE": ("AW_DCE",), "TC": ("AW_DTC",),
                 "CAA": ("AW_DCA",), "TA": ()}  # fmt: skip
CLASSES = ("A", "B", "C")
OPENDATA_CLASSES = ("A", "B", "C", "D")
# Requests one search may make (30 s at the sites' spacing): a deep page or a date filter far
# in the past stops there, with a warning, rather than holding a worker for minutes.
MAX_REQUESTS_PER_SEARCH = 60
MAX_SEARCH_SECONDS = 45.0  # and at most this long, whatever the sites' pace
OPENDATA_WINDOW = 200


@dataclass(frozen=True)
class Query:
    jurisdiction: str
    text: str = ""
    classification: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    case_number: str = ""
    courts: tuple[str, ...] = ()

    def year(self) -> int | None:
        """The one year the site may filter on, when both bounds fall in it."""
        if self.date_from and self.date_to and self.date_from.year == self.date_to.year:
            return self.date_from.year
        return None

    def dates_filtered(self) -> bool:
        return self.date_from is not None or self.date_to is not None

    def in_range(self, date: str | None) -> bool | None:
        """True/False; None for an undated hit under a date filter (cannot be decided)."""
        if not self.dates_filtered():
            return True
        if date is None:
            return None
        day = dt.date.fromisoformat(date)
        return (self.date_from is None or day >= self.date_from) and (
            self.date_to is None or day <= self.date_to
        )


@dataclass
class _Stream:
    """One source and class, newest first, read a page at a time as far as needed."""

    client: ArianeWebClient
    source: str
    classification: str
    query: Query
    fetches: Fetches
    exclude: frozenset[str] = frozenset()
    items: list[dict[str, Any]] = field(default_factory=list)
    total: int | None = None
    undated: int = 0
    truncated: bool = False
    _skip: int = 0
    _done: bool = False

    def fill(self, count: int) -> None:
        while len(self.items) < count and not self._done:
            self._next_page()

    def count(self) -> int:
        """The site's count for this stream (its first page read if need be)."""
        if self.total is None and not self._done:
            self._next_page()
        return self.total or 0

    def _next_page(self) -> None:
        spent = time.monotonic() - self.fetches.started
        if len(self.fetches.items) >= MAX_REQUESTS_PER_SEARCH or spent > MAX_SEARCH_SECONDS:
            self._done, self.truncated = True, True
            return
        page = self.client.search(
            source=self.source,
            text=self.query.text,
            classification=self.classification,
            case_number=self.query.case_number,
            year=self.query.year(),
            skip=self._skip,
        )
        self.fetches.items.append(page.fetched)
        self.total = page.total
        self._skip += PAGE_SIZE
        for doc in page.documents:
            self._take(doc)
        if not page.documents or self._skip >= page.total:
            self._done = True

    def _take(self, doc: dict[str, Any]) -> None:
        record = hit(doc)
        if record["kind"] != "decision" or record["classification"] in self.exclude:
            return
        inside = self.query.in_range(record["date"])
        if inside is None:
            self.undated += 1
        elif inside:
            self.items.append(record)
        elif self.query.date_from and record["date"] and record["date"] < str(self.query.date_from):
            self._done = True  # newest first: everything after is older still


def _sort_key(record: dict[str, Any], rank: int) -> tuple[int, int, str]:
    date = record["date"] or "0001-01-01"
    return (-dt.date.fromisoformat(date).toordinal(), rank, record["id"])


def _merged(streams: list[_Stream]) -> Iterator[dict[str, Any]]:
    """The streams' decisions newest first (ties: the streams' order, then the id)."""
    positions = [0] * len(streams)
    while True:
        heads = []
        for rank, stream in enumerate(streams):
            stream.fill(positions[rank] + 1)
            if positions[rank] < len(stream.items):
                heads.append((_sort_key(stream.items[positions[rank]], rank), rank))
        if not heads:
            return
        _key, rank = min(heads)
        yield streams[rank].items[positions[rank]]
        positions[rank] += 1


class _Ariane:
    """The ordered list for one jurisdiction of ArianeWeb: a merge per class, in class order,
    then the decisions of no class A/B/C (only when no class was asked)."""

    def __init__(self, query: Query, sources: tuple[str, ...], fetches: Fetches) -> None:
        client = ArianeWebClient()
        self.groups = [
            [_Stream(client, source, cls, query, fetches) for source in sources]
            for cls in ([query.classification] if query.classification else CLASSES)
        ]
        if not query.classification:
            self.groups.append(
                [
                    _Stream(client, source, "", query, fetches, exclude=frozenset(CLASSES))
                    for source in sources
                ]
            )

    def streams(self) -> list[_Stream]:
        return [stream for group in self.groups for stream in group]

    def ordered(self) -> Iterator[dict[str, Any]]:
        for group in self.groups:
            if group[0].exclude and not self._unclassified_exist():
                continue  # the site's counts show no decision outside A, B, C
            yield from _merged(group)

    def _unclassified_exist(self) -> bool:
        classified = sum(s.count() for group in self.groups[:-1] for s in group)
        return sum(s.count() for s in self.groups[-1]) > classified

    def has_any(self, classes: tuple[str, ...]) -> bool:
        for group in self.groups:
            for stream in group:
                if stream.classification in classes:
                    stream.fill(1)
                    if stream.items:
                        return True
        return False

    def total(self, query: Query) -> int | None:
        """Exact when the site did all the filtering (no date filter narrower than a year)."""
        year = query.year()
        exact_dates = not query.dates_filtered() or (
            year is not None
            and query.date_from == dt.date(year, 1, 1)
            and query.date_to == dt.date(year, 12, 31)
        )
        if not exact_dates:
            return None
        # No class asked: the unfiltered streams' count is the total.
        counted = self.groups[-1] if self.groups[-1][0].exclude else self.streams()
        total = sum(stream.count() for stream in counted)
        return None if any(stream.total is None for stream in counted) else total


def _page(
    ordered: Iterator[dict[str, Any]], offset: int, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    """``limit`` records from ``offset``, and whether one more exists."""
    window = list(itertools.islice(ordered, offset, offset + limit + 1))
    return window[:limit], len(window) > limit


def _ariane_search(
    query: Query, offset: int, limit: int, fetches: Fetches
) -> tuple[list[dict[str, Any]], bool, int | None, dict[str, Any] | None, list[str]]:
    warnings: list[str] = []
    fallback = None
    ariane = _Ariane(query, JURISDICTIONS[query.jurisdiction], fetches)
    asked_ab = query.classification in ("", "A", "B")
    if query.jurisdiction == "CE+TC" and asked_ab and not ariane.has_any(("A", "B")):
        fallback = {
            "from": "CE+TC",
            "to": "CAA",
            "reason": gettext(
                "No decision of the Conseil d'État or the Tribunal des conflits classed A "
                "or B matches: these are the cours administratives d'appel's."
            ),
        }
        ariane = _Ariane(query, JURISDICTIONS["CAA"], fetches)
    results, more = _page(ariane.ordered(), offset, limit)
    total = ariane.total(query)
    streams = ariane.streams()
    if any(stream.truncated for stream in streams):
        warnings.append(
            gettext(
                "Lexroom stopped after %(count)d requests or %(seconds)d s for this search: "
                "decisions may be missing from this page on. Narrow the words or the dates (a "
                "range within one year is filtered by the site)."
            )
            % {"count": MAX_REQUESTS_PER_SEARCH, "seconds": MAX_SEARCH_SECONDS}
        )
    undated = sum(stream.undated for stream in streams)
    if undated:
        warnings.append(
            gettext("%(count)d decisions without a date were left out by the date filter.")
            % {"count": undated}
        )
    return results, more, total, fallback, warnings


def _opendata_sort_key(record: dict[str, Any]) -> tuple[int, int, str]:
    cls = record["classification"]
    rank = OPENDATA_CLASSES.index(cls) if cls in OPENDATA_CLASSES else len(OPENDATA_CLASSES)
    date = record["date"] or "0001-01-01"
    return (rank, -dt.date.fromisoformat(date).toordinal(), record["id"])


def _opendata_search(
    query: Query, offset: int, limit: int, fetches: Fetches
) -> tuple[list[dict[str, Any]], bool, int, list[str]]:
    keyword = " ".join(part for part in (query.text, query.case_number) if part)
    records, fetched = OpenDataClient().search(
        courts=list(query.courts or TA_CODES), keyword=keyword, limit=OPENDATA_WINDOW
    )
    fetches.items.append(fetched)
    warnings = []
    if len(records) >= OPENDATA_WINDOW:
        warnings.append(
            gettext(
                "The open data returns at most %(count)d decisions for one search (it has no "
                "paging): these are sorted and paged here; narrow the query to reach others."
            )
            % {"count": OPENDATA_WINDOW}
        )
    kept = [
        r
        for r in records
        if query.in_range(r["date"])
        and (not query.classification or r["classification"] == query.classification)
        and (not query.case_number or r["number"] == query.case_number)
    ]
    kept.sort(key=_opendata_sort_key)
    return kept[offset : offset + limit], len(kept) > offset + limit, len(kept), warnings


def case_law_search(query: Query, *, offset: int, limit: int) -> dict[str, Any]:
    """The page of decisions at ``offset``: class A, B, C (D for the open data), then newest
    first. Raises :class:`CaseLawError` (offline, the site failing or changed)."""
    if query.jurisdiction not in JURISDICTIONS:
        raise CaseLawError(
            "invalid_arguments",
            gettext("Unknown jurisdiction %(value)r.") % {"value": query.jurisdiction},
            field="jurisdiction",
            allowed=list(JURISDICTIONS),
        )
    fetches = Fetches()
    fallback = None
    if query.jurisdiction == "TA":
        results, more, total, warnings = _opendata_search(query, offset, limit, fetches)
        total_known: int | None = total
    else:
        results, more, total_known, fallback, warnings = _ariane_search(
            query, offset, limit, fetches
        )
    remember(results)
    if any(f.stale for f in fetches.items):
        warnings.append(
            gettext("The site failed: some answers come from the cache (up to %(age)s s old).")
            % {"age": fetches.report()["oldest_age_seconds"]}
        )
    return {
        "jurisdiction": query.jurisdiction,
        "searched": fallback["to"] if fallback else query.jurisdiction,
        "fallback": fallback,
        "total": total_known,
        "offset": offset,
        "limit": limit,
        "next_offset": offset + len(results) if more else None,
        "results": results,
        "warnings": warnings,
        "cache": fetches.report(),
    }


def query_checked(
    *,
    jurisdiction: str,
    text: str = "",
    classification: str = "",
    date_from: dt.date | None = None,
    date_to: dt.date | None = None,
    case_number: str = "",
    courts: list[str] | None = None,
) -> Query:
    """A search's arguments checked together, with the allowed values in the error."""

    def refuse(message: str, field: str, allowed: list[str] | None = None) -> CaseLawError:
        return CaseLawError("invalid_arguments", message, field=field, allowed=allowed)

    if jurisdiction not in JURISDICTIONS:
        message = gettext("Unknown jurisdiction %(value)r.") % {"value": jurisdiction[:40]}
        raise refuse(message, "jurisdiction", list(JURISDICTIONS))
    allowed = list(OPENDATA_CLASSES if jurisdiction == "TA" else CLASSES)
    if classification and classification not in allowed:
        message = gettext("Class %(value)r does not exist for %(jurisdiction)s.")
        raise refuse(message % {"value": classification[:5], "jurisdiction": jurisdiction},
                     "classification", allowed)  # fmt: skip
    codes = [court.strip().upper() for court in courts or [] if court.strip()]
    if codes and (jurisdiction != "TA" or set(codes) - set(TA_CODES)):
        message = gettext("courts applies to jurisdiction TA and takes the tribunals' codes.")
        raise refuse(message, "courts", list(TA_CODES))
    if date_from and date_to and date_from > date_to:
        raise refuse(gettext("date_from is after date_to."), "date_from")
    if not text.strip() and not case_number.strip():
        raise refuse(gettext("Give words to search for or a case number."), "query")
    return Query(jurisdiction=jurisdiction, text=text.strip(), classification=classification,
                 date_from=date_from, date_to=date_to, case_number=case_number.strip(),
                 courts=tuple(codes))  # fmt: skip
