"""Fixtures for the workspaces tests: a firm admin and their client; commands run in English."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from tests.conftest import Room, login
from workspaces.models import User


@pytest.fixture
def firm_admin(room: Room) -> User:
    room.owner.is_firm_admin = True
    room.owner.save()
    return room.owner


@pytest.fixture
def firm_admin_client(firm_admin: User) -> Client:
    return login(firm_admin)


@pytest.fixture
def english() -> Iterator[None]:
    # Commands speak LANGUAGE_CODE (French); the tests check their messages word for word.
    with translation.override("en"):
        yield


def run_command(*args: str) -> str:
    """A management command's standard output."""
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()
