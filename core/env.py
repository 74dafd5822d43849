"""Typed readers for environment variables that fail loudly, naming the variable.

A wrong value must stop the process at start-up with a message an operator can act on,
never silently fall back to a default.
"""

from __future__ import annotations

import os
import re
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


def env_prices(name: str) -> dict[str, tuple[float, float]]:
    """A price table: ``model=input/output`` pairs, comma-separated, in a currency per
    million tokens (``qwen3:8b=0.02/0.06``). Empty: no prices (no cost is ever guessed)."""
    prices: dict[str, tuple[float, float]] = {}
    for entry in filter(None, (part.strip() for part in os.environ.get(name, "").split(","))):
        model, _, pair = entry.rpartition("=")
        tokens_in, _, tokens_out = pair.partition("/")
        try:
            price = (float(tokens_in), float(tokens_out))
        except ValueError:
            price = (-1.0, -1.0)
        if not model or min(price) < 0:
            raise ImproperlyConfigured(
                f"{name}: {entry!r} is not model=input/output (prices per million tokens, "
                "such as qwen3:8b=0.02/0.06)."
            )
        prices[model.strip()] = price
    return prices


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


_DOTENV_LINE = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


def dotenv_parse(text: str, *, source: str = ".env") -> dict[str, str]:
    """``KEY=VALUE`` lines, ``#`` comments, optional ``export`` and quotes; nothing else.

    No interpolation and no multi-line values: a line that is not understood stops the
    process, naming it, rather than being guessed at.
    """
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _DOTENV_LINE.match(stripped)
        value = _dotenv_value(match.group(2)) if match else None
        if match is None or value is None:
            raise ImproperlyConfigured(
                f"{source}, line {number}: {_without_value(stripped)!r} is not KEY=VALUE "
                "(a # starts a comment; quote values with ' or \")."
            )
        values[match.group(1)] = value
    return values


def _dotenv_value(raw: str) -> str | None:
    """A quoted value (only a comment may follow it) or a bare one; None when malformed."""
    if raw[:1] in {'"', "'"}:
        closing = raw.find(raw[0], 1)
        if closing < 0:
            return None
        rest = raw[closing + 1 :].strip()
        return raw[1:closing] if not rest or rest.startswith("#") else None
    # A bare value ends where a " #" comment starts, as in shell.
    return re.split(r"\s+#", raw, maxsplit=1)[0].strip()


def _without_value(line: str) -> str:
    """The line as an error may show it: never a value, which may be a secret."""
    name, equals, _value = line.partition("=")
    return name + "=…" if equals else line[:40] + ("…" if len(line) > 40 else "")


def dotenv_load(base_dir: Path) -> Path | None:
    """Put a .env file's values into the environment (variables already set win).

    The file is ``LEXROOM_ENV_FILE`` (relative to ``base_dir``; empty: none), else
    ``base_dir/.env`` when it exists, except under pytest, which sets PYTEST_VERSION for its
    own process and the commands tests start: tests never read a developer's .env.
    """
    explicit = os.environ.get("LEXROOM_ENV_FILE")
    if explicit is None:
        path = base_dir / ".env"
        if "PYTEST_VERSION" in os.environ or not path.is_file():
            return None
    elif explicit:
        path = base_dir / explicit
        if not path.is_file():
            raise ImproperlyConfigured(f"LEXROOM_ENV_FILE={explicit!r} does not name a file.")
    else:
        return None
    for name, value in dotenv_parse(path.read_text(encoding="utf-8"), source=str(path)).items():
        os.environ.setdefault(name, value)
    return path


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
