"""One factory per model the tests build rows of. Tenant rows (memberships, documents, chunks)
are created inside their workspace's scope, as the product writes them: row-level security
refuses them anywhere else."""

from __future__ import annotations

import hashlib

import factory

from core.embeddings import embedding_model_name
from documents.models import Chunk, Document, DocumentStatus
from tests.helpers.rooms import PASSWORD
from workspaces.models import Firm, Membership, PersonalToken, Role, User, Workspace
from workspaces.tenancy import workspace_scope
from workspaces.tokens import token_create

# The dimension of the test model (TEST_EMBEDDING_MODEL, all-MiniLM-L6-v2): a chunk's vector
# must have it to be found by the vector search (tests/test_factories.py checks it).
EMBEDDING_DIMENSION = 384


class FirmFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Firm
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Cabinet {n}")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.test")
    firm = factory.SubFactory(FirmFactory)
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @classmethod
    def _after_postgeneration(cls, instance, create, results=None):
        if create:
            instance.save()


class WorkspaceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Workspace

    firm = factory.SubFactory(FirmFactory)
    slug = factory.Sequence(lambda n: f"room-{n}")
    title = factory.Sequence(lambda n: f"Data room {n}")


class _TenantRowFactory(factory.django.DjangoModelFactory):
    """Saves the row inside its workspace's scope (RLS refuses a tenant row written outside)."""

    class Meta:
        abstract = True

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        with workspace_scope(kwargs["workspace"]):
            return super()._create(model_class, *args, **kwargs)


class MembershipFactory(_TenantRowFactory):
    """A viewer unless ``role`` says otherwise; the user is of the workspace's firm."""

    class Meta:
        model = Membership

    workspace = factory.SubFactory(WorkspaceFactory)
    user = factory.SubFactory(UserFactory, firm=factory.SelfAttribute("..workspace.firm"))
    role = Role.VIEWER


class TokenFactory(factory.django.DjangoModelFactory):
    """A personal token made by the real service, which stores only its hash: the plaintext
    is on the instance as ``secret`` (never saved); ``with_secret`` returns both."""

    class Meta:
        model = PersonalToken

    user = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"token {n}")
    workspaces: list[Workspace] = []  # every workspace the user can open
    read_only = False
    expires_days = None

    @classmethod
    def _create(cls, model_class, *, user, name, workspaces, read_only, expires_days):
        token, secret = token_create(
            user=user,
            name=name,
            workspaces=list(workspaces),
            read_only=read_only,
            expires_days=expires_days,
        )
        token.secret = secret
        return token

    @classmethod
    def with_secret(cls, **kwargs) -> tuple[PersonalToken, str]:
        token = cls.create(**kwargs)
        return token, token.secret


CONTRACT_TEXT = "CONTRAT {n}\n\nARTICLE 1 — OBJET\nLe prestataire assiste le client.\n"


class DocumentFactory(_TenantRowFactory):
    """A processed contract's row (no original file in storage, no parties)."""

    class Meta:
        model = Document

    workspace = factory.SubFactory(WorkspaceFactory)
    ref = factory.Sequence(lambda n: f"f{n:03d}")
    title = factory.Sequence(lambda n: f"Contrat {n}")
    filename = factory.LazyAttribute(lambda document: f"{document.ref}.txt")
    text = factory.Sequence(lambda n: CONTRACT_TEXT.format(n=n))
    sha256 = factory.LazyAttribute(
        lambda document: hashlib.sha256(document.text.encode()).hexdigest()
    )
    size_bytes = factory.LazyAttribute(lambda document: len(document.text.encode()))
    original = factory.LazyAttribute(lambda document: f"originals/{document.sha256}")
    media_type = "txt"
    status = DocumentStatus.EMBEDDED


def _unit_vector(position: int) -> list[float]:
    vector = [0.0] * EMBEDDING_DIMENSION
    vector[position % EMBEDDING_DIMENSION] = 1.0
    return vector


class ChunkFactory(_TenantRowFactory):
    """An article of a document, embedded with the test model (a unit vector of its
    dimension); no full-text vector."""

    class Meta:
        model = Chunk

    document = factory.SubFactory(DocumentFactory)
    workspace = factory.SelfAttribute("document.workspace")
    ordinal = factory.Sequence(lambda n: n)
    kind = "article"
    heading = factory.LazyAttribute(lambda chunk: f"ARTICLE {chunk.ordinal + 1} — OBJET")
    text = "Le prestataire assiste le client."
    index_text = factory.LazyAttribute(lambda chunk: f"{chunk.document.title}\n{chunk.text}")
    char_start = 0
    char_end = factory.LazyAttribute(lambda chunk: len(chunk.text))
    embedding = factory.LazyAttribute(lambda chunk: _unit_vector(chunk.ordinal))
    embedding_model = factory.LazyFunction(embedding_model_name)
    embedding_dim = EMBEDDING_DIMENSION
