"""`migrate`, plus what a new database needs first: roles, extensions, checks.

With the embedded server the roles and extensions are made when it starts; with an
external server they are made here when DATABASE_ADMIN_URL gives a superuser, and
otherwise only checked. Row-level security policies follow in post_migrate.

Least privilege (core/db_backend/roles.py): when an admin connection exists (always with
the embedded server), the migrations run as the owner role, which then owns every table, and
the app role is granted rows only. Without one (an external server and no
DATABASE_ADMIN_URL), the app role runs them and owns the tables, and a warning says so.
``LEXROOM_DB_SINGLE_ROLE=1`` (the test suite's databases) keeps that single-role layout.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from core.db_backend.checks import (
    DatabaseNotReady,
    check_app_role,
    ensure_extensions,
    fulltext_index_usable,
)
from core.db_backend.roles import admin_conninfo, as_owner, grants_apply, roles_prepare
from core.db_backend.server import bootstrap_database

SINGLE_ROLE_WARNING = (
    "No admin connection (DATABASE_ADMIN_URL): the migrations run as the app role, which "
    "therefore owns the tables and could switch row-level security off. Set "
    "DATABASE_ADMIN_URL to split owner and runtime roles (see the README, Security model)."
)


class Command(DjangoMigrate):
    def execute(self, *args: Any, **options: Any) -> str | None:
        # Before Django's checks connect as the app role: on a new external server the role
        # is made here.
        connection = connections[options.get("database") or "default"]
        if settings.DATABASE_ADMIN_URL and not settings.LEXROOM_EMBEDDED_DB:
            bootstrap_database(
                settings.DATABASE_ADMIN_URL,
                dbname=connection.settings_dict["NAME"],
                app_role=connection.settings_dict["USER"],
                app_password=connection.settings_dict["PASSWORD"],
                create_db=False,
                owner_role=settings.LEXROOM_DB_OWNER_ROLE,
            )
        result: str | None = super().execute(*args, **options)
        return result

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[options["database"]]
        try:
            check_app_role(connection)
            ensure_extensions(connection)
        except DatabaseNotReady as exc:
            raise CommandError(str(exc)) from exc
        admin = (
            None
            if os.environ.get("LEXROOM_DB_SINGLE_ROLE") == "1"
            else (admin_conninfo(connection.settings_dict["NAME"]))
        )
        if admin is None:
            if not os.environ.get("LEXROOM_DB_SINGLE_ROLE"):
                self.stderr.write(self.style.WARNING(SINGLE_ROLE_WARNING))
            self._migrate(connection, *args, **options)
            return
        app, owner = connection.settings_dict["USER"], settings.LEXROOM_DB_OWNER_ROLE
        roles_prepare(admin, owner=owner, app=app)
        with as_owner(connection, admin):
            self._migrate(connection, *args, **options)
        grants_apply(admin, owner=owner, app=app)

    def _migrate(self, connection: BaseDatabaseWrapper, *args: Any, **options: Any) -> None:
        super().handle(*args, **options)
        advice = fulltext_index_usable(connection)
        if advice:
            self.stderr.write(self.style.WARNING(advice))
        # The shared cache table (worker liveness for the CLI); idempotent.
        call_command("createcachetable", database=options["database"], verbosity=0)
