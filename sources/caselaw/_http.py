"""Polite HTTP to the case-law sites: spacing per host, timeouts, bounded retries, and a
persistent response cache in Postgres.

The sites ask for 500 ms between requests. The spacing is counted from the end of one
request to the start of the next, under a file lock per host, so every process of this
machine (web, workers, MCP) shares it. Requests waiting for a host take turns by firm
(:class:`_Turns`): one firm's many searches cannot starve another's, and a firm with
``LEXROOM_CASELAW_QUEUE_PER_FIRM`` requests waiting (for a turn, or in a retry's backoff) is
told "busy" with a Retry-After. While it waits, a request holds no database connection unless
its caller's transaction does (the pages and ``/api/``, in the tenant's transaction).

The cache is the firm's own: its key names the firm (:func:`for_firm`), so whether an answer
came from the cache, and its age, only ever tells a firm about its own searches (a shared
entry would tell it, by its age or its speed, that another firm asked the same).

A failure is an error that says so: offline, the site in trouble, or a format we no longer
read; never an empty list that would read as "no case law". When the site fails and a cached
answer exists, the cached answer is served with its age.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import math
import os
import random
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlencode, urlsplit

import httpx
from django.conf import settings
from django.db import connections
from django.utils import timezone
from django.utils.translation import gettext

from sources.models import CaseLawResponse

USER_AGENT = "Lexroom/0.1 (self-hosted legal document platform)"
SITE_MIN_INTERVAL_MS = 500  # the sites' terms; a lower setting applies to loopback only
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 30.0
LOCK_WAIT_SECONDS = 30.0
PURGE_ONE_IN = 100  # fetches: now and then, the answers older than any TTL go
REST_MARK = "~rest"  # a ticket's name ends so while its request sleeps before a retry


class CaseLawError(Exception):
    """A question the case-law sources cannot answer. ``kind``: invalid_arguments, not_found,
    unavailable (offline, timeouts, the site's errors), busy (the firm's turns are all taken:
    try again after ``retry_after`` seconds) or source_changed (a format we no longer read)."""

    def __init__(
        self, kind: str, message: str, *, retry_after: float | None = None, **details: Any
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = details
        self.retry_after = retry_after


# The firm the current reads are made for: its turn in the queues, its cache entries.
_firm: ContextVar[int | None] = ContextVar("lexroom_caselaw_firm", default=None)


@contextmanager
def for_firm(*, firm_id: int | None) -> Iterator[None]:
    """Case-law reads in the block are ``firm_id``'s (None: the install's own, e.g. a
    command): they wait in its queue and use its cache."""
    token = _firm.set(firm_id)
    try:
        yield
    finally:
        _firm.reset(token)


def _firm_key() -> str:
    """The firm, named with its database: installs that share a data folder (and so the
    sites' spacing) take turns as distinct firms."""
    firm_id = _firm.get()
    database = re.sub(r"[^A-Za-z0-9_]", "_", str(connections["default"].settings_dict["NAME"]))
    return f"{database}.firm{firm_id}" if firm_id is not None else f"{database}.install"


@dataclass(frozen=True)
class Fetched:
    url: str
    body: bytes
    content_type: str
    fetched_at: dt.datetime
    from_cache: bool
    stale: bool = False  # served from the cache because the site failed

    @property
    def age_seconds(self) -> int:
        return max(0, int((timezone.now() - self.fetched_at).total_seconds()))


def source_changed(site: str, problem: str) -> CaseLawError:
    message = gettext(
        "%(site)s answered in a format Lexroom does not read (%(problem)s): the site may have "
        "changed. No result is shown rather than a wrong one."
    )
    return CaseLawError("source_changed", message % {"site": site, "problem": problem})


def _interval(host: str) -> float:
    wanted = settings.LEXROOM_CASELAW_MIN_INTERVAL_MS
    return (wanted if host in LOOPBACK else max(wanted, SITE_MIN_INTERVAL_MS)) / 1000


def _lock_path(host: str) -> Path:
    folder = Path(settings.LEXROOM_DATA_DIR) / "caselaw"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"spacing-{re.sub(r'[^A-Za-z0-9.-]', '_', host)}.lock"


class _Turns:
    """The requests waiting for one host, in turns by firm, shared by every process.

    Each waiting request is a ticket file in ``caselaw/queue-HOST/`` named by its firm and
    arrival, locked (``flock``) by its owner for as long as it waits: a ticket whose lock can
    be taken belongs to a process that died, and is dropped. The next request served is the
    oldest ticket of the first firm after the last one served (firms in a fixed order, round
    robin), so each waiting firm gets one request in turn whatever the others queue. The
    queue's bookkeeping happens under a short lock of its own (``queue-HOST.lock``).
    """

    def __init__(self, host: str) -> None:
        self.host = host
        safe = re.sub(r"[^A-Za-z0-9.-]", "_", host)
        self.folder = _lock_path(host).parent / f"queue-{safe}"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.guard_path = self.folder.parent / f"queue-{safe}.lock"
        self.last_path = self.folder.parent / f"queue-{safe}.last"
        self.ticket: Path | None = None
        self.handle: IO[str] | None = None

    @contextmanager
    def _guard(self) -> Iterator[None]:
        with self.guard_path.open("a") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(guard, fcntl.LOCK_UN)

    def _live(self) -> list[str]:
        """The tickets of live waiters (ours included), oldest first; dead ones removed."""
        names = sorted(
            (p.name for p in self.folder.iterdir()), key=lambda name: name.split("~")[1:2]
        )
        live = []
        for name in names:
            if name.startswith(".") or "~" not in name:
                continue
            if self.ticket is not None and name == self.ticket.name:
                live.append(name)
                continue
            try:
                with (self.folder / name).open("a") as other:
                    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    (self.folder / name).unlink()  # its owner is gone
            except BlockingIOError:
                live.append(name)  # locked: its owner waits
            except FileNotFoundError:
                pass
        return live

    def join(self, firm: str, *, resting: bool = False) -> None:
        """Take a ticket; :class:`CaseLawError` (busy) when the firm's queue is full.
        ``resting``: a retry's backoff, counted in the firm's queue but taking no turn."""
        with self._guard():
            live = self._live()
            waiting = sum(1 for name in live if name.split("~")[0] == firm)
            if waiting >= settings.LEXROOM_CASELAW_QUEUE_PER_FIRM:
                raise self.busy(len(live))
            # Locked under a hidden name, then renamed: never seen unlocked (as dead).
            name = f"{firm}~{time.time_ns():020d}~{os.getpid()}-{threading.get_ident()}"
            name += REST_MARK if resting else ""
            hidden = self.folder / f".{name}"
            self.handle = hidden.open("a")
            fcntl.flock(self.handle, fcntl.LOCK_EX)
            self.ticket = self.folder / name
            hidden.rename(self.ticket)

    def is_next(self) -> bool:
        """Is our ticket the one to serve now? (The caller then tries the host's lock.)"""
        with self._guard():
            live = [name for name in self._live() if not name.endswith(REST_MARK)]
            try:
                last = self.last_path.read_text()
            except OSError:
                last = ""
        firms = sorted({name.split("~")[0] for name in live})
        after = [firm for firm in firms if firm > last]
        turn = (after or firms)[0] if firms else ""
        head = next((name for name in live if name.split("~")[0] == turn), None)
        return self.ticket is not None and head == self.ticket.name

    def served(self) -> None:
        """Our request goes now: leave the queue, and the next turn is another firm's."""
        with self._guard():
            if self.ticket is not None:
                self.last_path.write_text(self.ticket.name.split("~")[0])
            self.leave()

    @contextmanager
    def resting(self, firm: str) -> Iterator[None]:
        """Held through a retry's backoff: the request still counts in the firm's queue."""
        self.join(firm, resting=True)
        try:
            yield
        finally:
            self.leave()

    def leave(self) -> None:
        if self.ticket is not None:
            self.ticket.unlink(missing_ok=True)
            self.ticket = None
        if self.handle is not None:
            self.handle.close()
            self.handle = None

    def busy(self, waiting: int) -> CaseLawError:
        retry_after = max(1, math.ceil((waiting + 1) * (1.0 + _interval(self.host))))
        message = gettext(
            "%(host)s is busy with your firm's other searches (the sites ask for spacing, and "
            "firms take turns): try again in %(seconds)d s."
        )
        return CaseLawError(
            "busy", message % {"host": self.host, "seconds": retry_after}, retry_after=retry_after
        )


class _Spacing:
    """Held around one request: waits for the firm's turn (:class:`_Turns`) and the host's
    lock, then until ``interval`` has passed since the last request to the host ended (in
    any process), and records this one's end."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.handle: Any = None

    def __enter__(self) -> None:
        turns = _Turns(self.host)
        turns.join(_firm_key())
        self.handle = _lock_path(self.host).open("a+")
        waited_until = time.monotonic() + LOCK_WAIT_SECONDS
        try:
            while True:  # a bounded wait: a queue of searches must not hold a page for minutes
                if turns.is_next():
                    try:
                        fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        pass
                if time.monotonic() > waited_until:
                    self.handle.close()
                    raise turns.busy(sum(1 for _ in turns.folder.iterdir()))
                time.sleep(0.05)
            turns.served()
        finally:
            turns.leave()
        self.handle.seek(0)
        try:
            last_end = float(self.handle.read().strip() or 0)
        except ValueError:
            last_end = 0.0
        wait = last_end + _interval(self.host) - time.time()
        if wait > 0:
            time.sleep(min(wait, 60.0))

    def __exit__(self, *exc: object) -> None:
        self.handle.seek(0)
        self.handle.truncate()
        self.handle.write(f"{time.time():.6f}")
        self.handle.flush()
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def _request(client: httpx.Client, url: str) -> tuple[int, str, bytes, str | None]:
    """One GET, its body read up to the size limit."""
    limit = settings.LEXROOM_CASELAW_MAX_BYTES
    with client.stream("GET", url) as response:
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                message = gettext("%(url)s: the answer is larger than %(mb)d MB.")
                raise CaseLawError("unavailable", message % {"url": url, "mb": limit >> 20})
            chunks.append(chunk)
        content_type = response.headers.get("content-type", "")
        return (
            response.status_code,
            content_type,
            b"".join(chunks),
            response.headers.get("retry-after"),
        )


def _release_connections() -> None:
    """Close this thread's database connections that no transaction holds (a pooled one goes
    back to its pool). One inside a transaction stays open: it is the caller's."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


class Fetcher:
    """GETs to one site, cached (``ttl`` seconds) in ``CaseLawResponse``."""

    def __init__(self, base_url: str, site: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.site = site
        self.host = urlsplit(self.base_url).hostname or ""

    def url(self, path: str, params: dict[str, Any] | None = None) -> str:
        query = f"?{urlencode(params)}" if params else ""
        return f"{self.base_url}{path}{query}"

    def get(self, url: str, *, ttl: int) -> Fetched:
        # The firm's own entry: a hit or an age never reveals another firm's searches.
        key = hashlib.sha256(f"{_firm_key()}\n{url}".encode()).hexdigest()
        cached = CaseLawResponse.objects.filter(key=key).first()
        now = timezone.now()
        if cached is not None and (now - cached.fetched_at).total_seconds() < ttl:
            return Fetched(url, bytes(cached.body), cached.content_type, cached.fetched_at, True)
        _release_connections()  # what follows is waiting: for a turn, the site, a backoff
        try:
            status, content_type, body = self._fetch(url)
        except CaseLawError as exc:
            if cached is not None and exc.kind == "unavailable":
                body = bytes(cached.body)
                return Fetched(url, body, cached.content_type, cached.fetched_at, True, True)
            raise
        fetched_at = timezone.now()
        if random.randrange(PURGE_ONE_IN) == 0:  # noqa: S311 - load spreading, not security
            oldest = max(settings.LEXROOM_CASELAW_SEARCH_TTL, settings.LEXROOM_CASELAW_DOCUMENT_TTL)
            CaseLawResponse.objects.filter(
                fetched_at__lt=fetched_at - dt.timedelta(seconds=oldest)
            ).delete()
        CaseLawResponse.objects.bulk_create(
            [
                CaseLawResponse(
                    key=key,
                    url=url,
                    status=status,
                    content_type=content_type[:200],
                    body=body,
                    fetched_at=fetched_at,
                )
            ],
            update_conflicts=True,
            unique_fields=["key"],
            update_fields=["url", "status", "content_type", "body", "fetched_at"],
        )
        return Fetched(url, body, content_type, fetched_at, False)

    def _fetch(self, url: str) -> tuple[int, str, bytes]:
        """The body of a 200, after up to LEXROOM_CASELAW_RETRIES retries of a timeout, a
        refused connection, a 429 or a 5xx."""
        attempts = settings.LEXROOM_CASELAW_RETRIES + 1
        timeout = httpx.Timeout(settings.LEXROOM_CASELAW_TIMEOUT, connect=5.0)
        problem = ""
        with httpx.Client(timeout=timeout, headers={"User-Agent": USER_AGENT}) as client:
            for attempt in range(attempts):
                retry_after = None
                try:
                    with _Spacing(self.host):
                        status, content_type, body, retry_after = _request(client, url)
                except httpx.HTTPError as exc:
                    problem = f"{exc.__class__.__name__}: {exc}"
                else:
                    if status == 200:
                        return status, content_type, body
                    if status == 404:
                        message = gettext("%(site)s has no such document (HTTP 404).")
                        raise CaseLawError("not_found", message % {"site": self.site}, url=url)
                    problem = f"HTTP {status}"
                    if status not in RETRY_STATUSES:
                        break
                if attempt + 1 < attempts:
                    with _Turns(self.host).resting(_firm_key()):
                        time.sleep(_backoff(attempt, retry_after))
        message = gettext(
            "%(site)s cannot be reached or fails (%(problem)s, %(attempts)d attempts). "
            "Try again later; this is not an answer that no case law exists."
        )
        raise CaseLawError(
            "unavailable",
            message % {"site": self.site, "problem": problem, "attempts": attempts},
            url=url,
        )


def _backoff(attempt: int, retry_after: str | None) -> float:
    base = float(settings.LEXROOM_CASELAW_BACKOFF_SECONDS) * (1 << attempt)
    if retry_after and retry_after.strip().isdecimal() and retry_after.isascii():
        return float(min(max(base, float(retry_after)), MAX_RETRY_AFTER))
    return base
