"""Configuration fails loudly, naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_secret, parse_database_url

ROOT = Path(__file__).resolve().parent.parent


def _import_settings(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    return subprocess.run(
        [sys.executable, "-c", "import config.settings"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_secret_key_is_required_without_debug():
    result = _import_settings(DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_bad_boolean_names_the_variable():
    result = _import_settings(DEBUG="maybe")
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr


def test_settings_import_with_secret_and_debug_off():
    assert _import_settings(DEBUG="0", SECRET_KEY="x" * 50).returncode == 0


def test_env_helpers(monkeypatch, tmp_path):
    monkeypatch.setenv("LX_INT", "12x")
    with pytest.raises(ImproperlyConfigured, match="LX_INT"):
        env_int("LX_INT", 1)
    monkeypatch.setenv("LX_INT", "0")
    with pytest.raises(ImproperlyConfigured, match=">= 1"):
        env_int("LX_INT", 1, minimum=1)
    monkeypatch.setenv("LX_BOOL", "yes")
    assert env_bool("LX_BOOL") is True
    secret_file = tmp_path / "secret"
    secret_file.write_text("from-file\n")
    monkeypatch.setenv("LX_SECRET_FILE", str(secret_file))
    assert env_secret("LX_SECRET") == "from-file"
    monkeypatch.setenv("LX_SECRET_FILE", str(tmp_path / "missing"))
    with pytest.raises(ImproperlyConfigured, match="LX_SECRET_FILE"):
        env_secret("LX_SECRET")


def test_database_url_parsing():
    parsed = parse_database_url(
        "DATABASE_URL", "postgresql://app:p%40ss@db.internal:6543/lexroom?sslmode=require"
    )
    assert parsed["USER"] == "app"
    assert parsed["PASSWORD"] == "p@ss"
    assert parsed["HOST"] == "db.internal"
    assert parsed["PORT"] == "6543"
    assert parsed["OPTIONS"] == {"sslmode": "require"}
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL must start with postgres"):
        parse_database_url("DATABASE_URL", "mysql://x/y")
    with pytest.raises(ImproperlyConfigured, match="must name a database"):
        parse_database_url("DATABASE_URL", "postgres://host")
