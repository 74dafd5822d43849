"""Contract types: a bilingual vocabulary of stable keys, and titles mapped onto it.

Granularity follows what a lawyer filters a data room by. A type gets its own key when French
law gives it its own regime or when CUAD counts it as a category; ``parent`` names the wider
family, so a filter on "lease" can include the commercial leases:

- ``commercial_lease`` (bail commercial, articles L. 145-1 s. du code de commerce: nine-year
  term, renewal right, eviction indemnity) is a child of ``lease``;
- ``commercial_agency`` (agent commercial, L. 134-1 s.: end-of-contract indemnity) is a child of
  ``agency`` (CUAD's agency agreements are mostly placement agencies of share offerings);
- ``reseller`` and ``franchise`` are children of ``distribution`` (French doctrine files
  franchise among distribution contracts); consulting, maintenance, hosting, outsourcing,
  subcontracting, transportation and development are children of ``services``.

Mixed titles, in order of precedence (see :func:`contract_type_key`):

1. an amendment ("Amendment No. 2 to the Supply Agreement", "Avenant n°1 au bail") is
   ``amendment`` whatever it amends; "Amended and Restated X" is an X (it replaces the contract);
2. otherwise the first type the title names wins ("License and Supply" -> licence,
   "Manufacturing Outsourcing" -> manufacturing); at one position the longer phrase wins
   ("bail commercial" over "bail", "stock purchase" over "purchase");
3. ``services`` yields to any more specific type ("Transportation Services" -> transportation);
4. ``other``: a contract title naming none of the types ("Joint Filing Agreement"); a label
   that is not a contract title at all ("Exhibit B") maps to None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._common import fold_accents


@dataclass(frozen=True)
class ContractTypeLabel:
    """One entry of the vocabulary: a stable key, its display labels, its wider family.

    ``patterns`` are regular expressions over a folded label (ASCII, lower case, every run of
    punctuation and spaces as one space), the words that name this type in French or English.
    """

    key: str
    fr: str
    en: str
    parent: str | None = None
    patterns: tuple[str, ...] = field(default=(), repr=False)


def _label(
    key: str, fr: str, en: str, *patterns: str, parent: str | None = None
) -> ContractTypeLabel:
    return ContractTypeLabel(key=key, fr=fr, en=en, parent=parent, patterns=patterns)


CONTRACT_TYPES: tuple[ContractTypeLabel, ...] = (
    _label(
        "amendment", "Avenant", "Amendment",
        r"amendments?", r"avenants?", r"addend(?:um|a)", r"amending", r"modificatif",
    ),
    # Commercial contracts (CUAD's categories).
    _label("affiliate", "Contrat d'affiliation", "Affiliate agreement", r"affiliat\w*"),
    _label("agency", "Contrat d'agence", "Agency agreement", r"agency"),
    _label(
        "commercial_agency", "Contrat d'agence commerciale", "Commercial agency agreement",
        r"agence commerciale", r"agents? commerciaux", r"agents? commercial",
        r"mandat d agent commercial", r"commercial agency", r"sales agency",
        parent="agency",
    ),
    _label(
        "collaboration", "Contrat de collaboration", "Collaboration agreement",
        r"collaborat\w*", r"co ?operation", r"cooperative", r"partenariat",
    ),
    _label("co_branding", "Contrat de co-branding", "Co-branding agreement",
           r"co ?brand\w*", r"co marquage"),
    _label(
        "consulting", "Contrat de conseil", "Consulting agreement",
        r"consult\w*", r"conseil", r"advisory", parent="services",
    ),
    _label(
        "development", "Contrat de développement", "Development agreement",
        r"development", r"co development", r"developpement", parent="services",
    ),
    _label(
        "distribution", "Contrat de distribution", "Distribution agreement",
        r"distribut\w*", r"concession(?! de licence)", r"concessionnaires?",
    ),
    _label(
        "endorsement", "Contrat d'image", "Endorsement agreement",
        r"(?<!split dollar )endorsement", r"contrat d image", r"droit a l image",
    ),
    _label("franchise", "Contrat de franchise", "Franchise agreement", r"franchis\w*",
           parent="distribution"),
    _label("hosting", "Contrat d'hébergement", "Hosting agreement",
           r"(?:co )?hosting", r"hebergement", parent="services"),
    _label(
        "intellectual_property", "Propriété intellectuelle", "Intellectual property agreement",
        r"intellectual property", r"propriete intellectuelle",
        r"cession de (?:marques?|brevets?|droits d auteur|logiciel)",
        r"(?:patent|trademark|copyright) assignment",
    ),
    _label("joint_venture", "Joint venture", "Joint venture agreement",
           r"joint venture", r"co ?entreprise"),
    _label(
        "licence", "Contrat de licence", "Licence agreement",
        r"(?:sub ?)?licen[cs](?:e|es|ed|ing)", r"concession de licence",
    ),
    _label(
        "maintenance", "Contrat de maintenance", "Maintenance agreement",
        # A "capital" or "yield maintenance agreement" is a financial covenant, not upkeep.
        r"(?<!capital )(?<!yield )(?<!income )maintenance", r"tierce maintenance",
        parent="services",
    ),
    _label("manufacturing", "Contrat de fabrication", "Manufacturing agreement",
           r"manufactur\w*", r"fabrication", r"faconnage", r"odm"),
    _label("marketing", "Contrat de marketing", "Marketing agreement",
           r"(?:re|co )?marketing", r"advertising", r"publicite"),
    _label(
        "non_compete", "Non-concurrence", "Non-compete agreement",
        r"non ?compet\w*", r"non ?solicit\w*", r"non concurrence", r"non sollicitation",
    ),
    _label(
        "outsourcing", "Contrat d'externalisation", "Outsourcing agreement",
        r"outsourc\w*", r"externalisation", r"infogerance", parent="services",
    ),
    _label("promotion", "Contrat de promotion", "Promotion agreement",
           r"(?:co )?promotion(?:al)?", r"promotionnel"),
    _label("reseller", "Contrat de revendeur", "Reseller agreement",
           r"(?:sub )?re ?sell\w*", r"revendeurs?", r"revente", parent="distribution"),
    _label(
        "services", "Prestation de services", "Services agreement",
        r"services?", r"servicing", r"prestations?(?: de services?)?", r"lettre de mission",
        r"engagement letter", r"convention d honoraires", r"honoraires",
        r"contrat d entreprise",
    ),
    _label(
        "sponsorship", "Contrat de parrainage", "Sponsorship agreement",
        r"sponsorship", r"sponsoring", r"parrainage", r"mecenat",
    ),
    _label(
        "strategic_alliance", "Alliance stratégique", "Strategic alliance agreement",
        r"strategic alliance", r"alliance(?: strategique)?", r"partenariat strategique",
    ),
    _label("supply", "Contrat de fourniture", "Supply agreement",
           r"suppl(?:y|ier)", r"fourniture", r"approvisionnement"),
    _label(
        "transportation", "Contrat de transport", "Transportation agreement",
        r"transport\w*", r"shipping", r"freight", r"affretement", r"logisti(?:cs|que)",
        parent="services",
    ),
    _label(
        "subcontracting", "Contrat de sous-traitance", "Subcontracting agreement",
        r"sous traitance", r"sous traitant", r"subcontract\w*", parent="services",
    ),
    _label("research", "Contrat de recherche", "Research agreement",
           r"research", r"recherche"),
    # French corporate and property practice.
    _label(
        "lease", "Bail", "Lease",
        r"bail", r"baux", r"lease", r"leasing", r"credit bail", r"sous location",
        r"contrat de location", r"location gerance",
    ),
    _label(
        "commercial_lease", "Bail commercial", "Commercial lease",
        r"bail commercial", r"baux commerciaux", r"commercial lease", parent="lease",
    ),
    _label(
        "loan", "Contrat de prêt", "Loan agreement",
        r"loan", r"pret", r"credit", r"credit facility", r"facility agreement",
        r"financement", r"promissory note",
    ),
    _label(
        "share_transfer", "Cession de titres", "Share transfer",
        r"cession (?:de |des )?(?:parts|actions|titres)", r"cession d actions",
        r"(?:share|stock|equity|securities|unit) (?:purchase|transfer|sale)",
        r"sale of (?:shares|stock)",
    ),
    _label(
        "asset_liability_warranty", "Garantie d'actif et de passif",
        "Asset and liability warranty",
        r"garantie (?:d actif et )?de passif", r"garantie d actif", r"gap",
        r"garantie de l actif et du passif", r"asset and liability (?:warranty|guarantee)",
    ),
    _label(
        "shareholders_agreement", "Pacte d'associés", "Shareholders' agreement",
        r"pacte d (?:associes|actionnaires)", r"(?:share|stock)holders? s? agreement",
        r"voting agreement",
    ),
    _label("sale", "Contrat de vente", "Sale agreement",
           r"sale", r"vente", r"purchase", r"promesse de vente", r"compromis de vente"),
    _label("business_sale", "Cession de fonds de commerce", "Sale of a business",
           r"cession de fonds", r"fonds de commerce", r"sale of (?:the )?business"),
    _label("employment", "Contrat de travail", "Employment agreement",
           r"employment", r"contrat de travail", r"travail", r"emploi"),
    _label("nda", "Accord de confidentialité", "Non-disclosure agreement",
           r"non ?disclosure", r"confidentiality", r"confidentialite", r"secrecy", r"nda"),
    _label(
        "guarantee", "Garantie", "Guarantee",
        r"guarant(?:ee|y|ees|ies)", r"cautionnement", r"garantie a premiere demande",
        r"garantie autonome", r"capital maintenance", r"keep ?well", r"lettre d intention",
    ),
    _label("escrow", "Convention de séquestre", "Escrow agreement", r"escrow", r"sequestre"),
    _label("mandate", "Mandat", "Mandate / power of attorney",
           r"mandat", r"mandate", r"procuration", r"power of attorney"),
    _label("settlement", "Protocole transactionnel", "Settlement agreement",
           r"settlement", r"transactionnel\w*", r"protocole de transaction"),
    _label("termination", "Convention de résiliation", "Termination agreement",
           r"termination", r"resiliation"),
    _label(
        "construction", "Contrat de construction", "Construction contract",
        r"construction", r"marche de travaux", r"maitrise d oeuvre", r"vefa",
        r"promotion immobiliere",
    ),
    # Not a contract: a court decision saved into a workspace from the case-law sources.
    _label("decision", "Décision de justice", "Court decision",
           r"decision de justice", r"court decision", r"decision juridictionnelle"),
    _label(
        "other", "Autre contrat", "Other contract",
        r"agreements?", r"agreemen", r"contracts?", r"contrat", r"convention", r"accord",
        r"acte", r"protocole", r"pacte", r"deed", r"terms and conditions",
        r"conditions generales",
    ),
)  # fmt: skip

_BY_KEY = {label.key: label for label in CONTRACT_TYPES}
_FAMILIES = {
    label.key: frozenset(
        {label.key, *(member.key for member in CONTRACT_TYPES if member.parent == label.key)}
    )
    for label in CONTRACT_TYPES
}
# Keys that yield to any more specific type named in the same title.
_GENERIC = frozenset({"services", "other"})
_RESTATED = re.compile(r"\b(?:amended and )?restated\b|\bmodifie et refondu\b")
_MATCHERS = tuple(
    (label.key, re.compile(rf"\b(?:{'|'.join(label.patterns)})\b")) for label in CONTRACT_TYPES
)
_NON_WORD = re.compile(r"[^a-z0-9]+")
_LABEL_MAX_CHARS = 400


def fold_label(label: str) -> str:
    """ASCII lower case, punctuation and spaces as single spaces: the form patterns read."""
    folded = fold_accents(label[:_LABEL_MAX_CHARS]).lower().replace("\u2019", "'")
    return _NON_WORD.sub(" ", folded).strip()


def contract_type_label(key: str) -> ContractTypeLabel | None:
    """The vocabulary entry of a key, None for a key the vocabulary lacks."""
    return _BY_KEY.get(key)


def contract_type_family(key: str) -> frozenset[str]:
    """A type and its members: "lease" → {"lease", "commercial_lease"}; a type without
    members (or outside the vocabulary) → itself."""
    return _FAMILIES.get(key, frozenset({key}))


def same_contract_family(left: str, right: str) -> bool:
    """Equal types, or one the family of the other (a maintenance contract is a services one)."""
    return left in contract_type_family(right) or right in contract_type_family(left)


def contract_type_key(label: str | None) -> str | None:
    """The vocabulary key a title or a type label names, None when it names no contract.

    "Contrat de licence de marque" -> "licence"; "Amendment No. 2 to the Supply Agreement" ->
    "amendment"; "License and Supply Agreement" -> "licence" (the first type named);
    "Joint Filing Agreement" -> "other"; "Exhibit B" -> None.
    """
    if not label:
        return None
    folded = fold_label(label)
    if not folded:
        return None
    # (position, -length, key) of the first phrase of each type found in the label.
    hits: list[tuple[int, int, str]] = []
    for key, matcher in _MATCHERS:
        match = matcher.search(folded)
        if match:
            hits.append((match.start(), match.start() - match.end(), key))
    if not hits:
        return None
    keys = {key for _, _, key in hits}
    if "amendment" in keys and not _RESTATED.search(folded):
        return "amendment"
    specific = [hit for hit in hits if hit[2] not in _GENERIC and hit[2] != "amendment"]
    if specific:
        return min(specific)[2]
    return "services" if "services" in keys else "other"
