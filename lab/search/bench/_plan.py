"""What a synthetic room holds, decided before anything is written: entities and contracts."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from lab.search.bench._vocabulary import CONTRACT_TYPES, LAWS, entity_names

AMENDMENT_SHARE = 0.05
UNKNOWN_LAW_SHARE = 0.05
NO_END_DATE_SHARE = 0.15


@dataclass
class PlannedDocument:
    ref: str
    language: str
    title: str
    contract_type: str
    governing_law: str
    signature_date: date
    end_date: date | None
    party_indexes: list[int]
    amends: int | None = None  # index of the amended contract
    effective_end_date: date | None = None
    effective_end_explanation: str = ""


@dataclass
class Plan:
    """The seeded description of a synthetic data room, before anything is written."""

    contracts: int
    chunks_per_contract: int
    seed: int
    entities: list[str] = field(default_factory=list)
    documents: list[PlannedDocument] = field(default_factory=list)

    @property
    def chunks(self) -> int:
        return self.contracts * self.chunks_per_contract


def plan_data_room(*, contracts: int, chunks_per_contract: int, seed: int) -> Plan:
    """Entities (50 to 300), contracts with types, laws, dates, parties and some amendments."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    plan = Plan(contracts, chunks_per_contract, seed)
    plan.entities = entity_names(max(50, min(300, contracts // 4)), rng)
    width = max(2, len(str(contracts)))
    for index in range(contracts):
        document = _planned_contract(plan, f"c{index + 1:0{width}d}", rng)
        earlier = plan.documents[-1] if plan.documents else None
        if earlier and earlier.amends is None and earlier.end_date and rng.random() < 0.1:
            _make_amendment(document, index - 1, earlier, earlier.end_date, rng)
        document.effective_end_date = document.effective_end_date or document.end_date
        plan.documents.append(document)
    return plan


def _planned_contract(plan: Plan, ref: str, rng: random.Random) -> PlannedDocument:
    # The draws keep their order (language, type, parties, dates, law): the seed's room
    # depends on it.
    language = "fr" if rng.random() < 0.6 else "en"
    label, fr_title, en_title = rng.choice(CONTRACT_TYPES)
    parties = rng.sample(range(len(plan.entities)), 3 if rng.random() < 0.1 else 2)
    signed = date(2015, 1, 1) + timedelta(days=rng.randrange(365 * 12))
    end = (
        None
        if rng.random() < NO_END_DATE_SHARE
        else signed + timedelta(days=365 * rng.randint(1, 10))
    )
    law = "" if rng.random() < UNKNOWN_LAW_SHARE else rng.choice(LAWS)
    names = [plan.entities[i] for i in parties]
    title = (
        f"{fr_title} entre {names[0]} et {names[1]}"
        if language == "fr"
        else f"{en_title} between {names[0]} and {names[1]}"
    )
    return PlannedDocument(ref, language, title, label, law, signed, end, parties)


def _make_amendment(
    document: PlannedDocument,
    amended: int,
    earlier: PlannedDocument,
    earlier_end: date,
    rng: random.Random,
) -> None:
    """An amendment follows its contract: same parties, later date, longer term."""
    document.amends = amended
    document.title = f"Avenant n°1 — {earlier.title}"
    document.contract_type = earlier.contract_type
    document.party_indexes = earlier.party_indexes
    document.governing_law = earlier.governing_law
    document.signature_date = earlier.signature_date + timedelta(days=200)
    document.end_date = None
    extended = earlier_end + timedelta(days=365 * rng.randint(1, 3))
    earlier.effective_end_date = extended
    earlier.effective_end_explanation = (
        f"fin prorogée au {extended.isoformat()} par l'avenant {document.ref}"
    )
