"""OCR for scanned PDFs: ocrmypdf + Tesseract (French and English), page by page.

Only the pages without a text layer are read (``--skip-text``): a mixed PDF keeps its text
pages as they are. The original bytes are never changed; the searchable PDF ocrmypdf writes
(the OCR'd text layer) is stored beside them, and each OCR'd page's mean word confidence
(Tesseract's, 0-100, read from its hOCR) is kept so the viewer and the tools can say
"texte issu d'OCR". Detected at run time: without the Debian packages ``ocrmypdf``,
``tesseract-ocr-fra`` and ``tesseract-ocr-eng`` a scan stays "Needs OCR", as before.
"""

from __future__ import annotations

import functools
import html
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext

LANGUAGES = ("fra", "eng")
_WORD_RE = re.compile(
    r"<span class=['\"]ocrx_word['\"][^>]*?x_wconf (\d{1,3})[^>]*>(.*?)</span>", re.DOTALL
)
_TAG_RE = re.compile(r"<[^>]+>")


class OcrError(Exception):
    """OCR was tried and failed; ``message`` says why (the document keeps its original)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class OcrResult:
    pages: list[str]  # every page's text, the OCR'd ones read by Tesseract
    ocr_pages: list[int]  # from 1
    confidence: dict[int, float]  # page -> mean word confidence, 0-100
    layer: bytes  # the searchable PDF (the original with the OCR text layer)
    seconds: float
    engine: str


@functools.cache
def _engine() -> tuple[str | None, str]:
    """(the ocrmypdf path or None, the engine's description or why it is missing)."""
    ocrmypdf, tesseract = shutil.which("ocrmypdf"), shutil.which("tesseract")
    if ocrmypdf is None or tesseract is None:
        return None, "ocrmypdf or tesseract is not installed"
    listed = subprocess.run(  # noqa: S603
        [tesseract, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
    )
    missing = [lang for lang in LANGUAGES if lang not in listed.stdout.split()]
    if missing:
        return None, f"Tesseract lacks {', '.join(missing)} (tesseract-ocr-{missing[0]})"
    version = subprocess.run(  # noqa: S603
        [ocrmypdf, "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    return ocrmypdf, f"ocrmypdf {version.stdout.strip()} + tesseract ({'+'.join(LANGUAGES)})"


def ocr_unavailable() -> str | None:
    """Why OCR cannot run here, or None when it can (checked once per process)."""
    if not settings.LEXROOM_OCR:
        return "LEXROOM_OCR is off"
    path, why = _engine()
    return None if path else why


def _hocr_page(path: Path) -> tuple[str, float | None]:
    """The page's words (Tesseract's .txt beside the hOCR) and their mean confidence."""
    hocr = path.read_text(encoding="utf-8", errors="replace")
    confidences = [
        int(conf) for conf, word in _WORD_RE.findall(hocr) if _TAG_RE.sub("", word).strip()
    ]
    text_file = path.with_suffix(".txt")
    if text_file.exists():
        text = text_file.read_text(encoding="utf-8", errors="replace")
    else:
        text = " ".join(html.unescape(_TAG_RE.sub("", w)) for _c, w in _WORD_RE.findall(hocr))
    mean = round(sum(confidences) / len(confidences), 1) if confidences else None
    return text.strip(), mean


def _run(command: list[str], work: Path) -> subprocess.CompletedProcess[str]:
    """ocrmypdf in a session of its own, with none of the server's secrets in its
    environment (Ghostscript and Tesseract read untrusted files), killed with its children
    (gs, tesseract) when it runs past LEXROOM_OCR_TIMEOUT."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "TMPDIR": str(work / "tmp"),
        "LANG": "C.UTF-8",
        "OMP_THREAD_LIMIT": "1",
    }
    process = subprocess.Popen(  # noqa: S603 - a fixed argument list, our file paths
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = process.communicate(timeout=settings.LEXROOM_OCR_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        message = gettext("OCR took longer than %(seconds)d s (LEXROOM_OCR_TIMEOUT).")
        raise OcrError(message % {"seconds": settings.LEXROOM_OCR_TIMEOUT}) from None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def ocr_pdf(data: bytes, *, pages: list[str]) -> OcrResult:
    """OCR the pages of ``data`` whose text (``pages``, from the text layer) is empty."""
    path, engine = _engine()
    if path is None or not settings.LEXROOM_OCR:
        raise OcrError(gettext("OCR is not available: %(why)s.") % {"why": engine})
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lexroom-ocr-") as folder:
        work = Path(folder)
        (work / "tmp").mkdir()
        (work / "in.pdf").write_bytes(data)
        command = [
            path, "--skip-text", "--pdf-renderer", "hocr", "--output-type", "pdf",
            "--optimize", "0", "--keep-temporary-files", "--quiet",
            "--language", "+".join(LANGUAGES), "--jobs", str(settings.LEXROOM_OCR_JOBS),
            str(work / "in.pdf"), str(work / "out.pdf"),
        ]  # fmt: skip
        if len(pages) > settings.LEXROOM_OCR_MAX_PAGES:
            message = gettext("Too many pages to OCR: %(count)d, more than %(limit)d allowed "
                              "(LEXROOM_OCR_MAX_PAGES).")  # fmt: skip
            raise OcrError(message % {"count": len(pages), "limit": settings.LEXROOM_OCR_MAX_PAGES})
        done = _run(command, work)
        if done.returncode != 0 or not (work / "out.pdf").exists():
            detail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
            raise OcrError(gettext("OCR failed: %(detail)s") % {"detail": detail[:300]})
        texts, confidence = list(pages), {}
        for hocr in sorted((work / "tmp").glob("ocrmypdf.io.*/*_ocr_hocr.hocr")):
            number = int(hocr.name.split("_", 1)[0])
            if 1 <= number <= len(texts):
                texts[number - 1], mean = _hocr_page(hocr)
                confidence[number] = mean if mean is not None else 0.0
        layer = (work / "out.pdf").read_bytes()
    return OcrResult(
        pages=texts,
        ocr_pages=sorted(confidence),
        confidence=confidence,
        layer=layer,
        seconds=round(time.perf_counter() - started, 2),
        engine=engine,
    )
