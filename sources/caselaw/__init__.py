"""French administrative case law, read live from its two public sources and cached:
ArianeWeb (Conseil d'État, Tribunal des conflits, a selection of the CAA, with conclusions
and analyses) and the open data of the tribunaux administratifs.

Parts: ``_http`` (spacing, retries, the Postgres cache, errors), ``_ariane`` and
``_opendata`` (the two clients and their formats), ``_text`` (a decision's parts),
``_search`` (merge, class order, fallback, dates, paging), ``_documents`` (a decision,
conclusions, analysis by id), ``_save`` (a decision into a workspace as a document).
"""

from __future__ import annotations

from sources.caselaw._documents import (
    ID_FORMATS,
    analysis_get,
    conclusions_get,
    decision_get,
    decision_texts,
    download_url,
    id_source,
)
from sources.caselaw._http import CaseLawError, for_firm
from sources.caselaw._save import decision_save
from sources.caselaw._search import (
    CLASSES,
    JURISDICTIONS,
    OPENDATA_CLASSES,
    Query,
    case_law_search,
    query_checked,
)

__all__ = [
    "CLASSES",
    "ID_FORMATS",
    "JURISDICTIONS",
    "OPENDATA_CLASSES",
    "CaseLawError",
    "Query",
    "analysis_get",
    "case_law_search",
    "conclusions_get",
    "decision_get",
    "decision_save",
    "decision_texts",
    "download_url",
    "for_firm",
    "id_source",
    "query_checked",
]
