"""Case law from the two public sites, against a local server speaking their formats
(tests/sources/fake_caselaw.py, invented decisions): order, merge, fallback, paging, dates,
encodings, spacing, cache, failures and bad input, through the tools' one path."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from django.test import override_settings
from django.utils import translation

from agents.tools import ToolError, call_tool
from sources.models import CaseLawResponse
from tests.helpers.rooms import Room

pytestmark = pytest.mark.django_db
RANK = {"A": 0, "B": 1, "C": 2}


def _tool(room: Room, name: str, **arguments: Any) -> dict[str, Any]:
    with translation.override("en"):  # the messages asserted are the English ones
        return call_tool(name=name, arguments=arguments, user=room.viewer).content


def _refused(room: Room, name: str, **arguments: Any) -> ToolError:
    with translation.override("en"), pytest.raises(ToolError) as caught:
        call_tool(name=name, arguments=arguments, user=room.viewer)
    return caught.value


def _expected(corpus: list[dict[str, Any]], sources: tuple[str, ...]) -> list[str]:
    """The order the issue asks for, computed from the corpus alone: A, B, C, then the
    unclassified; newest first; ties by source order, then id."""
    docs = [d for d in corpus if d["SourceStr4"] in sources]
    return [
        d["Id"]
        for d in sorted(
            docs,
            key=lambda d: (
                RANK.get(d["SourceStr8"], 3),
                -dt.date.fromisoformat(d["SourceDateTime1"][:10]).toordinal(),
                sources.index(d["SourceStr4"]),
                d["Id"],
            ),
        )
    ]


def test_ce_and_tc_are_merged_a_before_b_before_c_then_newest_first(room, fake_caselaw):
    body = _tool(room, "search_case_law", query="éolienne", limit=20)
    assert body["searched"] == "CE+TC" and body["fallback"] is None
    assert body["total"] == 54
    ids = [hit["id"] for hit in body["results"]]
    assert ids == _expected(fake_caselaw.corpus, ("AW_DCE", "AW_DTC"))[:20]
    assert {hit["jurisdiction"] for hit in body["results"]} == {"CE", "TC"}
    first = body["results"][0]
    assert first["ecli"].startswith("ECLI:FR:CE:") and first["source"] == "arianeweb"
    assert first["permalink"].startswith("https://www.conseil-etat.fr/fr/arianeweb/")
    assert first["permalink"].endswith(f"/{first['number']}")


def test_paging_through_the_merge_never_drops_or_repeats_a_decision(room, fake_caselaw):
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = _tool(room, "search_case_law", query="éolienne", limit=7, offset=offset)
        seen += [hit["id"] for hit in page["results"]]
        offset = page["next_offset"]
    assert seen == _expected(fake_caselaw.corpus, ("AW_DCE", "AW_DTC"))
    assert len(seen) == len(set(seen)) == 54


def test_no_a_or_b_decision_of_ce_and_tc_falls_back_to_the_caa_and_says_so(room, fake_caselaw):
    fake_caselaw.corpus = [
        d
        for d in fake_caselaw.corpus
        if d["SourceStr8"] not in ("A", "B") or d["SourceStr4"] == "AW_DCA"
    ]
    body = _tool(room, "search_case_law", query="éolienne")
    assert body["searched"] == "CAA" and body["fallback"]["from"] == "CE+TC"
    assert body["fallback"]["reason"]
    assert {hit["jurisdiction"] for hit in body["results"]} == {"CAA"}
    assert len(body["results"]) == 5
    # A class asked explicitly is answered as asked, without a fallback.
    only_c = _tool(room, "search_case_law", query="éolienne", classification="C")
    assert only_c["fallback"] is None and {h["classification"] for h in only_c["results"]} == {"C"}


def test_dates_are_applied_exactly_across_years(room, fake_caselaw):
    start, end = dt.date(2023, 6, 15), dt.date(2024, 3, 10)
    pages, offset = [], 0
    while offset is not None:
        body = _tool(
            room,
            "search_case_law",
            query="éolienne",
            date_from=str(start),
            date_to=str(end),
            limit=20,
            offset=offset,
        )
        pages += body["results"]
        offset = body["next_offset"]
    dates = {d["Id"]: dt.date.fromisoformat(d["SourceDateTime1"][:10]) for d in fake_caselaw.corpus}
    order = _expected(fake_caselaw.corpus, ("AW_DCE", "AW_DTC"))
    expected = [i for i in order if start <= dates[i] <= end]
    assert [hit["id"] for hit in pages] == expected and expected
    assert body["total"] is None  # filtered here: the site's counts do not apply


def test_a_range_within_one_year_is_filtered_by_the_site_then_to_the_day(room, fake_caselaw):
    body = _tool(
        room,
        "search_case_law",
        query="éolienne",
        date_from="2024-01-01",
        date_to="2024-06-30",
        limit=20,
    )
    assert all("SourceInt1=2024" in r.path for r in fake_caselaw.requests("/xsearch"))
    assert body["results"] and all(
        "2024-01-01" <= h["date"] <= "2024-06-30" for h in body["results"]
    )
    full_year = _tool(
        room, "search_case_law", query="éolienne", date_from="2024-01-01", date_to="2024-12-31"
    )
    in_2024 = [
        d
        for d in fake_caselaw.corpus
        if d["SourceStr4"] in ("AW_DCE", "AW_DTC") and d["SourceDateTime1"].startswith("2024")
    ]
    assert full_year["total"] == len(in_2024)


def test_a_latin1_decision_is_read_with_its_accents_and_split(room, fake_caselaw):
    listed = _tool(room, "search_case_law", query="éolienne", limit=1)["results"][0]
    body = _tool(room, "get_decision", id=listed["id"])
    decision = body["decision"]
    assert "Conseil d'État" in decision["text"] and "préfectoral" in decision["text"]
    assert decision["structure_recognised"] is True
    assert decision["visas"][0].startswith("Vu la procédure suivante")
    assert [p["n"] for p in decision["considerants"]] == [1, 2, 3]
    assert "L. 181-3" in decision["considerants"][1]["text"]
    assert [a["article"] for a in decision["dispositif"]] == ["1er", "2"]
    assert decision["formation"] == "Section" and decision["ecli"] == listed["ecli"]
    assert decision["parties"]["applicant"].startswith("Société Éolia")


def test_get_decision_finds_metadata_by_case_number_when_never_listed(room, fake_caselaw):
    doc = fake_caselaw.corpus[4]  # never listed by another test (nor saved, nor read)
    body = _tool(room, "get_decision", id=doc["Id"])
    assert body["decision"]["ecli"] == doc["SourceStr30"] and body["warnings"] == []
    assert any("SourceCsv1=" in r.path for r in fake_caselaw.requests("/xsearch"))


def test_conclusions_are_the_pdf_text_with_the_rapporteur_public(room, fake_caselaw):
    with_conclusions = next(d for d in fake_caselaw.corpus if d.get("SourceCsv7"))
    body = _tool(room, "get_conclusions", id=with_conclusions["Id"])
    conclusions = body["conclusions"]
    assert conclusions["rapporteur_public"] == "M. Public"
    assert (
        "éolienne" in conclusions["text"] and with_conclusions["SourceStr5"] in conclusions["text"]
    )
    analysis = _tool(room, "get_analysis", id=with_conclusions["Id"])["analysis"]
    assert "Analyse de la décision" in analysis["text"]


def test_a_decision_without_conclusions_is_a_clear_error(room, fake_caselaw):
    without = next(d for d in fake_caselaw.corpus if not d.get("SourceCsv7"))
    error = _refused(room, "get_conclusions", id=without["Id"])
    assert error.kind == "not_found" and "no conclusions" in error.message
    assert _refused(room, "get_analysis", id=without["Id"]).kind == "not_found"
    opendata = _refused(room, "get_conclusions", id="TA75:2400100:DTA_2400100_20241130")
    assert opendata.kind == "not_found"


def test_open_data_is_sorted_by_class_then_date_and_read_in_full(room, fake_caselaw):
    body = _tool(room, "search_case_law", query="séjour", jurisdiction="TA", limit=20)
    hits = body["results"]
    assert [h["classification"] for h in hits] == sorted(h["classification"] for h in hits)
    for cls in "ABCD":
        dates = [h["date"] for h in hits if h["classification"] == cls]
        assert dates == sorted(dates, reverse=True)
    assert body["total"] == 30 and body["next_offset"] == 20
    first = hits[0]
    assert first["id"].count(":") == 2 and first["source"] == "opendata"
    assert first["permalink"].startswith(
        "https://opendata.justice-administrative.fr/recherche/shareFile/"
    )
    assert any(h["ecli"] is None for h in hits)  # "undefined" on the site
    decision = _tool(room, "get_decision", id=first["id"])["decision"]
    assert "<mark>" not in decision["text"] and "M. Dupré c/ Préfet" in decision["text"]
    assert decision["parties"] == {
        "applicant": "M. Dupré",
        "defendant": "Préfet de la Seine-Maritime",
    }
    assert [a["article"] for a in decision["dispositif"]] == ["1er"]
    lyon = _tool(room, "search_case_law", query="séjour", jurisdiction="TA", courts=["TA69"])
    assert {h["court"] for h in lyon["results"]} == {"Tribunal Administratif de Lyon"}


def test_open_data_paging_is_stable_and_dates_exact(room, fake_caselaw):
    first = _tool(room, "search_case_law", query="séjour", jurisdiction="TA", limit=11)
    second = _tool(room, "search_case_law", query="séjour", jurisdiction="TA", limit=11, offset=11)
    third = _tool(room, "search_case_law", query="séjour", jurisdiction="TA", limit=11, offset=22)
    ids = [h["id"] for page in (first, second, third) for h in page["results"]]
    assert len(ids) == len(set(ids)) == 30 and third["next_offset"] is None
    dated = _tool(
        room,
        "search_case_law",
        query="séjour",
        jurisdiction="TA",
        date_from="2024-06-01",
        date_to="2024-09-30",
        limit=20,
    )
    assert dated["results"] and all(
        "2024-06-01" <= h["date"] <= "2024-09-30" for h in dated["results"]
    )


def test_requests_to_a_host_are_500_ms_apart_on_the_sites_clock(room, fake_caselaw):
    with override_settings(LEXROOM_CASELAW_MIN_INTERVAL_MS=500):
        _tool(room, "search_case_law", query="éolienne", limit=3)
    times = [entry.at for entry in fake_caselaw.log]
    assert len(times) >= 3
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= 0.5


def test_a_search_needing_too_many_requests_stops_and_says_so(room, fake_caselaw, monkeypatch):
    monkeypatch.setattr("sources.caselaw._search.MAX_REQUESTS_PER_SEARCH", 3)
    body = _tool(room, "search_case_law", query="éolienne", limit=20, offset=40)
    assert len(fake_caselaw.log) <= 3 and body["total"] is None
    assert any("stopped after 3 requests" in warning for warning in body["warnings"])


def test_a_repeated_search_is_served_from_the_cache_with_its_age(room, fake_caselaw):
    first = _tool(room, "search_case_law", query="éolienne", limit=5)
    count = len(fake_caselaw.log)
    again = _tool(room, "search_case_law", query="éolienne", limit=5)
    assert len(fake_caselaw.log) == count  # nothing asked of the site
    assert again["results"] == first["results"]
    assert again["cache"]["from_cache"] == again["cache"]["requests"] > 0
    assert first["cache"]["from_cache"] == 0
    CaseLawResponse.objects.update(fetched_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    refreshed = _tool(room, "search_case_law", query="éolienne", limit=5)  # past its TTL
    assert refreshed["cache"]["from_cache"] == 0 and len(fake_caselaw.log) > count


def test_a_failing_site_is_unavailable_after_bounded_retries(room, fake_caselaw):
    fake_caselaw.fail_status = 503
    error = _refused(room, "search_case_law", query="éolienne")
    assert error.kind == "unavailable" and "503" in error.message
    assert len(fake_caselaw.log) == 3  # one try and two retries (LEXROOM_CASELAW_RETRIES)


def test_a_failing_site_serves_the_cache_with_a_warning(room, fake_caselaw):
    _tool(room, "search_case_law", query="éolienne", limit=5)
    CaseLawResponse.objects.update(fetched_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    fake_caselaw.fail_status = 500
    body = _tool(room, "search_case_law", query="éolienne", limit=5)
    assert body["results"] and body["cache"]["stale"] > 0
    assert any("cache" in warning for warning in body["warnings"])


def test_a_transient_failure_is_retried(room, fake_caselaw):
    fake_caselaw.fail_status, fake_caselaw.fail_count = 502, 1
    body = _tool(room, "search_case_law", query="éolienne", classification="A")
    assert body["results"]


def test_a_changed_format_is_an_error_never_an_empty_list(room, fake_caselaw):
    fake_caselaw.changed_shape = True
    for arguments in ({"query": "éolienne"}, {"query": "séjour", "jurisdiction": "TA"}):
        error = _refused(room, "search_case_law", **arguments)
        assert error.kind == "source_changed"


def test_offline_is_a_clear_error(room, fake_caselaw):
    with override_settings(LEXROOM_ARIANEWEB_URL="http://127.0.0.1:9"):
        error = _refused(room, "search_case_law", query="éolienne")
    assert error.kind == "unavailable" and "not an answer that no case law exists" in error.message


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("search_case_law", {"query": "x", "jurisdiction": "CEDH"}, "jurisdiction"),
        (
            "search_case_law",
            {"query": "x", "date_from": "2024-02-01", "date_to": "2024-01-01"},
            None,
        ),
        ("search_case_law", {"query": "x", "classification": "D"}, "classification"),
        ("search_case_law", {"query": "x", "courts": ["TA75"]}, "courts"),
        ("search_case_law", {"query": "x", "jurisdiction": "TA", "courts": ["CE"]}, "courts"),
        ("search_case_law", {"date_from": "2024-01-01"}, None),
        ("get_decision", {"id": "488011"}, "id"),
        ("get_decision", {"id": "/Ariane_Web/AW_XYZ/|1"}, "id"),
        ("get_decision", {"id": "TA999:1:x"}, "id"),
        ("get_decision", {"id": "/Ariane_Web/AW_CRP/|480003"}, "id"),
        ("get_conclusions", {"id": "TA76:26'00849:ORTA"}, "id"),
    ],
)
def test_bad_input_is_a_clear_tool_error(room, fake_caselaw, name, arguments, field):
    error = _refused(room, name, **arguments)
    assert error.kind == "invalid_arguments" and error.message
    if field == "id":
        assert "/Ariane_Web/AW_DCE/|488011" in error.message or "not a decision" in error.message
    assert fake_caselaw.log == []  # refused before any request


def test_an_unknown_decision_is_not_found(room, fake_caselaw):
    error = _refused(room, "get_decision", id="/Ariane_Web/AW_DCE/|999999")
    assert error.kind == "not_found"
