from __future__ import annotations

import factory

from workspaces.models import Firm, Membership, Role, User, Workspace


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
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

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


def make_membership(*, workspace: Workspace, user: User, role: str = Role.VIEWER) -> Membership:
    """Memberships are tenant rows: create them inside the workspace's scope."""
    from workspaces.tenancy import workspace_scope

    with workspace_scope(workspace):
        return Membership.objects.create(workspace=workspace, user=user, role=role)
