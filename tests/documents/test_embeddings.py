"""Encoder set-up: the packaged model through the production loader, device and dtype."""

from __future__ import annotations

import pytest

from documents import embeddings


def test_packaged_model_loads_offline_and_embeds_normalised_vectors():
    encoder = embeddings.get_encoder()
    vectors = encoder.encode(["Le bail est conclu pour neuf ans.", "The term is nine years."])
    assert vectors.shape == (2, encoder.dimension) == (2, 384)
    assert abs(float((vectors[0] ** 2).sum()) - 1.0) < 1e-2


def test_dtype_choice(monkeypatch):
    assert embeddings.pick_dtype("cuda") == "float16"
    assert embeddings.pick_dtype("cpu", "float32") == "float32"
    monkeypatch.setattr(embeddings, "cpu_has_fast_bf16", lambda: False)
    assert embeddings.pick_dtype("cpu") == "float32"
    monkeypatch.setattr(embeddings, "cpu_has_fast_bf16", lambda: True)
    assert embeddings.pick_dtype("cpu") == "bfloat16"


def test_unknown_package_model_is_a_clear_error():
    with pytest.raises(embeddings.EmbeddingModelUnavailable, match="not installed"):
        embeddings.resolve_model_path("pkg:no_such_model_package")
