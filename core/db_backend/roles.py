"""Least privilege in the database: an owner role that runs the migrations and owns every
table, and the runtime role the app connects with, which only reads and writes rows.

The runtime role owns nothing, so it cannot ``ALTER TABLE … NO FORCE ROW LEVEL SECURITY``,
drop a policy or a table: a bug or an injection in the app cannot switch tenancy off. The
owner role cannot log in; ``migrate`` reaches it through the admin connection (the embedded
server's superuser, or ``DATABASE_ADMIN_URL``) with ``SET ROLE``, so RLS, which FORCE makes
bind the owner too, still applies to what the migrations read.

A database created before the split (the app role owned its tables) is adopted on the next
``migrate``: everything the app role owns in the schema passes to the owner role.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg import sql

from core.env import parse_database_url

ROW_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE"
SEQUENCE_PRIVILEGES = "USAGE, SELECT, UPDATE"
# Every object of the schema the app role owns (tables, sequences, views, functions).
_ADOPT = """
DO $$
DECLARE item record;
BEGIN
  FOR item IN
    SELECT format('ALTER %s %s OWNER TO %I',
                  CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                                 WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END,
                  c.oid::regclass, {owner}) AS statement
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
      AND pg_get_userbyid(c.relowner) = {app}
      AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d
               WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
  LOOP EXECUTE item.statement; END LOOP;
  FOR item IN
    SELECT format('ALTER FUNCTION %s OWNER TO %I', p.oid::regprocedure, {owner}) AS statement
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) = {app}
  LOOP EXECUTE item.statement; END LOOP;
END $$;
"""


def owner_role() -> str:
    return str(settings.LEXROOM_DB_OWNER_ROLE)


def admin_conninfo(dbname: str) -> str | None:
    """A superuser connection to ``dbname``: the embedded server's, or DATABASE_ADMIN_URL's."""
    if settings.LEXROOM_EMBEDDED_DB:
        from pathlib import Path

        from core.db_backend.server import ensure_embedded_server

        return ensure_embedded_server(Path(settings.LEXROOM_DATA_DIR)).superuser_conninfo(dbname)
    if not settings.DATABASE_ADMIN_URL:
        return None
    params = psycopg.conninfo.conninfo_to_dict(settings.DATABASE_ADMIN_URL)
    return psycopg.conninfo.make_conninfo(**{**params, "dbname": dbname})  # type: ignore[arg-type]


def roles_prepare(admin: str, *, owner: str, app: str) -> None:
    """The owner role (no login), the schema's privileges, and the adoption of what the app
    role owns. Idempotent."""
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [owner]).fetchone()
        verb = sql.SQL("ALTER" if exists else "CREATE")
        conn.execute(
            sql.SQL("{} ROLE {} NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB").format(
                verb, sql.Identifier(owner)
            )
        )
        conn.execute(
            sql.SQL("GRANT USAGE, CREATE ON SCHEMA public TO {}").format(sql.Identifier(owner))
        )
        conn.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM {}").format(sql.Identifier(app)))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(sql.Identifier(app)))
        conn.execute(sql.SQL(_ADOPT).format(owner=sql.Literal(owner), app=sql.Literal(app)))
        database = conn.execute("SELECT current_database()").fetchone()
        if database is not None:
            conn.execute(
                sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                    sql.Identifier(database[0]), sql.Identifier(owner)
                )
            )


def grants_apply(admin: str, *, owner: str, app: str) -> None:
    """Rows to the app role, on every table now and on those the owner creates later."""
    names = {"owner": sql.Identifier(owner), "app": sql.Identifier(app)}
    statements = [
        f"GRANT {ROW_PRIVILEGES} ON ALL TABLES IN SCHEMA public TO {{app}}",
        f"GRANT {SEQUENCE_PRIVILEGES} ON ALL SEQUENCES IN SCHEMA public TO {{app}}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA public "
        f"GRANT {ROW_PRIVILEGES} ON TABLES TO {{app}}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA public "
        f"GRANT {SEQUENCE_PRIVILEGES} ON SEQUENCES TO {{app}}",
    ]
    with psycopg.connect(admin, autocommit=True) as conn:
        for statement in statements:
            conn.execute(sql.SQL(statement).format(**names))


@contextmanager
def as_owner(connection: BaseDatabaseWrapper, admin: str) -> Iterator[None]:
    """The Django connection, for the block, as the admin login with ``SET ROLE owner``."""
    saved = {
        key: connection.settings_dict.get(key)
        for key in ("USER", "PASSWORD", "HOST", "PORT", "OPTIONS")
    }
    params = psycopg.conninfo.conninfo_to_dict(admin)
    options: dict[str, Any] = dict(connection.settings_dict.get("OPTIONS") or {})
    options["options"] = f"-c role={owner_role()}"
    # The owner's connection is never pooled: a pool (LEXROOM_DB_POOL_MAX_SIZE) keeps the
    # credentials it was made with, and must not hand the owner's login to the app later.
    options.pop("pool", None)
    connection.close()
    _close_pool(connection)
    connection.settings_dict.update(
        USER=params.get("user", ""),
        PASSWORD=params.get("password", "") or "",
        OPTIONS=options,
    )
    if not settings.LEXROOM_EMBEDDED_DB:
        admin_db = parse_database_url("DATABASE_ADMIN_URL", settings.DATABASE_ADMIN_URL)
        connection.settings_dict.update(HOST=admin_db["HOST"], PORT=admin_db["PORT"])
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def _close_pool(connection: BaseDatabaseWrapper) -> None:
    close_pool = getattr(connection, "close_pool", None)  # postgresql backends only
    if close_pool is not None:
        close_pool()


@contextmanager
def as_table_owner(connection: BaseDatabaseWrapper) -> Iterator[None]:
    """For the benchmarks that drop and rebuild the shared indexes: the connection as the
    owner role when the app role does not own the tables (the split layout) and an admin
    connection exists; otherwise as it is. Row-level security still applies (FORCE)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tableowner = current_user FROM pg_tables WHERE tablename = 'documents_chunk'"
        )
        row = cursor.fetchone()
    admin = admin_conninfo(connection.settings_dict["NAME"])
    if (row and row[0]) or admin is None:
        yield
        return
    with as_owner(connection, admin):
        yield
