"""bench_ui: its JSON shape on a tiny room, and the filters' URL form it sends the page."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.http import QueryDict

from lab.management.commands.bench_ui import result_lines
from lab.search.bench import url_params
from search.views import parse_search_request
from workspaces.models import Workspace

PAGES = {
    "describe_selector",
    "search_filters_selector",
    "search_filters_page",
    "search_query_selector",
    "search_query_page",
    "viewer",
    "viewer_top",
    "documents_page",
}


@pytest.mark.django_db
def test_tiny_run_reports_every_page_and_removes_its_workspace():
    out = StringIO()
    call_command(
        "bench_ui", "--contracts", "20", "--chunks-per-contract", "4", "--requests", "3",
        "--json", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    result = json.loads(out.getvalue())
    assert set(result["latency_ms"]) == PAGES
    for summary in result["latency_ms"].values():
        assert summary["n"] == 3 and summary["p95"] > 0
    assert set(result["search_page_overhead_p95_ms"]) == {"search_filters", "search_query"}
    assert set(result["targets"]["met"]) == {
        "documents_page_p95",
        "viewer_p95",
        "search_page_overhead",
    }
    assert all(isinstance(line, str) for line in result_lines(result))
    assert not Workspace.objects.filter(slug=result["workspace"]).exists()


def test_url_params_parse_back_to_the_same_filters():
    raw = {
        "entity_ids": [3, 5],
        "contract_types": ["commercial_lease"],
        "governing_law": {"not_in": ["droit français"]},
        "signature_date": {"after": "2020-01-01", "before": "2021-01-01"},
        "end_date": {"after": "2022-02-02"},
    }
    query = QueryDict(mutable=True)
    for key, value in url_params(raw).items():
        query.setlist(key, value if isinstance(value, list) else [value])
    asked = parse_search_request(query)
    dumped = asked.filters.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    assert dumped == raw
