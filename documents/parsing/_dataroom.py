"""Data-room JSON: a list of contracts with their metadata, imported entry by entry.

A container, not a document: detection recognises it, the data-room import reads it
(``documents.services.dataroom_entries``).
"""

from __future__ import annotations

from documents.parsing._formats import Format, register_format


def _looks_like_json(data: bytes) -> bool:
    # Only the opening bracket: full validation belongs to the data-room import.
    return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"["))


# JSON is UTF-8 by definition (RFC 8259): no cp1252 fallback.
register_format(
    Format(name="json", extensions=(".json",), label="JSON", content="text", sniff=_looks_like_json)
)
