"""Backup and restore of a whole install: the database and the originals, in one archive.

``backup_write`` runs ``pg_dump`` (custom format) as a superuser — the embedded server's own
binaries and socket, or an external server's ``DATABASE_ADMIN_URL`` — then copies the
originals directory, and writes a manifest: versions, each member's SHA-256, and per table a
row count and an order-free checksum of its rows. The dump is taken first: every document it
holds had its original stored before its row was committed, so every original it needs is in
the archive. ``backup_restore`` refuses a database that holds tables or an originals
directory that holds files (nothing is overwritten), checks every checksum, restores, and
compares the counts and checksums of every table with the manifest's.

The archive is a plain tar: ``database.dump``, ``media/…``, ``manifest.json``.
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
from psycopg import sql

FORMAT = 1
DUMP, MANIFEST, MEDIA = "database.dump", "manifest.json", "media"
CHUNK = 1 << 20


class BackupError(Exception):
    """The backup or the restore cannot go on; the message says why (nothing was changed)."""


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

        from config.db_backend.server import ensure_embedded_server

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


def table_digest(conninfo: str) -> dict[str, dict[str, int]]:
    """Per table of the public schema: rows, and the sum of the rows' 64-bit hashes (order
    free, streamed: no table is held in memory). Read as a superuser: RLS hides nothing."""
    digest: dict[str, dict[str, int]] = {}
    with psycopg.connect(conninfo) as conn:
        conn.execute("SET search_path = pg_catalog")
        tables = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ).fetchall()
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


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _server_version(conninfo: str) -> str:
    with psycopg.connect(conninfo) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else ""


def backup_write(path: Path, *, media_root: Path | None = None) -> dict[str, Any]:
    """Write the archive at ``path`` (refused if it exists); returns the manifest."""
    if path.exists():
        raise BackupError(f"{path} exists: a backup never overwrites a file.")
    found = target()
    media = Path(media_root or settings.MEDIA_ROOT)
    with tempfile.TemporaryDirectory(prefix="lexroom-backup-") as folder:
        dump = Path(folder) / DUMP
        conninfo, env = _secretless(found.conninfo)
        _run([_program(found, "pg_dump"), "--format=custom", "--no-password",
              f"--file={dump}", f"--dbname={conninfo}"], env)  # fmt: skip
        digest = table_digest(found.conninfo)
        files = sorted(p for p in media.rglob("*") if p.is_file()) if media.exists() else []
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "lexroom": "0.1.0",
            "django": django.get_version(),
            "postgres": _server_version(found.conninfo),
            "pg_dump": _run([_program(found, "pg_dump"), "--version"]).strip(),
            "database": found.dbname,
            "tables": digest,
            "members": {DUMP: _sha256(dump)},
        }
        partial = path.with_name(path.name + ".partial")
        # Every firm's data and the password and token hashes: readable by its owner only.
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as raw, tarfile.open(fileobj=raw, mode="w") as archive:
            archive.add(dump, DUMP)
            for file in files:
                name = str(PurePosixPath(MEDIA, file.relative_to(media).as_posix()))
                manifest["members"][name] = _sha256(file)
                archive.add(file, name)
            data = json.dumps(manifest, indent=1, sort_keys=True).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        partial.rename(path)  # a crash mid-way never leaves a file that looks complete
    return manifest


def _manifest(archive: tarfile.TarFile) -> dict[str, Any]:
    try:
        member = archive.getmember(MANIFEST)
        handle = archive.extractfile(member)
        manifest = json.loads(handle.read()) if handle else None
    except (KeyError, ValueError) as exc:
        raise BackupError(f"Not a Lexroom backup (no readable {MANIFEST}): {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"Unknown backup format: {manifest.get('format') if manifest else None}")
    return manifest


def _safe_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise BackupError(f"Refused: the member {name!r} points outside the restore folder.")
    return path


def _extract_checked(archive: tarfile.TarFile, manifest: dict[str, Any], folder: Path) -> None:
    """Every member the manifest lists, extracted and checked against its SHA-256."""
    expected = manifest.get("members") or {}
    for member in archive.getmembers():
        if member.name == MANIFEST:
            continue
        name = _safe_name(member.name)
        if not member.isfile() or member.name not in expected:
            raise BackupError(f"Refused: {member.name!r} is not a file the manifest lists.")
        destination = folder.joinpath(*name.parts)
        destination.parent.mkdir(parents=True, exist_ok=True)
        source = archive.extractfile(member)
        if source is None:
            raise BackupError(f"{member.name}: cannot be read.")
        with destination.open("wb") as handle:
            shutil.copyfileobj(source, handle, CHUNK)
        if _sha256(destination) != expected[member.name]:
            raise BackupError(f"{member.name}: its checksum differs from the manifest's.")
    missing = sorted(set(expected) - {m.name for m in archive.getmembers()})
    if missing:
        raise BackupError(f"The archive lacks {len(missing)} member(s): {missing[:3]}")


def _empty_database(found: Target) -> None:
    """Create the database if missing; refuse one that holds any table."""
    from config.db_backend.server import bootstrap_database

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
    from config.db_backend.roles import roles_prepare

    # Only now, on a database found empty: the owner may create, the app role may not.
    roles_prepare(found.conninfo, owner=settings.LEXROOM_DB_OWNER_ROLE, app=found.app_role)


def backup_restore(
    path: Path, *, dbname: str | None = None, media_root: Path | None = None
) -> dict[str, Any]:
    """Restore the archive into an empty database and an empty originals directory, then
    check every table's count and checksum against the manifest. Returns the comparison."""
    media = Path(media_root or settings.MEDIA_ROOT)
    if media.exists() and any(p.is_file() for p in media.rglob("*")):
        raise BackupError(f"{media} already holds files: restore into an empty directory.")
    found = target(dbname)
    with tarfile.open(path, "r") as archive, tempfile.TemporaryDirectory() as folder:
        manifest = _manifest(archive)
        _extract_checked(archive, manifest, Path(folder))
        _empty_database(found)
        # As the owner role, not as the superuser: what an altered archive holds runs with
        # no superuser right (no COPY … TO PROGRAM, no C function); the owner owns it all.
        conninfo, env = _secretless(found.conninfo)
        _run([_program(found, "pg_restore"), "--exit-on-error", "--single-transaction",
              "--no-password", "--no-owner", "--no-privileges", "--no-comments",
              f"--role={settings.LEXROOM_DB_OWNER_ROLE}", f"--dbname={conninfo}",
              str(Path(folder) / DUMP)], env)  # fmt: skip
        from config.db_backend.roles import grants_apply

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
        raise BackupError(f"The restored tables differ from the backup: {differences}")
    return {
        "database": found.dbname,
        "tables": len(digest),
        "rows": sum(t["rows"] for t in digest.values()),
        "files": sum(1 for name in manifest["members"] if name.startswith(f"{MEDIA}/")),
        "backup_created_at": manifest["created_at"],
        "checked": "every table's row count and checksum, every file's SHA-256",
    }
