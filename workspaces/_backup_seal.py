"""The seal of a backup archive: its manifest signed, and optionally the whole archive encrypted.

Signature: ``manifest.sig`` holds ``{"algorithm": "HMAC-SHA256", "key_id": …, "signature": …}``
over the exact bytes of ``manifest.json``; the manifest holds every other member's SHA-256, so
one signature covers the whole archive. The key id (an HMAC of a fixed label, never the key)
tells "signed with another key" apart from "altered after signing". An unsigned archive
holds ``{"algorithm": "none"}``.

Encryption (``LEXROOM_BACKUP_ENCRYPTION_KEY``): the tar stream is cut into records of at most
1 MiB, each sealed with AES-256-GCM, so neither side holds the archive in memory::

    header  = b"LXRBAKE1" | salt (16 random bytes) | key id (8 bytes)
    record  = length of the ciphertext (4 bytes, big-endian) | last (1 byte: 0 or 1) | ciphertext
    key     = HKDF-SHA256(secret, salt, info=b"lexroom backup archive v1"), 32 bytes
    nonce   = record number (11 bytes, big-endian) | last
    AAD     = header

A fresh salt gives every archive its own key, so a counter nonce never repeats under one key.
The number and the last flag in the nonce refuse records reordered, dropped, or a stream
cut short; the header as associated data refuses a header swapped from another archive.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import IO, Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.utils.translation import gettext as _

SIGNATURE = "manifest.sig"
HMAC_SHA256 = "HMAC-SHA256"
MAGIC = b"LXRBAKE1"
RECORD = 1 << 20
_SALT, _KEY_ID, _TAG = 16, 8, 16
_HEADER = len(MAGIC) + _SALT + _KEY_ID


class BackupError(Exception):
    """The backup or the restore cannot go on; the message says why (nothing was changed)."""


def key_id(secret: str, *, purpose: str = "signature") -> str:
    """A short public name of a key: equal for the same key, and says nothing about it."""
    label = f"lexroom backup {purpose} key id".encode()
    return hmac.new(secret.encode(), label, hashlib.sha256).hexdigest()[:16]


def seal_write(*, manifest: bytes, secret: str) -> bytes:
    """The ``manifest.sig`` member: the manifest's HMAC-SHA256, or an explicit "none"."""
    if not secret:
        return json.dumps({"algorithm": "none"}).encode()
    signature = hmac.new(secret.encode(), manifest, hashlib.sha256).hexdigest()
    seal = {"algorithm": HMAC_SHA256, "key_id": key_id(secret), "signature": signature}
    return json.dumps(seal, sort_keys=True).encode()


def _declared_format(manifest: bytes) -> object:
    """The format the (not yet trusted) manifest says it has; None when it says nothing."""
    try:
        parsed = json.loads(manifest)
    except ValueError:
        return None
    return parsed.get("format") if isinstance(parsed, dict) else None


def _unsigned_refused(*, manifest: bytes, seal: bytes | None, secret: str) -> None:
    """Refuse what ``--allow-unsigned`` may not let through without a valid signature.

    Without a key here, yes: nothing could be checked anyway. With one, only an archive made
    before archives were signed (format 1, no ``manifest.sig`` at all): a signature removed or
    replaced by ``{"algorithm": "none"}`` is how an altered archive would otherwise pass.
    """
    declared = _declared_format(manifest)
    if not secret or (seal is None and declared == 1):
        return
    if seal is None:
        why = _(
            "the archive has no %(member)s, though every archive of its format (%(format)s) has one"
        ) % {"member": SIGNATURE, "format": declared}
    else:
        why = _('its %(member)s does not verify (it says "none", or is not a signature)') % {
            "member": SIGNATURE
        }
    raise BackupError(
        _(
            "Refused even with --allow-unsigned: LEXROOM_BACKUP_KEY is set here and %(why)s; "
            "an altered archive whose signature was stripped looks like this. While a key is "
            "set, only archives older than signing (format 1) restore unsigned; for one "
            "written with --unsigned on an install without a key, unset LEXROOM_BACKUP_KEY for "
            "this one command."
        )
        % {"why": why}
    )


def seal_check(*, manifest: bytes, seal: bytes | None, secret: str, allow_unsigned: bool) -> str:
    """Check the manifest's signature; returns how it was checked, raises why it is refused.

    ``allow_unsigned`` lets through an archive that cannot be checked: any, when no key is set
    here; with a key, only one older than signing (format 1, no ``manifest.sig``). Never one
    whose signature is wrong.
    """
    parsed: Any = None
    if seal is not None:
        try:
            parsed = json.loads(seal)
        except ValueError:
            parsed = None
    algorithm = parsed.get("algorithm") if isinstance(parsed, dict) else None
    if algorithm != HMAC_SHA256:
        if allow_unsigned:
            _unsigned_refused(manifest=manifest, seal=seal, secret=secret)
            return "unsigned"
        raise BackupError(
            _(
                "Refused: the archive is not signed (no valid %(member)s), so nothing proves "
                "it is the one Lexroom wrote. Restore it anyway only if you know where it "
                "comes from: --allow-unsigned."
            )
            % {"member": SIGNATURE}
        )
    assert isinstance(parsed, dict)  # noqa: S101 - the algorithm was read from a dict
    signed_with = str(parsed.get("key_id", ""))
    if not secret:
        if allow_unsigned:
            return "unsigned"
        raise BackupError(
            _(
                "Refused: the archive is signed (key id %(key_id)s) but LEXROOM_BACKUP_KEY is "
                "not set here, so the signature cannot be checked. Set it to the key the "
                "backup was made with."
            )
            % {"key_id": signed_with}
        )
    if not hmac.compare_digest(signed_with, key_id(secret)):
        raise BackupError(
            _(
                "Refused: the archive was signed with another key (key id %(theirs)s; "
                "LEXROOM_BACKUP_KEY here is %(ours)s). Set the key it was made with."
            )
            % {"theirs": signed_with, "ours": key_id(secret)}
        )
    expected = hmac.new(secret.encode(), manifest, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(str(parsed.get("signature", "")), expected):
        raise BackupError(
            _(
                "Refused: the signature does not match %(member)s: the manifest was altered "
                "after the backup was made."
            )
            % {"member": "manifest.json"}
        )
    return f"{HMAC_SHA256} (key id {signed_with})"


def _archive_key(secret: str, salt: bytes) -> AESGCM:
    derived = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=salt, info=b"lexroom backup archive v1"
    ).derive(secret.encode())
    return AESGCM(derived)


def _nonce(number: int, last: bool) -> bytes:
    return number.to_bytes(11, "big") + (b"\x01" if last else b"\x00")


class EncryptingWriter:
    """A write-only file object for ``tarfile`` (mode ``w|``): records of at most 1 MiB."""

    def __init__(self, raw: IO[bytes], *, secret: str) -> None:
        salt = os.urandom(_SALT)
        self._header = MAGIC + salt + bytes.fromhex(key_id(secret, purpose="encryption"))
        self._aead = _archive_key(secret, salt)
        self._raw = raw
        self._buffer = bytearray()
        self._number = 0
        raw.write(self._header)

    def _record(self, data: bytes, *, last: bool) -> None:
        sealed = self._aead.encrypt(_nonce(self._number, last), data, self._header)
        self._raw.write(len(sealed).to_bytes(4, "big") + (b"\x01" if last else b"\x00") + sealed)
        self._number += 1

    def write(self, data: bytes) -> int:
        self._buffer += data
        while len(self._buffer) > RECORD:
            self._record(bytes(self._buffer[:RECORD]), last=False)
            del self._buffer[:RECORD]
        return len(data)

    def finish(self) -> None:
        """The last record (possibly empty): without it a reader knows the stream was cut."""
        self._record(bytes(self._buffer), last=True)
        self._buffer.clear()


def is_encrypted(head: bytes) -> bool:
    return head.startswith(MAGIC)


class DecryptingReader:
    """A read-only file object for ``tarfile`` (mode ``r|``) over an encrypted archive."""

    def __init__(self, raw: IO[bytes], *, secret: str) -> None:
        header = raw.read(_HEADER)
        if len(header) != _HEADER or not is_encrypted(header):
            raise BackupError(_("Not an encrypted Lexroom backup."))
        if not secret:
            raise BackupError(
                _(
                    "The archive is encrypted: set LEXROOM_BACKUP_ENCRYPTION_KEY to the key "
                    "it was made with."
                )
            )
        theirs = header[-_KEY_ID:].hex()
        ours = key_id(secret, purpose="encryption")
        if not hmac.compare_digest(theirs, ours):
            raise BackupError(
                _(
                    "The archive was encrypted with another key (key id %(theirs)s; "
                    "LEXROOM_BACKUP_ENCRYPTION_KEY here is %(ours)s)."
                )
                % {"theirs": theirs, "ours": ours}
            )
        self._header = header
        self._aead = _archive_key(secret, header[len(MAGIC) : len(MAGIC) + _SALT])
        self._raw = raw
        self._buffer = b""
        self._offset = 0
        self._number = 0
        self._done = False

    def _next_record(self) -> None:
        prefix = self._raw.read(5)
        if len(prefix) != 5:
            raise BackupError(_("The encrypted archive is cut short (its last record is missing)."))
        size, last = int.from_bytes(prefix[:4], "big"), prefix[4] == 1
        if size > RECORD + _TAG or prefix[4] not in (0, 1):
            raise BackupError(_("The encrypted archive is damaged (a record header is wrong)."))
        sealed = self._raw.read(size)
        try:
            self._buffer = self._aead.decrypt(_nonce(self._number, last), sealed, self._header)
            self._offset = 0
        except InvalidTag:
            raise BackupError(
                _("The encrypted archive was altered or damaged (record %(number)d).")
                % {"number": self._number}
            ) from None
        self._number += 1
        if last:
            if self._raw.read(1):
                raise BackupError(_("The encrypted archive has data after its last record."))
            self._done = True

    def finish(self) -> None:
        """Read to the last record: ``tarfile`` stops at the end-of-archive block, and a
        stream cut after it must still be refused."""
        while not self._done:
            self._next_record()
        self._buffer, self._offset = b"", 0

    def read(self, size: int = -1) -> bytes:
        # An offset into the record rather than slicing it: tarfile reads 10 KiB at a time,
        # and cutting the rest of a 1 MiB record on every read would copy it a hundred times.
        parts: list[bytes] = []
        wanted = size if size >= 0 else None
        while wanted is None or wanted > 0:
            if self._offset >= len(self._buffer):
                if self._done:
                    break
                self._next_record()
                continue
            end = len(self._buffer) if wanted is None else self._offset + wanted
            take = self._buffer[self._offset : end]
            self._offset += len(take)
            parts.append(take)
            if wanted is not None:
                wanted -= len(take)
        return b"".join(parts)
