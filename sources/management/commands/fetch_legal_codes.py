"""fetch_legal_codes [--code NAME]… [--from PATH] [--if-missing]: refresh codes from SocialGouv's
``@socialgouv/legi-data`` package (Apache-2.0, the DILA's LEGI base, refreshed monthly on the
npm registry), fetched with ``npm pack`` or read from a copy (its .tgz or its folder)."""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.text import slugify
from django.utils.translation import gettext as _

from sources.codes_catalog import SLUGS_BY_LEGI_ID, code_slug
from sources.models import LegalCode

PACKAGE = "@socialgouv/legi-data"
# Small (~500 articles, 2 MB) and in the package today (it ships 4 codes): what `make run` loads.
DEFAULT_CODES = ("Code des relations entre le public et l'administration",)
NPM_TIMEOUT_S = 600
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:-[\w.]+)?|[a-z][\w-]{0,30}")
_MEMBER = re.compile(r"package/data/LEGITEXT\d{12}\.json")


class Command(BaseCommand):
    help = _(
        "Fetch current French codes from the @socialgouv/legi-data package (npm registry) or "
        "a copy of it, and import them (import_legal_codes --format legi-json)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--code",
            action="append",
            help=_("A code to import (title or slug; repeat). Default: %(codes)s.")
            % {"codes": ", ".join(DEFAULT_CODES)},
        )
        parser.add_argument(
            "--from",
            dest="source",
            type=Path,
            help=_("The package's .tgz (npm pack) or unpacked folder, instead of fetching it."),
        )
        parser.add_argument(
            "--package-version", default="latest", help=_("The npm version (default latest).")
        )
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help=_("Do nothing when every asked code is already imported (used by make run)."),
        )
        parser.add_argument("--replace", action="store_true", help=_("As import_legal_codes."))
        parser.add_argument("--no-embed", action="store_true", help=_("Skip the vectors."))

    def handle(self, *args: Any, **options: Any) -> None:
        codes = options["code"] or list(DEFAULT_CODES)
        if options["if_missing"] and all(_imported(code) for code in codes):
            self.stdout.write(_("The codes asked are already imported: nothing fetched."))
            return
        with tempfile.TemporaryDirectory(prefix="legi-data-") as tmp:
            source = options["source"] or _npm_pack(Path(tmp), options["package_version"])
            data = _data_dir(source, Path(tmp))
            files = [_code_file(data, code) for code in codes]
            call_command(
                "import_legal_codes",
                *[str(f) for f in files],
                format="legi-json",
                replace=options["replace"],
                no_embed=options["no_embed"],
                stdout=self.stdout,
                stderr=self.stderr,
            )


def _slug(name: str) -> str:
    return code_slug(name) or slugify(name)


def _imported(name: str) -> bool:
    return LegalCode.objects.filter(slug=_slug(name)).exists()


def _code_file(data: Path, name: str) -> Path:
    """The package's file of the code ``name`` (title or slug), through the catalogue."""
    slug = _slug(name)
    ids = [legi_id for legi_id, known in SLUGS_BY_LEGI_ID.items() if known == slug]
    for legi_id in ids:
        if (data / f"{legi_id}.json").is_file():
            return data / f"{legi_id}.json"
    close = difflib.get_close_matches(slug, sorted(set(SLUGS_BY_LEGI_ID.values())), n=3)
    raise CommandError(
        _("%(name)s: not a code this package holds (close: %(close)s).")
        % {"name": name, "close": ", ".join(close) or "-"}
    )


def _npm_pack(into: Path, version: str) -> Path:
    if not _VERSION.fullmatch(version):
        raise CommandError(
            _("--package-version %(version)r: a version (2.513.0) or a tag (latest) only.")
            % {"version": version[:60]}
        )
    npm = shutil.which("npm")
    if npm is None:
        raise CommandError(
            _(
                "npm is not installed here: nothing fetched. On a machine with npm and the "
                "network, run `npm pack %(package)s`, copy the .tgz here and pass it with --from."
            )
            % {"package": PACKAGE}
        )
    command = [npm, "pack", f"{PACKAGE}@{version}", "--pack-destination", str(into)]
    # Data only: no lifecycle script of the package runs here.
    command += ["--silent", "--ignore-scripts", "--fetch-retries=0", "--fetch-timeout=30000"]
    try:
        subprocess.run(command, check=True, capture_output=True, timeout=NPM_TIMEOUT_S)  # noqa: S603
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        raise CommandError(
            _("npm could not fetch %(package)s (no network, or no such version?): %(detail)s")
            % {"package": PACKAGE, "detail": detail.decode(errors="replace")[-300:].strip()}
        ) from None
    tarballs = sorted(into.glob("*.tgz"))
    if not tarballs:
        raise CommandError(_("npm pack wrote no .tgz."))
    return tarballs[0]


def _data_dir(source: Path, tmp: Path) -> Path:
    """The folder holding the LEGITEXT*.json files of a package copy."""
    if source.is_dir():
        for candidate in (source / "package" / "data", source / "data", source):
            if any(candidate.glob("LEGITEXT*.json")):
                return candidate
        raise CommandError(_("%(path)s holds no LEGITEXT*.json file.") % {"path": source})
    if not source.is_file():
        raise CommandError(_("%(path)s: no such file or folder.") % {"path": source})
    try:
        with tarfile.open(source) as tar:
            members = [m for m in tar.getmembers() if m.isfile() and _MEMBER.fullmatch(m.name)]
            if not members:
                raise CommandError(
                    _("%(path)s is not the legi-data package (no package/data/LEGITEXT*.json).")
                    % {"path": source}
                )
            tar.extractall(tmp / "unpacked", members=members, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise CommandError(
            _("%(path)s: not a readable .tgz (%(error)s).") % {"path": source, "error": exc}
        ) from None
    return tmp / "unpacked" / "package" / "data"
