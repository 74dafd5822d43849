"""The compiled patterns of the renvois extractor (one place, compiled once at import)."""

from __future__ import annotations

import re

# An article number as written: "L. 121-3", "L.121-3", "R.* 123-4", "LO. 141", "D 12",
# "1240", "1er", "1649 A", "3 bis". The lookahead refuses "2°" and "12 h".
NUMBER = (
    r"(?:(?:L\.?\s?O|[LRDA])\s?\.?\s?\*{0,2}\s?)?\d{1,5}(?:[-\u2011]\d{1,5}){0,4}(?:er)?"
    r"(?:\s(?:[A-Z](?![\w'\u2019])|bis|ter|quater|quinquies|sexies|septies|octies|nonies|decies)\b)?"
    r"(?![°\w'\u2019])"
)
NUMBER_RE = re.compile(NUMBER)

# "article", "articles", "Article", "art." followed by a number; or, in a table, a cell
# that starts with a prefixed number ("| L. 112-1 à L. 112-3 |").
TRIGGER_RE = re.compile(
    r"\b(?:[Aa]rticles?|[Aa]rt\.)\s+(?=(?:L\.?\s?O|[LRDA])?[\s.*]*\d)"
    r"|(?:^|(?<=\|))[ \t]*(?=(?:LO|[LRD])(?:\.\s?\*{0,2}\s?\d|\s?\*{0,2}\s?\d{1,5}-\d))",
    re.MULTILINE,
)

# Between two numbers of one enumeration; "à" makes a range.
CONNECTOR_RE = re.compile(
    r"\s*(?:,\s*(?P<comma_word>et|ou)\s+|,\s*|\s+(?P<word>et|ou|à)\s+)"
    r"(?P<again>(?:à\s+)?(?:l['\u2019]|les\s+|aux\s+)?articles?\s+)?"
)

# After a bare range end or item: a quantity, not an article ("de 3 à 10 jours").
QUANTITY_RE = re.compile(
    r"\s*(?:jours?|mois|ans?|années?|euros?|heures?|semaines?|%|€|francs?|janvier|février|"
    r"mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)\b",
    re.IGNORECASE,
)

_ORDINAL = (
    r"(?:premi(?:er|ère)|deuxième|seconde?|troisième|quatrième|cinquième|sixième|septième|"
    r"huitième|neuvième|dixième|derni(?:er|ère)|avant-derni(?:er|ère)|\d+e)"
)
_PRECISION_ITEM = (
    rf"(?:\d+°(?:\s(?:bis|ter|quater))?|[IVX]+(?:\s(?:bis|ter|quater|[A-H]))?|[a-h]\)?"
    rf"|{_ORDINAL}\s+(?:alinéa|phrase|tiret|paragraphe)|(?:alinéa|paragraphe)\s+\d+)"
)
# "au 1° de l'", "le premier alinéa de l'", "aux I et II de l'", "au a du 2° de l'":
# searched at the end of the text just before "article".
PRECISION_BEFORE_RE = re.compile(
    r"(?:\b(?:[Aa]ux?|[Ll]es?|[Ll]a|[Dd]u|[Dd]es|[Dd]ans\s+le|[Àà]\s+la)\s+|(?:[Àà]\s+)?\b[Ll]['\u2019])"
    rf"(?P<precision>{_PRECISION_ITEM}(?:\s*(?:,|et|ou|à)\s*{_PRECISION_ITEM})*"
    rf"(?:\s+(?:du|de\s+la|de\s+l['\u2019]|des)\s*{_PRECISION_ITEM})*)"
    r"\s+(?:de\s+l['\u2019]|des\s+)$"
)
# ", alinéa 2", ", premier alinéa", ", 3°" right after a number.
PRECISION_AFTER_RE = re.compile(
    rf"\s*,?\s*(?P<precision>(?:alinéa|al\.)\s+\d+|{_ORDINAL}\s+alinéa|\d+°|[IVX]+)(?=[\s,;.])"
)

# Words that may sit between the numbers and what they belong to.
FILLER_RE = re.compile(
    r"(?:\s*,?\s*(?:et\s+suivants|ci-dessus|ci-dessous|ci-après|précités?|susvisés?))*"
)

_STRUCTURE = r"(?:section|sous-section|chapitre|titre|livre|partie|paragraphe|sous-paragraphe)"
_TEXT_WORD = (
    r"loi|décret|ordonnance|constitution|règlement|directive|décision|convention|traité|charte|"
    r"protocole|arrêté|accord|annexe|délibération"
)
# What an enumeration belongs to: "du présent code", "du code de la consommation",
# "du même code", "de la loi n° …".
DESIGNATION_RE = re.compile(
    r"\s*,?\s*(?:"
    rf"(?:du|de\s+la)\s+présente?\s+(?P<present>code|{_STRUCTURE})\b"
    r"|(?P<same>du\s+même\s+code|du\s+code\s+précité|de\s+ce\s+code|dudit\s+code)\b"
    r"|(?:du|des)\s+(?:nouveau\s+)?(?P<code>codes?|livre\s+des\s+procédures\s+fiscales)\b"
    rf"|(?:(?:du|de\s+la|des|de)\s+|de\s+l['\u2019]\s*)(?:(?:ce|cette)\s+)?"
    rf"(?:(?P<same_text>même|ladite|ledit)\s+)?"
    rf"(?P<text>{_TEXT_WORD})\b"
    r")",
    re.IGNORECASE,
)

_MONTH = (
    r"(?:janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|"
    r"novembre|décembre|decembre)"
)
_DATE = rf"\s+du\s+(?:1er|\d{{1,2}})\s+{_MONTH}\s+\d{{4}}"
_TEXT_NUMBER = r"\s+n[°o]\s*\d[\w./-]*"
# A law, decree or ordinance with its number and/or date.
TEXT_NAME_RE = re.compile(
    r"(?:(?:loi|décret|ordonnance|règlement|directive|arrêté)"
    r"(?:\s+organique|\s+en\s+Conseil\s+d['\u2019]État)?(?:\s+\((?:UE|CE|CEE|Euratom)\))?"
    rf"(?:{_TEXT_NUMBER}(?:{_DATE})?|{_DATE})"
    r"|constitution|[\w-]+)",
    re.IGNORECASE,
)
# The same, when the text is cited with no article: a number or a date is required.
STANDALONE_TEXT_RE = re.compile(
    r"\b(?:loi|décret|ordonnance)(?:\s+organique|\s+en\s+Conseil\s+d['\u2019]État)?"
    rf"(?:{_TEXT_NUMBER}(?:{_DATE})?|{_DATE})",
    re.IGNORECASE,
)

# An article of another text reproduced between quotes, as codes do ("… du code de la voirie
# routière ci-après reproduits : " Art. L. 122-1.-Les autoroutes … ""): from the opening quote
# and its heading to the first closing quote that ends a line (quoted terms inside do not).
REPRODUCTION_RE = re.compile(
    rf"[\"«“][ \t]*Art(?:icle\s+|\.\s?)(?P<number>{NUMBER})"
    r".*?[\"»”][ \t]*(?:\n|\Z)",
    re.DOTALL,
)

# "du même article 7-2", "au même article": the article belongs to the last one named.
SAME_ARTICLE_RE = re.compile(r"\bm[êe]mes?\s+$", re.IGNORECASE)

# "code" where a code's name may start (for "du même code" after a name written without an
# article before it).
CODE_WORD_RE = re.compile(r"\bcodes?\s", re.IGNORECASE)

# The words of a code's name as written, when the catalogue does not know it.
CODE_NAME_RE = re.compile(
    r"codes?(?:\s+(?!(?:et|ou|qui|que|dont|pour|sont|est|lorsque|à|au|aux|dans|en|sur|sous|"
    r"selon|relatifs?|relatives?|ainsi|afin|ne|se|sauf|applicables?)\b)[\w'\u2019-]+){0,8}",
    re.IGNORECASE,
)
