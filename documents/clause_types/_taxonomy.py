"""Clause types: a bilingual taxonomy of stable keys, each in a family, with our definitions.

CUAD's 41 annotated categories keep their own key (the classifier learns them from CUAD's
excerpts); four types CUAD lacks come from ACORD's families (indemnification, exclusion of
indirect damages, warranty disclaimer, exclusive remedy) and are learned from our definitions,
heading cues and the ACORD train split's queries only. ``family`` groups the types the way
ACORD's nine families do (plus a few of our own), so a query and a clause can agree on the
family even when the classifier hesitates between two of its types.

Definitions are written by us; they are embedded as prototypes when training. ``cue`` is a
regular expression over a clause's heading or first words ("Indemnification.") that marks it;
it names the type itself, not the section it may sit in (a "Termination" or "Cession" heading
may hold no termination for convenience, no assignment clause).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import get_language


@dataclass(frozen=True)
class ClauseType:
    key: str
    family: str
    fr: str
    en: str
    definition: str
    cue: str = ""  # regex over the heading / opening words, case-insensitive
    cuad: str = ""  # CUAD's column name, when CUAD annotates the type


def _t(
    key: str, family: str, fr: str, en: str, definition: str, cue: str = "", cuad: str = ""
) -> ClauseType:
    return ClauseType(key, family, fr, en, definition, cue, cuad)


# fmt: off
FAMILIES: dict[str, tuple[str, str]] = {
    "general": ("Identification du contrat", "Contract identification"),
    "term": ("Durée et résiliation", "Term and termination"),
    "governing_law": ("Droit applicable", "Governing law"),
    "restrictive_covenants": ("Engagements restrictifs", "Restrictive covenants"),
    "affirmative_covenants": ("Engagements positifs", "Affirmative covenants"),
    "assignment": ("Cession et changement de contrôle", "Assignment and change of control"),
    "commercial_terms": ("Conditions commerciales", "Commercial terms"),
    "ip_ownership_license": ("Propriété intellectuelle et licences", "IP ownership and licences"),
    "limitation_of_liability": ("Limitation de responsabilité", "Limitation of liability"),
    "indemnification": ("Indemnisation et garantie", "Indemnification"),
    "liquidated_damages": ("Clause pénale", "Liquidated damages"),
    "third_party_beneficiary": ("Stipulation pour autrui", "Third-party beneficiary"),
}

# Families that say what a passage is (a title, the parties, dates), not what a clause is
# about: a short query often looks like them ("exclusivité territoriale" → "general" 0.89 with
# the English model), so the ranking prior ignores them; they are still tagged and filtered.
NOT_A_TOPIC = frozenset({"general"})

CLAUSE_TYPES: tuple[ClauseType, ...] = (
    _t("document_name", "general", "Intitulé du contrat", "Document name",
       "The title of the agreement, naming the kind of contract.", cuad="Document Name"),
    _t("parties", "general", "Parties", "Parties",
       "The clause naming the parties who sign the agreement, with their addresses and the "
       "short names they are referred to by.", cuad="Parties"),
    _t("agreement_date", "general", "Date du contrat", "Agreement date",
       "The date on which the agreement is made or signed.", cuad="Agreement Date"),
    _t("effective_date", "general", "Date d'entrée en vigueur", "Effective date",
       "The date from which the agreement takes effect.", cuad="Effective Date"),
    _t("expiration_date", "term", "Terme du contrat", "Expiration date",
       "How long the agreement lasts: its initial term and the date or event on which it "
       "expires.", r"^(?:term|duration|durée)\b", "Expiration Date"),
    _t("renewal_term", "term", "Renouvellement", "Renewal term",
       "The agreement renews automatically for further periods unless a party gives notice.",
       r"renewal|renouvellement|reconduction", "Renewal Term"),
    _t("notice_period_to_terminate_renewal", "term", "Préavis de non-renouvellement",
       "Notice to terminate renewal",
       "The notice a party must give before the end of the term to prevent the automatic "
       "renewal of the agreement.", cuad="Notice Period to Terminate Renewal"),
    _t("termination_for_convenience", "term", "Résiliation pour convenance",
       "Termination for convenience",
       "A party may terminate the agreement without cause, for convenience, on notice.",
       r"for convenience|without cause|pour convenance|sans motif|résiliation unilatérale",
       "Termination for Convenience"),
    _t("governing_law", "governing_law", "Droit applicable", "Governing law",
       "The agreement is governed by and construed under the laws of a named state or country.",
       r"governing law|applicable law|droit applicable|loi applicable", "Governing Law"),
    _t("most_favored_nation", "restrictive_covenants", "Clause de la nation la plus favorisée",
       "Most favoured nation",
       "If a better price or term is offered to a third party, the counterparty is entitled to "
       "the same better price or term.", r"most favou?red", "Most Favored Nation"),
    _t("competitive_restriction_exception", "restrictive_covenants",
       "Exception à une restriction de concurrence", "Competitive restriction exception",
       "An exception or carve-out to a non-compete, exclusivity or no-solicit obligation.",
       cuad="Competitive Restriction Exception"),
    _t("non_compete", "restrictive_covenants", "Non-concurrence", "Non-compete",
       "A party may not compete with the counterparty or operate in a business, a market or a "
       "territory.", r"non-?compet|non-?concurrence", "Non-Compete"),
    _t("exclusivity", "restrictive_covenants", "Exclusivité", "Exclusivity",
       "A party must deal exclusively with the counterparty, or the counterparty is its "
       "exclusive provider, distributor or licensee in a territory.", r"exclusivit",
       "Exclusivity"),
    _t("no_solicit_of_customers", "restrictive_covenants", "Non-sollicitation de clientèle",
       "No-solicit of customers",
       "A party may not solicit or take the customers of the counterparty.",
       cuad="No-Solicit of Customers"),
    _t("no_solicit_of_employees", "restrictive_covenants", "Non-sollicitation de personnel",
       "No-solicit of employees",
       "A party may not solicit or hire the employees or contractors of the counterparty.",
       r"non-?solicit|no-?solicit|non-?sollicitation", "No-Solicit of Employees"),
    _t("non_disparagement", "restrictive_covenants", "Non-dénigrement", "Non-disparagement",
       "A party may not disparage or make negative statements about the counterparty.",
       r"disparage|dénigrement", "Non-Disparagement"),
    _t("rofr_rofo_rofn", "restrictive_covenants", "Droit de préférence", "ROFR / ROFO / ROFN",
       "A right of first refusal, first offer or first negotiation before the counterparty "
       "sells or deals with a third party.", r"first refusal|first offer|préférence",
       "Rofr/Rofo/Rofn"),
    _t("price_restrictions", "restrictive_covenants", "Restriction de prix", "Price restrictions",
       "A limit on raising or lowering prices of goods or services.",
       cuad="Price Restrictions"),
    _t("volume_restriction", "restrictive_covenants", "Restriction de volume",
       "Volume restriction",
       "A fee increase or consent requirement when use or volume exceeds a threshold.",
       cuad="Volume Restriction"),
    _t("covenant_not_to_sue", "restrictive_covenants", "Engagement de ne pas agir",
       "Covenant not to sue",
       "A party may not sue the counterparty or contest its rights, such as its intellectual "
       "property.", r"not to sue", "Covenant Not to Sue"),
    _t("change_of_control", "assignment", "Changement de contrôle", "Change of control",
       "A merger, acquisition or change of control of a party gives the counterparty a right "
       "to terminate or requires its consent.", r"change of control|changement de contr",
       "Change of Control"),
    _t("anti_assignment", "assignment", "Incessibilité", "Anti-assignment",
       "A party may not assign or transfer the agreement without the consent of the "
       "counterparty.",
       r"assignment|incessibilit|\bcession\s*$|cession (?:du|de ce) contrat|transfert du contrat",
       "Anti-Assignment"),
    _t("revenue_profit_sharing", "commercial_terms", "Partage de revenus",
       "Revenue / profit sharing",
       "A party must share revenue, profits or royalties with the counterparty.",
       r"royalt|redevance", "Revenue/Profit Sharing"),
    _t("minimum_commitment", "affirmative_covenants", "Engagement minimum", "Minimum commitment",
       "A minimum order, purchase or sales volume a party must meet over a period.",
       r"minimum", "Minimum Commitment"),
    _t("audit_rights", "affirmative_covenants", "Droit d'audit", "Audit rights",
       "A party may audit or inspect the books, records or operations of the counterparty.",
       r"audit|records|inspection", "Audit Rights"),
    _t("insurance", "affirmative_covenants", "Assurance", "Insurance",
       "A party must maintain insurance coverage for the benefit of the counterparty.",
       r"insurance|assurance", "Insurance"),
    _t("post_termination_services", "affirmative_covenants", "Obligations après la fin du contrat",
       "Post-termination services",
       "Obligations that continue after termination or expiration, such as transition "
       "services, wind-down or sell-off of inventory.", cuad="Post-Termination Services"),
    _t("ip_ownership_assignment", "ip_ownership_license", "Cession de propriété intellectuelle",
       "IP ownership assignment",
       "Intellectual property created by one party becomes the property of the counterparty.",
       r"ownership|propriété intellectuelle|propriété des (?:résultats|livrables)",
       "IP Ownership Assignment"),
    _t("joint_ip_ownership", "ip_ownership_license", "Copropriété intellectuelle",
       "Joint IP ownership", "Intellectual property jointly owned by the parties.",
       cuad="Joint IP Ownership"),
    _t("license_grant", "ip_ownership_license", "Concession de licence", "Licence grant",
       "A party grants a licence to use its intellectual property, software or trademarks.",
       r"licen[cs]e|licence", "License Grant"),
    _t("non_transferable_license", "ip_ownership_license", "Licence incessible",
       "Non-transferable licence",
       "A licence that may not be transferred or sublicensed to a third party.",
       cuad="Non-Transferable License"),
    _t("affiliate_license_licensor", "ip_ownership_license", "Licence des affiliés du concédant",
       "Affiliate licence (licensor)",
       "A licence granted by the licensor's affiliates.", cuad="Affiliate License-Licensor"),
    _t("affiliate_license_licensee", "ip_ownership_license", "Licence aux affiliés du licencié",
       "Affiliate licence (licensee)",
       "A licence that extends to the licensee's affiliates.", cuad="Affiliate License-Licensee"),
    _t("unlimited_license", "ip_ownership_license", "Licence illimitée", "Unlimited licence",
       "An unlimited, all-you-can-eat or enterprise-wide licence.",
       cuad="Unlimited/All-You-Can-Eat-License"),
    _t("irrevocable_or_perpetual_license", "ip_ownership_license",
       "Licence irrévocable ou perpétuelle", "Irrevocable or perpetual licence",
       "A licence that is irrevocable or perpetual.", cuad="Irrevocable or Perpetual License"),
    _t("source_code_escrow", "ip_ownership_license", "Séquestre du code source",
       "Source code escrow",
       "Source code is deposited with an escrow agent and released to the licensee on events "
       "such as the licensor's bankruptcy.", r"escrow|séquestre", "Source Code Escrow"),
    _t("uncapped_liability", "limitation_of_liability", "Responsabilité non plafonnée",
       "Uncapped liability",
       "A party's liability is not limited or capped, for example for breach of "
       "confidentiality, gross negligence or wilful misconduct.", cuad="Uncapped Liability"),
    _t("cap_on_liability", "limitation_of_liability", "Plafond de responsabilité",
       "Cap on liability",
       "A party's total liability is limited to a maximum amount, such as the fees paid, with "
       "any carve-outs from the cap.",
       r"limitation of liability|limitation de responsabilit|liability|plafond",
       "Cap on Liability"),
    _t("exclusion_of_damages", "limitation_of_liability", "Exclusion des dommages indirects",
       "Exclusion of indirect damages",
       "Neither party is liable for indirect, incidental, special, consequential or punitive "
       "damages, or for lost profits, revenue or data, with any exceptions to the waiver.",
       r"consequential|indirect|dommages indirects"),
    _t("warranty_disclaimer", "limitation_of_liability", "Exclusion de garantie",
       "Warranty disclaimer",
       "Products or services are provided as is; implied warranties of merchantability, "
       "fitness for a particular purpose, title and non-infringement are disclaimed.",
       r"disclaim|\bas is\b"),
    _t("exclusive_remedy", "limitation_of_liability", "Recours exclusif", "Exclusive remedy",
       "The sole and exclusive remedy for a breach of warranty is repair, replacement or "
       "refund.", r"exclusive remed|sole remed"),
    _t("warranty_duration", "limitation_of_liability", "Durée de garantie", "Warranty duration",
       "How long a warranty on products or services lasts.", cuad="Warranty Duration"),
    _t("indemnification", "indemnification", "Indemnisation", "Indemnification",
       "A party shall indemnify, defend and hold harmless the counterparty against losses and "
       "third-party claims arising from its breach, negligence or infringement.",
       r"indemnif|hold harmless|garantie d'éviction"),
    _t("liquidated_damages", "liquidated_damages", "Clause pénale", "Liquidated damages",
       "A fixed sum or termination fee is payable on breach or termination, as liquidated "
       "damages.", r"liquidated damages|clause pénale|pénalit", "Liquidated Damages"),
    _t("third_party_beneficiary", "third_party_beneficiary", "Stipulation pour autrui",
       "Third-party beneficiary",
       "A person who is not a party may, or may not, enforce the agreement as a third-party "
       "beneficiary.", r"third[- ]party beneficiar", "Third Party Beneficiary"),
)
# fmt: on

BY_KEY: dict[str, ClauseType] = {entry.key: entry for entry in CLAUSE_TYPES}
KEYS: tuple[str, ...] = tuple(BY_KEY)
CUES: dict[str, re.Pattern[str]] = {
    entry.key: re.compile(entry.cue, re.IGNORECASE) for entry in CLAUSE_TYPES if entry.cue
}


def heading_names(key: str, heading: str) -> bool:
    """Whether an article's heading names the clause type (its cue): such an article is of
    the type whatever the classifier reads (a contract's clause of the type, in compliance
    and in choosing the presence thresholds)."""
    cue = CUES.get(key)
    return bool(cue is not None and heading and cue.search(heading))


def _french() -> bool:
    return (get_language() or "fr").startswith("fr")


def clause_type_label(key: str) -> str:
    """A clause type's name in the active language; a key outside the taxonomy (a firm's
    own type) in words ("earn_out" reads "earn out")."""
    entry = BY_KEY.get(key)
    if entry is None:
        return key.replace("_", " ")
    return entry.fr if _french() else entry.en


def clause_type_tags(stored: dict[str, float] | None) -> list[tuple[str, str, float]]:
    """A chunk's stored clause types for display as (key, label, confidence), most confident
    first."""
    ranked = sorted((stored or {}).items(), key=lambda item: (-item[1], item[0]))
    return [(key, clause_type_label(key), confidence) for key, confidence in ranked]


def family_label(family: str) -> str:
    labels = FAMILIES.get(family)
    if labels is None:
        return family
    return labels[0] if _french() else labels[1]
