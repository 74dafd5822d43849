"""Lexroom settings: one module, driven by environment variables (see README, Configuration)."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import django_stubs_ext
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from core.env import (
    dotenv_load,
    env_bool,
    env_int,
    env_list,
    env_path,
    env_secret,
    env_str,
    parse_database_url,
)

# Lets generic classes (ModelAdmin[User], QuerySet[...]) be subscripted at run time.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
# The folder holding templates/, static/, locale/ and demo/: the top of a checkout, or this
# package in an installed wheel (setup.py copies them there).
_PACKAGED_SITE = Path(__file__).resolve().parent
SITE_DIR = _PACKAGED_SITE if (_PACKAGED_SITE / "templates").is_dir() else BASE_DIR

# A local .env (`make run` writes one) fills in what the environment leaves unset.
ENV_FILE = dotenv_load(BASE_DIR)
# Never wait on a model hub that may be unreachable: models come from the local cache,
# a path or a package unless downloads are allowed explicitly.
if not env_bool("LEXROOM_ALLOW_MODEL_DOWNLOAD", default=False):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_secret("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY (or SECRET_KEY_FILE) is required when DEBUG is off. "
            "Generate one with: python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    SECRET_KEY = "insecure-development-key-only-used-with-DEBUG"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Behind a TLS-terminating proxy: trust its X-Forwarded-Proto header.
if env_bool("LEXROOM_BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # Browsers then refuse plain http to this host for a year (0: no HSTS header). Only
    # sent on https requests, so a test over http never pins a developer's localhost.
    SECURE_HSTS_SECONDS = env_int("LEXROOM_HSTS_SECONDS", 31_536_000, minimum=0)
    # Off by default: other services of the firm's domain may still be on plain http.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("LEXROOM_HSTS_INCLUDE_SUBDOMAINS", default=False)

LEXROOM_DATA_DIR = env_path("LEXROOM_DATA_DIR", BASE_DIR / "var")

INSTALLED_APPS = [
    # Our apps first so that their management commands (migrate) take precedence.
    "workspaces",
    "documents",
    "search",
    "compliance",
    "sources",
    "agents",
    "workspaces.admin_config.LexroomAdminConfig",  # django.contrib.admin, throttled login
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "django_q",
    "csp",  # django-csp: its system checks (old-style settings)
]
LAB_IMPORTABLE = importlib.util.find_spec("lab") is not None
# The measurement lab (bench_*, eval_*, fuzz): a checkout (dev, tests, CI) has the package, the
# product wheel does not, so an installed product never lists it whatever the variable says.
LEXROOM_LAB = env_bool("LEXROOM_LAB", default=LAB_IMPORTABLE)
if LEXROOM_LAB and LAB_IMPORTABLE:
    INSTALLED_APPS.insert(INSTALLED_APPS.index("agents") + 1, "lab")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Below WhiteNoise, so static files keep their cache lifetimes and carry no policy.
    "csp.middleware.CSPMiddleware",
    "core.middleware.SecurityHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "workspaces.middleware.LanguageMiddleware",
    "workspaces.middleware.TenantMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "workspaces.middleware.HtmxVaryMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database: embedded Postgres by default, any Postgres >= 15 with pgvector via DATABASE_URL.
LEXROOM_DB_APP_ROLE = env_str("LEXROOM_DB_APP_ROLE", "lexroom_app")
# Owns the tables and runs the migrations (no login: migrate reaches it with SET ROLE from the
# admin connection); the app role only reads and writes rows. See core/db_backend/roles.py.
LEXROOM_DB_OWNER_ROLE = env_str("LEXROOM_DB_OWNER_ROLE", "lexroom_owner")
for _role in (LEXROOM_DB_APP_ROLE, LEXROOM_DB_OWNER_ROLE):
    # They go into SQL and a libpq option: plain names only.
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", _role):
        raise ImproperlyConfigured(f"Database role {_role!r}: use lower-case letters, digits, _.")
LEXROOM_DB_NAME = env_str("LEXROOM_DB_NAME", "lexroom")
DATABASE_URL = env_secret("DATABASE_URL")
# Optional superuser connection that `migrate` uses to create the app role, extensions and
# grants on an external server. Without it, migrate only checks that they exist.
DATABASE_ADMIN_URL = env_secret("DATABASE_ADMIN_URL")
# Backups (workspaces/backup.py): the manifest's HMAC key, and an optional key that encrypts
# the whole archive. Short keys are refused: a guessable one would sign a forged archive.
LEXROOM_BACKUP_KEY = env_secret("LEXROOM_BACKUP_KEY")
LEXROOM_BACKUP_ENCRYPTION_KEY = env_secret("LEXROOM_BACKUP_ENCRYPTION_KEY")
for _backup_key in ("LEXROOM_BACKUP_KEY", "LEXROOM_BACKUP_ENCRYPTION_KEY"):
    if 0 < len(globals()[_backup_key]) < 32:
        raise ImproperlyConfigured(
            f"{_backup_key} must be at least 32 characters (e.g. the output of "
            "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)."
        )
LEXROOM_EMBEDDED_DB = not DATABASE_URL

if DATABASE_URL:
    _database: dict[str, object] = {
        "ENGINE": "django.db.backends.postgresql",
        **parse_database_url("DATABASE_URL", DATABASE_URL),
    }
else:
    _database = {
        "ENGINE": "core.db_backend",
        "NAME": LEXROOM_DB_NAME,
        "USER": LEXROOM_DB_APP_ROLE,
        "PASSWORD": "",
        "HOST": "",  # the socket directory, filled in when the embedded server starts
        "PORT": "",
        "OPTIONS": {},
    }
_database["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0)
_database["CONN_HEALTH_CHECKS"] = True
# Connections per process (psycopg_pool): 0, none (one connection per thread at work, closed
# after each request). Size it so that web processes x this + task workers + the reserve
# (migrate, the admin's shell, backups) stays under the server's max_connections (100 for the
# embedded server): docs/security/streams-and-connections.md.
LEXROOM_DB_POOL_MAX_SIZE = env_int("LEXROOM_DB_POOL_MAX_SIZE", 0, minimum=0)
LEXROOM_DB_POOL_MIN_SIZE = env_int("LEXROOM_DB_POOL_MIN_SIZE", 2, minimum=0)
# A request that finds the pool empty this long fails (a 500) rather than queue for ever.
LEXROOM_DB_POOL_TIMEOUT = env_int("LEXROOM_DB_POOL_TIMEOUT", 10, minimum=1)
if LEXROOM_DB_POOL_MAX_SIZE:
    if _database["CONN_MAX_AGE"]:
        raise ImproperlyConfigured(
            "LEXROOM_DB_POOL_MAX_SIZE needs DATABASE_CONN_MAX_AGE=0 (the pool keeps them)."
        )
    _database["OPTIONS"] = {
        **_database["OPTIONS"],  # type: ignore[dict-item]
        "pool": {
            "min_size": min(LEXROOM_DB_POOL_MIN_SIZE, LEXROOM_DB_POOL_MAX_SIZE),
            "max_size": LEXROOM_DB_POOL_MAX_SIZE,
            "timeout": LEXROOM_DB_POOL_TIMEOUT,
        },
    }
_database["TEST"] = {"NAME": env_str("LEXROOM_TEST_DB_NAME", "") or None}
DATABASES = {"default": _database}
# Optional hot-standby replica for search reads (search/replica.py): the app role's URL on it.
DATABASE_REPLICA_URL = env_secret("DATABASE_REPLICA_URL")
if DATABASE_REPLICA_URL:
    _replica: dict[str, object] = {
        "ENGINE": "django.db.backends.postgresql",
        **parse_database_url("DATABASE_REPLICA_URL", DATABASE_REPLICA_URL),
        "CONN_MAX_AGE": _database["CONN_MAX_AGE"],
        "CONN_HEALTH_CHECKS": True,
        # Tests run on the primary's test database: there is no test copy of a standby.
        "TEST": {"MIRROR": "default"},
    }
    _replica["OPTIONS"] = {"connect_timeout": 2, **_replica["OPTIONS"]}  # type: ignore[dict-item]
    DATABASES["replica"] = _replica
DATABASE_ROUTERS = ["search.replica.SearchReplicaRouter"]
# How long a search waits for the replica to replay what the primary had flushed when it began
# (else it reads the primary): a search always sees the writes committed before it.
LEXROOM_REPLICA_WAIT_MS = env_int("LEXROOM_REPLICA_WAIT_MS", 200, minimum=0)
# After the replica failed to answer, searches read the primary this long before trying again.
LEXROOM_REPLICA_RETRY_SECONDS = env_int("LEXROOM_REPLICA_RETRY_SECONDS", 30, minimum=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "workspaces.User"
AUTHENTICATION_BACKENDS = ["workspaces.auth.UserWithFirmBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# Password guessing: after this many failures within the window, an account (or, with the
# higher limit, a client address) is refused until the oldest failures leave the window.
LEXROOM_LOGIN_MAX_FAILURES = env_int("LEXROOM_LOGIN_MAX_FAILURES", 5, minimum=1)
LEXROOM_LOGIN_MAX_FAILURES_PER_IP = env_int("LEXROOM_LOGIN_MAX_FAILURES_PER_IP", 20, minimum=1)
LEXROOM_LOGIN_LOCKOUT_MINUTES = env_int("LEXROOM_LOGIN_LOCKOUT_MINUTES", 15, minimum=1)

LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", "Français"), ("en", "English")]
LOCALE_PATHS = [SITE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Europe/Paris")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [SITE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# The originals (uploads as received, OCR layers): another disk or a shared mount if need be.
MEDIA_ROOT = env_path("LEXROOM_MEDIA_DIR", LEXROOM_DATA_DIR / "media")
# Serve admin/static assets without a collectstatic step in the single-process deployment.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- Background tasks: django-q2 with its ORM broker (no Redis).
# Tasks are short (one document; one bounded embedding batch: 256 chunks, ~75 s for the slowest
# model measured on CPU). A task pulled by a cluster that dies is retried after `retry`, or at
# once when a qcluster starts with no other cluster alive (workspaces/management/commands).
_task_timeout = env_int("LEXROOM_TASK_TIMEOUT", 600, minimum=10)
Q_CLUSTER = {
    "name": "lexroom",
    "orm": "default",
    "workers": env_int("LEXROOM_WORKERS", 2, minimum=1),
    "timeout": _task_timeout,
    "retry": _task_timeout + 60,
    "max_attempts": 3,
    "catch_up": False,
    "ack_failures": True,
    "poll": 1,
    "sync": env_bool("LEXROOM_TASKS_SYNC", default=False),
    # django-q2 reads it when a cluster is started under another name (Q_CLUSTER_NAME=gpu).
    "ALT_CLUSTERS": {},
    # The ORM broker, taking turns by firm then by workspace: one firm's backlog never holds
    # up another's upload.
    "broker_class": "workspaces.broker.FairBroker",
}
# A stopping worker (SIGTERM, Ctrl-C) lets its tasks run this long, then ends them; they are
# queued again at once (tasks are idempotent).
LEXROOM_WORKER_STOP_SECONDS = env_int("LEXROOM_WORKER_STOP_SECONDS", 5, minimum=1)
# Once the install has more than one firm, one firm runs at most `workers - this` tasks at once
# in a cluster (at least one): a worker is always left for another firm's task. 0: no share.
LEXROOM_WORKERS_RESERVED = env_int("LEXROOM_WORKERS_RESERVED", 1, minimum=0)
# Niceness added to the task workers (clamped at 19): the web server keeps the CPU while
# background work reads a hostile file.
LEXROOM_WORKER_NICE = env_int("LEXROOM_WORKER_NICE", 5, minimum=0)
# Niceness the child reading a PDF or DOCX adds to its worker's (5 + 5 by default).
LEXROOM_EXTRACT_NICE = env_int("LEXROOM_EXTRACT_NICE", 5, minimum=0)
# The embedding rounds' queue: a cluster started as `Q_CLUSTER_NAME=NAME manage.py qcluster`
# (a GPU host) takes them; empty: the main queue.
LEXROOM_EMBED_QUEUE = env_str("LEXROOM_EMBED_QUEUE", "")

# --- The product's own settings: playbooks, documents, ingestion, tools, search, LLM,
# agent, case law (config/product_settings.py).
from config.product_settings import *  # noqa: E402, F403

# The worker's liveness (django-q2 cluster stats) must be visible to the CLI: a shared cache.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "lexroom_cache",
    }
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "workspaces.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["workspaces.authentication.TokenPermissions"],
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Lexroom API",
    "DESCRIPTION": "Workspaces, documents and the Lexroom tools (the same as over MCP).",
    "VERSION": "0.1.0",
    # Swagger UI served from the drf-spectacular-sidecar package: no CDN needed.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from validator.swagger.io: it would send the schema's address to a third
    # party, and the CSP refuses its image anyway.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # The schema and its UI are for signed-in users (session or token), like the API itself.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"  # document titles in URLs never leave the site
# Content-Security-Policy: scripts and styles from this site only, or inline with the
# request's nonce (``nonce="{{ request.csp_nonce }}"``); no inline event handlers or style
# attributes. The admin and the Swagger UI (served from drf-spectacular-sidecar) fit in it.
# data: images: the Swagger UI's and the admin's CSS draw their icons with them.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
    "loggers": {
        "pgserver": {"level": "WARNING"},
        # The MCP SDK logs every stateless request at INFO.
        "mcp": {"level": "WARNING"},
    },
}
