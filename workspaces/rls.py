"""Row-level security: one policy per tenant table, applied after every migrate.

A tenant table is any table with a ``workspace_id`` column, found in the catalogue rather
than from a list, so a new table cannot be left unprotected. The predicate reads
transaction-local settings written by :mod:`workspaces.tenancy`; with nothing set, a tenant
table shows no rows and accepts no writes.

The firms and workspaces tables get a policy of their own: inside a tenant scope they show
(and accept) only the scope's firm and the workspaces in scope, so a user's request cannot
read or write another firm's workspace even where a selector forgets to filter by firm. Outside
any scope (``migrate``, management commands, a worker looking up its task's workspace, the
sign-in page) and in an install superuser's scope, every firm is visible: these rows name
firms and workspaces, and no tenant table opens with them.
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
# "own": a tenant scope, which sees its firm only; "all": an install superuser's scope;
# unset or "": no scope (system work). See the module docstring.
SETTING_FIRMS = "lexroom.firms"

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
CREATE OR REPLACE FUNCTION lexroom_all_firms() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(current_setting('{SETTING_FIRMS}', true), '') IN ('', 'all')
$$;
"""

# The firm-level tables: (table, predicate). A workspace of the scope's firm, or one named by
# the scope; a firm that is the scope's, or owns a workspace of the scope.
FIRM_TABLES = (
    (
        "workspaces_workspace",
        "lexroom_all_firms() OR firm_id = lexroom_firm_id() OR id = ANY (lexroom_workspace_ids())",
    ),
    (
        "workspaces_firm",
        "lexroom_all_firms() OR id = lexroom_firm_id() OR id IN (SELECT w.firm_id "
        "FROM workspaces_workspace w WHERE w.id = ANY (lexroom_workspace_ids()))",
    ),
)


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
    """(Re)create the policy on every tenant table and the firm-level tables; idempotent.
    Returns the tables."""
    quote = connection.ops.quote_name
    policies = [(table, tenant_predicate(table)) for table in tenant_tables(connection)]
    existing = set(connection.introspection.table_names())
    policies += [(table, predicate) for table, predicate in FIRM_TABLES if table in existing]
    with connection.cursor() as cursor:
        cursor.execute(_FUNCTIONS_SQL)
        for table, predicate in policies:
            cursor.execute(
                f"ALTER TABLE {quote(table)} ENABLE ROW LEVEL SECURITY;"
                f"ALTER TABLE {quote(table)} FORCE ROW LEVEL SECURITY;"
                f"DROP POLICY IF EXISTS {POLICY_NAME} ON {quote(table)};"
                # Same predicate for reads and writes: a row you cannot see, you cannot write.
                f"CREATE POLICY {POLICY_NAME} ON {quote(table)} "
                f"USING ({predicate}) WITH CHECK ({predicate});"
            )
    return [table for table, _predicate in policies]


def rls_apply_all(sender: Any = None, using: str = "default", **kwargs: Any) -> None:
    rls_apply(connections[using])
