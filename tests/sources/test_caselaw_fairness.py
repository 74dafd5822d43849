"""One firm's case-law searches cannot starve another's or learn of them: the requests
waiting for a site take turns by firm, a firm's queue is bounded (busy, 429 with Retry-After,
past it), and the cache's report speaks of the firm's own searches only. Against the local
fake sites (tests/sources/fake_caselaw.py), with real spacing between requests."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.db import connections
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from agents.tools import call_tool
from sources.caselaw import _http
from tests.helpers.rooms import Room, login
from workspaces.models import User

A_QUERIES = ("éolienne", "urbanisme", "affaire")
B_QUERY = "ministre"


def _search(user: User, query: str, errors: list[BaseException], **arguments: Any) -> None:
    try:
        with translation.override("en"):
            arguments = {"query": query, "limit": 3, **arguments}
            call_tool(name="search_case_law", arguments=arguments, user=user)
    except BaseException as exc:  # reported by the test
        errors.append(exc)
    finally:
        connections.close_all()  # this thread's own


def _started(
    user: User, query: str, errors: list[BaseException], **arguments: Any
) -> threading.Thread:
    thread = threading.Thread(
        target=_search, args=(user, query, errors), kwargs=arguments, daemon=True
    )
    thread.start()
    return thread


def _text(path: str) -> str:
    return parse_qs(urlsplit(path).query).get("SearchText", [""])[0]


@pytest.mark.django_db(transaction=True)  # the searches run in threads: rows committed
def test_two_firms_waiting_for_a_site_take_turns(room: Room, fake_caselaw):
    errors: list[BaseException] = []
    fake_caselaw.delay = 0.2  # a request takes longer than a search thinks between two
    with override_settings(LEXROOM_CASELAW_MIN_INTERVAL_MS=100):
        crowd = [_started(room.viewer, query, errors) for query in A_QUERIES]
        deadline = time.monotonic() + 10
        while len(fake_caselaw.log) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        other = _started(room.foreigner, B_QUERY, errors)
        for thread in [*crowd, other]:
            thread.join(timeout=120)
    assert not errors, errors
    firms = ["B" if _text(entry.path) == B_QUERY else "A" for entry in fake_caselaw.log]
    first, last = firms.index("B"), len(firms) - firms[::-1].index("B")
    assert firms.count("B") >= 4
    # While B waited, A's three searches got one request per B request, not three.
    runs = [len(list(group)) for kind, group in itertools.groupby(firms[first:last]) if kind == "A"]
    assert max(runs, default=0) <= 1, "".join(firms)


def _ticket(room: Room) -> bool:
    """Does a request of the room's firm wait in the fake site's queue?"""
    queue = Path(settings.LEXROOM_DATA_DIR) / "caselaw" / "queue-127.0.0.1"
    return any(path.name.split("~")[0].endswith(f".firm{room.firm.pk}") for path in queue.iterdir())


@pytest.mark.django_db(transaction=True)
def test_a_full_firm_queue_is_busy_with_retry_after_on_rest_and_the_page(room, fake_caselaw):
    errors: list[BaseException] = []
    fake_caselaw.delay = 2.0  # the site answers slowly: the queue fills up
    with override_settings(LEXROOM_CASELAW_QUEUE_PER_FIRM=1, LEXROOM_CASELAW_MIN_INTERVAL_MS=100):
        # The open data: one request a search. One in flight, one waiting: the queue is full.
        running = _started(room.viewer, "éolienne", errors, jurisdiction="TA")
        while not fake_caselaw.log:
            time.sleep(0.01)
        waiting = _started(room.viewer, "urbanisme", errors, jurisdiction="TA")
        deadline = time.monotonic() + 10
        while not _ticket(room) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _ticket(room), "the second search never waited"
        client = login(room.viewer)
        with translation.override("en"):
            response = client.post(
                reverse("api_tool_call", args=["search_case_law"]),
                {"query": "affaire"},
                content_type="application/json",
                headers={"accept-language": "en"},
            )
            page = client.get(reverse("sources:case_law"), {"q": "affaire"})
        # Another firm is not refused: its queue is its own.
        foreign: list[BaseException] = []
        _search(room.foreigner, "ministre", foreign, jurisdiction="TA")
        for thread in (running, waiting):
            thread.join(timeout=60)
    assert response.status_code == 429, response.content
    assert int(response["Retry-After"]) >= 1
    body: dict[str, Any] = response.json()
    # In the viewer's language (the firm's: French): the site, and when to try again.
    assert body["error"] == "rate_limited" and "127.0.0.1" in body["message"]
    assert f"{response['Retry-After']} s" in body["message"]
    assert page.status_code == 429 and int(page["Retry-After"]) >= 1
    assert not errors and not foreign, (errors, foreign)


@pytest.mark.django_db
def test_the_cache_report_says_nothing_of_another_firms_searches(room: Room, fake_caselaw):
    def search(user: User) -> dict[str, Any]:
        return call_tool(
            name="search_case_law", arguments={"query": "éolienne", "limit": 5}, user=user
        ).content

    mine = search(room.viewer)
    asked = len(fake_caselaw.log)
    theirs = search(room.foreigner)  # the same question, just after
    assert theirs["cache"]["from_cache"] == 0 and theirs["cache"]["oldest_age_seconds"] == 0
    assert len(fake_caselaw.log) == 2 * asked  # fetched for them: no faster answer either
    assert theirs["results"] == mine["results"]
    again = search(room.foreigner)
    assert again["cache"]["from_cache"] == again["cache"]["requests"] > 0
    assert len(fake_caselaw.log) == 2 * asked


def _resting(room: Room) -> bool:
    """Does a request of the room's firm sleep before a retry, counted in its queue?"""
    queue = Path(settings.LEXROOM_DATA_DIR) / "caselaw" / "queue-127.0.0.1"
    return any(
        path.name.split("~")[0].endswith(f".firm{room.firm.pk}") and path.name.endswith("~rest")
        for path in queue.iterdir()
    )


@pytest.mark.django_db(transaction=True)
def test_a_request_waiting_to_retry_counts_in_its_firms_queue(room: Room, fake_caselaw):
    errors: list[BaseException] = []
    fake_caselaw.fail_status, fake_caselaw.fail_count = 503, 1  # the first answer: retry
    with override_settings(
        LEXROOM_CASELAW_QUEUE_PER_FIRM=1,
        LEXROOM_CASELAW_BACKOFF_SECONDS=3,
        LEXROOM_CASELAW_RETRIES=1,
    ):
        retrying = _started(room.viewer, "éolienne", errors, jurisdiction="TA")
        deadline = time.monotonic() + 10
        while not _resting(room) and time.monotonic() < deadline:
            time.sleep(0.01)
        refused: list[BaseException] = []
        _search(room.viewer, "urbanisme", refused, jurisdiction="TA")
        retrying.join(timeout=30)
    assert not errors, errors
    assert [getattr(exc, "kind", exc) for exc in refused] == ["rate_limited"]


@pytest.mark.django_db(transaction=True)  # no test transaction around the call
def test_a_request_to_a_site_holds_no_database_connection(room: Room, fake_caselaw, monkeypatch):
    held: list[bool] = []
    original = _http._request

    def request(*args: Any) -> Any:
        held.append(connections["default"].connection is not None)
        return original(*args)

    monkeypatch.setattr(_http, "_request", request)
    errors: list[BaseException] = []
    _search(room.viewer, "éolienne", errors, jurisdiction="TA")
    assert not errors, errors
    assert held == [False]


def test_a_firm_that_used_the_site_least_lately_goes_before_a_flood(settings, tmp_path):
    from sources.caselaw._turns import Turns

    settings.LEXROOM_DATA_DIR = str(tmp_path)
    flood, light = Turns("site.example"), Turns("site.example")
    for _ in range(5):  # the flooding firm was served five times just now
        served = Turns("site.example")
        served.join("db.firm1")
        served.served()
    flood.join("db.firm1")  # waiting first
    light.join("db.firm2")  # waiting since after it
    try:
        assert light.is_next() and not flood.is_next()
        light.served()
        assert flood.is_next()  # alone in the queue: served, whatever its use
    finally:
        flood.leave()
        light.leave()


def test_firms_that_used_the_site_alike_alternate(settings, tmp_path):
    from sources.caselaw._turns import Turns

    settings.LEXROOM_DATA_DIR = str(tmp_path)
    order = []
    waiting = {firm: Turns("site.example") for firm in ("db.firm1", "db.firm2")}
    for firm, turns in waiting.items():
        turns.join(firm)
    for _ in range(4):
        firm, turns = next((f, t) for f, t in waiting.items() if t.is_next())
        order.append(firm)
        turns.served()
        turns.join(firm)  # asks again at once
    for turns in waiting.values():
        turns.leave()
    assert order == ["db.firm1", "db.firm2", "db.firm1", "db.firm2"]
