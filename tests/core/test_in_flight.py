"""One session's or token's requests in flight are capped before the app (and so before any
database connection): the request past the cap is a 429 at once, other credentials and
anonymous requests pass, static files are not counted, and a finished request frees its place."""

from __future__ import annotations

import asyncio
from typing import Any

from django.test import override_settings

from core.in_flight import in_flight_capped


def _scope(path: str = "/w/room/", **headers: str) -> dict[str, Any]:
    return {"type": "http", "path": path,
            "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}  # fmt: skip


class _Held:
    """An app whose requests wait until released, counting those it was given."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.entered = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.entered += 1
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def _call(app: Any, scope: dict[str, Any]) -> int:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    await app(scope, receive, send)
    return int(sent[0]["status"])


async def _burst() -> dict[str, Any]:
    held = _Held()
    app = in_flight_capped(held)
    session = _scope(cookie="csrftoken=x; sessionid=abc")
    waiting = [asyncio.create_task(_call(app, session)) for _ in range(3)]
    await asyncio.sleep(0.05)
    refused = await _call(app, session)
    token = asyncio.create_task(_call(app, _scope(authorization="Bearer lxr_other")))
    anonymous = asyncio.create_task(_call(app, _scope()))
    static = asyncio.create_task(_call(app, _scope("/static/lexroom.css", cookie="sessionid=abc")))
    await asyncio.sleep(0.05)
    entered_while_full = held.entered
    held.release.set()
    statuses = await asyncio.gather(*waiting, token, anonymous, static)
    after = await _call(app, session)
    return {"refused": refused, "entered": entered_while_full, "statuses": statuses,
            "after": after}  # fmt: skip


@override_settings(LEXROOM_REQUESTS_PER_CREDENTIAL=3)
def test_a_credential_past_its_requests_in_flight_is_refused_before_the_app():
    result = asyncio.run(_burst())
    assert result["refused"] == 429
    # The three held, then the token's, the anonymous and the static request: not the 4th.
    assert result["entered"] == 6
    assert result["statuses"] == [200] * 6
    assert result["after"] == 200  # the places were given back


@override_settings(LEXROOM_REQUESTS_PER_CREDENTIAL=0)
def test_zero_turns_the_cap_off():
    async def run() -> list[int]:
        held = _Held()
        app = in_flight_capped(held)
        tasks = [asyncio.create_task(_call(app, _scope(cookie="sessionid=abc"))) for _ in range(5)]
        await asyncio.sleep(0.05)
        held.release.set()
        return list(await asyncio.gather(*tasks))

    assert asyncio.run(run()) == [200] * 5


class _Quick:
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


@override_settings(LEXROOM_REQUESTS_PER_SECOND=5, LEXROOM_REQUESTS_PER_CREDENTIAL=10)
def test_a_credential_past_its_requests_a_second_is_refused_and_others_are_not():
    async def run() -> dict[str, Any]:
        app = in_flight_capped(_Quick())
        token = _scope(authorization="Bearer lxr_flood")
        burst = [await _call(app, token) for _ in range(12)]
        other = await _call(app, _scope(authorization="Bearer lxr_other"))
        await asyncio.sleep(0.5)  # refills 2.5 requests
        later = [await _call(app, token) for _ in range(3)]
        return {"burst": burst, "other": other, "later": later}

    result = asyncio.run(run())
    assert result["burst"] == [200] * 10 + [429] * 2  # a burst of twice the rate
    assert result["other"] == 200
    assert result["later"][0] == 200  # refilled at the rate
