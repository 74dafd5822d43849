"""The one way the ASGI wrappers below Django (body limit, per-credential caps) answer: a
small JSON body with its status and headers, before any app has run."""

from __future__ import annotations

from starlette.types import Send


async def send_json(send: Send, status: int, body: bytes, *headers: tuple[bytes, bytes]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
