"""Login throttling: per account (even with the right password), per client address, reset
by a success, audited, and the same answers for unknown emails."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone, translation

from tests.helpers.rooms import PASSWORD, Room
from workspaces.models import AuditEvent, LoginFailure
from workspaces.tenancy import firm_scope

pytestmark = pytest.mark.django_db

ACCOUNT_LOCKED = "Too many failed attempts for this account; try again in 15 minutes."
ADDRESS_LOCKED = "Too many failed attempts from this address; try again in"


@pytest.fixture(autouse=True)
def _english(settings):
    # Sign-in pages are anonymous: their language is the browser's, else LANGUAGE_CODE.
    settings.LANGUAGE_CODE = "en"
    with translation.override("en"):
        yield


def attempt(email: str, password: str, *, address: str = "203.0.113.10"):
    return Client(REMOTE_ADDR=address).post(
        reverse("login"), {"username": email, "password": password}
    )


def signed_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == reverse("home")


def fail(email: str, times: int, *, address: str = "203.0.113.10") -> None:
    for _ in range(times):
        response = attempt(email, "wrong password", address=address)
        assert response.status_code == 200 and b"didn't match" in response.content


def test_right_password_is_refused_after_five_failures_with_the_lockout_message(room: Room):
    fail("viewer@alpha.test", 5)

    response = attempt("viewer@alpha.test", PASSWORD)

    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert ACCOUNT_LOCKED in response.content.decode()
    assert "_auth_user_id" not in response.client.session


def test_lockout_of_one_account_leaves_other_accounts_alone(room: Room):
    fail("viewer@alpha.test", 5)
    assert signed_in(attempt("editor@alpha.test", PASSWORD))


def test_unknown_email_gets_the_same_answers_and_no_audit_row(room: Room):
    fail("nobody@alpha.test", 5)
    fail("viewer@alpha.test", 5)

    unknown = attempt("nobody@alpha.test", PASSWORD)
    known = attempt("viewer@alpha.test", "wrong password")

    assert (unknown.status_code, known.status_code) == (429, 429)
    assert ACCOUNT_LOCKED in unknown.content.decode()
    assert ACCOUNT_LOCKED in known.content.decode()
    with firm_scope(room.firm.pk):
        assert not AuditEvent.objects.filter(target="nobody@alpha.test").exists()


def test_success_resets_the_accounts_counter(room: Room):
    fail("viewer@alpha.test", 4)
    assert signed_in(attempt("viewer@alpha.test", PASSWORD))

    fail("viewer@alpha.test", 4)

    assert signed_in(attempt("viewer@alpha.test", PASSWORD))


def test_lockout_says_how_long_and_ends_when_the_failures_leave_the_window(room: Room):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        fail("viewer@alpha.test", 5)
    with time_machine.travel(start + timedelta(minutes=10, seconds=30), tick=False):
        waiting = attempt("viewer@alpha.test", PASSWORD)
    with time_machine.travel(start + timedelta(minutes=15, seconds=1), tick=False):
        later = attempt("viewer@alpha.test", PASSWORD)

    assert "try again in 5 minutes." in waiting.content.decode()
    assert signed_in(later)


def test_email_case_does_not_give_more_tries(room: Room):
    fail("Viewer@Alpha.test", 3)
    fail("viewer@alpha.TEST", 2)
    assert attempt("viewer@alpha.test", PASSWORD).status_code == 429


@override_settings(LEXROOM_LOGIN_MAX_FAILURES_PER_IP=6)
def test_client_address_is_refused_after_its_own_higher_limit(room: Room):
    fail("a@alpha.test", 3)
    fail("b@alpha.test", 3)

    from_there = attempt("editor@alpha.test", PASSWORD)
    from_elsewhere = attempt("editor@alpha.test", PASSWORD, address="198.51.100.20")

    assert from_there.status_code == 429
    assert ADDRESS_LOCKED in from_there.content.decode()
    assert signed_in(from_elsewhere)


@override_settings(LEXROOM_LOGIN_MAX_FAILURES=2, LEXROOM_LOGIN_LOCKOUT_MINUTES=1)
def test_limits_come_from_the_settings(room: Room):
    fail("viewer@alpha.test", 2)
    response = attempt("viewer@alpha.test", PASSWORD)
    assert response.status_code == 429
    assert "try again in 1 minute." in response.content.decode()


def test_failures_and_the_lockout_are_audited_for_the_accounts_firm(room: Room):
    fail("viewer@alpha.test", 5)
    attempt("viewer@alpha.test", PASSWORD)  # refused: not one more failure

    with firm_scope(room.firm.pk):
        failed = list(AuditEvent.objects.filter(action="auth.login_failed"))
        [lockout] = AuditEvent.objects.filter(action="auth.lockout")
    assert len(failed) == 5
    assert {e.target for e in failed} == {"viewer@alpha.test"}
    assert lockout.details == {"client": "203.0.113.10", "failures": 5, "minutes": 15}
    assert all("wrong password" not in str(e.details) for e in [*failed, lockout])


def test_failure_rows_keep_neither_the_email_nor_the_password(room: Room):
    fail("viewer@alpha.test", 2)
    rows = list(LoginFailure.objects.values("account_key", "client"))
    assert len(rows) == 2
    assert all("viewer" not in row["account_key"] for row in rows)
    assert {row["client"] for row in rows} == {"203.0.113.10"}


def test_admin_login_page_is_throttled_too(room: Room):
    room.owner.is_firm_admin = True
    room.owner.save()
    client = Client(REMOTE_ADDR="203.0.113.10")
    for _ in range(5):
        client.post("/admin/login/", {"username": "owner@alpha.test", "password": "wrong"})

    response = client.post("/admin/login/", {"username": "owner@alpha.test", "password": PASSWORD})

    assert ACCOUNT_LOCKED in response.content.decode()
    assert "_auth_user_id" not in client.session
