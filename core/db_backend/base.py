"""Django's postgresql backend, pointed at the embedded server's socket on first connect."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.db.backends.postgresql import base

from core.db_backend.server import bootstrap_database, ensure_embedded_server

_bootstrapped: set[str] = set()
_bootstrap_lock = threading.Lock()


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        server = ensure_embedded_server(settings.LEXROOM_DATA_DIR)
        # The app role of the settings, never the connection's user: migrate connects as the
        # superuser (core.db_backend.roles.as_owner), which must not become the app role.
        role = settings.LEXROOM_DB_APP_ROLE
        with _bootstrap_lock:  # the first connections of a process's threads, once
            if role not in _bootstrapped:
                bootstrap_database(
                    server.superuser_conninfo(),
                    dbname=settings.LEXROOM_DB_NAME,
                    app_role=role,
                    app_password="",
                    create_db=True,
                    owner_role=settings.LEXROOM_DB_OWNER_ROLE,
                )
                _bootstrapped.add(role)
        params["host"] = str(server.socket_dir)
        params.pop("port", None)
        return params
