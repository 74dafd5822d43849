"""Security headers on every response of every URL pattern: a Content-Security-Policy whose
nonce every inline script and style of the page carries, no-store caching (documents,
originals, exports, API answers), Referrer-Policy, Permissions-Policy; HSTS behind the TLS
proxy; static files still cached. A new URL pattern is checked here without being listed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from tests.helpers.contracts import ingest_entries
from tests.helpers.rooms import Room, login

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[1]

CONTRACT = {
    "filename": "bail.txt",
    "title": "Bail commercial",
    "parties": ["SCI Alpha", "Boutique Beta SARL"],
    "contract_type": "bail commercial",
    "content": "BAIL COMMERCIAL\n\nARTICLE 1 — DURÉE\nNeuf ans.\n\nARTICLE 2 — LOYER\n"
    "Le loyer annuel est de 24 000 euros.",
}
# Regex routes of the admin, and parameters: a value each (a missing object's 404 must
# carry the headers as much as a page does).
REGEX_ROUTES = {
    "admin/^(?P<app_label>auth|workspaces|documents|compliance|django_q)/$": "admin/workspaces/",
    "admin/(?P<url>.*)$": "admin/no-such-page/",
}
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")
INLINE_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(r"<[^>]*\sstyle\s*=", re.IGNORECASE)
TAG = re.compile(r"<(script|style)\b([^>]*)>", re.IGNORECASE)


def _routes() -> list[str]:
    def walk(patterns: list[Any], prefix: str) -> list[str]:
        found: list[str] = []
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found += walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                found.append(prefix + str(pattern.pattern))
        return found

    return walk(get_resolver().url_patterns, "")


def _url(route: str, room: Room) -> str:
    if route in REGEX_ROUTES:
        return "/" + REGEX_ROUTES[route]
    values = {"slug": room.workspace.slug, "ref": "c01"}
    return "/" + PARAMETER.sub(lambda m: values.get(m.group(2), "1"), route)


def _problems(response: HttpResponse) -> list[str]:
    """What the response lacks; [] when every header (and the page's markup) is right."""
    problems = []
    policy = response.get("Content-Security-Policy", "")
    # An original answers with its own stricter policy: "sandbox" (no script, no origin).
    if policy != "sandbox":
        for directive in ("default-src 'self'", "object-src 'none'", "frame-ancestors 'none'"):
            if directive not in policy:
                problems.append(f"CSP lacks {directive!r}: {policy!r}")
        if "unsafe-inline" in policy or "unsafe-eval" in policy:
            problems.append(f"CSP allows inline code: {policy!r}")
    if "no-store" not in response.get("Cache-Control", ""):
        problems.append(f"Cache-Control: {response.get('Cache-Control')!r}")
    if response.get("Referrer-Policy") != "same-origin":
        problems.append(f"Referrer-Policy: {response.get('Referrer-Policy')!r}")
    if "camera=()" not in response.get("Permissions-Policy", ""):
        problems.append(f"Permissions-Policy: {response.get('Permissions-Policy')!r}")
    if response.get("X-Content-Type-Options") != "nosniff":
        problems.append("no X-Content-Type-Options: nosniff")
    if response.get("Content-Type", "").startswith("text/html") and not response.streaming:
        problems += _markup_problems(response.content.decode(), policy)
    return problems


def _markup_problems(html: str, policy: str) -> list[str]:
    """Inline code the policy would refuse: a script or style without the nonce, an event
    handler attribute, a style attribute."""
    nonce = re.search(r"'nonce-([^']+)'", policy)
    problems = []
    for tag, attributes in TAG.findall(html):
        inline = tag.lower() == "style" or "src=" not in attributes
        data_block = "application/json" in attributes  # json_script: never run
        signed = nonce is not None and f'nonce="{nonce.group(1)}"' in attributes
        if inline and not data_block and not signed:
            problems.append(f"<{tag}{attributes}> without the response's nonce")
    problems += [f"inline handler: {m[:80]}" for m in INLINE_HANDLER.findall(html)]
    problems += [f"style attribute: {m[:80]}" for m in STYLE_ATTRIBUTE.findall(html)]
    return problems


@pytest.fixture
def document(room: Room) -> None:
    ingest_entries(room.workspace, CONTRACT)


def test_every_url_pattern_answers_with_the_security_headers(room: Room, document):
    room.owner.is_firm_admin = True  # the admin's pages too
    room.owner.save(update_fields=["is_firm_admin"])
    owner, anonymous = login(room.owner), Client()
    problems = []
    for route in _routes():
        url = _url(route, room)
        for who, client in (("owner", owner), ("anonymous", anonymous)):
            response = client.get(url)
            problems += [f"{url} as {who} ({response.status_code}): {p}"
                         for p in _problems(response)]  # fmt: skip
    assert problems == [], "\n".join(problems)


def test_tenant_data_is_never_stored_by_a_browser(room: Room, document):
    client = login(room.owner)
    for url in (
        "/w/deal-alpha/documents/c01/",  # a document page
        "/w/deal-alpha/documents/c01/original/",  # its original
        "/w/deal-alpha/flags/export.csv",
        "/w/deal-alpha/flags/export.xlsx",
        "/api/workspaces/deal-alpha/documents/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"], url


def test_the_original_keeps_its_sandbox_policy(room: Room, document):
    response = login(room.owner).get("/w/deal-alpha/documents/c01/original/")
    assert response["Content-Security-Policy"] == "sandbox"


def test_a_page_gives_its_scripts_the_nonce_of_its_policy(room: Room):
    response = login(room.owner).get("/")
    policy = response["Content-Security-Policy"]
    nonce = re.search(r"script-src 'self' 'nonce-([^']+)'", policy)
    assert nonce, policy
    html = response.content.decode()
    assert html.count(f'nonce="{nonce.group(1)}"') >= 2  # htmx and lexroom.js
    # htmx must not inject its indicator <style>, which the policy would refuse.
    assert '"includeIndicatorStyles": false' in html
    assert login(room.owner).get("/")["Content-Security-Policy"] != policy  # one per response


def test_the_api_docs_page_runs_its_inline_code_with_the_nonce(room: Room):
    response = login(room.owner).get("/api/docs/")
    assert response.status_code == 200
    assert _markup_problems(response.content.decode(), response["Content-Security-Policy"]) == []
    assert "validator.swagger.io" not in response.content.decode()


def test_static_files_keep_their_cache_and_carry_no_policy(client: Client):
    assert finders.find("lexroom.css")
    response = client.get(settings.STATIC_URL + "lexroom.css")
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")
    assert "Content-Security-Policy" not in response


@override_settings(SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
                   SECURE_HSTS_SECONDS=31_536_000)  # fmt: skip
def test_https_through_the_proxy_gets_hsts_and_plain_http_does_not(client: Client):
    secure = client.get("/login/", headers={"X-Forwarded-Proto": "https"})
    assert secure["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in client.get("/login/")


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({"LEXROOM_BEHIND_TLS_PROXY": "1"}, "31536000 False"),
        (
            {
                "LEXROOM_BEHIND_TLS_PROXY": "1",
                "LEXROOM_HSTS_SECONDS": "600",
                "LEXROOM_HSTS_INCLUDE_SUBDOMAINS": "1",
            },
            "600 True",
        ),
        ({"LEXROOM_BEHIND_TLS_PROXY": "0"}, "0 False"),
    ],
)
def test_the_tls_proxy_setting_turns_hsts_on(environment: dict[str, str], expected: str):
    script = (
        "from django.conf import settings; "
        "print(settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "t",
           **environment}  # fmt: skip
    for name in ("LEXROOM_HSTS_SECONDS", "LEXROOM_HSTS_INCLUDE_SUBDOMAINS"):
        if name not in environment:
            env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.stdout.strip() == expected, done.stderr[-2000:]
