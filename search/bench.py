"""Synthetic data rooms for ``bench_search``: a seeded legal vocabulary, contracts and chunks.

Everything here exists to measure the real search code on realistic volumes (up to millions
of chunks) without ingesting real files: documents, entities and parties go through the ORM
(thousands of rows), chunks through a binary ``COPY`` into a temporary table and one
``INSERT ... SELECT`` per batch that computes the weighted tsvector in SQL, the same way
:func:`documents.textsearch.chunk_vectors_update` does. Vectors are clustered around topic
centroids that the configured encoder itself embeds, so queries land near their topics and the
HNSW graph has the structure of real data.
"""

from __future__ import annotations

import hashlib
import random
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np
from django.db import connection, transaction
from numpy.typing import NDArray

from documents.models import Chunk, Document, DocumentLink, DocumentParty, DocumentStatus, Entity
from documents.normalize import fold_accents
from documents.textsearch import ts_config
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

# SQL in this module is assembled from constants and integer dimensions only (ruff S608).

TOPICS = 200
CHUNK_BATCH_ROWS = 50_000
GIN_INDEX = "chunk_search_vector_gin"
GIN_DEFINITION = f"CREATE INDEX {GIN_INDEX} ON documents_chunk USING gin (search_vector)"
# Share of a chunk vector that is noise (norm of the noise relative to the unit centroid):
# ~0.8 cosine to its own centroid, like paraphrases of one clause in real contracts.
NOISE_NORM = 0.75
AMENDMENT_SHARE = 0.05
UNKNOWN_LAW_SHARE = 0.05
NO_END_DATE_SHARE = 0.15


def hnsw_index_name(dimension: int) -> str:
    return f"documents_chunk_embedding_hnsw_{int(dimension)}"


def hnsw_definition(dimension: int) -> str:
    """The definition documents.embeddings.vector_index_ensure uses (kept identical)."""
    dim = int(dimension)
    return (
        f"CREATE INDEX {hnsw_index_name(dim)} ON documents_chunk "
        f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) WHERE embedding_dim = {dim}"
    )


# --- vocabulary ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Theme:
    """A kind of article: its heading in both languages and the phrases its text uses."""

    fr_title: str
    en_title: str
    fr: tuple[str, ...]
    en: tuple[str, ...]


THEMES: tuple[Theme, ...] = (
    Theme(
        "Objet",
        "Purpose",
        (
            "le présent contrat a pour objet",
            "la fourniture de prestations",
            "le périmètre des services",
            "le cahier des charges",
            "les livrables définis en annexe",
            "la mise à disposition de personnel",
            "l'obligation de moyens",
        ),
        (
            "the purpose of this agreement",
            "the provision of services",
            "the scope of work",
            "the statement of work",
            "deliverables set out in the schedule",
            "secondment of personnel",
            "best efforts obligation",
        ),
    ),
    Theme(
        "Durée",
        "Term",
        (
            "le contrat est conclu pour une durée déterminée",
            "à compter de la date d'effet",
            "renouvellement par tacite reconduction",
            "période initiale de trois ans",
            "préavis de six mois",
            "date de fin de contrat",
            "prorogation du terme",
        ),
        (
            "the initial term",
            "from the effective date",
            "automatic renewal",
            "successive renewal periods",
            "written notice of non-renewal",
            "expiry of the term",
            "extension of the term",
        ),
    ),
    Theme(
        "Résiliation",
        "Termination",
        (
            "résiliation pour faute",
            "résiliation pour convenance",
            "mise en demeure restée sans effet",
            "manquement grave aux obligations",
            "résiliation de plein droit",
            "clause résolutoire",
            "effets de la résiliation",
        ),
        (
            "termination for convenience",
            "termination for cause",
            "material breach",
            "cure period of thirty days",
            "insolvency of either party",
            "effects of termination",
            "survival of obligations",
        ),
    ),
    Theme(
        "Confidentialité",
        "Confidentiality",
        (
            "obligation de confidentialité",
            "informations confidentielles",
            "secret des affaires",
            "divulgation à des tiers",
            "restitution des documents",
            "accord de non-divulgation",
            "pendant cinq ans après la fin du contrat",
        ),
        (
            "confidential information",
            "non-disclosure obligations",
            "trade secrets",
            "disclosure to third parties",
            "return or destruction of materials",
            "need to know basis",
            "for five years after termination",
        ),
    ),
    Theme(
        "Responsabilité",
        "Liability",
        (
            "limitation de responsabilité",
            "plafond de responsabilité",
            "dommages indirects",
            "perte d'exploitation",
            "faute lourde ou dolosive",
            "préjudice direct et certain",
            "exclusion de garantie",
        ),
        (
            "limitation of liability",
            "liability cap",
            "indirect or consequential damages",
            "loss of profits",
            "gross negligence or wilful misconduct",
            "aggregate liability",
            "exclusion of warranties",
        ),
    ),
    Theme(
        "Loi applicable et juridiction",
        "Governing Law and Jurisdiction",
        (
            "loi applicable",
            "le présent contrat est soumis au droit français",
            "tribunal de commerce de Paris",
            "attribution de juridiction",
            "règlement amiable des différends",
            "clause compromissoire",
            "arbitrage sous l'égide de la CCI",
        ),
        (
            "governing law",
            "exclusive jurisdiction",
            "the courts of England and Wales",
            "laws of the State of New York",
            "dispute resolution",
            "binding arbitration",
            "venue and forum",
        ),
    ),
    Theme(
        "Non-concurrence",
        "Non-Competition",
        (
            "clause de non-concurrence",
            "clause de non-sollicitation",
            "interdiction de débauchage",
            "zone géographique",
            "contrepartie financière",
            "activité concurrente",
            "clause d'exclusivité",
        ),
        (
            "non-compete covenant",
            "non-solicitation of employees",
            "restricted territory",
            "competing business",
            "exclusivity undertaking",
            "restrictive covenants",
            "restricted period",
        ),
    ),
    Theme(
        "Prix et paiement",
        "Fees and Payment",
        (
            "prix forfaitaire",
            "conditions de paiement",
            "facturation mensuelle",
            "délai de paiement de trente jours",
            "pénalités de retard",
            "indemnité forfaitaire pour frais de recouvrement",
            "révision annuelle des prix",
        ),
        (
            "fees and expenses",
            "payment terms",
            "monthly invoicing",
            "net thirty days",
            "late payment interest",
            "price adjustment",
            "taxes and duties",
        ),
    ),
    Theme(
        "Propriété intellectuelle",
        "Intellectual Property",
        (
            "propriété intellectuelle",
            "cession des droits d'auteur",
            "licence non exclusive",
            "savoir-faire",
            "droits de propriété industrielle",
            "garantie d'éviction",
            "contrefaçon",
        ),
        (
            "intellectual property rights",
            "assignment of copyright",
            "non-exclusive licence",
            "background and foreground IP",
            "know-how",
            "infringement claims",
            "royalty-free licence",
        ),
    ),
    Theme(
        "Force majeure",
        "Force Majeure",
        (
            "force majeure",
            "événement imprévisible et irrésistible",
            "suspension des obligations",
            "épidémie ou pandémie",
            "catastrophe naturelle",
            "imprévision",
            "notification sans délai",
        ),
        (
            "force majeure event",
            "beyond reasonable control",
            "suspension of performance",
            "act of God",
            "epidemic or pandemic",
            "hardship",
            "prompt notice",
        ),
    ),
    Theme(
        "Données personnelles",
        "Data Protection",
        (
            "données à caractère personnel",
            "règlement général sur la protection des données",
            "sous-traitant au sens du RGPD",
            "violation de données",
            "transfert hors de l'Union européenne",
            "analyse d'impact",
            "registre des traitements",
        ),
        (
            "personal data",
            "data processing agreement",
            "data controller and processor",
            "personal data breach",
            "standard contractual clauses",
            "data subject rights",
            "security measures",
        ),
    ),
    Theme(
        "Assurances",
        "Insurance",
        (
            "attestation d'assurance",
            "assurance responsabilité civile professionnelle",
            "police d'assurance",
            "montant de garantie",
            "assureur de premier rang",
            "franchise",
            "subrogation",
        ),
        (
            "insurance coverage",
            "professional indemnity insurance",
            "certificate of insurance",
            "insured amount",
            "reputable insurer",
            "deductible",
            "waiver of subrogation",
        ),
    ),
    Theme(
        "Cession du contrat",
        "Assignment",
        (
            "cession du contrat",
            "accord préalable et écrit",
            "changement de contrôle",
            "sous-traitance",
            "intuitu personae",
            "transfert à une société affiliée",
            "substitution de partie",
        ),
        (
            "assignment and transfer",
            "prior written consent",
            "change of control",
            "subcontracting",
            "successors and assigns",
            "affiliate transfer",
            "novation",
        ),
    ),
    Theme(
        "Garanties",
        "Representations and Warranties",
        (
            "déclarations et garanties",
            "garantie de passif",
            "garantie de conformité",
            "vices cachés",
            "capacité à contracter",
            "absence de litige",
            "garantie d'actif et de passif",
        ),
        (
            "representations and warranties",
            "warranty of title",
            "fitness for purpose",
            "no litigation",
            "due authority",
            "indemnification",
            "hold harmless",
        ),
    ),
    Theme(
        "Loyer et charges",
        "Rent and Charges",
        (
            "bail commercial",
            "loyer annuel hors taxes",
            "dépôt de garantie",
            "indexation du loyer",
            "charges locatives",
            "état des lieux",
            "destination des locaux",
        ),
        (
            "lease agreement",
            "annual base rent",
            "security deposit",
            "rent review",
            "service charges",
            "condition of the premises",
            "permitted use",
        ),
    ),
    Theme(
        "Niveaux de service",
        "Service Levels",
        (
            "niveaux de service",
            "taux de disponibilité",
            "délai d'intervention",
            "pénalités de performance",
            "maintenance corrective",
            "support technique",
            "plan de réversibilité",
        ),
        (
            "service level agreement",
            "availability of the service",
            "response time",
            "service credits",
            "corrective maintenance",
            "technical support",
            "exit assistance",
        ),
    ),
    Theme(
        "Audit",
        "Audit Rights",
        (
            "droit d'audit",
            "contrôle des comptes",
            "auditeur indépendant",
            "accès aux locaux",
            "conservation des registres",
            "conformité aux lois anticorruption",
            "loi Sapin II",
        ),
        (
            "audit rights",
            "books and records",
            "independent auditor",
            "access to premises",
            "anti-bribery laws",
            "compliance with laws",
            "export control",
        ),
    ),
    Theme(
        "Prêt et sûretés",
        "Loan and Security",
        (
            "contrat de prêt",
            "taux d'intérêt",
            "remboursement anticipé",
            "cas de défaut",
            "nantissement de comptes",
            "caution solidaire",
            "exigibilité anticipée",
        ),
        (
            "facility agreement",
            "interest rate",
            "prepayment",
            "event of default",
            "security interest",
            "guarantee",
            "acceleration",
        ),
    ),
    Theme(
        "Distribution",
        "Distribution",
        (
            "contrat de distribution",
            "territoire concédé",
            "objectifs de chiffre d'affaires",
            "réseau de distribution sélective",
            "prix de revente",
            "rupture brutale des relations commerciales",
            "agent commercial",
        ),
        (
            "distribution agreement",
            "exclusive territory",
            "minimum purchase commitment",
            "resale price",
            "sales targets",
            "commercial agent",
            "marketing obligations",
        ),
    ),
    Theme(
        "Dispositions générales",
        "General Provisions",
        (
            "intégralité du contrat",
            "divisibilité des clauses",
            "notifications par lettre recommandée",
            "renonciation",
            "indépendance des parties",
            "élection de domicile",
            "langue du contrat",
        ),
        (
            "entire agreement",
            "severability",
            "notices in writing",
            "no waiver",
            "independent contractors",
            "counterparts",
            "amendments in writing",
        ),
    ),
)
# Connecting words between phrases: they make sentences and dilute the topic vocabulary.
FILLERS_FR = (
    "les parties conviennent que",
    "conformément aux stipulations",
    "sous réserve de",
    "en tout état de cause",
    "au titre du présent article",
    "le prestataire s'engage à",
    "le client reconnaît",
    "à défaut d'accord",
    "dans les conditions prévues",
    "sans préjudice de",
    "le cas échéant",
    "chacune des parties",
)
FILLERS_EN = (
    "the parties agree that",
    "subject to",
    "notwithstanding the foregoing",
    "for the purposes of this section",
    "the supplier shall",
    "the customer acknowledges",
    "unless otherwise agreed",
    "in accordance with",
    "without prejudice to",
    "where applicable",
    "each party",
    "provided that",
)
# (label as extraction normalises it, French title, English title)
CONTRACT_TYPES: tuple[tuple[str, str, str], ...] = (
    ("prestation de services", "Contrat de prestation de services", "Services Agreement"),
    ("accord de confidentialité", "Accord de confidentialité", "Non-Disclosure Agreement"),
    ("bail commercial", "Bail commercial", "Commercial Lease"),
    ("licence de logiciel", "Contrat de licence de logiciel", "Software License Agreement"),
    ("distribution", "Contrat de distribution", "Distribution Agreement"),
    ("contrat de travail", "Contrat de travail", "Employment Agreement"),
    ("cession d'actions", "Protocole de cession d'actions", "Share Purchase Agreement"),
    ("pacte d'associés", "Pacte d'associés", "Shareholders' Agreement"),
    ("prêt", "Contrat de prêt", "Facility Agreement"),
    ("sous-traitance", "Contrat de sous-traitance", "Subcontracting Agreement"),
    ("agence commerciale", "Contrat d'agent commercial", "Agency Agreement"),
    ("franchise", "Contrat de franchise", "Franchise Agreement"),
    ("maintenance", "Contrat de maintenance", "Maintenance Agreement"),
    ("traitement de données", "Accord de traitement des données", "Data Processing Agreement"),
    ("fourniture", "Contrat de fourniture", "Supply Agreement"),
)
LAWS = (
    "droit français",
    "droit anglais",
    "droit new-yorkais",
    "droit delaware",
    "droit allemand",
    "droit suisse",
    "droit belge",
    "droit luxembourgeois",
)
_NAME_STEMS = (
    "Quorvia", "Brenalis", "Altenor", "Vaucresson", "Northwind", "Meridian", "Solvane",
    "Castelmaure", "Orphéa", "Kestrel", "Valmont", "Arcadia", "Lumeris", "Oberkamp", "Tessary",
    "Bellerive", "Hawthorne", "Corvalis", "Ebrard", "Silvaine", "Montclair", "Ravensworth",
    "Delphis", "Fenwick", "Aurigny", "Grenelle", "Westbrook", "Calvéra", "Norland", "Pradelle",
)  # fmt: skip
_NAME_SECTORS = (
    "Conseil", "Industries", "Logistique", "Holdings", "Technologies", "Immobilier", "Capital",
    "Énergie", "Santé", "Distribution",
)  # fmt: skip
_LEGAL_FORMS = ("SAS", "SA", "SARL", "Ltd", "LLC", "GmbH", "SE", "Inc.")


def entity_names(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct company names ("Quorvia Logistique SAS"), seeded."""
    combos = [
        f"{stem} {sector} {form}"
        for stem in _NAME_STEMS
        for sector in _NAME_SECTORS
        for form in _LEGAL_FORMS
    ]
    return rng.sample(combos, count)


# --- plan: what to generate ---------------------------------------------------------------


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
        ref = f"c{index + 1:0{width}d}"
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
        document = PlannedDocument(ref, language, title, label, law, signed, end, parties)
        earlier = plan.documents[-1] if plan.documents else None
        if earlier and earlier.amends is None and earlier.end_date and rng.random() < 0.1:
            # An amendment follows its contract: same parties, later date, longer term.
            document.amends = index - 1
            document.title = f"Avenant n°1 — {earlier.title}"
            document.contract_type = earlier.contract_type
            document.party_indexes = earlier.party_indexes
            document.governing_law = earlier.governing_law
            document.signature_date = earlier.signature_date + timedelta(days=200)
            document.end_date = None
            extended = earlier.end_date + timedelta(days=365 * rng.randint(1, 3))
            earlier.effective_end_date = extended
            earlier.effective_end_explanation = (
                f"fin prorogée au {extended.isoformat()} par l'avenant {ref}"
            )
        document.effective_end_date = document.effective_end_date or document.end_date
        plan.documents.append(document)
    return plan


# --- writing ------------------------------------------------------------------------------


def write_metadata(*, workspace: Workspace, plan: Plan) -> list[int]:
    """Entities, documents, parties and amendment links through the ORM; document ids."""
    entities = Entity.objects.bulk_create(
        [
            Entity(workspace=workspace, key=fold_accents(name).lower(), name=name)
            for name in plan.entities
        ],
        batch_size=1000,
    )
    documents = Document.objects.bulk_create(
        [
            Document(
                workspace=workspace,
                ref=planned.ref,
                title=planned.title,
                filename=f"{planned.ref}.pdf",
                source="dataroom",
                media_type="pdf",
                sha256=hashlib.sha256(f"{workspace.slug}:{planned.ref}".encode()).hexdigest(),
                original=f"bench/{planned.ref}.pdf",
                status=DocumentStatus.EMBEDDED,
                language=planned.language,
                contract_type=planned.contract_type,
                signature_date=planned.signature_date,
                end_date=planned.end_date,
                end_date_source="text" if planned.end_date else "",
                effective_end_date=planned.effective_end_date,
                effective_end_explanation=planned.effective_end_explanation,
                governing_law=planned.governing_law,
                governing_law_source="text" if planned.governing_law else "",
                is_amendment=planned.amends is not None,
                amendment_number=1 if planned.amends is not None else None,
            )
            for planned in plan.documents
        ],
        batch_size=2000,
    )
    DocumentParty.objects.bulk_create(
        [
            DocumentParty(
                workspace=workspace,
                document=document,
                entity=entities[entity_index],
                name_as_written=entities[entity_index].name,
                ordinal=ordinal,
            )
            for document, planned in zip(documents, plan.documents, strict=True)
            for ordinal, entity_index in enumerate(planned.party_indexes)
        ],
        batch_size=5000,
    )
    DocumentLink.objects.bulk_create(
        [
            DocumentLink(
                workspace=workspace,
                source=document,
                target=documents[planned.amends],
                explanation=f"{planned.ref} modifie {plan.documents[planned.amends].ref}",
            )
            for document, planned in zip(documents, plan.documents, strict=True)
            if planned.amends is not None
        ],
        batch_size=2000,
    )
    return [document.pk for document in documents]


@dataclass(frozen=True)
class Topic:
    theme: Theme
    phrases_fr: tuple[str, ...]
    phrases_en: tuple[str, ...]


def make_topics(seed: int) -> list[Topic]:
    """``TOPICS`` topics: each a theme and a seeded subset of its phrases."""
    rng = random.Random(seed + 1)  # noqa: S311
    topics = []
    for index in range(TOPICS):
        theme = THEMES[index % len(THEMES)]
        topics.append(Topic(theme, tuple(rng.sample(theme.fr, 4)), tuple(rng.sample(theme.en, 4))))
    return topics


def topic_centroids(topics: list[Topic], encode: Callable[[list[str]], Any]) -> NDArray[np.float32]:
    """Unit centroids: the encoder's embeddings of each topic's phrases (both languages)."""
    texts = [
        f"{t.theme.fr_title} / {t.theme.en_title}: " + "; ".join(t.phrases_fr + t.phrases_en)
        for t in topics
    ]
    centroids = np.asarray(encode(texts), dtype=np.float32)
    norms = np.linalg.norm(centroids, axis=1, keepdims=True)
    unit: NDArray[np.float32] = (centroids / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


def _vector_rows(
    topic_ids: NDArray[Any], centroids: NDArray[Any], rng: np.random.Generator
) -> list[bytes]:
    """pgvector's binary input (dim, unused, big-endian float4s) of clustered unit vectors."""
    count, dimension = len(topic_ids), centroids.shape[1]
    vectors = centroids[topic_ids] + rng.standard_normal(
        (count, dimension), dtype=np.float32
    ) * np.float32(NOISE_NORM / np.sqrt(dimension))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    big_endian = vectors.astype(">f4")
    header = struct.pack(">HH", dimension, 0)
    return [header + row.tobytes() for row in big_endian]


SENTENCES_PER_TOPIC = 48


def _sentence(topic: Topic, language: str, rng: random.Random) -> str:
    """One clause-like sentence: a connecting phrase, the topic's phrases, maybe a stray one."""
    theme = topic.theme
    own, wider, fillers = (
        (topic.phrases_fr, theme.fr, FILLERS_FR)
        if language == "fr"
        else (topic.phrases_en, theme.en, FILLERS_EN)
    )
    words = [rng.choice(fillers), rng.choice(own), rng.choice(wider)]
    if rng.random() < 0.3:
        # A stray phrase from another theme, as real clauses cross-reference each other.
        other = rng.choice(THEMES)
        words.append(rng.choice(other.fr if language == "fr" else other.en))
    sentence = ", ".join(words)
    return sentence[0].upper() + sentence[1:] + "."


@dataclass(frozen=True)
class SentencePool:
    """Pre-built sentences (and their folded form) per (topic, language).

    Drawing whole sentences by index keeps generation at numpy speed for millions of chunks;
    48 variants per topic still give each chunk its own mix of phrases.
    """

    sentences: dict[tuple[int, str], list[str]]
    folded: dict[tuple[int, str], list[str]]

    @classmethod
    def build(cls, topics: list[Topic], seed: int) -> SentencePool:
        rng = random.Random(seed + 4)  # noqa: S311
        sentences = {
            (index, language): [_sentence(topic, language, rng) for _ in range(SENTENCES_PER_TOPIC)]
            for index, topic in enumerate(topics)
            for language in ("fr", "en")
        }
        folded = {key: [fold_accents(text) for text in texts] for key, texts in sentences.items()}
        return cls(sentences, folded)

    def chunk(
        self, topics: list[Topic], topic: int, language: str, ordinal: int, picks: list[int]
    ) -> tuple[str, str, str]:
        """(heading, text, folded text) of one article made of the ``picks`` sentences."""
        theme = topics[topic].theme
        title = theme.fr_title if language == "fr" else theme.en_title
        heading = f"ARTICLE {ordinal + 1} — {title.upper()}"
        sentences, folded = self.sentences[topic, language], self.folded[topic, language]
        text = f"{heading}\n\n" + " ".join(sentences[i] for i in picks)
        folded_text = f"{fold_accents(heading)}\n\n" + " ".join(folded[i] for i in picks)
        return heading, text, folded_text


_STAGE_COLUMNS = "document_id, ordinal, heading, text, folded, embedding"


def write_chunks(
    *,
    workspace: Workspace,
    plan: Plan,
    document_ids: list[int],
    centroids: NDArray[Any],
    topics: list[Topic],
    model: str,
    progress: Callable[[int, int], None],
) -> None:
    """Every chunk, batch by batch: binary COPY into a temp table, then INSERT ... SELECT.

    Must run inside the workspace's tenant scope: the INSERT passes RLS's WITH CHECK.
    """
    dimension = int(centroids.shape[1])
    pool = SentencePool.build(topics, plan.seed)
    rng = np.random.default_rng(plan.seed + 2)
    per_batch = max(1, CHUNK_BATCH_ROWS // plan.chunks_per_contract)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS pg_temp.bench_chunk_stage")
        cursor.execute("DROP TABLE IF EXISTS pg_temp.bench_document_context")
        cursor.execute(
            "CREATE TEMP TABLE bench_chunk_stage (document_id bigint, ordinal integer,"
            " heading text, text text, folded text, embedding vector)"
        )
        cursor.execute(
            "CREATE TEMP TABLE bench_document_context (document_id bigint PRIMARY KEY,"
            " config regconfig, context text, folded text)"
        )
        contexts = []
        for document_id, planned in zip(document_ids, plan.documents, strict=True):
            # As chunking.index_text builds it: title — type, then the parties.
            context = f"{planned.title} — {planned.contract_type}\nParties: " + "; ".join(
                plan.entities[i] for i in planned.party_indexes
            )
            contexts.append(
                (document_id, ts_config(planned.language), context, fold_accents(context))
            )
        cursor.executemany(
            "INSERT INTO bench_document_context VALUES (%s, %s::regconfig, %s, %s)", contexts
        )
        raw = cursor.cursor  # the psycopg cursor, for COPY
        done = 0
        for start in range(0, plan.contracts, per_batch):
            batch = list(
                zip(
                    document_ids[start : start + per_batch],
                    plan.documents[start : start + per_batch],
                    strict=True,
                )
            )
            rows = len(batch) * plan.chunks_per_contract
            topic_ids = rng.integers(0, TOPICS, rows)
            lengths = rng.integers(3, 7, rows)
            picks = rng.integers(0, SENTENCES_PER_TOPIC, (rows, 6)).tolist()
            vectors = _vector_rows(topic_ids, centroids, rng)
            with raw.copy(
                f"COPY bench_chunk_stage ({_STAGE_COLUMNS}) FROM STDIN (FORMAT BINARY)"
            ) as copy:
                # The embedding goes as pgvector's own binary input: COPY BINARY hands the
                # bytes to the column's receive function whatever type psycopg thinks it is.
                copy.set_types(["int8", "int4", "text", "text", "text", "bytea"])
                row = 0
                for document_id, planned in batch:
                    for ordinal in range(plan.chunks_per_contract):
                        heading, text, folded = pool.chunk(
                            topics,
                            int(topic_ids[row]),
                            planned.language,
                            ordinal,
                            picks[row][: lengths[row]],
                        )
                        copy.write_row((document_id, ordinal, heading, text, folded, vectors[row]))
                        row += 1
            # search_vector exactly as chunk_vectors_update computes it: prefix (context and
            # heading) weighted A, body B, both accent-folded.
            cursor.execute(
                "INSERT INTO documents_chunk (workspace_id, document_id, ordinal, kind, heading,"
                " article_ref, text, index_text, char_start, char_end, page_start, page_end,"
                " embedding, embedding_model, embedding_dim, search_vector) "
                "SELECT %s, s.document_id, s.ordinal, 'article', s.heading, s.ordinal + 1,"
                " s.text, d.context || E'\\n\\n' || s.text,"
                " coalesce(sum(length(s.text) + 2) OVER w - length(s.text) - 2, 0),"
                " sum(length(s.text) + 2) OVER w - 2, 1 + s.ordinal / 3, 1 + s.ordinal / 3,"
                " s.embedding, %s, %s,"
                " setweight(to_tsvector(d.config, d.folded || E'\\n\\n\\n' || fold_heading), 'A')"
                " || setweight(to_tsvector(d.config, s.folded), 'B') "
                "FROM bench_chunk_stage s JOIN bench_document_context d USING (document_id),"
                " LATERAL (SELECT split_part(s.folded, E'\\n', 1) AS fold_heading) h "
                "WINDOW w AS (PARTITION BY s.document_id ORDER BY s.ordinal)",
                [workspace.pk, model, dimension],
            )
            cursor.execute("TRUNCATE bench_chunk_stage")
            done += len(batch) * plan.chunks_per_contract
            progress(done, plan.chunks)
        cursor.execute("DROP TABLE bench_chunk_stage")
        cursor.execute("DROP TABLE bench_document_context")


# --- indexes ------------------------------------------------------------------------------


def _index_definition(name: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [name])
        row = cursor.fetchone()
    return str(row[0]) if row else None


@dataclass
class SharedIndexes:
    """The two indexes the benchmark drops for a fast load, then rebuilds (timed).

    They are shared by every workspace of the database: run the benchmark on its own data
    directory, not on a live install.
    """

    dimension: int
    definitions: dict[str, str] = field(default_factory=dict)
    dropped: bool = False

    def drop(self) -> None:
        gin = _index_definition(GIN_INDEX) or GIN_DEFINITION
        hnsw_name = hnsw_index_name(self.dimension)
        hnsw = _index_definition(hnsw_name) or hnsw_definition(self.dimension)
        self.definitions = {GIN_INDEX: gin, hnsw_name: hnsw}
        with transaction.atomic(), connection.cursor() as cursor:
            _immediate(cursor)
            for name in self.definitions:
                cursor.execute(f"DROP INDEX IF EXISTS {name}")
            _deferred(cursor)
        self.dropped = True

    def rebuild(self, *, maintenance_work_mem: str, workers: int) -> dict[str, float]:
        """Seconds to build each index (GIN, then HNSW); ANALYZE afterwards."""
        seconds: dict[str, float] = {}
        for key, name in (("gin", GIN_INDEX), ("hnsw", hnsw_index_name(self.dimension))):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    "SELECT set_config('maintenance_work_mem', %s, true)", [maintenance_work_mem]
                )
                cursor.execute(
                    "SELECT set_config('max_parallel_maintenance_workers', %s, true)",
                    [str(int(workers))],
                )
                _immediate(cursor)
                started = time.perf_counter()
                cursor.execute(f"DROP INDEX IF EXISTS {name}")
                cursor.execute(self.definitions[name])
                seconds[key] = round(time.perf_counter() - started, 3)
                _deferred(cursor)
        self.dropped = False
        analyze()
        return seconds

    def restore(self) -> None:
        """Put the indexes back untimed (after a failure between drop and rebuild)."""
        if not self.dropped:
            return
        with transaction.atomic(), connection.cursor() as cursor:
            _immediate(cursor)
            for definition in self.definitions.values():
                cursor.execute(definition.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
            _deferred(cursor)
        self.dropped = False


def _immediate(cursor: Any) -> None:
    # Index DDL refuses to run while deferred FK checks are pending in the transaction (the
    # rows just written, or a test's): run them now, as vector_index_ensure does.
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def _deferred(cursor: Any) -> None:
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def analyze() -> None:
    with connection.cursor() as cursor:
        for table in (
            "documents_chunk",
            "documents_document",
            "documents_documentparty",
            "documents_entity",
        ):
            cursor.execute(f"ANALYZE {table}")


# --- cleaning up ----------------------------------------------------------------------------


def complete(*, workspace: Workspace, plan: Plan) -> bool:
    """Whether the workspace holds the whole plan (every contract and chunk)."""
    with workspace_scope(workspace):
        documents = Document.objects.filter(workspace=workspace).count()
        chunks = Chunk.objects.filter(workspace=workspace).count()
    return documents == plan.contracts and chunks == plan.chunks
