"""`migrate`, plus what a new database needs first: app role, extensions, checks.

With the embedded server the role and extensions are made when it starts; with an
external server they are made here when DATABASE_ADMIN_URL gives a superuser, and
otherwise only checked. Row-level security policies follow in post_migrate.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

from config.db_backend.checks import (
    DatabaseNotReady,
    check_app_role,
    ensure_extensions,
    fulltext_index_usable,
)
from config.db_backend.server import bootstrap_database


class Command(DjangoMigrate):
    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[options["database"]]
        if settings.DATABASE_ADMIN_URL and not settings.LEXROOM_EMBEDDED_DB:
            bootstrap_database(
                settings.DATABASE_ADMIN_URL,
                dbname=connection.settings_dict["NAME"],
                app_role=connection.settings_dict["USER"],
                app_password=connection.settings_dict["PASSWORD"],
                create_db=False,
            )
        try:
            check_app_role(connection)
            ensure_extensions(connection)
        except DatabaseNotReady as exc:
            raise CommandError(str(exc)) from exc
        super().handle(*args, **options)
        advice = fulltext_index_usable(connection)
        if advice:
            self.stderr.write(self.style.WARNING(advice))
        # The shared cache table (worker liveness for the CLI); idempotent.
        call_command("createcachetable", database=options["database"], verbosity=0)
