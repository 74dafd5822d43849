"""The `lexroom` command (manage.py for an installed wheel): `lexroom check`, `lexroom migrate`…"""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
