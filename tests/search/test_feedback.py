"""Relevance judgments (rate_result, the search page's buttons): stored per member and
workspace, overwritten, removed, audited, invisible from another workspace, refused to
read-only tokens and for articles outside the workspace."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from agents.tools import ToolError, call_tool
from documents.models import Chunk
from search.models import RelevanceJudgment
from tests.helpers.contracts import ingest_lease_and_nda
from tests.helpers.rooms import Room, login
from workspaces.models import AuditEvent
from workspaces.tenancy import tenant_bypass, workspace_scope
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def loaded(room: Room) -> Room:
    ingest_lease_and_nda(room.workspace)
    ingest_lease_and_nda(room.foreign_workspace)
    return room


def _chunk(room: Room, workspace=None, ordinal: int = 1) -> Chunk:
    workspace = workspace or room.workspace
    with workspace_scope(workspace):
        return (
            Chunk.objects.filter(workspace=workspace)
            .select_related("document")
            .order_by("pk")[ordinal]
        )


def rate(room: Room, user=None, token=None, **arguments):
    return call_tool(
        name="rate_result",
        arguments={"workspace": "deal-alpha", "query": "loyer annuel", **arguments},
        user=user or room.viewer,
        token=token,
    ).content


def _judgments(room: Room) -> list[tuple[str, int, bool, str]]:
    with workspace_scope(room.workspace):
        return list(
            RelevanceJudgment.objects.values_list("query", "chunk_id", "relevant", "user__email")
        )


def test_a_viewer_rates_rerates_and_removes_and_each_change_is_audited(loaded: Room):
    chunk = _chunk(loaded)
    body = rate(loaded, chunk_id=chunk.pk, relevant=True)
    assert body == {
        "workspace": "deal-alpha",
        "query": "loyer annuel",
        "chunk_id": chunk.pk,
        "contract_id": chunk.document.ref,
        "relevant": True,
    }
    rate(loaded, chunk_id=chunk.pk, relevant=False)
    assert _judgments(loaded) == [("loyer annuel", chunk.pk, False, "viewer@alpha.test")]
    rate(loaded, user=loaded.owner, chunk_id=chunk.pk, relevant=True)  # one row per member
    assert len(_judgments(loaded)) == 2
    assert rate(loaded, chunk_id=chunk.pk, remove=True)["relevant"] is None
    assert _judgments(loaded) == [("loyer annuel", chunk.pk, True, "owner@alpha.test")]
    with workspace_scope(loaded.workspace):
        actions = list(
            AuditEvent.objects.filter(action__startswith="search.judgment")
            .order_by("created_at", "pk")
            .values_list("action", "actor__email")
        )
    assert actions == [
        ("search.judgment_set", "viewer@alpha.test"),
        ("search.judgment_set", "viewer@alpha.test"),
        ("search.judgment_set", "owner@alpha.test"),
        ("search.judgment_removed", "viewer@alpha.test"),
    ]


def test_judgments_are_invisible_from_another_workspace_and_without_scope(loaded: Room):
    rate(loaded, chunk_id=_chunk(loaded).pk, relevant=True)
    with workspace_scope(loaded.foreign_workspace):
        assert RelevanceJudgment.objects.count() == 0
    assert RelevanceJudgment.objects.count() == 0  # no scope: no tenant rows
    with tenant_bypass(firm=loaded.firm, reason="test", actor_label="test"):
        assert RelevanceJudgment.objects.count() == 1


def test_an_article_of_another_workspace_reads_like_a_missing_one(loaded: Room):
    foreign = _chunk(loaded, loaded.foreign_workspace)
    answers = []
    for chunk_id in (foreign.pk, 99_999_999):
        with pytest.raises(ToolError) as caught:
            rate(loaded, chunk_id=chunk_id, relevant=True)
        answers.append((caught.value.kind, caught.value.message.replace(str(chunk_id), "N")))
    assert answers[0] == answers[1] and answers[0][0] == "not_found"
    with pytest.raises(ToolError) as caught:
        rate(loaded, user=loaded.foreigner, chunk_id=_chunk(loaded).pk, relevant=True)
    assert caught.value.kind == "not_found"  # another firm's member: the workspace is unknown


def test_a_read_only_token_cannot_rate_and_a_token_write_records_its_id(loaded: Room):
    chunk = _chunk(loaded)
    read_only, _ = token_create(user=loaded.owner, name="ro", read_only=True)
    with pytest.raises(ToolError) as caught:
        rate(loaded, user=loaded.owner, token=read_only, chunk_id=chunk.pk, relevant=True)
    assert caught.value.kind == "forbidden"
    writer, _ = token_create(user=loaded.owner, name="rw")
    rate(loaded, user=loaded.owner, token=writer, chunk_id=chunk.pk, relevant=True)
    with workspace_scope(loaded.workspace):
        event = AuditEvent.objects.get(action="search.judgment_set")
    assert event.details["token_id"] == writer.pk


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"relevant": True, "remove": True}, "relevant"),
        ({}, "relevant"),
        ({"relevant": True, "query": "   "}, "query"),
        ({"relevant": "maybe"}, "relevant"),
        ({"relevant": True, "chunk_id": 0}, "chunk_id"),
    ],
)
def test_bad_arguments_say_which_field(loaded: Room, arguments, field):
    arguments = {"chunk_id": _chunk(loaded).pk, **arguments}
    with pytest.raises(ToolError) as caught:
        rate(loaded, **arguments)
    assert caught.value.kind == "invalid_arguments"
    assert field in caught.value.message or caught.value.details.get("field") == field


# --- The search page's buttons ------------------------------------------------------------


def test_the_buttons_post_without_javascript_and_come_back_to_the_same_search(loaded: Room):
    client = login(loaded.viewer)
    search_url = reverse("search", args=["deal-alpha"])
    page = client.get(search_url, {"q": "loyer annuel"}).content.decode()
    assert 'name="relevant" value="1" aria-pressed="false"' in page
    shown = int(re.findall(r'name="chunk_id" value="(\d+)"', page)[0])
    response = client.post(
        reverse("search_rate", args=["deal-alpha"]),
        {"q": "loyer annuel", "chunk_id": shown, "relevant": "1", "back": "q=loyer+annuel"},
    )
    assert response.status_code == 302
    assert response["Location"] == f"{search_url}?q=loyer+annuel#article-{shown}"
    page = client.get(search_url, {"q": "loyer annuel"}).content.decode()
    assert 'name="relevant" value="1" aria-pressed="true"' in page
    assert _judgments(loaded) == [("loyer annuel", shown, True, "viewer@alpha.test")]


def test_htmx_gets_the_buttons_back_with_the_new_rating(loaded: Room):
    chunk = _chunk(loaded)
    response = login(loaded.viewer).post(
        reverse("search_rate", args=["deal-alpha"]),
        {"q": "loyer annuel", "chunk_id": chunk.pk, "relevant": "0"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<form class="rating"')
    assert 'value="0" aria-pressed="true"' in html and "<h1" not in html


def test_the_rating_page_refuses_bad_input_strangers_and_get(loaded: Room):
    url = reverse("search_rate", args=["deal-alpha"])
    chunk = _chunk(loaded)
    client = login(loaded.viewer)
    assert client.get(url).status_code == 405
    assert client.post(url, {"q": "x", "chunk_id": "a", "relevant": "1"}).status_code == 400
    for odd in ("²", "9" * 5000, "-1"):  # a digit to str.isdigit(), a number int() refuses
        assert client.post(url, {"q": "x", "chunk_id": odd, "relevant": "1"}).status_code == 400
    assert client.post(url, {"q": "", "chunk_id": chunk.pk, "relevant": "1"}).status_code == 400
    foreign = _chunk(loaded, loaded.foreign_workspace).pk
    assert client.post(url, {"q": "x", "chunk_id": foreign, "relevant": "1"}).status_code == 404
    for stranger in (loaded.outsider, loaded.foreigner):
        answer = login(stranger).post(url, {"q": "x", "chunk_id": chunk.pk, "relevant": "1"})
        assert answer.status_code == 404
    assert _judgments(loaded) == []


def test_the_rating_page_is_rate_limited_per_member(loaded: Room, settings):
    settings.LEXROOM_RATINGS_PER_MINUTE = 3
    url = reverse("search_rate", args=["deal-alpha"])
    chunk = _chunk(loaded)
    viewer, editor = login(loaded.viewer), login(loaded.editor)
    codes = [
        viewer.post(url, {"q": f"query {n}", "chunk_id": chunk.pk, "relevant": "1"}).status_code
        for n in range(4)
    ]
    assert codes == [302, 302, 302, 429]
    with tenant_bypass(firm=loaded.firm, reason="test", actor_label="test"):
        assert RelevanceJudgment.objects.filter(user=loaded.viewer).count() == 3
    # Another member has a window of their own.
    answer = editor.post(url, {"q": "query", "chunk_id": chunk.pk, "relevant": "0"})
    assert answer.status_code == 302
