"""Party roles: the defined short name a contract gives a party ("Licensor", « le Preneur »)
and the normalised role key it implies ("licensor", "lessee")."""

from __future__ import annotations

import re

from ._common import fold_accents

# Defined term (folded, lower case, article dropped) -> role key. English snake_case keys so
# a French lease and an English one answer the same filter ("lessor"); bilingual on purpose.
ROLES: dict[str, str] = {
    "licensor": "licensor", "concedant": "licensor", "donneur de licence": "licensor",
    "licensee": "licensee", "licencie": "licensee", "preneur de licence": "licensee",
    "lessor": "lessor", "landlord": "lessor", "bailleur": "lessor",
    "lessee": "lessee", "tenant": "lessee", "preneur": "lessee", "locataire": "lessee",
    "client": "client", "customer": "client",
    "prestataire": "service_provider", "service provider": "service_provider",
    "provider": "service_provider", "contractor": "service_provider",
    "titulaire": "service_provider",
    "distributor": "distributor", "distributeur": "distributor", "reseller": "distributor",
    "supplier": "supplier", "fournisseur": "supplier", "vendor": "supplier",
    "manufacturer": "manufacturer", "fabricant": "manufacturer",
    "franchisor": "franchisor", "franchiseur": "franchisor",
    "franchisee": "franchisee", "franchise": "franchisee", "franchisee ": "franchisee",
    "employer": "employer", "employeur": "employer",
    "employee": "employee", "executive": "employee", "salarie": "employee", "salariee": "employee",
    "lender": "lender", "preteur": "lender", "banque": "lender", "bank": "lender",
    "borrower": "borrower", "emprunteur": "borrower",
    "seller": "seller", "cedant": "seller", "vendeur": "seller",
    "buyer": "buyer", "purchaser": "buyer", "cessionnaire": "buyer", "acquereur": "buyer",
    "acheteur": "buyer",
    "company": "company", "societe": "company", "corporation": "company",
    "consultant": "consultant", "advisor": "consultant", "adviser": "consultant",
    "conseil": "consultant",
    "agent": "agent", "mandataire": "agent", "agent commercial": "agent",
    "principal": "principal", "mandant": "principal",
    "sponsor": "sponsor", "guarantor": "guarantor", "garant": "guarantor",
    "developer": "developer", "investor": "investor", "investisseur": "investor",
}  # fmt: skip

_ARTICLE = re.compile(r"^(?:the|le|la|les|l['\u2019])\s*", re.IGNORECASE)


# A defined term in parentheses: ("Licensor"), (the "Company"), (hereinafter "Seller"),
# (« le Bailleur »); or after "hereinafter"/"ci-après" without parentheses.
def _quoted(group: str) -> str:
    return rf"[\"“”«']\s*(?P<{group}>[^\"“”«»'()]{{1,40}}?)\s*[\"“”»']"


DEFINED_TERM = re.compile(
    r"\(\s*(?:(?:the|hereinafter|herein|individually|referred\s+to\s+as|called|as|a|an"
    r"|ci-apr[eè]s|d[ée]nomm[ée]e?|d[ée]sign[ée]e?|le|la|l['\u2019])[\s,]*){0,4}"
    + _quoted("term")
    + r"[^()]{0,40}?\)"
    r"|\b(?:hereinafter|ci-apr[eè]s)[\s,]+(?:(?:referred\s+to\s+as|called|d[ée]nomm[ée]e?s?"
    r"|d[ée]sign[ée]e?s?|appel[ée]e?s?|the)\s+)*"
    # A French article before the quotes is not the term (ci-après dénommée le « Client »),
    # and a bare term starts with a capital whatever the case of the rest of the pattern.
    r"(?:(?:(?:le|la|les|l['\u2019])\s*)?"
    + _quoted("term2")
    + r"|(?P<bare>(?:(?:le|la|l['\u2019])\s*)?(?-i:[A-Z\u00c0-\u00dd])[\w\u00c0-\u017f-]+))",
    re.IGNORECASE,
)


def role_for_term(term: str | None) -> str | None:
    """The role key a defined term names ("the Licensee" -> "licensee"), or None."""
    if not term:
        return None
    folded = _ARTICLE.sub("", fold_accents(term).lower().strip(" .,:"))
    return ROLES.get(folded)


def defined_term_in(text: str) -> tuple[str, int, int] | None:
    """The first defined term written in ``text``, with its span; None when there is none."""
    match = DEFINED_TERM.search(text)
    if match is None:
        return None
    term = match.group("term") or match.group("term2") or match.group("bare")
    if not term:
        return None
    return term.strip(), match.start(), match.end()
