"""eval_compliance --suite ana-fr: French IT-services clauses (ANA, ECAI 2020; the sample's
77 clauses, evaluation only: its text never enters the repository) against a playbook of our
own that encodes the dataset's acceptance policies (``annotation/politics.txt``).

The dataset labels each clause with its type and whether it is acceptable (``None``) or not
(``False`` with the policy violated); the authors report accuracy. Two measures, as there:
- clause type: the clause-type classifier's most confident tag on the clause (encoded as
  ingestion would), mapped to the dataset's labels; labels with no taxonomy type count as
  "other" (payment clauses, for one: the taxonomy has no payment type yet);
- valid / invalid: a clause is invalid when a rule of the playbook flags it. Measured with the
  dataset's own clause types ("gold types": the rules alone) and with the predicted ones
  (end to end).
"""

from __future__ import annotations

import csv
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from compliance.articles import Article, RuleView
from compliance.checks import check_contract
from compliance.custom_types import CustomType
from compliance.scanning import encode, playbook_custom_types
from core.embeddings import embedding_model_name, get_encoder
from documents.clause_types import article_probabilities, classifier_for, cue_text

FOLDER = Path("ana-fr-clauses") / "datasets" / "service_contract_sample"
# The dataset's clause types → the taxonomy's (the others have none).
TYPES = {
    "non_sollicitation": "no_solicit_of_employees",
    "non_concurrence": "non_compete",
    "resiliation": "termination_for_convenience",
    "duree": "expiration_date",
    "legal": "governing_law",
    "prop_intel": "ip_ownership_assignment",
    "responsabilites": "cap_on_liability",
}
# The taxonomy has no payment-terms type: the playbook adds its own, learnt from examples we
# wrote (not the dataset's), as a firm would.
PAYMENT = "conditions_de_paiement"
PAYMENT_TYPE = {
    "key": PAYMENT,
    "label": "Conditions de paiement",
    "examples": [
        "Les factures sont payables par virement bancaire dans un délai de quarante-cinq jours "
        "à compter de leur date d'émission.",
        "Le prix des prestations est facturé chaque mois ; le règlement intervient à trente "
        "jours fin de mois.",
        "Tout retard de paiement entraîne des pénalités de retard et une indemnité forfaitaire "
        "pour frais de recouvrement.",
        "Les sommes dues au prestataire sont réglées par chèque ou par virement à réception de "
        "la facture.",
    ],
    "cue": r"\bpaiement|\bfactur|\brèglement",
}


def _rule(key: str, clause_type: str, kind: str, **params: Any) -> RuleView:
    return RuleView(key, key, clause_type, kind, params)


# politics.txt, as rules of our kinds (written by us; R3, R5, R8, R10, R13, R16-R20 are not
# expressible without reading who owes what, and are left out).
RULES = (
    # R2 and R4: no-solicitation for 12 months after the contract, and an indemnity of 12
    # months' salary: every duration the clause states is at least 12 months.
    _rule("r2-r4-12-mois", "no_solicit_of_employees", "threshold", quantity="months", op=">=",
          value=12),
    # R7: termination on 30 days' notice (up to 60); R9: a notice for every termination.
    _rule("r7-preavis-min", "termination_for_convenience", "threshold", quantity="days",
          op=">=", value=30),
    _rule("r7-preavis-max", "termination_for_convenience", "threshold", quantity="days",
          op="<=", value=60),
    _rule("r9-preavis", "termination_for_convenience", "keyword",
          terms=["préavis", "prévenance", "jours"], must="appear"),
    # R11: payment by bank transfer only; R12: within 45 days net, not end of month.
    _rule("r11-virement", PAYMENT, "keyword", terms=["chèque", "espèces", "traite", "LCR"],
          must="absent"),
    _rule("r12-45-jours", PAYMENT, "threshold", quantity="days", op="<=", value=45),
    _rule("r12-fin-de-mois", PAYMENT, "regex", pattern=r"(?i)fin\s+de\s+mois", must="absent"),
    # R15: a non-compete of 12 months at most.
    _rule("r15-non-concurrence", "non_compete", "threshold", quantity="months", op="<=",
          value=12),
)  # fmt: skip


def _read(root: Path) -> list[dict[str, Any]]:
    folder = root / FOLDER
    clauses = []
    with (folder / "clauses_label.csv").open(encoding="utf-8") as handle:
        for row in csv.reader(handle, skipinitialspace=True):
            if len(row) < 4:
                continue
            clause_id, invalidity, policy, label = (cell.strip() for cell in row[:4])
            parts = sorted((folder / "texts").glob(f"{clause_id}_*.txt"))
            text = " ".join(p.read_text(encoding="utf-8").strip() for p in parts)
            clauses.append(
                {
                    "id": clause_id,
                    "label": label,
                    "valid": invalidity == "None",
                    "policy": None if policy == "None" else policy,
                    "text": text,
                }
            )
    return clauses


def _predicted_types(texts: list[str]) -> tuple[list[str | None], Any]:
    """Each clause's most confident clause type, as ingestion would tag it."""
    model = embedding_model_name()
    vectors = np.asarray(get_encoder().encode(texts), dtype=np.float32)
    classifier = classifier_for(embedding_model=model, workspace_id=None)
    if classifier is None:
        return [None] * len(texts), vectors
    probabilities = article_probabilities(classifier, texts, vectors, get_encoder().encode)
    classifier.with_cues(probabilities, [cue_text("", text) for text in texts])
    tags = classifier.tags(probabilities)
    return [max(t, key=lambda k: t[k]) if t else None for t in tags], vectors


def _invalid(
    text: str, clause_type: str | None, vector: Any, custom: dict[str, CustomType] | None
) -> list[str]:
    article = Article(0, "", "", 1, text, frozenset({clause_type} if clause_type else ()),
                      vector)  # fmt: skip
    outcome = check_contract(list(RULES), [article], encode=encode, ask=None, custom=custom)
    return sorted({finding.rule.key for finding in outcome.findings})


def _article(text: str, vector: Any) -> Article:
    return Article(0, "", "", 1, text, frozenset(), vector)


def _accuracy(pairs: list[tuple[Any, Any]]) -> float:
    return round(sum(a == b for a, b in pairs) / len(pairs), 3) if pairs else 0.0


def _cell(row: dict[str, Any]) -> str:
    truth = "valid" if row["valid"] else "invalid"
    return f"{truth}→{'flagged' if row['flags_gold_type'] else 'clean'}"


def run(data_dir: Path) -> dict[str, Any]:
    started = time.perf_counter()
    clauses = _read(data_dir)
    predicted, vectors = _predicted_types([c["text"] for c in clauses])
    custom = playbook_custom_types([PAYMENT_TYPE])
    inverse = {taxonomy: label for label, taxonomy in TYPES.items()} | {PAYMENT: "paiement"}
    rows = []
    for clause, guess, vector in zip(clauses, predicted, vectors, strict=True):
        gold_type = TYPES.get(clause["label"], PAYMENT if clause["label"] == "paiement" else None)
        by_gold = _invalid(clause["text"], gold_type, vector, None)
        taxonomy_only = _invalid(clause["text"], guess, vector, {})
        end_to_end = _invalid(clause["text"], guess, vector, custom)
        if guess is None and custom[PAYMENT].matches(_article(clause["text"], vector)):
            guess = PAYMENT
        rows.append({"id": clause["id"], "label": clause["label"],
                     "predicted": inverse.get(guess or "", "other"), "valid": clause["valid"],
                     "policy": clause["policy"], "flags_gold_type": by_gold,
                     "flags_end_to_end": end_to_end,
                     "flags_taxonomy_only": taxonomy_only})  # fmt: skip
    expected_labels = [r["label"] if r["label"] in inverse.values() else "other" for r in rows]
    return {
        "suite": "ana-fr",
        "clauses": len(rows),
        "invalid_clauses": sum(not r["valid"] for r in rows),
        "model": embedding_model_name(),
        "clause_type_accuracy": _accuracy(list(zip(expected_labels,
                                                   [r["predicted"] for r in rows], strict=True))),
        "validity_accuracy_gold_type": _accuracy([(r["valid"], not r["flags_gold_type"])
                                                  for r in rows]),
        "validity_accuracy_end_to_end": _accuracy([(r["valid"], not r["flags_end_to_end"])
                                                   for r in rows]),
        # Without the playbook's own payment type: the shared taxonomy's types only.
        "validity_accuracy_taxonomy_only": _accuracy([(r["valid"], not r["flags_taxonomy_only"])
                                                      for r in rows]),
        "confusion_gold_type": dict(Counter(_cell(r) for r in rows)),
        "rules": [rule.key for rule in RULES],
        "seconds": round(time.perf_counter() - started, 1),
        "rows": rows,
    }  # fmt: skip
