"""Polite HTTP to the case-law sites: spacing per host, timeouts, bounded retries, and a
persistent response cache in Postgres.

The sites ask for 500 ms between requests. The spacing is counted from the end of one
request to the start of the next, under a file lock per host, so every process of this
machine (web, workers, MCP) shares it. Requests waiting for a host take turns by firm
(``_turns``): one firm's many searches cannot starve another's, and a firm with
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
import random
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
from django.conf import settings
from django.db import connections
from django.utils import timezone
from django.utils.translation import gettext

from sources.caselaw._turns import QueueFull, Turns, lock_path
from sources.models import CaseLawResponse

USER_AGENT = "Lexroom/0.1 (self-hosted legal document platform)"
SITE_MIN_INTERVAL_MS = 500  # the sites' terms; a lower setting applies to loopback only
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 30.0
LOCK_WAIT_SECONDS = 30.0
PURGE_ONE_IN = 100  # fetches: now and then, the answers older than any TTL go


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


def _busy(host: str, waiting: int) -> CaseLawError:
    """The firm's queue for ``host`` is full, or its wait too long: busy, with a Retry-After."""
    retry_after = max(1, math.ceil((waiting + 1) * (1.0 + _interval(host))))
    message = gettext(
        "%(host)s is busy with your firm's other searches (the sites ask for spacing, and "
        "firms take turns): try again in %(seconds)d s."
    )
    return CaseLawError(
        "busy", message % {"host": host, "seconds": retry_after}, retry_after=retry_after
    )


class _Spacing:
    """Held around one request: waits for the firm's turn (``_turns``) and the host's lock,
    then until ``interval`` has passed since the last request to the host ended (in
    any process), and records this one's end."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.handle: Any = None

    def __enter__(self) -> None:
        turns = Turns(self.host)
        try:
            turns.join(_firm_key())
        except QueueFull as full:
            raise _busy(self.host, full.waiting) from None
        self.handle = lock_path(self.host).open("a+")
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
                    raise _busy(self.host, turns.waiting())
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
                    with Turns(self.host).resting(_firm_key()):
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
