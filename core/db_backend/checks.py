"""Checks that a database is fit for Lexroom, with messages an operator can act on."""

from __future__ import annotations

from django.db import transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from core.db_backend.server import LEAKPROOF_FULLTEXT

REQUIRED_EXTENSIONS = ("vector", "pg_trgm")
MINIMUM_SERVER_VERSION = 150000


class DatabaseNotReady(RuntimeError):
    pass


def check_app_role(connection: BaseDatabaseWrapper) -> None:
    """Row-level security only binds a role that is neither superuser nor BYPASSRLS."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, rolsuper, rolbypassrls,"
            " current_setting('server_version_num')::int"
            " FROM pg_roles WHERE rolname = current_user"
        )
        role, superuser, bypass, version = cursor.fetchone()
    if version < MINIMUM_SERVER_VERSION:
        raise DatabaseNotReady(f"Postgres >= 15 is required; this server is {version}.")
    if superuser or bypass:
        raise DatabaseNotReady(
            f"The database role {role!r} is a superuser or has BYPASSRLS, so row-level security "
            "would not isolate workspaces. Point DATABASE_URL at a dedicated role, e.g. "
            f"CREATE ROLE lexroom_app LOGIN PASSWORD '…' NOSUPERUSER NOBYPASSRLS; and keep "
            "the superuser URL in DATABASE_ADMIN_URL for migrate."
        )


def ensure_extensions(connection: BaseDatabaseWrapper) -> None:
    """Create the extensions when allowed; otherwise fail saying what the DBA must run."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT extname FROM pg_extension")
        present = {row[0] for row in cursor.fetchall()}
        for name in REQUIRED_EXTENSIONS:
            if name in present:
                continue
            try:
                with transaction.atomic(using=connection.alias), connection.cursor() as inner:
                    inner.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
            except Exception as exc:
                raise DatabaseNotReady(
                    f"The Postgres extension {name!r} is missing in database "
                    f"{connection.settings_dict['NAME']!r} and this role may not create it "
                    f"({exc.__class__.__name__}). As a superuser, run: CREATE EXTENSION {name}; "
                    "or set DATABASE_ADMIN_URL so that migrate can do it."
                ) from exc


def fulltext_index_usable(connection: BaseDatabaseWrapper) -> str | None:
    """None when full-text matching can use its GIN index under row-level security; else
    what a superuser must run (searches still work, scanning the whole workspace)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT proleakproof FROM pg_proc WHERE oid = "
            "'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure"
        )
        row = cursor.fetchone()
    if row and row[0]:
        return None
    return (
        "Full-text search cannot use its index under row-level security on this database, so "
        "each search scans the workspace's chunks. As a superuser, run: "
        f"{LEAKPROOF_FULLTEXT}; (or set DATABASE_ADMIN_URL so that migrate does it)."
    )
