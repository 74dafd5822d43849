"""A small invented code (our own words, not the codes' text) with a known history."""

from __future__ import annotations

import datetime as dt

from sources.importing import CodeRecord, VersionRecord
from sources.models import LegalCode
from sources.services import code_import

D = dt.date
PATH = ["Partie législative", "Livre Ier : Essais", "Chapitre Ier : Exemples"]


def version(number: str, text: str, start: dt.date | None, end: dt.date | None, **kw: object):
    key = kw.pop("key", f"{number}@{start.isoformat() if start else 'origin'}")
    state = kw.pop("state", "VIGUEUR" if end is None else "MODIFIE")
    return VersionRecord(
        number=number,
        article_key=str(kw.pop("article_key", number)),
        version_key=str(key),
        state=str(state),
        valid_from=start,
        valid_to=end,
        text=text,
        path=list(PATH),
        **kw,  # type: ignore[arg-type]
    )


def demo_record(*, slug: str = "code-des-essais", title: str = "Code des essais") -> CodeRecord:
    return CodeRecord(
        slug=slug,
        title=title,
        source_format="codes-jsonl",
        snapshot_date=D(2018, 1, 1),
        versions=[
            # Modified on 2016-03-01: the old text until then, the new one after.
            version("L101-1", "Le délai de préavis est de un mois.", D(2010, 1, 1), D(2016, 3, 1)),
            version(
                "L101-1",
                "Le délai de préavis est de deux mois, sauf l'article L101-3 du présent code.",
                D(2016, 3, 1),
                None,
            ),
            version(
                "L101-2",
                "Les articles L101-1 à L101-3 s'appliquent aux baux ; voir l'article 1240 du "
                "code civil et la loi n° 89-462 du 6 juillet 1989.",
                D(2010, 1, 1),
                None,
            ),
            # Repealed on 2017-07-01.
            version(
                "L101-3",
                "Le bailleur remet une quittance gratuite au locataire.",
                D(2010, 1, 1),
                D(2017, 7, 1),
                state="ABROGE",
            ),
            version("R101-1", "Le modèle de quittance est fixé par arrêté.", D(2012, 5, 1), None),
        ],
    )


def import_demo(**kwargs: object):
    return code_import(record=demo_record(**kwargs))  # type: ignore[arg-type]


def import_code(
    *versions: VersionRecord, slug: str = "code-nu", title: str = "Code nu"
) -> LegalCode:
    """A second invented code (JSONL format) holding ``versions``; returns the stored code."""
    code_import(
        record=CodeRecord(
            slug=slug,
            title=title,
            source_format="codes-jsonl",
            snapshot_date=D(2018, 1, 1),
            versions=list(versions),
        )
    )
    return LegalCode.objects.get(slug=slug)
