"""A query as words: each with its span in the text as typed and its folded form (ASCII,
lower case, no accents), the words still free, and the text left once conditions are read.

The readers match their patterns on the *free* words joined by single spaces, so a word
read by one reader (a party's name) no longer separates the words around it ("signed with
Acme before 2020" reads as "signed before 2020" for the dates).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from core.normalize import fold_accents

# \w+ on text already bounded (MAX_QUERY_CHARS): one linear pass, no backtracking.
_WORD = re.compile(r"\w+")
_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]+")
# Words that turn what follows into its opposite: "not governed by", "sauf droit anglais",
# "other than French law", "hors baux commerciaux", "n'expirant pas".
NEGATIONS = frozenset(
    {
        "not", "no", "non", "pas", "sauf", "hors", "except", "excepting", "excluding",
        "exclude", "excluded", "exclu", "exclus", "exclue", "exclues", "other", "others",
        "autre", "autres", "ni", "without", "sans", "never", "jamais", "aucun", "aucune",
        "neither", "nor", "n", "ne", "unless", "outside",
    }
)  # fmt: skip
NEGATION_REACH = 3  # words before a condition looked at for a negation
_CLAUSE_BREAK = re.compile(r"[,.;:!?()]")


def folded_words(text: str) -> list[str]:
    """The text's words folded as :meth:`Words.of` folds them, in one pass over the text
    (names of parties are read by the thousand)."""
    words = (_NOT_ASCII_ALNUM.sub("", word) for word in _WORD.findall(fold_accents(text).lower()))
    return [word for word in words if word]


@dataclass(frozen=True)
class Word:
    start: int  # in the query as typed
    end: int
    folded: str


@dataclass
class Words:
    """The query's words and which of them a condition has read."""

    text: str
    words: list[Word]
    used: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, text: str) -> Words:
        words = []
        for match in _WORD.finditer(text):
            folded = _NOT_ASCII_ALNUM.sub("", fold_accents(match.group()).lower())
            if folded:
                words.append(Word(match.start(), match.end(), folded))
        return cls(text, words)

    def free(self) -> tuple[str, list[int]]:
        """The free words joined by single spaces, and each one's index, in order."""
        indexes = [i for i in range(len(self.words)) if i not in self.used]
        return " ".join(self.words[i].folded for i in indexes), indexes

    def covered(self, text_start: int, text_end: int, indexes: list[int]) -> list[int]:
        """The word indexes a match [text_start, text_end) of :meth:`free`'s text covers."""
        covered, offset = [], 0
        for index in indexes:
            length = len(self.words[index].folded)
            if offset >= text_start and offset + length <= text_end:
                covered.append(index)
            offset += length + 1
        return covered

    def introduced(self, first: int, introducers: frozenset[str], reach: int) -> list[int]:
        """The free words, at most ``reach`` of them, just before word ``first`` that are
        ``introducers`` ("governed by the", "avec", "des"), in order."""
        taken: list[int] = []
        for before in range(first - 1, max(-1, first - 1 - reach), -1):
            if before in self.used or self.words[before].folded not in introducers:
                break
            taken.insert(0, before)
        return taken

    def negated(self, first: int) -> bool:
        """Whether a negation stands among the few words before word ``first``, in the same
        clause (no comma or full stop between)."""
        start = self.words[first].start
        for index in range(first - 1, max(-1, first - 1 - NEGATION_REACH), -1):
            word = self.words[index]
            if _CLAUSE_BREAK.search(self.text, word.end, start):
                return False
            # "non-concurrence", "non-exclusive": a prefix, not a negation.
            prefix = word.folded == "non" and self.text[word.end : word.end + 1] == "-"
            if word.folded in NEGATIONS and not prefix:
                return True
        return False

    def quote(self, indexes: Iterable[int]) -> str:
        """The words as typed: each run of neighbouring words with what separates them, runs
        apart joined by " … " ("signés … avant 2015" around a party's name)."""
        runs: list[list[int]] = []
        for index in sorted(indexes):
            if runs and runs[-1][-1] == index - 1:
                runs[-1].append(index)
            else:
                runs.append([index])
        return " … ".join(
            self.text[self.words[run[0]].start : self.words[run[-1]].end] for run in runs
        )

    def leftover(self) -> str:
        """The query without the words read: a run of read words goes with what separates
        them ("2020-01-01"), and pieces left without a letter or digit are dropped."""
        pieces, cursor, index = [], 0, 0
        while index < len(self.words):
            if index not in self.used:
                index += 1
                continue
            run_end = index
            while run_end + 1 < len(self.words) and run_end + 1 in self.used:
                run_end += 1
            pieces.append(self.text[cursor : self.words[index].start])
            cursor = self.words[run_end].end
            index = run_end + 1
        pieces.append(self.text[cursor:])
        kept = [piece for piece in " ".join(pieces).split() if _WORD.search(piece)]
        return " ".join(kept)
