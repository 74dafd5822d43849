"""The child of `parse_isolated`: one file read under CPU and memory limits.

stdin: a JSON header line (``_isolated.child_header``), then the file's bytes. stdout: one
JSON object, ``{"parsed": …}``, ``{"code", "message"}`` (a `ParseError`) or
``{"limit", "count"}`` (a `LimitReached`). Django is configured for translation only: the
messages speak the caller's language, and nothing else of the project is loaded.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
import traceback
from dataclasses import asdict
from typing import Any, BinaryIO

import django
from django.conf import settings
from django.utils import translation

from documents.parsing._bounds import LimitReached, Limits
from documents.parsing._detect import parse_document
from documents.parsing._formats import ParseError
from documents.parsing._isolated import EXIT_MEMORY

MIB = 1 << 20
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent(parent_pid: int) -> None:
    """SIGKILL when the worker dies, even by SIGKILL (Linux): no orphan reads on."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the CPU limit still ends it
        return
    if os.getppid() != parent_pid:  # the worker died before prctl took effect
        os._exit(1)


def _limit_resources(header: dict[str, Any]) -> None:
    os.nice(int(header.get("nice", 0)))  # clamped at 19; never raised back
    memory = int(header["memory_mb"]) * MIB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(header["cpu_seconds"])
    # SIGXCPU at the soft limit, SIGKILL a second later should it be caught.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _speak(header: dict[str, Any]) -> None:
    language = str(header["language"])
    settings.configure(
        USE_I18N=True,
        LANGUAGE_CODE=language,
        LOCALE_PATHS=header["locale_paths"],
        INSTALLED_APPS=[],
    )
    django.setup(set_prefix=False)
    translation.activate(language)


def _answer(out: BinaryIO, header: dict[str, Any], data: bytes) -> None:
    limits = Limits(
        max_pages=header["max_pages"], max_chars=header["max_chars"], seconds=header["seconds"]
    )
    try:
        parsed = parse_document(str(header["filename"]), data, limits=limits)
    except LimitReached as exc:
        answer: dict[str, Any] = {"limit": exc.limit, "count": exc.count}
    except ParseError as exc:
        answer = {"code": exc.code, "message": exc.message}
    else:
        answer = {"parsed": asdict(parsed)}
    out.write(json.dumps(answer).encode())


def main() -> int:
    header = json.loads(sys.stdin.buffer.readline())
    _die_with_parent(int(header["parent_pid"]))
    _limit_resources(header)
    _speak(header)
    data = sys.stdin.buffer.read()
    # Libraries print warnings; stdout carries the answer only.
    out, sys.stdout = sys.stdout.buffer, sys.stderr
    try:
        _answer(out, header, data)
    except MemoryError:
        return EXIT_MEMORY
    except Exception as exc:
        traceback.print_exc()
        message = f"{header['filename']}: {exc.__class__.__name__}: {exc}"
        out.write(json.dumps({"code": "unexpected", "message": message}).encode())
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
