"""The ``lookup`` suite: every article in force of each imported code, asked for by number.

Each article is fetched through :func:`sources.selectors.article_get` with its number written
the ways lawyers write it ("L1234-5", "L. 1234-5", "article L 1234-5"; "1240", "art. 1240",
"Article 1240" for the civil code's bare numbers), on the code's snapshot date (today when the
code has none). Every spelling must find an article of that number: the share found is
expected to be 100 %. Labels that are not numbers ("Annexe I", "préliminaire") are asked for
as stored only.

Also the helpers every ``eval_legal`` suite shares: the data folder and the codes it needs,
refused with the command that would make them available.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings

from sources.models import LegalCode
from sources.numbers import normalise_article_number
from sources.selectors import SourceError, article_get, today_paris, versions_in_force

MAX_FAILURES = 20
FR_CODES = "fr-codes"
_PREFIXED = re.compile(r"^(?P<prefix>LO|[LRDA])(?P<rest>\d.*)$")


class SuiteUnavailable(Exception):
    """The suite cannot run as asked: its data or the codes it needs are missing."""


def default_data_dir() -> Path:
    return Path(settings.BASE_DIR).parent / "shared" / "data"


def require_path(path: Path, hint: str = "") -> Path:
    if not path.exists():
        raise SuiteUnavailable(f"{path} is not available" + (f" ({hint})" if hint else "."))
    return path


def require_codes(slugs: Sequence[str], data_dir: Path) -> list[LegalCode]:
    """The imported codes of these slugs, in order; refused with the import command to run
    when one is missing or holds no article."""
    codes = {c.slug: c for c in LegalCode.objects.filter(slug__in=slugs, versions__gt=0)}
    missing = [slug for slug in slugs if slug not in codes]
    if missing:
        files = " ".join(str(data_dir / FR_CODES / f"{slug}.jsonl") for slug in missing)
        raise SuiteUnavailable(
            f"code(s) not imported: {', '.join(missing)}. "
            f"Run: python manage.py import_legal_codes {files}"
        )
    return [codes[slug] for slug in slugs]


def imported_codes(data_dir: Path, slugs: Sequence[str] = ()) -> list[LegalCode]:
    """The codes holding articles (only ``slugs`` when given); refused when there are none."""
    if slugs:
        return require_codes(slugs, data_dir)
    codes = list(LegalCode.objects.filter(versions__gt=0).order_by("slug"))
    if not codes:
        raise SuiteUnavailable(
            f"no code is imported. Run: python manage.py import_legal_codes {data_dir / FR_CODES}"
        )
    return codes


def code_as_of(code: LegalCode) -> dt.date:
    """The day the suites read a code at: the day its texts were current, else today."""
    return code.snapshot_date or today_paris()


def number_spellings(number: str) -> list[str]:
    """The stored number and two ways lawyers write it; a label is asked for as stored."""
    if normalise_article_number(number) != number:
        return [number]
    match = _PREFIXED.match(number)
    if match is None:
        return [number, f"art. {number}", f"Article {number}"]
    prefix, rest = match["prefix"], match["rest"]
    dotted = "L.O." if prefix == "LO" else f"{prefix}."
    return [number, f"{dotted} {rest}", f"article {prefix} {rest}"]


def _check_code(code: LegalCode, failures: list[dict[str, Any]]) -> dict[str, Any]:
    as_of = code_as_of(code)
    rows = list(versions_in_force(as_of=as_of, codes=[code]).values_list("id", "number"))
    counts = Counter(number for _, number in rows)
    asked = found = same_version = labels = 0
    for version_id, number in rows:
        spellings = number_spellings(number)
        labels += len(spellings) == 1
        for spelling in spellings:
            asked += 1
            try:
                version = article_get(code=code, number=spelling, as_of=as_of)
            except SourceError as exc:
                if len(failures) < MAX_FAILURES:
                    failures.append(
                        {
                            "code": code.slug,
                            "number": number,
                            "asked": spelling,
                            "error": exc.message,
                        }
                    )
                continue
            found += version.number == number
            same_version += version.pk == version_id
    return {
        "as_of": as_of.isoformat(),
        "articles": len(rows),
        "asked": asked,
        "found": found,
        "found_share": round(found / asked, 4) if asked else 0.0,
        "labels_asked_as_stored": labels,
        # Two versions in force under one number: the lookup returns one of them only.
        "ambiguous_numbers": sorted(number for number, count in counts.items() if count > 1),
        "same_version": same_version,
    }


def run_lookup(codes: Iterable[LegalCode]) -> dict[str, Any]:
    """Per code and overall: spellings asked, found, and up to 20 failures with the error."""
    started = time.perf_counter()
    failures: list[dict[str, Any]] = []
    per_code = {code.slug: _check_code(code, failures) for code in codes}
    asked = sum(row["asked"] for row in per_code.values())
    found = sum(row["found"] for row in per_code.values())
    return {
        "suite": "lookup",
        "codes": per_code,
        "asked": asked,
        "found": found,
        "found_share": round(found / asked, 4) if asked else 0.0,
        "target_share": 1.0,
        "passed": asked > 0 and found == asked,
        "failures": failures,
        "seconds": round(time.perf_counter() - started, 1),
    }
