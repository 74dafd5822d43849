"""The flags for the client report: CSV (UTF-8 with a BOM, so Excel reads accents) or XLSX.
No cell is ever a formula: text that starts like one is kept as text."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext

from compliance.models import Flag

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def csv_cell(value: object) -> object:
    """A cell a spreadsheet shows as text, never runs as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def headers() -> list[str]:
    return [gettext("Contract"), gettext("Title"), gettext("Playbook"), gettext("Version"),
            gettext("Rule"), gettext("Severity"), gettext("Status"), gettext("Article"),
            gettext("Page"), gettext("Reason"), gettext("Excerpt"), gettext("Review note"),
            gettext("Noted by")]  # fmt: skip


def row(flag: Flag) -> list[Any]:
    return [flag.document.ref, flag.document.display_title, flag.rule.playbook.key,
            flag.rule.playbook.version, flag.rule.title, flag.get_severity_display(),
            flag.get_status_display(), flag.article_ref,
            flag.page if flag.page is not None else "", flag.reason, flag.excerpt,
            getattr(flag, "last_note", None) or "",
            getattr(flag, "last_note_by", None) or ""]  # fmt: skip


def csv_response(flags: Iterable[Flag], filename: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerow(headers())
    for flag in flags:
        writer.writerow([csv_cell(cell) for cell in row(flag)])
    return response


def xlsx_response(flags: Iterable[Flag], filename: str) -> HttpResponse:
    from openpyxl import Workbook  # only for this export

    book = Workbook(write_only=True)
    sheet = book.create_sheet(gettext("Flags"))
    sheet.append(headers())
    for flag in flags:
        sheet.append([_text_cell(sheet, value) for value in row(flag)])
    buffer = io.BytesIO()
    book.save(buffer)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="{filename}.xlsx"'
    return response


def _text_cell(sheet: Any, value: Any) -> Any:
    """Strings as text cells: openpyxl would store one starting with "=" as a formula."""
    if not isinstance(value, str):
        return value
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    # Control characters (a PDF's form feed in an excerpt) are refused by the format.
    cell = WriteOnlyCell(sheet, value=ILLEGAL_CHARACTERS_RE.sub(" ", value))
    cell.data_type = "s"
    return cell
