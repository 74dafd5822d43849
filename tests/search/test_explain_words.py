"""Why a contract matched, in words: its type's name and its law in the page's language."""

from __future__ import annotations

import pytest
from django.utils import translation

from search.filters import LawFilter, SearchFilters
from search.selectors._explain import matched_filters
from tests.factories import FirmFactory, WorkspaceFactory


@pytest.mark.django_db
def test_why_a_contract_matched_names_its_type_and_law_in_words():
    from documents.models import Document

    workspace = WorkspaceFactory(firm=FirmFactory())
    document = Document(
        workspace=workspace, ref="c01", contract_type="commercial_lease",
        governing_law="droit anglais",
    )  # fmt: skip
    filters = SearchFilters(
        contract_types=["commercial_lease"],
        governing_law=LawFilter.model_validate({"in": ["droit anglais"]}),
    )
    with translation.override("en"):
        lines = matched_filters(document, filters, {})
    assert not any("commercial_lease" in line or "droit anglais" in line for line in lines)
    assert any("English law" in line for line in lines)
