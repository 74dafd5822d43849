"""The permission matrix: every URL pattern of the URLconf and every registered tool, run with
every kind of credential, against the table below.

A URL pattern or a tool that is not in the table fails the test, so nobody adds an endpoint
without deciding who may use it. Outcomes: an HTTP status, ``login`` (302 to the site's login
page) or ``admin-login`` (302 to the admin's). ``404`` for a workspace the caller cannot open
is the same answer as for a missing one (checked by ``missing``, a slug that does not exist).

``/mcp`` is not in the URLconf (it is mounted beside Django in config.asgi): its credentials
are covered in tests/agents/test_mcp.py (tokens only; a session cookie gets 401).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.utils import timezone
from django_q.models import Failure, OrmQ, Schedule, Success

from agents.models import Conversation, Turn, TurnStatus
from agents.tools.aliases import ALIASES
from agents.tools.registry import REGISTRY, _load
from compliance.models import Flag
from compliance.playbooks import default_playbooks, parse_playbook
from compliance.services import playbook_assign, playbook_import, scan_create
from documents.models import Chunk, Document, DocumentLink, DuplicateGroup, Entity
from search.models import SearchAdapter
from tests.factories import UserFactory
from tests.helpers.contracts import LEASE, ingest_entries
from tests.helpers.permissions import CREDENTIALS, url_patterns
from tests.helpers.rooms import Room
from tests.sources.factories import import_demo
from workspaces.models import AuditEvent, PersonalToken
from workspaces.services import workspace_create
from workspaces.tenancy import firm_scope, tenant_bypass, workspace_scope
from workspaces.tokens import token_create, token_revoke

pytestmark = pytest.mark.django_db

SESSIONS = ("owner", "editor", "viewer", "outsider", "firm_admin", "foreigner")
MEMBERS = ("owner", "editor", "viewer", "firm_admin")
STRANGERS = ("outsider", "foreigner")
LIVE_TOKENS = ("token_rw", "token_ro", "token_other_ws")
DEAD_TOKENS = ("token_expired", "token_revoked")
TOKENS = LIVE_TOKENS + DEAD_TOKENS


def outcome(default: str, **groups: str) -> dict[str, str]:
    """One expected outcome per credential: ``default``, then named groups or credentials."""
    expected = dict.fromkeys(CREDENTIALS, default)
    named = {
        "sessions": SESSIONS,
        "members": MEMBERS,
        "strangers": STRANGERS,
        "tokens": TOKENS,
        "live_tokens": LIVE_TOKENS,
        "dead_tokens": DEAD_TOKENS,
    }
    for key, value in groups.items():
        for credential in named.get(key, (key,)):
            expected[credential] = value
    return expected


# --- Policies ------------------------------------------------------------------------------
# Pages: sessions only; a bearer header is ignored, so a token alone is anonymous.
PAGE_ANY_USER = outcome("login", sessions="200")
PAGE_MEMBER = outcome("login", members="200", strangers="404")
PAGE_UPLOAD = outcome("login", owner="302", editor="302", firm_admin="302", viewer="403",
                      strangers="404")  # fmt: skip
# A user's own object (their token): anyone else's is the 404 of a missing one.
PAGE_OWNER_ONLY = outcome("login", owner="200", editor="404", viewer="404", outsider="404",
                          firm_admin="404", foreigner="404")  # fmt: skip
LOGIN_PAGE = outcome("200", sessions="302")
POST_ONLY = outcome("405")
# The admin: firm admins only; everyone else, tokens included, is sent to its login.
ADMIN = outcome("admin-login", firm_admin="200")
ADMIN_DENIED = outcome("admin-login", firm_admin="403")  # superusers only
ADMIN_REDIRECT = outcome("admin-login", firm_admin="302")
ADMIN_MISSING = outcome("admin-login", firm_admin="404")
ADMIN_LOGIN = outcome("200", firm_admin="302")
ADMIN_LOGOUT = outcome("302", firm_admin="405")  # non-staff: sent to the admin index
ADMIN_PASSWORD = outcome("admin-login", firm_admin="200")
# The API: tokens or sessions; a dead token is a 401; a token restricted to another
# workspace, a non-member and another firm's user get the 404 of a missing workspace.
API_ANY_USER = outcome("200", anonymous="401", dead_tokens="401")
API_MEMBER_READ = outcome(
    "200", anonymous="401", strangers="404", token_other_ws="404", dead_tokens="401"
)
API_EDITOR_WRITE = outcome(
    "202", anonymous="401", viewer="403", strangers="404", token_ro="403",
    token_other_ws="404", dead_tokens="401",
)  # fmt: skip
# A tool on a workspace: read tools take read-only tokens too; write tools do not.
TOOL_READ = API_MEMBER_READ
# Rating a result: any member who can search (viewers too), never with a read-only token.
TOOL_RATE = outcome(
    "200", anonymous="401", strangers="404", token_ro="403", token_other_ws="404",
    dead_tokens="401",
)  # fmt: skip
# The search page's rating buttons (a form post, back to the search): any member.
PAGE_RATE = outcome("login", members="302", strangers="404")
# The firm's search adapter review: the firm's admins only; any other session the 404 of a
# missing page (the forms: back to the page).
PAGE_FIRM_ADMIN = outcome("login", sessions="404", firm_admin="200")
PAGE_FIRM_ADMIN_POST = outcome("login", sessions="404", firm_admin="302")
# Scanning and reviewing flags: editors and owners (a firm admin too); never a read-only token.
TOOL_EDITOR_WRITE = outcome(
    "200", anonymous="401", viewer="403", strangers="404", token_ro="403", token_other_ws="404",
    dead_tokens="401",
)  # fmt: skip
TOOL_NO_WORKSPACE = API_ANY_USER
# The chat: any member asks; a conversation and its turns are their owner's alone (the
# owner here), the 404 of a missing one for every other member.
PAGE_ASK = outcome("login", members="302", strangers="404")
OWNER_ONLY_404 = {"editor": "404", "viewer": "404", "outsider": "404", "firm_admin": "404",
                  "foreigner": "404"}  # fmt: skip
PAGE_TURN = outcome("login", owner="302", **OWNER_ONLY_404)  # a redirect to its conversation
PAGE_DECIDE = outcome("login", owner="409", **OWNER_ONLY_404)  # the turn waits for nothing
# Which playbooks a workspace is checked against: its owners and the firm's admins.
PAGE_OWNER_POST = outcome("login", owner="302", firm_admin="302", editor="403", viewer="403",
                          strangers="404")  # fmt: skip
# The flags page's forms (a scan, a flag's review): editors and owners, then back to the list.
PAGE_EDITOR_POST = outcome("login", owner="302", editor="302", firm_admin="302", viewer="403",
                           strangers="404")  # fmt: skip


def admin_model(prefix: str, *, add: dict[str, str] = ADMIN, delete: dict[str, str] = ADMIN,
                change: dict[str, str] = ADMIN, base: dict[str, str] = ADMIN,
                ) -> dict[str, dict[str, str]]:  # fmt: skip
    """The five pages Django's admin gives a model (``base`` the list and history)."""
    return {
        f"admin/{prefix}/": base,
        f"admin/{prefix}/add/": add,
        f"admin/{prefix}/<path:object_id>/history/": base,
        f"admin/{prefix}/<path:object_id>/delete/": delete,
        f"admin/{prefix}/<path:object_id>/change/": change,
        # A plain redirect to change/, which then decides.
        f"admin/{prefix}/<path:object_id>/": ADMIN_REDIRECT,
    }


SUPERUSER_ONLY = {"add": ADMIN_DENIED, "delete": ADMIN_DENIED, "change": ADMIN_DENIED,
                  "base": ADMIN_DENIED}  # fmt: skip

ROUTES: dict[str, dict[str, str]] = {
    "login/": LOGIN_PAGE,
    "logout/": POST_ONLY,
    "password/": PAGE_ANY_USER,
    "password/done/": PAGE_ANY_USER,
    "": PAGE_ANY_USER,
    "w/<slug:slug>/": PAGE_MEMBER,
    "tokens/": PAGE_ANY_USER,  # the user's own tokens; a bearer token is no credential here
    "tokens/<int:token_id>/revoke/": PAGE_OWNER_ONLY,  # GET: the confirmation page
    "language/": POST_ONLY,  # a POST form; GET is refused
    # Model status (models, the Ollama address without credentials): firm admins only.
    "llm/": outcome("login", sessions="403", firm_admin="200"),
    "w/<slug:slug>/documents/": PAGE_MEMBER,
    "w/<slug:slug>/documents/upload/": PAGE_UPLOAD,  # the POST; its GET: test_upload_page.py
    # An upload's progress: any member (it names files and documents they may read anyway).
    "w/<slug:slug>/batches/<int:batch_id>/": PAGE_MEMBER,
    "w/<slug:slug>/documents/<str:ref>/": PAGE_MEMBER,
    "w/<slug:slug>/documents/<str:ref>/original/": PAGE_MEMBER,  # a download, same check
    "w/<slug:slug>/search/": PAGE_MEMBER,
    "w/<slug:slug>/search/rate/": PAGE_RATE,  # the POST; its GET is a 405
    "search/learning/": PAGE_FIRM_ADMIN,
    "search/learning/<int:adapter_id>/approve/": PAGE_FIRM_ADMIN_POST,  # POST; GET a 405
    "search/learning/rollback/": PAGE_FIRM_ADMIN_POST,  # POST; GET a 405
    "w/<slug:slug>/chat/": PAGE_MEMBER,
    "w/<slug:slug>/chat/ask/": PAGE_ASK,  # the POST (queued for the worker); GET is a 405
    "w/<slug:slug>/chat/<int:conversation_id>/": PAGE_OWNER_ONLY,
    "w/<slug:slug>/chat/turns/<int:turn_id>/": PAGE_TURN,
    "w/<slug:slug>/chat/turns/<int:turn_id>/events/": PAGE_OWNER_ONLY,
    "w/<slug:slug>/chat/turns/<int:turn_id>/decide/": PAGE_DECIDE,
    "w/<slug:slug>/chat/turns/<int:turn_id>/trace/": PAGE_OWNER_ONLY,
    "w/<slug:slug>/flags/": PAGE_MEMBER,
    "w/<slug:slug>/flags/export.csv": PAGE_MEMBER,  # the listed flags as CSV: same check
    "w/<slug:slug>/flags/export.xlsx": PAGE_MEMBER,
    "w/<slug:slug>/flags/scan/": PAGE_EDITOR_POST,  # the POST; its GET is a 405
    "w/<slug:slug>/flags/playbooks/": PAGE_OWNER_POST,  # the POST; its GET is a 405
    "w/<slug:slug>/flags/<int:flag_id>/": PAGE_EDITOR_POST,  # the POST; its GET is a 405
    # The French codes: public law, any signed-in user, session only (a bearer is ignored).
    "codes/": PAGE_ANY_USER,
    "codes/<str:code>/<str:number>/": PAGE_ANY_USER,
    # Case law: the same (public sources); saving into a workspace needs an editor.
    "jurisprudence/": PAGE_ANY_USER,
    "jurisprudence/decision/": PAGE_ANY_USER,
    "jurisprudence/conclusions/": PAGE_ANY_USER,
    "jurisprudence/analysis/": PAGE_ANY_USER,
    "jurisprudence/save/": PAGE_EDITOR_POST,  # the POST; its GET is a 405
    "admin/": ADMIN,
    "admin/login/": ADMIN_LOGIN,
    "admin/logout/": ADMIN_LOGOUT,
    "admin/password_change/": ADMIN_PASSWORD,
    "admin/password_change/done/": ADMIN_PASSWORD,
    "admin/autocomplete/": outcome("admin-login", firm_admin="403"),  # needs a term + field
    "admin/jsi18n/": ADMIN,
    "admin/r/<path:content_type_id>/<path:object_id>/": ADMIN_MISSING,  # no public URLs
    "admin/^(?P<app_label>auth|workspaces|documents|compliance|django_q)/$": ADMIN,
    "admin/(?P<url>.*)$": ADMIN_MISSING,
    **admin_model("auth/group", **SUPERUSER_ONLY),
    **admin_model("workspaces/firm", add=ADMIN_DENIED, delete=ADMIN_DENIED),
    "admin/workspaces/user/<id>/password/": ADMIN_PASSWORD,
    **admin_model("workspaces/user"),
    **admin_model("workspaces/workspace"),
    **admin_model("workspaces/auditevent", add=ADMIN_DENIED, delete=ADMIN_DENIED),
    # Tokens: listed and revoked by firm admins, never created or deleted there.
    **admin_model("workspaces/personaltoken", add=ADMIN_DENIED, delete=ADMIN_DENIED),
    **admin_model("documents/entity", delete=ADMIN_DENIED),  # merge or split instead
    **admin_model("documents/document", add=ADMIN_DENIED, delete=ADMIN_DENIED),
    **admin_model("documents/duplicategroup", add=ADMIN_DENIED),
    **admin_model("documents/documentlink"),
    # Playbooks: read only there (an import makes the next version), never deleted.
    **admin_model("compliance/playbook", add=ADMIN_DENIED, delete=ADMIN_DENIED),
    "admin/compliance/playbook/import/": ADMIN,
    "admin/compliance/playbook/<int:playbook_id>/export/": ADMIN,
    **admin_model("django_q/schedule", **SUPERUSER_ONLY),
    **admin_model("django_q/success", **SUPERUSER_ONLY),
    **admin_model("django_q/failure", **SUPERUSER_ONLY),
    **admin_model("django_q/ormq", **SUPERUSER_ONLY),
    "api/workspaces/": API_ANY_USER,
    "api/workspaces/<slug:slug>/": API_MEMBER_READ,
    "api/workspaces/<slug:slug>/documents/": API_MEMBER_READ,
    "api/workspaces/<slug:slug>/documents/upload/": API_EDITOR_WRITE,
    "api/workspaces/<slug:slug>/documents/<str:ref>/": API_MEMBER_READ,
    "api/workspaces/<slug:slug>/batches/<int:batch_id>/": API_MEMBER_READ,
    "api/tools": API_ANY_USER,
    "api/tools/<str:name>": {},  # one row per tool: TOOLS below
    "api/schema/": API_ANY_USER,
    "api/docs/": API_ANY_USER,
}

TOOLS: dict[str, dict[str, str]] = {
    "list_workspaces": TOOL_NO_WORKSPACE,
    "describe_data_room": TOOL_READ,
    "search_data_room": TOOL_READ,
    "get_contract": TOOL_READ,
    "find_duplicates": TOOL_READ,
    "rate_result": TOOL_RATE,
    "scan_contract": TOOL_EDITOR_WRITE,
    "list_flags": TOOL_READ,
    "update_flag": TOOL_EDITOR_WRITE,  # "open" again on an open flag: a note in its history
    "ask": TOOL_READ,  # the agent: read-only tokens too (their write calls are refused)
    # The codes: public law, no workspace, read-only: any valid token or session.
    "search_legal_codes": TOOL_NO_WORKSPACE,
    "get_article": TOOL_NO_WORKSPACE,
    "follow_renvois": TOOL_NO_WORKSPACE,
    # Case law: public sources read live (the fake sites here), no workspace, read-only.
    "search_case_law": TOOL_NO_WORKSPACE,
    "get_decision": TOOL_NO_WORKSPACE,
    "get_conclusions": TOOL_NO_WORKSPACE,
    "get_analysis": TOOL_NO_WORKSPACE,
    # Saving a decision writes a document: editors and owners, never a read-only token.
    "save_decision": TOOL_EDITOR_WRITE,
    # ArianeWebMCP's names (agents.tools.aliases): as the tools they name.
    "search_decisions": TOOL_NO_WORKSPACE,
    "get_decision_analysis": TOOL_NO_WORKSPACE,
}
TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {
    "list_workspaces": {},
    "get_contract": {"workspace": "deal-alpha", "contract_id": "c01"},
    "search_data_room": {"workspace": "deal-alpha", "query": "loyer"},
    # "<chunk>": an article of deal-alpha (world.objects["chunk"]).
    "rate_result": {"workspace": "deal-alpha", "query": "loyer", "chunk_id": "<chunk>",
                    "relevant": True},
    # No Ollama answers here: the turn fails, and the tool still reports it (200).
    "ask": {"workspace": "deal-alpha", "question": "Quel loyer ?"},
    "scan_contract": {"workspace": "deal-alpha", "contract_id": "c01"},
    "update_flag": {"workspace": "deal-alpha", "flag_id": "<flag>", "status": "open",
                    "note": "vu"},
    "search_legal_codes": {"query": "préavis", "as_of": "2017-01-01"},
    "get_article": {"code": "code-des-essais", "number": "L. 101-1", "as_of": "2017-01-01"},
    "follow_renvois": {"code": "code-des-essais", "number": "L101-2", "depth": 2},
    "search_case_law": {"query": "éolienne", "limit": 3},
    "get_decision": {"id": "/Ariane_Web/AW_DCE/|480003"},
    "get_conclusions": {"id": "/Ariane_Web/AW_DCE/|480003"},
    "get_analysis": {"id": "/Ariane_Web/AW_DCE/|480003"},
    "save_decision": {"workspace": "deal-alpha", "id": "/Ariane_Web/AW_DCE/|480003"},
    "search_decisions": {"query": "éolienne", "page": 1, "page_size": 3},
    "get_decision_analysis": {"id": "/Ariane_Web/AW_DCE/|480003"},
}  # fmt: skip

# Requests that are not a plain GET.
POSTS = {
    "w/<slug:slug>/documents/upload/",
    "api/workspaces/<slug:slug>/documents/upload/",
    "w/<slug:slug>/search/rate/",
    "search/learning/<int:adapter_id>/approve/",
    "search/learning/rollback/",
    "w/<slug:slug>/chat/ask/",
    "w/<slug:slug>/chat/turns/<int:turn_id>/decide/",
    "w/<slug:slug>/flags/scan/",
    "w/<slug:slug>/flags/playbooks/",
    "w/<slug:slug>/flags/<int:flag_id>/",
    "jurisprudence/save/",
}
# Form posts (the others upload a file).
FORMS = {
    "w/<slug:slug>/search/rate/": {"q": "loyer", "chunk_id": "<chunk>", "relevant": "1"},
    "search/learning/<int:adapter_id>/approve/": {},
    "search/learning/rollback/": {},
    "w/<slug:slug>/chat/ask/": {"question": "Quel loyer ?", "mode": "retrieval_only"},
    "w/<slug:slug>/chat/turns/<int:turn_id>/decide/": {"approve": "1"},
    "w/<slug:slug>/flags/scan/": {},
    "w/<slug:slug>/flags/playbooks/": {"playbook": "fr-due-diligence"},  # the one it has
    # "open" again on an open flag: a note in its history.
    "w/<slug:slug>/flags/<int:flag_id>/": {"status": "open", "note": "vu"},
    "jurisprudence/save/": {"id": "/Ariane_Web/AW_DCE/|480003", "workspace": "deal-alpha"},
}
# Pages that read their object from the query string (a case-law id holds "/" and "|").
QUERIES = {
    "jurisprudence/": "?q=%C3%A9olienne",
    "jurisprudence/decision/": "?id=%2FAriane_Web%2FAW_DCE%2F%7C480003",
    "jurisprudence/conclusions/": "?id=%2FAriane_Web%2FAW_DCE%2F%7C480003",
    "jurisprudence/analysis/": "?id=%2FAriane_Web%2FAW_DCE%2F%7C480003",
}


@dataclass
class World:
    room: Room
    clients: dict[str, Client]
    bearer: dict[str, str]
    objects: dict[str, int | str]
    batch_id: int


def _bearer_client(raw: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


@pytest.fixture
def world(room: Room) -> World:
    firm_admin = UserFactory(firm=room.firm, email="admin@alpha.test", is_firm_admin=True)
    other, _ = workspace_create(firm=room.firm, slug="deal-two", title="Two", owner=room.owner)
    batch = ingest_entries(room.workspace, LEASE)
    raw = {
        "token_rw": token_create(user=room.owner, name="rw")[1],
        "token_ro": token_create(user=room.owner, name="ro", read_only=True)[1],
        "token_other_ws": token_create(user=room.owner, name="two", workspaces=[other])[1],
        "token_expired": token_create(user=room.owner, name="old", expires_days=1)[1],
        "token_revoked": token_create(user=room.owner, name="gone")[1],
    }
    PersonalToken.objects.filter(name="old").update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    token_revoke(token=PersonalToken.objects.get(name="gone"), actor=room.owner)

    clients = {"anonymous": Client()}
    for name in SESSIONS:
        client = Client()
        client.force_login(firm_admin if name == "firm_admin" else getattr(room, name))
        clients[name] = client
    for name, value in raw.items():
        clients[name] = _bearer_client(value)

    with tenant_bypass(firm=room.firm, reason="test fixtures", actor_label="test"):
        document = Document.objects.get(workspace=room.workspace, ref="c01")
        entity = Entity.objects.filter(workspace=room.workspace).first()
        duplicates = DuplicateGroup.objects.create(
            workspace=room.workspace, kind="exact", reason="t"
        )
        link = DocumentLink.objects.create(
            workspace=room.workspace, source=document, target=document, kind="amends"
        )
        event = AuditEvent.objects.filter(firm=room.firm).first()
        chunk = Chunk.objects.filter(workspace=room.workspace).first()
        conversation = Conversation.objects.create(
            workspace=room.workspace, user=room.owner, title="Loyer"
        )
        turn = Turn.objects.create(
            workspace=room.workspace, conversation=conversation, question="Loyer ?",
            status=TurnStatus.DONE, answer={"answer": "24 000 euros.", "citations": []},
        )  # fmt: skip
    assert entity is not None and event is not None and chunk is not None
    flag = _a_flag(room, document, chunk)
    # A candidate adapter of the firm, for a model no search uses (approving it changes none).
    adapter = SearchAdapter.objects.create(
        firm=room.firm, embedding_model="matrix-test", dimension=2, weights=bytes(16),
        judgments=0, queries=0,
    )  # fmt: skip
    import_demo()  # an invented code, for the codes' pages and tools
    # Install-wide rows only superusers may see (existing, so the admin checks permissions).
    group = Group.objects.create(name="Partners")
    now = timezone.now()
    schedule = Schedule.objects.create(func="math.floor", name="nightly")
    queued = OrmQ.objects.create(key="lexroom", payload="x", lock=None)
    task_row = {"func": "math.floor", "started": now, "stopped": now}
    Success.objects.create(id="ok1", name="ok1", success=True, **task_row)
    Failure.objects.create(id="ko1", name="ko1", success=False, **task_row)
    objects = {
        "workspaces/firm": room.firm.pk,
        "workspaces/user": room.viewer.pk,
        "workspaces/workspace": room.workspace.pk,
        "workspaces/auditevent": event.pk,
        "workspaces/personaltoken": PersonalToken.objects.get(name="rw").pk,
        "documents/entity": entity.pk,
        "documents/document": document.pk,
        "documents/duplicategroup": duplicates.pk,
        "documents/documentlink": link.pk,
        "auth/group": group.pk,
        "django_q/schedule": schedule.pk,
        "django_q/ormq": queued.pk,
        "django_q/success": "ok1",
        "django_q/failure": "ko1",
        "chunk": chunk.pk,
        "conversation": conversation.pk,
        "turn": turn.pk,
        "flag": flag.pk,
        "adapter": adapter.pk,
        "compliance/playbook": flag.rule.playbook_id,
    }
    return World(room, clients, raw, objects, batch.pk)


def _a_flag(room: Room, document: Document, chunk: Chunk) -> Flag:
    """The French due-diligence playbook assigned to deal-alpha, and one open flag."""
    spec = parse_playbook(default_playbooks()[1].read_text(encoding="utf-8"))
    with firm_scope(room.firm.pk):
        playbook, _ = playbook_import(firm=room.firm, spec=spec)
    with workspace_scope(room.workspace):
        playbook_assign(workspace=room.workspace, key=playbook.key)
        scan = scan_create(workspace=room.workspace, playbook=playbook, user=room.owner)
        return Flag.objects.create(
            workspace=room.workspace, scan=scan, rule=playbook.rules.first(), document=document,
            chunk=chunk, reason="t", severity="high",
        )  # fmt: skip


def concrete_url(route: str, world: World, *, slug: str = "deal-alpha") -> str:
    """The route with real values: objects of the room's firm, the workspace ``slug``."""
    if route.startswith("admin/^("):
        return "/admin/workspaces/"
    if route == "admin/(?P<url>.*)$":
        return "/admin/no-such-page/"
    model = "/".join(route.split("/")[1:3]) if route.startswith("admin/") else ""
    object_id = str(world.objects.get(model, 1))
    values = {
        "<slug:slug>": slug,
        "<str:ref>": "c01",
        "<int:batch_id>": str(world.batch_id),
        "<path:object_id>": object_id,
        "<id>": str(world.objects["workspaces/user"]),
        "<int:token_id>": str(world.objects["workspaces/personaltoken"]),
        "<path:content_type_id>": "1",
        "<int:conversation_id>": str(world.objects["conversation"]),
        "<int:playbook_id>": str(world.objects["compliance/playbook"]),
        "<int:turn_id>": str(world.objects["turn"]),
        "<int:flag_id>": str(world.objects["flag"]),
        "<int:adapter_id>": str(world.objects["adapter"]),
        "<str:code>": "code-des-essais",
        "<str:number>": "L101-1",
    }
    url = "/" + route
    for placeholder, value in values.items():
        url = url.replace(placeholder, value)
    assert "<" not in url, f"no value for a parameter of {route}"
    return url + QUERIES.get(route, "")


def with_chunk(values: dict[str, Any], world: World) -> dict[str, Any]:
    placeholders = {"<chunk>": "chunk", "<flag>": "flag"}
    return {
        k: world.objects[placeholders[v]] if isinstance(v, str) and v in placeholders else v
        for k, v in values.items()
    }


def observe(client: Client, method: str, url: str, **data: Any) -> str:
    if method == "POST" and "form" in data:
        response = client.post(url, data["form"])
    elif method == "POST" and "files" in data:
        response = client.post(url, {"files": [SimpleUploadedFile("n.txt", b"Note.\n")]})
    elif method == "POST":
        response = client.post(url, data.get("json", {}), content_type="application/json")
    else:
        response = client.get(url)
    if response.status_code == 302:
        location = response["Location"]
        if location.startswith("/admin/login/"):
            return "admin-login"
        if location.startswith("/login/"):
            return "login"
    return str(response.status_code)


def test_every_url_pattern_and_tool_is_in_the_matrix():
    _load()
    routes = {route for route, _ in url_patterns()}
    assert sorted(routes - set(ROUTES)) == [], "decide who may use these URLs: add them above"
    assert sorted(set(ROUTES) - routes) == [], "these URLs are gone: remove them from the table"
    assert sorted(set(REGISTRY) ^ set(TOOLS) ^ set(ALIASES)) == [], "decide who may call these"


# The chat's posts queue questions no worker answers here: the per-member limits on questions
# are tested in tests/agents; this table is about who may, not how often.
@override_settings(LEXROOM_AGENT_CONCURRENT_QUESTIONS=100, LEXROOM_AGENT_QUESTIONS_PER_MINUTE=0)
def test_every_credential_gets_the_expected_answer_everywhere(world: World, fake_caselaw):
    _load()
    mismatches = []
    for route, _pattern in url_patterns():
        if route == "api/tools/<str:name>":
            continue
        method = "POST" if route in POSTS else "GET"
        url = concrete_url(route, world)
        for credential in CREDENTIALS:
            kwargs: dict[str, Any] = {"files": True} if method == "POST" else {}
            if route in FORMS:
                kwargs = {"form": with_chunk(FORMS[route], world)}
            got = observe(world.clients[credential], method, url, **kwargs)
            if got != ROUTES[route][credential]:
                mismatches.append(f"{method} {url} as {credential}: {got}, expected "
                                  f"{ROUTES[route][credential]}")  # fmt: skip
    for name, expected in TOOLS.items():
        arguments = with_chunk(TOOL_ARGUMENTS.get(name, {"workspace": "deal-alpha"}), world)
        for credential in CREDENTIALS:
            got = observe(world.clients[credential], "POST", f"/api/tools/{name}", json=arguments)
            if got != expected[credential]:
                mismatches.append(f"tool {name} as {credential}: {got}, expected "
                                  f"{expected[credential]}")  # fmt: skip
    assert mismatches == [], "\n".join(mismatches)


def test_a_missing_workspace_reads_like_a_forbidden_one(world: World):
    # The owner asking for a workspace that is not there gets what a non-member gets for
    # deal-alpha; the owner's token, what a token restricted to another workspace gets.
    for route, expected in ROUTES.items():
        if "<slug:slug>" not in route or route in POSTS:
            continue
        url = concrete_url(route, world, slug="no-such-room")
        for credential, stranger in (("owner", "outsider"), ("token_rw", "token_other_ws")):
            got = observe(world.clients[credential], "GET", url)
            assert got == expected[stranger], (url, credential, got)
