"""Row-level security: one policy per tenant table, applied after every migrate.

A tenant table is any table with a ``workspace_id`` column, found in the catalogue rather
than from a list, so a new table cannot be left unprotected. The predicate reads
transaction-local settings written by :mod:`workspaces.tenancy`; with nothing set, a tenant
table shows no rows and accepts no writes.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

POLICY_NAME = "lexroom_tenant"

SETTING_WORKSPACE_IDS = "lexroom.workspace_ids"
SETTING_USER_ID = "lexroom.user_id"
SETTING_FIRM_ID = "lexroom.firm_id"

_FUNCTIONS_SQL = f"""
CREATE OR REPLACE FUNCTION lexroom_workspace_ids() RETURNS bigint[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(
    string_to_array(nullif(current_setting('{SETTING_WORKSPACE_IDS}', true), ''), ',')::bigint[],
    '{{}}'::bigint[])
$$;
CREATE OR REPLACE FUNCTION lexroom_user_id() RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT nullif(current_setting('{SETTING_USER_ID}', true), '')::bigint
$$;
CREATE OR REPLACE FUNCTION lexroom_firm_id() RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT nullif(current_setting('{SETTING_FIRM_ID}', true), '')::bigint
$$;
"""


def _extra_predicates() -> dict[str, str]:
    """Per-table additions to the workspace predicate, declared on the models."""
    extra: dict[str, str] = {}
    for model in apps.get_models():
        clauses = []
        user_column = getattr(model, "rls_user_column", None)
        if user_column:
            clauses.append(f"{user_column} = lexroom_user_id()")
        firm_column = getattr(model, "rls_firm_column", None)
        if firm_column:
            clauses.append(f"(workspace_id IS NULL AND {firm_column} = lexroom_firm_id())")
        if clauses:
            extra[model._meta.db_table] = " OR ".join(clauses)
    return extra


def tenant_predicate(table: str) -> str:
    predicate = "workspace_id = ANY (lexroom_workspace_ids())"
    extra = _extra_predicates().get(table)
    return f"{predicate} OR {extra}" if extra else predicate


def tenant_tables(connection: BaseDatabaseWrapper) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE a.attname = 'workspace_id' AND NOT a.attisdropped
              AND c.relkind IN ('r', 'p') AND n.nspname = current_schema()
            ORDER BY c.relname
            """
        )
        return [row[0] for row in cursor.fetchall()]


def rls_apply(connection: BaseDatabaseWrapper) -> list[str]:
    """(Re)create the policy on every tenant table; idempotent. Returns the tables."""
    quote = connection.ops.quote_name
    tables = tenant_tables(connection)
    with connection.cursor() as cursor:
        cursor.execute(_FUNCTIONS_SQL)
        for table in tables:
            predicate = tenant_predicate(table)
            cursor.execute(
                f"ALTER TABLE {quote(table)} ENABLE ROW LEVEL SECURITY;"
                f"ALTER TABLE {quote(table)} FORCE ROW LEVEL SECURITY;"
                f"DROP POLICY IF EXISTS {POLICY_NAME} ON {quote(table)};"
                # Same predicate for reads and writes: a row you cannot see, you cannot write.
                f"CREATE POLICY {POLICY_NAME} ON {quote(table)} "
                f"USING ({predicate}) WITH CHECK ({predicate});"
            )
    return tables


def rls_apply_all(sender: Any = None, using: str = "default", **kwargs: Any) -> None:
    rls_apply(connections[using])
