"""Least privilege in the database: ``migrate`` (in a process of its own, on a database of
its own) makes the owner role own every table and the database, and grants the app role
rows only: the role the app connects with cannot switch row-level security off, drop or
create a table, yet reads and writes rows as before."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg import errors, sql

from core.db_backend.roles import admin_conninfo

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def database() -> str:
    name = f"lp_{uuid.uuid4().hex[:10]}"
    yield name
    maintenance = admin_conninfo("postgres")
    assert maintenance is not None
    with psycopg.connect(maintenance, autocommit=True) as conn:
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
        conn.execute(drop.format(sql.Identifier(name)))


def _migrate(name: str) -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "test",
           "LEXROOM_DB_NAME": name, "LEXROOM_DB_SINGLE_ROLE": "0"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def test_migrate_gives_the_tables_to_the_owner_and_rows_to_the_app(database):
    if not settings.LEXROOM_EMBEDDED_DB:
        pytest.skip("run against the embedded server (an external one needs DATABASE_ADMIN_URL)")
    _migrate(database)
    admin = admin_conninfo(database)
    assert admin is not None
    with psycopg.connect(admin) as conn:
        owners = dict(conn.execute(
            "SELECT tableowner, count(*) FROM pg_tables WHERE schemaname = 'public' GROUP BY 1"
        ).fetchall())  # fmt: skip
        database_owner = conn.execute(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", [database]
        ).fetchone()
    assert (
        set(owners) == {settings.LEXROOM_DB_OWNER_ROLE}
        and owners[settings.LEXROOM_DB_OWNER_ROLE] > 40
    )
    assert database_owner == (settings.LEXROOM_DB_OWNER_ROLE,)
    app = psycopg.conninfo.make_conninfo(admin, user=settings.LEXROOM_DB_APP_ROLE)
    with psycopg.connect(app) as conn:
        for statement in (
            "ALTER TABLE documents_document NO FORCE ROW LEVEL SECURITY",
            "DROP POLICY IF EXISTS lexroom_tenant ON documents_document",
            "DROP TABLE documents_chunk",
            "CREATE TABLE sneaky (x int)",
            "TRUNCATE documents_document",
        ):
            with pytest.raises(errors.InsufficientPrivilege), conn.transaction():
                conn.execute(statement)
        # Rows as before: reads filtered by RLS (no workspace set: none), writes allowed.
        assert conn.execute("SELECT count(*) FROM documents_document").fetchone() == (0,)
        with conn.transaction(force_rollback=True):
            conn.execute(
                "INSERT INTO workspaces_firm (name, language, created_at) VALUES ('T', '', now())"
            )


def test_a_second_migrate_keeps_the_split_and_adopts_an_old_layout(database):
    if not settings.LEXROOM_EMBEDDED_DB:
        pytest.skip("run against the embedded server")
    _migrate(database)
    admin = admin_conninfo(database)
    assert admin is not None
    with psycopg.connect(admin, autocommit=True) as conn:  # as before the split
        conn.execute(sql.SQL("ALTER TABLE documents_document OWNER TO {}").format(
            sql.Identifier(settings.LEXROOM_DB_APP_ROLE)))  # fmt: skip
    _migrate(database)
    with psycopg.connect(admin) as conn:
        owner = conn.execute(
            "SELECT tableowner FROM pg_tables WHERE tablename = 'documents_document'"
        ).fetchone()
    assert owner == (settings.LEXROOM_DB_OWNER_ROLE,)
