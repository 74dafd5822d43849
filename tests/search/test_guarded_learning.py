"""Guarded learning from ratings: one member's share of the ratings a fit uses is capped, a
trained adapter is a candidate that search ignores until a firm admin approves it on the
review page (held-out report, the rated queries it changes), approval and rollback are
audited, and nobody else sees or approves anything there."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from django.test import Client

from core.embeddings import embedding_model_name
from documents.models import Chunk
from search.learning import (
    FitResult,
    Rating,
    TrainingRefused,
    quota_level,
    ratings_within_quota,
    search_adapter_train,
)
from search.models import SearchAdapter
from search.ranking._adapter import adapt_query_vector
from search.services import judgment_set
from tests.factories import FirmFactory, UserFactory
from tests.helpers.contracts import ingest_lease_and_nda
from tests.helpers.rooms import Room, login
from workspaces.models import AuditEvent, User
from workspaces.tenancy import firm_scope, workspace_scope

PAGE = "/search/learning/"
ROLLBACK = "/search/learning/rollback/"


def approve_url(adapter_id: int) -> str:
    return f"/search/learning/{adapter_id}/approve/"


# --- The cap -------------------------------------------------------------------------------


def _ratings(user_id: int, count: int) -> list[Rating]:
    return [
        Rating(user_id=user_id, query=f"q{user_id}-{i // 2}", chunk_id=i, relevant=i % 2 == 0)
        for i in range(count)
    ]


def test_a_member_with_89_percent_of_the_ratings_keeps_no_more_than_the_share():
    ratings = _ratings(1, 24) + _ratings(2, 1) + _ratings(3, 1) + _ratings(4, 1)
    assert round(24 / len(ratings), 2) == 0.89
    used, use = ratings_within_quota(ratings, max_share=0.25)
    assert [(r.user_id, r.judgments, r.used) for r in use] == [
        (1, 24, 1),
        (2, 1, 1),
        (3, 1, 1),
        (4, 1, 1),
    ]
    assert max(r.used for r in use) / len(used) <= 0.25
    # Deterministic: the same sample whatever order the rows come in.
    shuffled = list(ratings)
    random.Random(7).shuffle(shuffled)
    assert sorted(map(repr, ratings_within_quota(shuffled, max_share=0.25)[0])) == sorted(
        map(repr, used)
    )


def test_the_level_keeps_whole_shares_and_needs_enough_raters():
    assert quota_level([24, 8, 8, 8], max_share=0.25) == 8
    assert quota_level([30, 3, 3, 3, 3, 3, 3], max_share=0.25) == 6
    assert quota_level([24, 3, 3], max_share=0.25) == 0  # three raters cannot hold 25 % each
    assert quota_level([8], max_share=1.0) == 8  # 1.0: no cap
    # A sampled member keeps whole queries (pairs here), so what is kept still teaches.
    used, _ = ratings_within_quota(_ratings(1, 24) + _ratings(2, 8) * 1, max_share=0.5)
    kept = [r for r in used if r.user_id == 1]
    assert len(kept) == 8 and len({r.query for r in kept}) == 4


# --- Training, in the database ---------------------------------------------------------------


@pytest.fixture
def raters(room: Room) -> dict[str, User]:
    """The room with its documents and four members who rate: owner, editor, viewer, and a
    firm admin (a member of every workspace of the firm)."""
    ingest_lease_and_nda(room.workspace)
    admin = UserFactory(firm=room.firm, email="admin@alpha.test", is_firm_admin=True)
    return {"owner": room.owner, "editor": room.editor, "viewer": room.viewer, "admin": admin}


def _rate(room: Room, user: User, pairs: int) -> None:
    """``pairs`` queries of ``user``'s own, each one article relevant and the next not."""
    with workspace_scope(room.workspace):
        chunks = list(Chunk.objects.filter(workspace=room.workspace).values_list("pk", flat=True))
        for index in range(pairs):
            for offset, relevant in ((0, True), (1, False)):
                judgment_set(
                    workspace=room.workspace,
                    user=user,
                    query=f"durée du bail {user.email.split('@')[0]} {index}",
                    chunk_id=chunks[(index + offset) % len(chunks)],
                    relevant=relevant,
                )


@pytest.mark.django_db
def test_one_member_with_89_percent_of_the_ratings_cannot_train_the_firms_adapter(
    room: Room, raters: dict[str, User]
):
    _rate(room, raters["viewer"], 12)  # 24 ratings: 12 informative queries, enough alone
    for name in ("owner", "editor", "admin"):
        with workspace_scope(room.workspace):
            chunk = Chunk.objects.filter(workspace=room.workspace).first()
            judgment_set(workspace=room.workspace, user=raters[name], query="loyer",
                         chunk_id=chunk.pk, relevant=True)  # fmt: skip
    with pytest.raises(TrainingRefused):
        search_adapter_train(firm=room.firm, dry_run=True)
    assert not SearchAdapter.objects.exists()


@pytest.mark.django_db
def test_each_member_is_held_to_their_share_and_the_report_names_nobody(
    room: Room, raters: dict[str, User]
):
    _rate(room, raters["viewer"], 12)
    for name in ("owner", "editor", "admin"):
        _rate(room, raters[name], 4)
    report = search_adapter_train(firm=room.firm, dry_run=True)
    assert report["judgments"] == 48 and report["used_judgments"] == 32
    assert report["largest_rater_share"] == 0.5 and report["largest_used_share"] == 0.25
    assert report["per_rater"] == [
        {"rater": 1, "judgments": 24, "used": 8},
        {"rater": 2, "judgments": 8, "used": 8},
        {"rater": 3, "judgments": 8, "used": 8},
        {"rater": 4, "judgments": 8, "used": 8},
    ]
    text = json.dumps(report)
    assert "@alpha.test" not in text and "user_id" not in text


@pytest.mark.django_db
def test_too_few_raters_are_refused_with_the_settings_named(room: Room, raters, settings):
    settings.LEXROOM_ADAPTER_MIN_QUERIES = 2
    for name in ("viewer", "owner"):
        _rate(room, raters[name], 4)
    with pytest.raises(TrainingRefused, match="LEXROOM_ADAPTER_MIN_RATERS"):
        search_adapter_train(firm=room.firm, dry_run=True)


# --- Candidate, approval, rollback -------------------------------------------------------------

HELD_OUT = {"before": 0.5, "after": 0.8125}


def _train_candidate(room: Room, monkeypatch, matrix_of) -> SearchAdapter:
    """Train with the real pipeline; the fit itself returns ``matrix_of(dimension)``."""

    def fitted(queries, **_kwargs):
        dimension = len(queries[0].vector)
        metrics = {
            "held_out_ndcg@10_before": HELD_OUT["before"],
            "held_out_ndcg@10_after": HELD_OUT["after"],
            "train_ndcg@10_before": 0.4,
            "train_ndcg@10_after": 0.9,
        }
        return FitResult(matrix_of(dimension).astype(np.float32), True, 3, 10, 12, 4, metrics)

    monkeypatch.setattr("search.learning._train.fit_adapter", fitted)
    report = search_adapter_train(firm=room.firm)
    assert report["stored"] is True and report["approved"] is False
    return SearchAdapter.objects.get(pk=report["adapter_id"])


def _adapted(room: Room, dimension: int) -> list[float]:
    vector = [1.0] + [0.0] * (dimension - 1)
    return adapt_query_vector(
        workspace_id=room.workspace.pk, model=embedding_model_name(), vector=vector
    )


def _audit(room: Room, action: str) -> list[tuple[str, dict]]:
    with firm_scope(room.firm.pk):
        return list(
            AuditEvent.objects.filter(action=action)
            .order_by("created_at", "pk")
            .values_list("actor_label", "details")
        )


@pytest.fixture
def balanced(room: Room, raters: dict[str, User]) -> dict[str, User]:
    for user in raters.values():
        _rate(room, user, 4)
    return raters


@pytest.mark.django_db
def test_a_trained_adapter_is_not_used_until_a_firm_admin_approves_it(
    room: Room, balanced, monkeypatch
):
    candidate = _train_candidate(room, monkeypatch, lambda d: -np.eye(d))
    plain = [1.0] + [0.0] * (candidate.dimension - 1)
    assert _adapted(room, candidate.dimension) == plain  # a candidate: search ignores it
    admin = login(balanced["admin"])
    response = admin.post(approve_url(candidate.pk))
    assert response.status_code == 302 and response["Location"] == PAGE
    assert _adapted(room, candidate.dimension) == [-value for value in plain]
    [(actor, details)] = _audit(room, "search.adapter_approved")
    assert actor == "admin@alpha.test"
    assert details["adapter_id"] == candidate.pk and details["replaces"] is None
    assert admin.post(approve_url(candidate.pk)).status_code == 302  # sent twice: no-op
    assert len(_audit(room, "search.adapter_approved")) == 1


@pytest.mark.django_db
def test_rollback_returns_to_the_previous_approved_adapter_then_to_none(
    room: Room, balanced, monkeypatch
):
    admin = login(balanced["admin"])
    first = _train_candidate(room, monkeypatch, lambda d: -np.eye(d))
    admin.post(approve_url(first.pk))
    second = _train_candidate(room, monkeypatch, lambda d: np.eye(d)[::-1])
    dimension = second.dimension
    plain = [1.0] + [0.0] * (dimension - 1)
    assert _adapted(room, dimension) == [-1.0] + [0.0] * (dimension - 1)  # still the first
    admin.post(approve_url(second.pk))
    assert _adapted(room, dimension) == [0.0] * (dimension - 1) + [1.0]

    assert admin.post(ROLLBACK).status_code == 302
    assert _adapted(room, dimension) == [-1.0] + [0.0] * (dimension - 1)  # the first again
    assert admin.post(ROLLBACK).status_code == 302
    assert _adapted(room, dimension) == plain  # no adapter
    response = admin.post(ROLLBACK, follow=True)
    assert "nothing to roll back" in response.content.decode() or "rien" in (
        response.content.decode()
    )
    rolled = _audit(room, "search.adapter_rolled_back")
    assert [(d["adapter_id"], d["now_in_use"]) for _a, d in rolled] == [
        (second.pk, first.pk),
        (first.pk, None),
    ]
    assert {actor for actor, _d in rolled} == {"admin@alpha.test"}


@pytest.mark.django_db
def test_the_page_shows_the_held_out_report_the_raters_and_the_changed_queries(
    room: Room, balanced, monkeypatch, settings
):
    settings.LEXROOM_VECTOR_MIN_SIMILARITY = -1.0  # the flipped query's similarities count
    candidate = _train_candidate(room, monkeypatch, lambda d: -np.eye(d))
    response = login(balanced["admin"]).get(PAGE)
    assert response.status_code == 200
    page = response.content.decode()
    assert f"#{candidate.pk}" in page
    # Held-out nDCG@10 before and after, in the page's language (0,500 in French).
    assert re.search(r"0[.,]500", page) and re.search(r"0[.,]813", page)
    assert "viewer@alpha.test" in page  # a firm admin sees who rated what
    changes = page.split('id="changes-title"')[1]
    assert "durée du bail" in changes and "<ol>" in changes
    review = response.context["review"]
    assert review.changes and all(change.moved for change in review.changes)
    assert f'action="{approve_url(candidate.pk)}"' in page


# --- Who may -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_nobody_but_the_firms_admin_sees_or_approves_and_forms_need_csrf(
    room: Room, balanced, monkeypatch
):
    candidate = _train_candidate(room, monkeypatch, lambda d: -np.eye(d))
    other_admin = UserFactory(firm=FirmFactory(name="Cabinet Gamma"), is_firm_admin=True)
    for user in (room.owner, room.viewer, room.outsider, room.foreigner, other_admin):
        client = login(user)
        assert client.post(approve_url(candidate.pk)).status_code == 404
        assert client.post(ROLLBACK).status_code in (404, 302)
        if user is not other_admin:
            assert client.get(PAGE).status_code == 404
        else:  # their own firm's page: nothing of Alpha's on it
            assert f"#{candidate.pk}" not in client.get(PAGE).content.decode()
    assert Client().get(PAGE).status_code == 302  # to the login page
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(balanced["admin"])
    assert csrf.post(approve_url(candidate.pk)).status_code == 403
    candidate.refresh_from_db()
    assert candidate.approved_at is None
    assert not _audit(room, "search.adapter_approved")
