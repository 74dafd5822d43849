"""The French codes a text may name: official title, Légifrance id, and the slug the importer
gives the code (``slugify(title)``).

``TITLES_BY_LEGI_ID`` was written once from legi-data's ``index.json`` (the codes of nature
CODE in force, titles without their trailing dot) plus four codes enacted after that snapshot;
the runtime never reads the data folder.
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.text import slugify

TITLES_BY_LEGI_ID: dict[str, str] = {
    "LEGITEXT000006070721": "Code civil",
    "LEGITEXT000005634379": "Code de commerce",
    "LEGITEXT000006074232": "Code de déontologie des architectes",
    "LEGITEXT000006070933": "Code de justice administrative",
    "LEGITEXT000006071360": "Code de justice militaire (nouveau)",
    "LEGITEXT000037701019": "Code de la commande publique",
    "LEGITEXT000006069565": "Code de la consommation",
    "LEGITEXT000006074096": "Code de la construction et de l'habitation",
    "LEGITEXT000006071307": "Code de la défense",
    "LEGITEXT000006072637": "Code de la famille et de l'aide sociale",
    "LEGITEXT000039086952": "Code de la justice pénale des mineurs",
    "LEGITEXT000037673300": (
        "Code de la légion d'honneur, de la Médaille militaire et de l'ordre national du Mérite"
    ),
    "LEGITEXT000006074067": "Code de la mutualité",
    "LEGITEXT000006069414": "Code de la propriété intellectuelle",
    "LEGITEXT000006071190": "Code de la recherche",
    "LEGITEXT000006074228": "Code de la route",
    "LEGITEXT000006072665": "Code de la santé publique",
    "LEGITEXT000025503132": "Code de la sécurité intérieure",
    "LEGITEXT000006073189": "Code de la sécurité sociale",
    "LEGITEXT000006070667": "Code de la voirie routière",
    "LEGITEXT000006074069": "Code de l'action sociale et des familles",
    "LEGITEXT000006075116": "Code de l'artisanat",
    "LEGITEXT000006074234": "Code de l'aviation civile",
    "LEGITEXT000006071191": "Code de l'éducation",
    "LEGITEXT000023983208": "Code de l'énergie",
    "LEGITEXT000006070158": "Code de l'entrée et du séjour des étrangers et du droit d'asile",
    "LEGITEXT000006074220": "Code de l'environnement",
    "LEGITEXT000006074224": "Code de l'expropriation pour cause d'utilité publique",
    "LEGITEXT000006071164": "Code de l'organisation judiciaire",
    "LEGITEXT000006074075": "Code de l'urbanisme",
    "LEGITEXT000006070716": "Code de procédure civile",
    "LEGITEXT000006071154": "Code de procédure pénale",
    "LEGITEXT000006073984": "Code des assurances",
    "LEGITEXT000006070162": "Code des communes",
    "LEGITEXT000006070300": "Code des communes de la Nouvelle-Calédonie",
    "LEGITEXT000006071570": "Code des douanes",
    "LEGITEXT000006071645": "Code des douanes de Mayotte",
    "LEGITEXT000006070666": "Code des instruments monétaires et des médailles",
    "LEGITEXT000006070249": "Code des juridictions financières",
    "LEGITEXT000006070302": "Code des pensions civiles et militaires de retraite",
    "LEGITEXT000006074066": (
        "Code des pensions de retraite des marins français du commerce, de pêche ou de plaisance"
    ),
    "LEGITEXT000031712069": "Code des pensions militaires d'invalidité et des victimes de guerre",
    "LEGITEXT000006074233": "Code des ports maritimes",
    "LEGITEXT000006070987": "Code des postes et des communications électroniques",
    "LEGITEXT000025024948": "Code des procédures civiles d'exécution",
    "LEGITEXT000031366350": "Code des relations entre le public et l'administration",
    "LEGITEXT000023086525": "Code des transports",
    "LEGITEXT000006071188": "Code disciplinaire et pénal de la marine marchande",
    "LEGITEXT000020908868": "Code du cinéma et de l'image animée",
    "LEGITEXT000006070208": "Code du domaine de l'Etat",
    "LEGITEXT000006074235": (
        "Code du domaine de l'Etat et des collectivités publiques "
        "applicable à la collectivité territoriale de Mayotte"
    ),
    "LEGITEXT000006074237": "Code du domaine public fluvial et de la navigation intérieure",
    "LEGITEXT000006074236": "Code du patrimoine",
    "LEGITEXT000006071335": "Code du service national",
    "LEGITEXT000006071318": "Code du sport",
    "LEGITEXT000006074073": "Code du tourisme",
    "LEGITEXT000006072050": "Code du travail",
    "LEGITEXT000006072052": "Code du travail applicable à Mayotte",
    "LEGITEXT000006072051": "Code du travail maritime",
    "LEGITEXT000006070239": "Code électoral",
    "LEGITEXT000025244092": "Code forestier (nouveau)",
    "LEGITEXT000044416551": "Code général de la fonction publique",
    "LEGITEXT000006070299": "Code général de la propriété des personnes publiques",
    "LEGITEXT000006070633": "Code général des collectivités territoriales",
    "LEGITEXT000006069577": "Code général des impôts",
    "LEGITEXT000006069568": "Code général des impôts, annexe 1",
    "LEGITEXT000006069569": "Code général des impôts, annexe 2",
    "LEGITEXT000006069574": "Code général des impôts, annexe 3",
    "LEGITEXT000006069576": "Code général des impôts, annexe 4",
    "LEGITEXT000006071785": "Code minier",
    "LEGITEXT000023501962": "Code minier (nouveau)",
    "LEGITEXT000006072026": "Code monétaire et financier",
    "LEGITEXT000006070719": "Code pénal",
    "LEGITEXT000045476241": "Code pénitentiaire",
    "LEGITEXT000006071366": "Code rural (ancien)",
    "LEGITEXT000022197698": "Code rural et de la pêche maritime",
    "LEGITEXT000006069583": "Livre des procédures fiscales",
}

# Names written in texts that differ from a title: the current code of that name wins.
_ALIASES: dict[str, str] = {
    "code rural": "LEGITEXT000022197698",
    "code minier": "LEGITEXT000023501962",
    "code forestier": "LEGITEXT000025244092",
    "code de justice militaire": "LEGITEXT000006071360",
    "code general des impots, annexe i": "LEGITEXT000006069568",
    "code general des impots, annexe ii": "LEGITEXT000006069569",
    "code general des impots, annexe iii": "LEGITEXT000006069574",
    "code general des impots, annexe iv": "LEGITEXT000006069576",
    "livre des procedures fiscales": "LEGITEXT000006069583",
    "code des postes et communications electroniques": "LEGITEXT000006070987",
}
_QUALIFIER = re.compile(r"\s*\((?:nouveau|ancien)\)$")


def fold(text: str) -> str:
    """Lowercase, accents and typographic apostrophes removed, spaces collapsed."""
    text = text.replace("\u2019", "'").replace("\u02bc", "'").lower()
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(text.split())


_KEEP_LENGTH = str.maketrans(
    "àâäáãåçéèêëîïíìôöóòõùûüúÿñ\u2019\u02bc\xa0\n\t\r",
    "aaaaaaceeeeiiiiooooouuuuyn''    ",
)


def fold_keep_length(text: str) -> str:
    """:func:`fold` for French text, one character for one: offsets stay valid."""
    return text.lower().translate(_KEEP_LENGTH)


SLUGS_BY_LEGI_ID: dict[str, str] = {
    legi_id: slugify(title) for legi_id, title in TITLES_BY_LEGI_ID.items()
}
TITLES: dict[str, str] = {SLUGS_BY_LEGI_ID[i]: t for i, t in TITLES_BY_LEGI_ID.items()}


def _names() -> dict[str, str]:
    names: dict[str, str] = {}
    for legi_id, title in TITLES_BY_LEGI_ID.items():
        names.setdefault(_QUALIFIER.sub("", fold(title)), SLUGS_BY_LEGI_ID[legi_id])
    names.update({name: SLUGS_BY_LEGI_ID[legi_id] for name, legi_id in _ALIASES.items()})
    return names


# Folded name -> slug; longest names first so "code du travail applicable à Mayotte" wins
# over "code du travail".
NAMES: dict[str, str] = dict(sorted(_names().items(), key=lambda item: -len(item[0])))


def code_slug(name: str) -> str | None:
    """The slug of the code named ``name`` ("code de la consommation", "Code civil"), or None."""
    return NAMES.get(fold(name).rstrip(". "))


def match_code_name(folded: str) -> tuple[str, str] | None:
    """The catalogued name ``folded`` starts with, and its slug (longest name first)."""
    for name, slug in NAMES.items():
        if folded.startswith(name) and not folded[len(name) : len(name) + 1].isalnum():
            return name, slug
    return None
