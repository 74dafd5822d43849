"""Management commands as the tests run them."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command


def run_command(*args: str) -> str:
    """A management command's standard output."""
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()
