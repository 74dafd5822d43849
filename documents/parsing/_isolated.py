"""Parsing in a process of its own, with CPU and memory limits and a deadline.

pypdf and python-docx run in C and in long Python loops the meter cannot interrupt: a small
hostile PDF holds its reader for minutes on one page. Here the parser runs in a fresh
interpreter (``python -m documents.parsing``) that sets its own RLIMIT_AS and RLIMIT_CPU, and
lowers its CPU priority (``LEXROOM_EXTRACT_NICE`` on top of its worker's), before reading the
file, and that this process kills at the wall-clock deadline. Nothing is
inherited: no database connection, no open file, none of the server's secrets in its
environment. A plain subprocess, not multiprocessing: django-q2's workers are daemonic
processes, which multiprocessing forbids to have children.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from documents.parsing._bounds import LimitReached, Limits
from documents.parsing._detect import detect_type, parse_document
from documents.parsing._formats import ParsedText, ParseError, format_named

# The interpreter's start and imports (~0.3 s) come on top of the reading's own seconds.
STARTUP_SECONDS = 5
# Where ``documents`` is importable from, for the child's PYTHONPATH.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]
# The child's exit status when it ran out of memory (MemoryError, not a signal).
EXIT_MEMORY = 3
# Added to the niceness of the process that starts the child when no setting says otherwise.
DEFAULT_NICE = 5


def child_header(filename: str, limits: Limits, memory_mb: int) -> dict[str, Any]:
    """What the child needs besides the bytes: the limits and the language to speak."""
    return {
        "filename": filename,
        "max_pages": limits.max_pages,
        "max_chars": limits.max_chars,
        "seconds": limits.seconds,
        "memory_mb": memory_mb,
        "cpu_seconds": math.ceil(limits.seconds or 0) + 1,
        "language": translation.get_language() or settings.LANGUAGE_CODE,
        "parent_pid": os.getpid(),
        # Pages stay quick while a hostile file is read (getattr: Django set up for the
        # parsing alone, as a test may do, has no such setting).
        "nice": getattr(settings, "LEXROOM_EXTRACT_NICE", DEFAULT_NICE),
        "locale_paths": [str(path) for path in settings.LOCALE_PATHS],
    }


def parse_isolated(filename: str, data: bytes, *, limits: Limits, memory_mb: int) -> ParsedText:
    """`parse_document` in a killable child process; raises what it would raise.

    ``limits.seconds`` is required: it is the child's CPU limit and, with the start-up
    allowance, the deadline at which it is killed (`LimitReached` "seconds"). Past
    ``memory_mb`` of address space the reading fails with `LimitReached` "memory".
    """
    if limits.seconds is None:
        raise ValueError("parse_isolated needs limits.seconds")
    header = json.dumps(child_header(filename, limits, memory_mb)).encode()
    with tempfile.TemporaryDirectory(prefix="lexroom-parse-") as home:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": str(_SOURCE_ROOT),
            "HOME": home,
            "TMPDIR": home,
            "LANG": "C.UTF-8",
        }
        # Our interpreter and module, fixed arguments; the file travels on stdin.
        process = subprocess.Popen(
            [sys.executable, "-B", "-m", "documents.parsing"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            cwd=home,
        )  # fmt: skip
        try:
            stdout, stderr = process.communicate(
                header + b"\n" + data, timeout=limits.seconds + STARTUP_SECONDS
            )
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise LimitReached(
                filename=filename, limit="seconds", count=int(limits.seconds)
            ) from None
        except BaseException:
            # The worker is being stopped (a signal raised here): the child goes with it.
            process.kill()
            process.wait()
            raise
    return _result(filename, limits, process.returncode, stdout, stderr)


def _result(
    filename: str, limits: Limits, returncode: int, stdout: bytes, stderr: bytes
) -> ParsedText:
    if returncode in (-signal.SIGXCPU, -signal.SIGKILL):  # the CPU limit, soft then hard
        raise LimitReached(filename=filename, limit="seconds", count=int(limits.seconds or 0))
    if returncode == EXIT_MEMORY or b"MemoryError" in stderr:
        raise LimitReached(filename=filename, limit="memory", count=0)
    try:
        answer = json.loads(stdout)
    except ValueError:
        # A crash of the parser's C code (a signal) or of the interpreter: the file is
        # what made it crash, and the worker goes on.
        detail = stderr.decode(errors="replace").strip().splitlines() or [f"exit {returncode}"]
        message = gettext("%(file)s: the file cannot be read (%(error)s)")
        raise ParseError(
            "corrupt", message % {"file": filename, "error": detail[-1][:300]}
        ) from None
    if "limit" in answer:
        raise LimitReached(filename=filename, limit=answer["limit"], count=answer["count"])
    if "code" in answer:
        raise ParseError(answer["code"], answer["message"])
    parsed = answer["parsed"]
    return ParsedText(
        text=parsed["text"],
        page_starts=parsed["page_starts"],
        media_type=parsed["media_type"],
        needs_ocr=parsed["needs_ocr"],
        empty_pages=tuple(parsed["empty_pages"]),
    )


def parse_bounded(filename: str, data: bytes, *, limits: Limits, memory_mb: int) -> ParsedText:
    """Read a file within ``limits``: binary formats (PDF, DOCX) in a killable child
    process, text formats here under the meter alone.

    Text formats are decoded by Python and read by pure-Python loops that the meter checks
    every slice; the binary formats' libraries can spend minutes, or gigabytes, inside one
    call, and a child process spares every text file the ~0.3 s its start costs.
    """
    fmt = format_named(detect_type(filename, data))
    if fmt.content == "binary":
        return parse_isolated(filename, data, limits=limits, memory_mb=memory_mb)
    return parse_document(filename, data, limits=limits)
