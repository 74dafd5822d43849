"""Typed readers for environment variables that fail loudly, naming the variable.

A wrong value must stop the process at start-up with a message an operator can act on,
never silently fall back to a default.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no).")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be >= {minimum}.")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_secret(name: str, default: str = "") -> str:
    """Read a secret from NAME or from the file named by NAME_FILE (Docker/K8s secrets)."""
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        path = Path(file_name)
        if not path.is_file():
            raise ImproperlyConfigured(f"{name}_FILE={file_name!r} does not name a readable file.")
        return path.read_text().strip()
    return os.environ.get(name, default)


def env_path(name: str, default: Path) -> Path:
    raw = os.environ.get(name)
    return Path(raw).expanduser().resolve() if raw else default


def parse_database_url(name: str, url: str) -> dict[str, object]:
    """Turn postgres://user:pass@host:port/db?sslmode=require into a Django DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"{name} must start with postgres:// or postgresql:// (got scheme {parts.scheme!r})."
        )
    database = unquote(parts.path.lstrip("/"))
    if not database:
        raise ImproperlyConfigured(f"{name} must name a database (postgres://…/DBNAME).")
    options = dict(parse_qsl(parts.query))
    host = options.pop("host", parts.hostname or "")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured(f"{name} has an invalid port.") from None
    return {
        "NAME": database,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(port or ""),
        "OPTIONS": options,
    }
