"""The OCR benchmark behind ``manage.py bench_ocr``: a scan made here (our own French
sentences rendered to A4 images at 200 dpi, put in a PDF), read by the production OCR path;
pages per second, Tesseract's mean confidence, and the share of the rendered words found."""

from __future__ import annotations

import io
import re
import time
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from documents.ocr import ocr_pdf, ocr_unavailable
from lab.documents.bench._workspace import BenchRefused

SENTENCES = (
    "Le preneur s'engage a payer le loyer le premier jour de chaque trimestre.",
    "Le present contrat est conclu pour une duree de trois annees entieres.",
    "Toute modification fera l'objet d'un avenant signe par les deux parties.",
    "Les parties elisent domicile en leur siege social respectif.",
    "Le prestataire garantit la confidentialite des informations recues.",
    "En cas de litige, les tribunaux de Paris seront seuls competents.",
)
LINES_PER_PAGE = 24


def _page(number: int) -> tuple[Image.Image, list[str]]:
    image = Image.new("L", (1654, 2339), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=34)
    lines = [f"ARTICLE {number} - STIPULATIONS"] + [
        SENTENCES[(number + row) % len(SENTENCES)] for row in range(LINES_PER_PAGE)
    ]
    for row, line in enumerate(lines):
        draw.text((130, 150 + row * 80), line, fill=0, font=font)
    return image, lines


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def run_ocr_bench(*, pages: int) -> dict[str, Any]:
    why = ocr_unavailable()
    if why is not None:
        raise BenchRefused(f"OCR is not available: {why}")
    rendered = [_page(number) for number in range(1, pages + 1)]
    buffer = io.BytesIO()
    images = [image for image, _lines in rendered]
    images[0].save(buffer, "PDF", resolution=200, save_all=True, append_images=images[1:])
    started = time.perf_counter()
    result = ocr_pdf(buffer.getvalue(), pages=[""] * pages)
    seconds = time.perf_counter() - started
    expected = [word for _image, lines in rendered for line in lines for word in _words(line)]
    read = set(_words(" ".join(result.pages)))
    confidences = list(result.confidence.values())
    return {
        "pages": pages,
        "seconds": round(seconds, 2),
        "pages_per_second": round(pages / seconds, 3),
        "mean_confidence": round(sum(confidences) / len(confidences), 1) if confidences else None,
        "words_found": round(sum(1 for word in expected if word in read) / len(expected), 3),
        "engine": result.engine,
    }
