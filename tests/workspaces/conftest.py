"""Fixtures for the admin tests: the room's owner made firm admin, and their client."""

from __future__ import annotations

import pytest
from django.test import Client

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
