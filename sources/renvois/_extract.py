"""The scanner: one pass over the text, one enumeration of article numbers at a time."""

from __future__ import annotations

from dataclasses import dataclass

from sources.codes_catalog import fold_keep_length, match_code_name
from sources.numbers import number_sort_key, stored_number
from sources.renvois._patterns import (
    CODE_NAME_RE,
    CODE_WORD_RE,
    CONNECTOR_RE,
    DESIGNATION_RE,
    FILLER_RE,
    NUMBER_RE,
    PRECISION_AFTER_RE,
    PRECISION_BEFORE_RE,
    QUANTITY_RE,
    REPRODUCTION_RE,
    SAME_ARTICLE_RE,
    STANDALONE_TEXT_RE,
    TEXT_NAME_RE,
    TRIGGER_RE,
)

# How far back "au 1° du I de l'article" may start, and how far a code's name may run.
_PRECISION_WINDOW = 120
_CODE_NAME_WINDOW = 160
_PRECISION_ENDINGS = ("de l'", "de l\u2019", "des ")


@dataclass
class Mention:
    """One reference as written: an article, a range of articles, or a law/decree/ordinance."""

    raw: str
    start: int
    end: int
    kind: str
    number: str
    number_end: str = ""
    code: str | None = None
    code_named: str = ""
    precision: str = ""
    unresolved_text: str = ""


@dataclass
class _Target:
    """What an enumeration belongs to, and where its designation ends."""

    kind: str
    code: str | None
    end: int
    code_named: str = ""
    text: str = ""


@dataclass
class _Item:
    start: int
    end: int
    number: str
    connector: str


def normalise(raw: str) -> str:
    """An article number as stored (:func:`sources.numbers.stored_number`)."""
    return stored_number(raw.replace("\u2011", "-"))


class _Scanner:
    def __init__(self, text: str, present_code: str | None) -> None:
        self.text = text
        # The code a number with no code named belongs to: the text's own, except inside an
        # article of another code reproduced between quotes (see run).
        self.own = present_code
        self.present = present_code
        self.reproductions = [
            (found.start(), found.end(), normalise(found["number"]))
            for found in REPRODUCTION_RE.finditer(text)
        ]
        # "du même code" / "de la même loi" point back to the last one named: catalogued
        # codes found anywhere in the text (computed when first needed), others by position.
        self.catalogued: list[tuple[int, str]] | None = None
        self.last_unknown: tuple[int, str] | None = None
        self.last_text = ""
        self.last_target: _Target | None = None
        self.covered: list[tuple[int, int]] = []

    def run(self) -> list[Mention]:
        mentions: list[Mention] = []
        resume = 0
        for trigger in TRIGGER_RE.finditer(self.text):
            if trigger.start() < resume or self._quoted_heading(trigger.start()):
                continue
            self.present = self._present_at(trigger.start(), mentions)
            group, resume = self._group(trigger.start(), trigger.end())
            mentions.extend(group)
        mentions.extend(self._standalone_texts())
        mentions.sort(key=lambda mention: mention.start)
        return mentions

    def _group(self, start: int, numbers_at: int) -> tuple[list[Mention], int]:
        items = self._numbers(numbers_at)
        if not items:
            return [], numbers_at
        tail = items[-1].end
        after = PRECISION_AFTER_RE.match(self.text, tail)
        precision_after = after["precision"] if after else ""
        filler = FILLER_RE.match(self.text, after.end() if after else tail)
        target = self._designation(filler.end() if filler else tail)
        if (
            target is None
            and self.last_target
            and SAME_ARTICLE_RE.search(self.text, max(0, start - 12), start)
        ):
            # "du même article 7-2": the code or text of the reference before it.
            before = self.last_target
            target = _Target(before.kind, before.code, tail, before.code_named, before.text)
        if target is None:
            target = self._implicit_target(start, items[0].number, tail)
        self.last_target = target
        self.covered.append((start, target.end))
        mentions = self._mentions(items, start, target)
        mentions[0].precision = self._precision_before(start)
        if precision_after:
            last = mentions[-1]
            last.precision = ", ".join(p for p in (last.precision, precision_after) if p)
        return mentions, max(tail, target.end)

    def _numbers(self, pos: int) -> list[_Item]:
        first = NUMBER_RE.match(self.text, pos)
        if first is None or QUANTITY_RE.match(self.text, first.end()):
            return []
        items = [_Item(first.start(), first.end(), normalise(first.group()), "")]
        while True:
            connector = CONNECTOR_RE.match(self.text, items[-1].end)
            if connector is None:
                break
            found = NUMBER_RE.match(self.text, connector.end())
            if found is None or QUANTITY_RE.match(self.text, found.end()):
                break
            word = connector["word"] or connector["comma_word"] or ","
            item = _Item(found.start(), found.end(), normalise(found.group()), word)
            if word == "à" and not _is_range(items[-1].number, item.number):
                break
            # "l'article L. 3 et l'article 1240 du code civil": a repeated "article" before a
            # number of another style starts another reference.
            if connector["again"] and _is_bare(item.number) != _is_bare(items[-1].number):
                break
            items.append(item)
        return items

    def _mentions(self, items: list[_Item], start: int, target: _Target) -> list[Mention]:
        mentions: list[Mention] = []
        index = 0
        while index < len(items):
            first = items[index]
            last = first
            if index + 1 < len(items) and items[index + 1].connector == "à":
                last = items[index + 1]
            begin = start if index == 0 else first.start
            kind = "range" if last is not first else "article"
            mentions.append(
                Mention(
                    raw=self.text[begin : last.end],
                    start=begin,
                    end=last.end,
                    kind="text" if target.kind == "text" else kind,
                    number=first.number,
                    number_end=last.number if last is not first else "",
                    code=target.code,
                    code_named=target.code_named,
                    unresolved_text=target.text,
                )
            )
            index += 2 if last is not first else 1
        return mentions

    def _designation(self, pos: int) -> _Target | None:
        found = DESIGNATION_RE.match(self.text, pos)
        if found is None:
            return None
        end = found.end()
        if found["present"]:
            return _Target("article", self.present, end)
        if found["same"]:
            code, named = self._code_before(found.start(), self.present)
            return _Target("article", code, end, code_named=named)
        if found["code"]:
            return self._named_code(found.start("code"))
        if found["same_text"] and self.last_text:
            return _Target("text", None, end, text=self.last_text)
        name = TEXT_NAME_RE.match(self.text, found.start("text"))
        text = name.group() if name else found["text"]
        self.last_text = text
        return _Target("text", None, found.start("text") + len(text), text=text)

    def _named_code(self, at: int) -> _Target:
        window = fold_keep_length(self.text[at : at + _CODE_NAME_WINDOW])
        known = match_code_name(window)
        if known is not None:
            name, slug = known
            return _Target("article", slug, at + len(name))
        written = CODE_NAME_RE.match(self.text, at)
        named = written.group() if written else "code"
        if named.lower() in {"code", "codes"}:
            # "du code" alone is the code the text belongs to.
            return _Target("article", self.present, at + len(named))
        self.last_unknown = (at, named)
        return _Target("article", None, at + len(named), code_named=named)

    def _implicit_target(self, start: int, first_number: str, tail: int) -> _Target:
        """No designation: the present code, except that a bare number ("article 276")
        after a code named earlier in the text belongs to that code."""
        if _is_bare(first_number):
            code, named = self._code_before(start, self.present)
            return _Target("article", code, tail, code_named=named)
        return _Target("article", self.present, tail)

    def _code_before(self, pos: int, default: str | None) -> tuple[str | None, str]:
        """The code named last before ``pos`` (slug, or None and the name as written)."""
        if self.catalogued is None:
            self.catalogued = []
            for word in CODE_WORD_RE.finditer(self.text):
                window = fold_keep_length(
                    self.text[word.start() : word.start() + _CODE_NAME_WINDOW]
                )
                known = match_code_name(window)
                if known is not None:
                    self.catalogued.append((word.start(), known[1]))
        best: tuple[int, str | None, str] = (-1, default, "")
        for at, slug in self.catalogued:
            if at < pos:
                best = (at, slug, "")
        if self.last_unknown and best[0] < self.last_unknown[0] < pos:
            best = (self.last_unknown[0], None, self.last_unknown[1])
        return best[1], best[2]

    def _present_at(self, pos: int, before: list[Mention]) -> str | None:
        """The text's own code; inside a reproduced article, the code of the reference that
        introduced it ("aux articles L. 121-1 et L. 122-1 du code de la voirie routière
        ci-après reproduits"), or None when no reference before it names that article."""
        for start, end, number in self.reproductions:
            if start <= pos < end:
                for mention in reversed(before):
                    if mention.end <= start and _names(mention, number):
                        return mention.code
                return None
        return self.own

    def _quoted_heading(self, start: int) -> bool:
        """ "Art. L. 321-5.-Peuvent …" inside quotes heads a reproduced article."""
        before = self.text[max(0, start - 3) : start].rstrip()
        return self.text.startswith("Art", start) and before.endswith(('"', "«", "“"))

    def _precision_before(self, start: int) -> str:
        if not self.text[max(0, start - 6) : start].endswith(_PRECISION_ENDINGS):
            return ""
        window = self.text[max(0, start - _PRECISION_WINDOW) : start]
        found = PRECISION_BEFORE_RE.search(window)
        return " ".join(found["precision"].split()) if found else ""

    def _standalone_texts(self) -> list[Mention]:
        mentions: list[Mention] = []
        for found in STANDALONE_TEXT_RE.finditer(self.text):
            begin, end = found.span()
            if any(begin < stop and start < end for start, stop in self.covered):
                continue
            mentions.append(
                Mention(
                    raw=found.group(),
                    start=begin,
                    end=end,
                    kind="text",
                    number="",
                    unresolved_text=found.group(),
                )
            )
        return mentions


def _is_bare(number: str) -> bool:
    return number[:1].isdigit()


def _names(mention: Mention, number: str) -> bool:
    """Whether ``mention`` names article ``number`` (itself, or within its range)."""
    if mention.kind == "text":
        return False
    if not mention.number_end:
        return mention.number == number
    key = number_sort_key(number)
    return number_sort_key(mention.number) <= key <= number_sort_key(mention.number_end)


def _is_range(first: str, last: str) -> bool:
    """ "L. 1233-3 à L. 1233-7" is a range; "L. 12 à 3" (a quantity after it) is not."""
    low, high = number_sort_key(first), number_sort_key(last)
    return low[0] == high[0] and low <= high


def extract_references(text: str, *, present_code: str | None) -> list[Mention]:
    """The references ``text`` makes, ordered by where they start.

    A number with no code named belongs to ``present_code`` (the code the text is from).
    """
    if not text:
        return []
    return _Scanner(text, present_code).run()
