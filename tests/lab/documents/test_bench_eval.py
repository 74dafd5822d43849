"""The ingestion benchmark and the CUAD metadata evaluation: their JSON contracts and floors."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from lab.documents.evals import file_key, gold_parties, same_party
from lab.management.commands import bench_ingest, eval_metadata
from tests.helpers.data import TEST_EMBEDDING_MODEL, shared_data
from workspaces.models import Firm, User, Workspace

BENCH_KEYS = {
    "source",
    "documents",
    "failed",
    "chunks",
    "device",
    "dtype",
    "model",
    "dimension",
    "batch_size",
    "model_load_s",
    "wall_s",
    "docs_per_s",
    "chunks_per_s",
    "stages",
    "raw_encoder_chunks_per_s",
    "ratio",
    "targets",
    "peak_rss_mb",
    "cuda_max_allocated_mb",
    "torch",
    "cpus",
}
EVAL_KEYS = {
    "dataset",
    "contracts",
    "unmatched",
    "parties",
    "governing_law",
    "seconds",
    "errors",
    "agreement_date",
    "effective_date",
    "expiration_date",
    "renewal_term_present",
    "renewal_notice",
    "contract_type",
    "extraction_ms",
    "targets",
    "errors_by_cause",
    "date_examples",
}

CONTRACTS = {
    "a_prestation.txt": (
        "CONTRAT DE PRESTATION DE SERVICES\n\n"
        "Entre les soussignés : Quorvia SAS, société par actions simplifiée, d'une part, "
        "et Brenalis SA, société anonyme, d'autre part.\n\n"
        "ARTICLE 1 — OBJET\n\nLe présent contrat a pour objet la maintenance du parc "
        "informatique du client.\n\n"
        "ARTICLE 2 — DURÉE\n\nLe contrat est conclu pour une durée de trois ans.\n\n"
        "ARTICLE 3 — LOI APPLICABLE\n\nLe présent contrat est soumis au droit français.\n"
    ),
    "b_licence.txt": (
        "SOFTWARE LICENSE AGREEMENT\n\n"
        "This Agreement is made by and between Acme Software, Inc., a Delaware corporation, "
        "and Northwind Traders Ltd., an English company.\n\n"
        "ARTICLE 1 — GRANT\n\nLicensor grants Licensee a non-exclusive licence to use the "
        "Software.\n\n"
        "ARTICLE 2 — TERM\n\nThis Agreement has a term of five (5) years.\n\n"
        "ARTICLE 3 — GOVERNING LAW\n\nThis Agreement shall be governed by the laws of the "
        "State of New York.\n"
    ),
    "c_bail.txt": (
        "BAIL COMMERCIAL\n\n"
        "Entre Foncière Orsenne SARL et Café des Arts SAS.\n\n"
        "ARTICLE 1 — LOCAUX\n\nLe bailleur loue au preneur les locaux situés à Lyon.\n\n"
        "ARTICLE 2 — LOYER\n\nLe loyer annuel est de 24 000 euros hors taxes.\n"
    ),
}


@pytest.fixture
def contracts_dir(tmp_path: Path) -> Path:
    for name, text in CONTRACTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.django_db
def test_bench_ingest_reports_stages_and_removes_its_workspace(contracts_dir):
    out, err = StringIO(), StringIO()
    call_command("bench_ingest", "--source", str(contracts_dir), "--json", stdout=out, stderr=err)

    result = json.loads(out.getvalue())  # one JSON object and nothing else on stdout
    assert set(result) == BENCH_KEYS
    assert len(list(bench_ingest.result_lines(result))) == 3 + len(result["stages"]) + 2
    assert result["documents"] == 3
    assert result["failed"] == 0
    assert result["chunks"] > 0
    assert result["ratio"] > 0
    assert result["model"] == TEST_EMBEDDING_MODEL
    assert result["device"] == "cpu"
    assert result["cuda_max_allocated_mb"] is None
    assert {"store", "parse", "metadata", "chunk", "embed", "analyze"} <= set(result["stages"])
    assert result["stages"]["embed"]["chunks_per_s"] > 0
    assert result["targets"]["ratio_min"] == 0.8
    shares = sum(stage["share"] for stage in result["stages"].values())
    assert shares == pytest.approx(1.0, abs=0.01)
    assert not Workspace.objects.filter(slug__startswith="bench-").exists()
    assert not Firm.objects.filter(name="Lexroom Bench").exists()
    assert not User.objects.filter(email="bench@lexroom.local").exists()


@pytest.mark.django_db
def test_bench_ingest_limit_takes_the_first_files_by_name(contracts_dir):
    out = StringIO()
    call_command(
        "bench_ingest",
        "--source",
        str(contracts_dir),
        "--limit",
        "1",
        "--json",
        "--workspace",
        "bench-limit",
        stdout=out,
        stderr=StringIO(),
    )
    assert json.loads(out.getvalue())["documents"] == 1
    assert not Workspace.objects.filter(slug="bench-limit").exists()


def test_bench_ingest_refuses_a_missing_folder(tmp_path):
    with pytest.raises(CommandError, match="no such folder"):
        call_command("bench_ingest", "--source", str(tmp_path / "nope"), "--json")


def test_bench_ingest_refuses_an_empty_folder(tmp_path):
    with pytest.raises(CommandError, match="no files"):
        call_command("bench_ingest", "--source", str(tmp_path), "--json")


def test_eval_metadata_refuses_a_missing_dataset_naming_its_path(tmp_path):
    missing = tmp_path / "cuad"
    with pytest.raises(CommandError, match=str(missing)):
        call_command("eval_metadata", "--cuad", str(missing), "--json")


def test_eval_metadata_on_cuad_stays_above_the_floors():
    cuad = shared_data("cuad")
    out = StringIO()
    call_command("eval_metadata", "--cuad", str(cuad), "--limit", "20", "--json", stdout=out)

    result = json.loads(out.getvalue())
    assert set(result) == EVAL_KEYS
    lines = list(eval_metadata.result_lines(result))
    assert len(lines) == 1 + len(result["targets"]) + 3 + len(result["errors_by_cause"])
    assert result["dataset"] == "cuad"
    assert result["contracts"] == 20
    assert result["unmatched"] == 0
    assert set(result["parties"]) == {
        "both_main_found",
        "at_least_one",
        "recall",
        "precision",
        "gold_placeholders_dropped",
    }
    assert set(result["governing_law"]) == {
        "evaluated",
        "accuracy",
        "unnormalisable_gold",
        "false_positive",
        "by_jurisdiction",
        "jurisdiction_target",
    }
    assert result["governing_law"]["accuracy"] >= 0.8
    # Per jurisdiction: as many gold contracts in all as evaluated, each rate between 0 and 1.
    by_law = result["governing_law"]["by_jurisdiction"]
    assert sum(row["contracts"] for row in by_law.values()) == result["governing_law"]["evaluated"]
    assert all(0 <= row[k] <= 1 for row in by_law.values() for k in ("precision", "recall"))
    assert result["governing_law"]["jurisdiction_target"]["min_contracts"] == 20
    assert result["parties"]["at_least_one"] >= 0.6
    assert len(result["errors"]) <= 20
    # Floors well under the full run's numbers (README → Measured), on 20 contracts.
    assert result["agreement_date"]["accuracy"] >= 0.75
    assert result["contract_type"]["accuracy"] >= 0.8
    assert set(result["targets"]) == {
        "agreement_date",
        "expiration_date",
        "contract_type",
        "both_main_parties",
        "governing_law",
    }
    assert len(result["errors_by_cause"]) <= 20
    assert result["extraction_ms"]["median"] > 0


def test_eval_metadata_on_brenalis_read_from_pdfs_never_guesses_a_signature():
    path = shared_data("dataroom-brenalis", "exemple_data_room.json")
    out = StringIO()
    call_command(
        "eval_metadata", "--suite", "brenalis-text", "--brenalis", str(path), "--json", stdout=out
    )
    result = json.loads(out.getvalue())
    assert result["suite"] == "brenalis-text" and result["contracts"] == 20
    fields = result["fields"]
    assert set(fields) == {
        "signature_date",
        "end_date",
        "parties",
        "governing_law",
        "contract_type",
    }
    # The texts rarely state their signature date: we must say unknown, not guess.
    assert fields["signature_date"]["guessed"] == 0
    assert fields["contract_type"]["accuracy"] >= 0.8
    assert fields["parties"]["accuracy_when_stated"] >= 0.7


def test_eval_metadata_refuses_a_missing_brenalis_file(tmp_path):
    with pytest.raises(CommandError, match="No Brenalis data room"):
        call_command("eval_metadata", "--suite", "brenalis-text", "--brenalis", str(tmp_path / "x"))


def test_csv_filenames_pair_with_the_text_files_despite_cuads_renaming():
    assert file_key("MOELIS&CO_03_24_2014-EX-10.19-STRATEGIC ALLIANCE AGREEMENT.PDF") == file_key(
        "MOELIS_CO_03_24_2014-EX-10.19-STRATEGIC ALLIANCE AGREEMENT.txt"
    )
    assert file_key("ELECTRAMECCANICA VEHICLES CORP. - Manufacturing Agreement .PDF") == file_key(
        "ELECTRAMECCANICA VEHICLES CORP. - Manufacturing Agreement.txt"
    )
    assert file_key("NETGEAR,INC_04_21_2003-EX-10.16-AMENDMENT BETWEEN X AND NETGEAR-.pdf") == (
        file_key("NETGEAR,INC_04_21_2003-EX-10.16-AMENDMENT BETWEEN X AND NETGEAR.txt")
    )


def test_gold_parties_drop_aliases_definitions_and_repeats():
    answer = (
        'Electrameccanica Vehicles Corp ("EMV"); Chongqing Zongshen Co., LTD. ("Manufacturer"); '
        'ELECTRAMECCANICA VEHICLES CORP ("EMV"); (individually "Party", collectively "Parties")'
    )
    assert gold_parties(answer) == ["Electrameccanica Vehicles Corp", "Chongqing Zongshen Co., LTD"]


def test_party_match_accepts_containment_on_word_boundaries_only():
    assert same_party("ACCURAY INCORPORATED", "Accuray Inc.")
    assert same_party("Morgan Stanley & Co. Incorporated", "Morgan Stanley")
    assert not same_party("MS", "MSCI Inc.")
