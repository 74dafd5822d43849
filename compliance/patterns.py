"""A playbook's own patterns (regex rules, clause-type cues), compiled on RE2.

A firm admin writes these patterns, and every other firm shares the process that runs them.
A backtracking engine gives such a pattern unbounded time (``(a+)+$``), and even compiling
one can take gigabytes (``(?:(?:b{200}){200}){200}``). RE2 matches in time linear in the text,
refuses counted repetitions whose nested product passes 1000, and stops compiling at its
memory budget (``max_mem``); a program over ``MAX_PROGRAM`` instructions is refused too,
because matching time also grows with the program's size. Matching is bounded in time by a
:class:`PatternClock`, one per contract, that every regex rule and cue draws on. Constructs RE2
cannot run
(backreferences, lookaround, possessive quantifiers, atomic groups…) are refused with their
name, so the admin can rewrite the pattern.

Python's ``\\w``, ``\\d`` and ``\\s`` are Unicode-aware while RE2's are ASCII; they are rewritten
to Unicode classes so ``\\w+`` still reads "règlement" whole. ``\\b`` stays ASCII (RE2 has no
Unicode word boundary).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from typing import ParamSpec, Protocol, TypeVar

import re2  # type: ignore[import-untyped]  # google-re2 ships no type hints
from django.conf import settings
from django.utils.translation import gettext

# Instructions of the compiled program. Matching costs up to text times program when RE2's DFA
# runs out of cache, so a bigger program is refused rather than run slowly (measured: a
# 1000-instruction program on adversarial text takes about 5 s per MB, and ten branches of
# a[ab]{990}c, 9663 instructions, 9 s per 200 KB).
MAX_PROGRAM = 5_000

# Python's Unicode meaning of the Perl classes, as RE2 class bodies.
_WORD = r"\p{L}\p{N}_"
_SPACE = r"\t-\r\x1c-\x20\x{85}\p{Z}"
_DIGIT = r"\p{Nd}"


class Match(Protocol):
    def group(self, index: int = 0) -> str: ...


class Pattern(Protocol):
    """The part of a compiled RE2 pattern the checks use."""

    programsize: int

    def search(self, text: str) -> Match | None: ...

    def finditer(self, text: str) -> Iterator[Match]: ...


class PatternRefused(ValueError):
    """A pattern that will not run; the message says why, in the user's language."""


class PatternTooSlow(Exception):
    """A regex rule (or a clause type's cue) past its time on a contract, or past the time of
    the contract itself; or a pattern stored before the bounds that no longer compiles."""


_P = ParamSpec("_P")
_T = TypeVar("_T")


class PatternClock:
    """The matching time of one contract. Every regex rule and cue of the playbook draws on
    it together (``LEXROOM_CONTRACT_PATTERN_SECONDS``), each also within its own share
    (``LEXROOM_PATTERN_SECONDS``): a playbook of many rules that each stay just under their
    share still costs a contract no more than its budget. RE2 cannot be interrupted, so the
    budget is checked before and after each search: it is passed by one search at most."""

    def __init__(self) -> None:
        self.contract_seconds: float = settings.LEXROOM_CONTRACT_PATTERN_SECONDS
        self.rule_seconds: float = settings.LEXROOM_PATTERN_SECONDS
        self.spent = 0.0
        self.by_rule: dict[str, float] = {}

    def _past(self, key: str) -> bool:
        return self.spent > self.contract_seconds or self.by_rule.get(key, 0.0) > self.rule_seconds

    def run(self, key: str, search: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``search(*args)`` (one pattern on one article) timed and charged to ``key`` and to
        the contract, or :class:`PatternTooSlow` once either is spent."""
        if self._past(key):
            raise PatternTooSlow(key)
        began = time.perf_counter()
        found = search(*args, **kwargs)
        elapsed = time.perf_counter() - began
        self.spent += elapsed
        self.by_rule[key] = self.by_rule.get(key, 0.0) + elapsed
        if self._past(key):  # passed by this search: reported, and not run on the next contracts
            raise PatternTooSlow(key)
        return found


def _unicode_classes(pattern: str) -> str:
    """``pattern`` with ``\\w \\W \\d \\D \\s \\S`` meaning what they mean in Python."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            if escaped == "Q":  # \Q…\E is literal text: copied as it is
                end = pattern.find("\\E", i + 2)
                end = len(pattern) if end < 0 else end + 2
                out.append(pattern[i:end])
                i = end
                continue
            out.append(_class_escape(escaped, in_class=in_class))
            i += 2
            continue
        if in_class:
            if pattern.startswith("[:", i):  # a POSIX class inside a class: [[:alpha:]]
                end = pattern.find(":]", i + 2)
                end = len(pattern) if end < 0 else end + 2
                out.append(pattern[i:end])
                i = end
                continue
            in_class = char != "]"
        elif char == "[":
            in_class = True
            out.append(char)
            i += 1
            # A ] first in the class (after an optional ^) is a literal, not its end.
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("]")
                i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _class_escape(escaped: str, *, in_class: bool) -> str:
    bodies = {"w": _WORD, "d": _DIGIT, "s": _SPACE}
    lower = escaped.lower()
    if lower not in bodies or escaped not in "wWdDsS":
        return "\\" + escaped
    body = bodies[lower]
    if escaped.islower():
        return body if in_class else f"[{body}]"
    if escaped == "D":
        return r"\P{Nd}"
    if in_class:  # RE2 cannot put a negated union inside a class
        raise PatternRefused(
            gettext("\\%(escape)s inside [...] is not supported: write [^...] around the class")
            % {"escape": escaped}
        )
    return f"[^{body}]"


# What RE2's error names, in words the admin can act on. The first matching key wins.
def _construct(error: str, pattern: str) -> str:
    constructs = (
        ("(?=", gettext("lookahead (?=…)")),
        ("(?!", gettext("negative lookahead (?!…)")),
        ("(?<=", gettext("lookbehind (?<=…)")),
        ("(?<!", gettext("negative lookbehind (?<!…)")),
        ("(?>", gettext("atomic group (?>…)")),
        ("(?(", gettext("conditional group (?(…)")),
        ("(?P", gettext("named backreference or recursion (?P=…)")),
        ("bad repetition operator: ++", gettext("possessive quantifier ++")),
        ("bad repetition operator: *+", gettext("possessive quantifier *+")),
        ("bad repetition operator: ?+", gettext("possessive quantifier ?+")),
        ("escape sequence: \\k", gettext("named backreference \\k<…>")),
        ("escape sequence: \\g", gettext("backreference \\g<…>")),
        ("escape sequence: \\Z", gettext("end anchor \\Z (write \\z or $)")),
        ("escape sequence: \\G", gettext("anchor \\G")),
    )
    for key, name in constructs:
        if key in error:
            return name
    if "invalid escape sequence: \\" in error and error[-1:].isdigit():
        return gettext("backreference \\%(number)s") % {"number": error[-1]}
    if "}+" in pattern and "bad repetition operator" in error:
        return gettext("possessive quantifier {…}+")
    return ""


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str, ignore_case: bool, max_mem: int) -> Pattern:
    options = re2.Options()
    options.max_mem = max_mem
    options.case_sensitive = not ignore_case
    options.log_errors = False  # a refusal is the user's to read, not the server log's
    compiled: Pattern = re2.compile(pattern, options)
    return compiled


def pattern_compile(pattern: str, *, ignore_case: bool = False) -> Pattern:
    """``pattern`` compiled on RE2 within the install's bounds (characters, memory, program
    size), or :class:`PatternRefused` saying which construct or bound stops it."""
    if not pattern:
        raise PatternRefused(gettext("the pattern is empty"))
    max_chars = settings.LEXROOM_PATTERN_MAX_CHARS
    if len(pattern) > max_chars:
        raise PatternRefused(
            gettext("the pattern is longer than %(count)d characters") % {"count": max_chars}
        )
    try:
        compiled = _compiled(
            _unicode_classes(pattern), ignore_case, settings.LEXROOM_PATTERN_MAX_MEM_MB << 20
        )
    except re2.error as exc:
        why = exc.args[0] if exc.args else ""
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        raise PatternRefused(_refusal(why, pattern)) from None
    if compiled.programsize > MAX_PROGRAM:
        raise PatternRefused(_too_large())
    return compiled


def _too_large() -> str:
    return gettext(
        "the pattern is too large to run safely (counted repetitions like {200} multiply: "
        "make them smaller)"
    )


def _refusal(error: str, pattern: str) -> str:
    if "pattern too large" in error or "invalid repetition size" in error:
        return _too_large()
    construct = _construct(error, pattern)
    if construct:
        return gettext(
            "%(construct)s is not supported: patterns run on RE2, which matches in linear time"
        ) % {"construct": construct}
    return gettext("not a valid regular expression (%(why)s)") % {"why": error}
