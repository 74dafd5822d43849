"""What a date near a signing word is, when it is not the date of signing: a start, an end, a
due date, a period, another contract's date (an amendment citing the contract it amends).
The agreement-date rules (``_contract_dates``) skip the dates these patterns describe."""

from __future__ import annotations

import re

# "... to the Supply Agreement dated April 1, 2017": the date of the agreement amended.
REFERENCED_AGREEMENT = re.compile(
    r"\b(?:to|of|under|amend\w*|and|into|in)\s+(?:the|that\s+certain|a|an|said|such)\s+(?:[^\s.;]+\s+)"
    r"{0,10}?(?:agreement|contract|lease|licen[cs]e|contrat)\b(?:\s*\([^)]{0,80}\))?\s*,?"
    r"(?:\s+(?:dated|of|du|en\s+date\s+du|as\s+of))?\s*$",
    re.IGNORECASE,
)
# « le contrat de fourniture qu'elles ont signé le 19 juin 2023 »: another contract's date
# (an amendment citing the contract it amends); « le présent contrat, conclu le » is this one.
REFERENCED_FRENCH = re.compile(
    r"\b(?:le|du|au|ledit)\s+(?:contrat|bail|accord|convention|protocole)\b[^.;]{0,120}$",
    re.IGNORECASE,
)
THIS_CONTRACT_FRENCH = re.compile(
    r"pr[ée]sente?\s+(?:contrat|bail|accord|convention|protocole|avenant)", re.IGNORECASE
)
# A date introduced as a start, an end or a due date is not the date of signing:
# « le bail court du 1er février », « à compter du », "the license starts on", « exigible le ».
NOT_SIGNING = re.compile(
    r"(?:\beffet|\bvigueur|\bcommence\w*|\bd[ée]but\w*|\bcourt|\bcourant|\bcompter|\bpartir"
    r"|\bjusqu\S*|\bprend\s+fin|\bfix[ée]e?s?|\breport[ée]e?s?|\bprorog\w*|\bterme|[ée]ch[ée]ance|\bexigible|\bpayable|\bdue"
    r"|\bs['\u2019][ée]tend\w*|\bs['\u2019]ach[eè]v\w*|\bexpir\w*|\bterminat\w*|\bstarts?|\bstarting|\bbegin\w*"
    r"|\bends?|\bending|\buntil|\bthrough|\bcommenc\w*|\bpayments?|\bpaiements?|\bdeliver\w*"
    r"|\blivraisons?|\breports?|\bcertificat\w*|\binvoices?|\bfactures?|\bn[ée]e?\s+le"
    r"|\bon\s+or\s+before|\bno\s+later\s+than|\bau\s+plus\s+tard|\bbirth|\bnaissance)\W+(?:[\w'\u2019]+\W+){0,4}$",
    re.IGNORECASE,
)
# Between the signing word and its date: "executed the original agreement on ...", "made this
# 1st day of the Lease Term commencing ...": the date of something else.
BETWEEN_NOT_SIGNING = re.compile(
    r"\b(?:original|initial|existing|underlying|prior|earlier|commenc\w*|term|dur[ée]e"
    r"|payments?|delivery|livraison)\b"
    r"|\b(?:the|a|an|un|une|le|la|ledit)\s+(?:[\w-]+\s+){0,3}(?:agreement|contract|lease|contrat"
    r"|bail|convention)\b",
    re.IGNORECASE,
)
# « ont signé le 12 janvier 2015 un bail commercial »: the date of the contract named after it.
CONTRACT_AFTER = re.compile(
    r"\W{0,3}(?:un|une|le|la|the|a|an)\s+(?:[\w-]+\s+){0,2}(?:bail|contrat|agreement|contract"
    r"|lease|convention|accord)\b",
    re.IGNORECASE,
)
# A signing word far into the opening is trusted as the preamble's only when the agreement is
# its subject ("This Agreement is made…", « Le présent contrat est conclu le… »).
AGREEMENT_SUBJECT = re.compile(
    r"\b(?:this|the\s+present|le\s+pr[ée]sent|la\s+pr[ée]sente|ce|cet)\s+(?:[\w-]+\s+){0,4}?"
    r"(?:agreement|contract|lease|amendment|contrat|bail|convention|avenant|accord)\b[^.;]{0,80}$",
    re.IGNORECASE,
)
# "du 1er octobre 2023 au 30 septembre 2026", "from May 1, 2020 to April 30, 2021": a period.
RANGE_END = re.compile(
    r"\b(?:du|from|between)\s+\S[^.;\n]{2,40}?\s+(?:au|to|until|through|and)\s*$", re.IGNORECASE
)


def another_french_contract(before: str) -> bool:
    sentence = re.split(r"[.;]\s", before)[-1]
    return bool(REFERENCED_FRENCH.search(sentence)) and not THIS_CONTRACT_FRENCH.search(sentence)
