"""The factories make valid rows, and row-level security shows each tenant row to its own
workspace's scope only, as it does the product's."""

from __future__ import annotations

import hashlib

import pytest

from core import embeddings
from tests.factories import (
    EMBEDDING_DIMENSION,
    ChunkFactory,
    DocumentFactory,
    FirmFactory,
    MembershipFactory,
    TokenFactory,
    UserFactory,
    WorkspaceFactory,
)
from tests.helpers.rooms import PASSWORD
from workspaces.models import Firm, Role, Workspace
from workspaces.tenancy import firm_scope, user_scope, workspace_scope
from workspaces.tokens import token_authenticate

pytestmark = pytest.mark.django_db


def test_a_firm_user_and_workspace_are_valid_and_the_user_signs_in_with_the_password():
    user = UserFactory()
    workspace = WorkspaceFactory(firm=user.firm)
    for row in (user.firm, user, workspace):
        row.full_clean()
    assert user.check_password(PASSWORD)
    assert FirmFactory(name=user.firm.name) == user.firm  # got, not created twice


def test_a_firm_scope_sees_its_firm_and_workspace_not_another_firms():
    mine, theirs = WorkspaceFactory(), WorkspaceFactory()
    assert mine.firm != theirs.firm
    both = [mine.pk, theirs.pk]
    with firm_scope(mine.firm_id):
        assert list(Workspace.objects.filter(pk__in=both)) == [mine]
        assert list(Firm.objects.filter(pk__in=[mine.firm_id, theirs.firm_id])) == [mine.firm]


@pytest.mark.parametrize(
    "factory_class",
    [MembershipFactory, DocumentFactory, ChunkFactory],
    ids=lambda factory_class: factory_class._meta.model.__name__,
)
def test_a_tenant_row_is_valid_and_seen_by_its_workspace_only(factory_class):
    row = factory_class()
    model = type(row)
    another = WorkspaceFactory(firm=row.workspace.firm)
    with workspace_scope(row.workspace):
        assert model.objects.get(pk=row.pk) == row
        row.full_clean()
    with workspace_scope(another):
        assert not model.objects.filter(pk=row.pk).exists()
    assert not model.objects.filter(pk=row.pk).exists()  # outside any scope: nothing


def test_a_membership_is_of_the_workspaces_firm_with_the_role_asked():
    membership = MembershipFactory(role=Role.EDITOR)
    assert membership.user.firm == membership.workspace.firm
    assert membership.role == Role.EDITOR
    assert MembershipFactory().role == Role.VIEWER


def test_a_chunk_is_embedded_with_the_test_models_name_and_dimension():
    chunk = ChunkFactory()
    encoder = embeddings.get_encoder()
    assert (chunk.embedding_model, chunk.embedding_dim) == (encoder.name, encoder.dimension)
    assert len(chunk.embedding) == EMBEDDING_DIMENSION
    assert chunk.workspace == chunk.document.workspace


def test_a_token_is_stored_hashed_and_its_secret_opens_its_workspace_only():
    membership = MembershipFactory()
    another = MembershipFactory(user=membership.user, workspace__firm=membership.workspace.firm)
    token, secret = TokenFactory.with_secret(
        user=membership.user, workspaces=[membership.workspace]
    )
    assert token.token_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in (token.token_hash, token.prefix)
    assert token_authenticate(secret) == token
    with user_scope(token.user, only=token.restricted_to) as workspace_ids:
        assert workspace_ids == (membership.workspace.pk,)
        assert another.workspace.pk not in workspace_ids
    unrestricted = TokenFactory(user=membership.user)
    with user_scope(unrestricted.user, only=unrestricted.restricted_to) as workspace_ids:
        assert set(workspace_ids) == {membership.workspace.pk, another.workspace.pk}
