"""Backup and restore of a whole install: the database and the originals, in one archive.

``backup_write`` opens a REPEATABLE READ transaction as a superuser (the embedded server's
own binaries and socket, or an external server's ``DATABASE_ADMIN_URL``), exports its
snapshot, runs ``pg_dump --snapshot`` (custom format) on it and computes, in the same
transaction, per table a row count and an order-free checksum of its rows: the dump and the
checksums see the same rows however busy the install is. The originals are copied after the
snapshot: every document it holds had its original stored before its row was committed. The
manifest (versions, each member's SHA-256 and size, the tables' checksums) is signed with
``LEXROOM_BACKUP_KEY`` and the archive optionally encrypted (``_backup_seal``).

``backup_verify`` checks an archive (signature, manifest, every member's size and SHA-256)
without restoring it. ``backup_restore`` checks the free disk space against the manifest's
sizes, then does the same checks, refuses a database that holds tables or an originals
directory that holds files (nothing is overwritten), restores, and compares the counts and
checksums of every table with the manifest's.

The archive is a tar: ``manifest.json``, ``manifest.sig``, ``database.dump``, ``media/…``
(the manifest first, so an encrypted archive is checked as it streams).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import django
import psycopg
from django.conf import settings
from django.utils.translation import gettext as _
from psycopg import IsolationLevel, sql

from workspaces._backup_archive import (
    CHUNK,
    DUMP,
    FORMAT,
    MANIFEST,
    MEDIA,
    backup_verify,
    check_members,
    manifest_bytes,
    open_checked,
)
from workspaces._backup_seal import (
    SIGNATURE,
    BackupError,
    EncryptingWriter,
    seal_write,
)

__all__ = ["BackupError", "backup_restore", "backup_verify", "backup_write", "table_digest"]


@dataclass(frozen=True)
class Target:
    """Where the database is: a superuser connection and the binaries to use."""

    conninfo: str
    dbname: str
    bin_dir: Path | None  # None: pg_dump / pg_restore from PATH
    app_role: str


def target(dbname: str | None = None) -> Target:
    """The configured database (or ``dbname`` on the same server), as a superuser."""
    database = settings.DATABASES["default"]
    name = dbname or str(database["NAME"])
    role = str(database["USER"])
    if settings.LEXROOM_EMBEDDED_DB:
        from pgserver._commands import POSTGRES_BIN_PATH

        from core.db_backend.server import ensure_embedded_server

        server = ensure_embedded_server(Path(settings.LEXROOM_DATA_DIR))
        return Target(server.superuser_conninfo(name), name, Path(POSTGRES_BIN_PATH), role)
    if not settings.DATABASE_ADMIN_URL:
        raise BackupError(
            "An external database is dumped and restored as a superuser: set "
            "DATABASE_ADMIN_URL (row-level security hides rows from the app's own role)."
        )
    params = psycopg.conninfo.conninfo_to_dict(settings.DATABASE_ADMIN_URL)
    params["dbname"] = name
    bin_dir = os.environ.get("LEXROOM_PG_BIN")
    conninfo = psycopg.conninfo.make_conninfo(**params)  # type: ignore[arg-type]
    return Target(conninfo, name, Path(bin_dir) if bin_dir else None, role)


def _program(found: Target, name: str) -> str:
    path = found.bin_dir / name if found.bin_dir else shutil.which(name)
    if not path or not Path(path).exists():
        raise BackupError(f"{name} is not installed (set LEXROOM_PG_BIN to its folder).")
    return str(path)


def _secretless(conninfo: str) -> tuple[str, dict[str, str]]:
    """The conninfo without its password, and the environment that carries it: a password
    on a command line is readable by every local user (ps, /proc)."""
    params = psycopg.conninfo.conninfo_to_dict(conninfo)
    password = params.pop("password", None)
    env = {**os.environ, "PGPASSWORD": str(password)} if password else dict(os.environ)
    return psycopg.conninfo.make_conninfo(**params), env  # type: ignore[arg-type]


def _run(command: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)  # noqa: S603
    if done.returncode != 0:
        raise BackupError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-800:]}")
    return done.stdout


def _digest(conn: psycopg.Connection[Any]) -> dict[str, dict[str, int]]:
    conn.execute("SET search_path = pg_catalog")
    tables = conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
    ).fetchall()
    digest: dict[str, dict[str, int]] = {}
    for (table,) in tables:
        # pg_catalog and public spelled out (search_path is pg_catalog only): a function of
        # the same name planted in public must not run with a superuser's rights.
        query = sql.SQL(
            "SELECT count(*), "
            "coalesce(sum(pg_catalog.hashtextextended(t::text, 0)), 0)::text "
            "FROM public.{} AS t"
        ).format(sql.Identifier(table))
        row = conn.execute(query).fetchone()
        assert row is not None  # noqa: S101 - an aggregate always returns one row
        digest[table] = {"rows": int(row[0]), "checksum": int(row[1]) % (1 << 63)}
    return digest


def table_digest(conninfo: str) -> dict[str, dict[str, int]]:
    """Per table of the public schema: rows, and the sum of the rows' 64-bit hashes (order
    free, streamed: no table is held in memory). Read as a superuser: RLS hides nothing."""
    with psycopg.connect(conninfo) as conn:
        return _digest(conn)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _dump_in_snapshot(found: Target, dump: Path) -> tuple[dict[str, dict[str, int]], str]:
    """``pg_dump`` and the tables' checksums from one snapshot, and the server's version.

    The snapshot is exported by a REPEATABLE READ transaction kept open until the dump has
    finished: a write committed meanwhile is in neither, so the restore check holds on a busy
    install (checksums taken after the dump differed on any table written in between).
    """
    with psycopg.connect(found.conninfo) as conn:
        conn.isolation_level = IsolationLevel.REPEATABLE_READ
        conn.read_only = True
        row = conn.execute("SELECT pg_catalog.pg_export_snapshot()").fetchone()
        assert row is not None  # noqa: S101 - a function call returns one row
        conninfo, env = _secretless(found.conninfo)
        _run([_program(found, "pg_dump"), "--format=custom", "--no-password",
              f"--snapshot={row[0]}", f"--file={dump}", f"--dbname={conninfo}"], env)  # fmt: skip
        digest = _digest(conn)
        version = conn.execute("SHOW server_version").fetchone()
        conn.rollback()
    return digest, str(version[0]) if version else ""


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o600
    archive.addfile(info, io.BytesIO(data))


def _secret_for(*, unsigned: bool) -> str:
    """The signing key, or "" for ``--unsigned``; refused when neither is at hand."""
    if unsigned:
        return ""
    if not settings.LEXROOM_BACKUP_KEY:
        raise BackupError(
            _(
                "LEXROOM_BACKUP_KEY is not set: a backup is signed so that a restore can prove "
                "it was not altered. Set it (or LEXROOM_BACKUP_KEY_FILE), or pass --unsigned."
            )
        )
    return str(settings.LEXROOM_BACKUP_KEY)


def _members(dump: Path, media: Path) -> dict[str, Path]:
    """Archive name → file: the dump, then every original under ``media`` in name order."""
    files = sorted(p for p in media.rglob("*") if p.is_file()) if media.exists() else []
    members = {DUMP: dump}
    for file in files:
        members[str(PurePosixPath(MEDIA, file.relative_to(media).as_posix()))] = file
    return members


def _manifest(
    found: Target, members: dict[str, Path], digest: dict[str, dict[str, int]], version: str
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "lexroom": "0.1.0",
        "django": django.get_version(),
        "postgres": version,
        "pg_dump": _run([_program(found, "pg_dump"), "--version"]).strip(),
        "database": found.dbname,
        "tables": digest,
        "members": {name: _sha256(file) for name, file in members.items()},
        # Signed with the rest: a restore refuses a member of another size before reading it.
        "sizes": {name: file.stat().st_size for name, file in members.items()},
    }


def _archive_write(
    path: Path, *, manifest: dict[str, Any], members: dict[str, Path], secret: str
) -> None:
    """The tar (encrypted when a key is set) at ``path.partial``, renamed once complete."""
    data = json.dumps(manifest, indent=1, sort_keys=True).encode()
    partial = path.with_name(path.name + ".partial")
    # Every firm's data and the password and token hashes: readable by its owner only.
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as raw:
        encryption = settings.LEXROOM_BACKUP_ENCRYPTION_KEY
        sink: Any = EncryptingWriter(raw, secret=encryption) if encryption else raw
        # A stream ("w|"): what goes through the cipher is written once, in order.
        with tarfile.open(fileobj=sink, mode="w|") as archive:
            _add_bytes(archive, MANIFEST, data)
            _add_bytes(archive, SIGNATURE, seal_write(manifest=data, secret=secret))
            for name, file in members.items():
                archive.add(file, name)
        if encryption:
            sink.finish()
        raw.flush()
        os.fsync(raw.fileno())
    partial.rename(path)  # a crash mid-way never leaves a file that looks complete


def backup_write(
    path: Path, *, media_root: Path | None = None, unsigned: bool = False
) -> dict[str, Any]:
    """Write the archive at ``path`` (refused if it exists); returns the manifest.

    Signed with ``LEXROOM_BACKUP_KEY`` (refused without one unless ``unsigned``), encrypted
    when ``LEXROOM_BACKUP_ENCRYPTION_KEY`` is set.
    """
    if path.exists():
        raise BackupError(_("%(path)s exists: a backup never overwrites a file.") % {"path": path})
    secret = _secret_for(unsigned=unsigned)
    found = target()
    media = Path(media_root or settings.MEDIA_ROOT)
    with tempfile.TemporaryDirectory(prefix="lexroom-backup-") as folder:
        dump = Path(folder) / DUMP
        digest, version = _dump_in_snapshot(found, dump)
        # After the snapshot: every original a dumped row needs was stored before it.
        members = _members(dump, media)
        manifest = _manifest(found, members, digest, version)
        _archive_write(path, manifest=manifest, members=members, secret=secret)
    return manifest


def _empty_database(found: Target) -> None:
    """Create the database if missing; refuse one that holds any table."""
    from core.db_backend.server import bootstrap_database

    admin = psycopg.conninfo.conninfo_to_dict(found.conninfo)
    maintenance = psycopg.conninfo.make_conninfo(**{**admin, "dbname": "postgres"})  # type: ignore[arg-type]
    bootstrap_database(maintenance, dbname=found.dbname, app_role=found.app_role,
                       app_password="", create_db=True,
                       owner_role=settings.LEXROOM_DB_OWNER_ROLE)  # fmt: skip
    with psycopg.connect(found.conninfo) as conn:
        row = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    if row and row[0]:
        raise BackupError(
            f"The database {found.dbname!r} already holds {row[0]} tables: restore into an "
            "empty one (a new data directory, or a new LEXROOM_DB_NAME / database)."
        )
    from core.db_backend.roles import roles_prepare

    # Only now, on a database found empty: the owner may create, the app role may not.
    roles_prepare(found.conninfo, owner=settings.LEXROOM_DB_OWNER_ROLE, app=found.app_role)


def _room_check(manifest: dict[str, Any], *, archive: Path, folder: Path, media: Path) -> None:
    """Refuse, before anything is extracted, a restore the disks cannot hold: the members are
    extracted into ``folder``, then the originals copied into ``media`` (on one disk, both)."""
    listed = manifest_bytes(manifest)
    if listed is None:  # before format 3 no size is signed: the archive's own size bounds it
        extracted = originals = archive.stat().st_size
    else:
        extracted = listed
        originals = sum(s for n, s in manifest["sizes"].items() if n.startswith(f"{MEDIA}/"))
    place = media
    while not place.exists() and place != place.parent:
        place = place.parent
    needed: dict[int, tuple[Path, int]] = {}
    for where, size in ((folder, extracted), (place, originals)):
        first, total = needed.get(where.stat().st_dev, (where, 0))
        needed[where.stat().st_dev] = (first, total + size)
    for where, size in needed.values():
        free = shutil.disk_usage(where).free
        if size > free:
            raise BackupError(
                _(
                    "Refused: restoring this archive needs %(needed).1f MiB in %(folder)s (its "
                    "manifest's members, extracted then copied) but only %(free).1f MiB are free."
                )
                % {"needed": size / (1 << 20), "folder": where, "free": free / (1 << 20)}
            )


def backup_restore(
    path: Path,
    *,
    dbname: str | None = None,
    media_root: Path | None = None,
    allow_unsigned: bool = False,
) -> dict[str, Any]:
    """Check the archive (signature, manifest, every member's SHA-256), restore it into an
    empty database and an empty originals directory, then check every table's count and
    checksum against the manifest. Returns the comparison."""
    media = Path(media_root or settings.MEDIA_ROOT)
    if media.exists() and any(p.is_file() for p in media.rglob("*")):
        raise BackupError(
            _("%(path)s already holds files: restore into an empty directory.") % {"path": media}
        )
    found = target(dbname)
    with tempfile.TemporaryDirectory() as folder:
        # Everything is checked before the database is touched: a refused archive changes nothing.
        with open_checked(path, allow_unsigned=allow_unsigned) as opened:
            _room_check(opened.manifest, archive=path, folder=Path(folder), media=media)
            check_members(opened, Path(folder))
        manifest = opened.manifest
        _empty_database(found)
        # As the owner role, not as the superuser: what an altered archive holds runs with
        # no superuser right (no COPY … TO PROGRAM, no C function); the owner owns it all.
        conninfo, env = _secretless(found.conninfo)
        _run([_program(found, "pg_restore"), "--exit-on-error", "--single-transaction",
              "--no-password", "--no-owner", "--no-privileges", "--no-comments",
              f"--role={settings.LEXROOM_DB_OWNER_ROLE}", f"--dbname={conninfo}",
              str(Path(folder) / DUMP)], env)  # fmt: skip
        from core.db_backend.roles import grants_apply

        grants_apply(found.conninfo, owner=settings.LEXROOM_DB_OWNER_ROLE, app=found.app_role)
        restored = Path(folder) / MEDIA
        if restored.exists():
            media.mkdir(parents=True, exist_ok=True)
            shutil.copytree(restored, media, dirs_exist_ok=True)
    digest = table_digest(found.conninfo)
    differences = {
        table: {"backup": expected, "restored": digest.get(table)}
        for table, expected in manifest["tables"].items()
        if digest.get(table) != expected
    }
    if differences:
        raise BackupError(
            _("The restored tables differ from the backup: %(differences)s")
            % {"differences": differences}
        )
    return {
        "database": found.dbname,
        "tables": len(digest),
        "rows": sum(t["rows"] for t in digest.values()),
        "files": sum(1 for name in manifest["members"] if name.startswith(f"{MEDIA}/")),
        "backup_created_at": manifest["created_at"],
        "signature": opened.signature,
        "encrypted": opened.encrypted,
        "checked": "the signature, every table's row count and checksum, every file's SHA-256",
    }
