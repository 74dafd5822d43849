"""Which headings are top-level, each starting a chunk: the articles of the contract.

One style of heading carries the articles ("ARTICLE 4", "Section 4", "4.", "IV.", "A.",
"TITRE II", "GOVERNING LAW"): the one whose articles weigh most, an explicit keyword
counting more than a bare number, and a run before the first exhibit before one in it.
Its articles are the longest run of increasing numbers, gaps allowed: a numbered list
inside an article ("1. Price", "2. Delivery") or a table of contents (numbers a few words
apart) does not make one. Sub-sections ("4.1") stay inside their article; when only they
are found, the first of each number opens the article ("4.1" opens article 4). Exhibits,
schedules and annexes after the first article start a chunk each, and the articles' style
no longer does after them (an exhibit restarts its own numbering). A "TITRE II" line just
above an article is kept with that article.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace

from documents.chunking._headings import Heading

_STYLE_WEIGHT = {
    "article": 2.0,
    "section": 1.5,
    "numbered": 1.0,
    "roman": 1.0,
    "lettered": 0.8,
    "division": 1.0,
    "caps": 0.7,
    "label": 0.5,
}
_UNNUMBERED = frozenset({"caps", "label"})
_NESTING = frozenset({"article", "section", "numbered", "roman", "lettered"})
_MIN_OUTER_RUN = 3
_OUTER_RUN_SHARE = 0.5
_RUNNING_REPEATS = 3
_UNTITLED_WEIGHT = 0.6  # "1. The Licensee shall ..." is a list item as often as an article
_IMPLIED_WEIGHT = 0.8  # "4.1 ..." standing for article 4
# A heading followed by a whole clause weighs more than one a few words before the next.
_FULL_SPAN = 400
_DIVISION_REACH = 300  # "TITRE II" this close above an article goes with it
_NO_ARTICLE_ANNEX_SHARE = 0.1  # without articles, an exhibit in the first tenth is a cover


@dataclass(frozen=True)
class _Unit:
    heading: Heading
    key: int  # the article's number ("4" for "4.1" standing for article 4)
    weight: float


def _number(ref: str) -> int | None:
    first = ref.split(".")[0]
    if len(first) == 1 and first.isupper():
        return ord(first) - ord("A") + 1  # a lettered article: "C" is the third
    return int(first) if first.isdigit() else None


def _units(headings: list[Heading], text_length: int) -> list[_Unit]:
    """The candidate articles of one style: its level-1 headings, and for each number that
    has only sub-sections, the first of them."""
    found: list[tuple[Heading, int, float]] = []
    seen_top: set[int] = set()
    implied: set[int] = set()
    for heading in headings:
        key = _number(heading.ref)
        if key is None:
            continue
        if heading.level == 1:
            seen_top.add(key)
            found.append((heading, key, 1.0 if heading.titled else _UNTITLED_WEIGHT))
        elif key not in seen_top and key not in implied:
            implied.add(key)
            found.append((heading, key, _IMPLIED_WEIGHT))
    # Measured to the next candidate article: its sub-sections are part of its clause.
    ends = [heading.line_start for heading, _key, _weight in found[1:]] + [text_length]
    return [
        _Unit(
            heading, key, weight * (0.5 + 0.5 * min(1.0, (end - heading.line_start) / _FULL_SPAN))
        )
        for (heading, key, weight), end in zip(found, ends, strict=True)
    ]


def _jump_cost(gap: int) -> float:
    return 0.15 * math.log2(1 + max(gap, 0))


def _increasing_run(units: list[_Unit]) -> tuple[list[_Unit], float]:
    """The heaviest run of strictly increasing numbers, each skipped number costing a little."""
    best: dict[int, tuple[float, int]] = {}  # number -> (score, index of its last unit)
    previous: list[int] = []
    scores: list[float] = []
    for index, unit in enumerate(units):
        score, link = unit.weight - _jump_cost(unit.key - 1), -1
        for key, (earlier, at) in best.items():
            if key < unit.key and earlier + unit.weight - _jump_cost(unit.key - key - 1) > score:
                score, link = earlier + unit.weight - _jump_cost(unit.key - key - 1), at
        previous.append(link)
        scores.append(score)
        if score > best.get(unit.key, (-math.inf, -1))[0]:
            best[unit.key] = (score, index)
    if not scores:
        return [], 0.0
    at = max(range(len(scores)), key=lambda i: (scores[i], -i))
    total, run = scores[at], []
    while at >= 0:
        run.append(units[at])
        at = previous[at]
    return run[::-1], total


def _articles_of(
    style: str, headings: list[Heading], text_length: int
) -> tuple[list[Heading], float]:
    if style in _UNNUMBERED:
        # The same words on many lines are a running header or footer, not a heading.
        counts = Counter(heading.text.lower() for heading in headings)
        kept = [h for h in headings if counts[h.text.lower()] < _RUNNING_REPEATS]
        return kept, _STYLE_WEIGHT[style] * len(kept)
    run, score = _increasing_run(_units(headings, text_length))
    if len(run) < 2 and not any(unit.heading.titled for unit in run):
        return [], 0.0  # one "2. The parties agree ..." is a sentence, not an article
    if len(run) < 2:
        return [unit.heading for unit in run], score * _STYLE_WEIGHT[style]
    top = [
        unit.heading if unit.heading.level == 1 else replace(unit.heading, ref=str(unit.key))
        for unit in run
    ]
    return top, score * _STYLE_WEIGHT[style]


def _after(top: list[Heading], first_annex: int) -> bool:
    return bool(top) and top[0].line_start > first_annex


def _run_of(
    style: str, headings: list[Heading], text_length: int, first_annex: int
) -> tuple[list[Heading], float]:
    """A style's articles. A run that starts after the first exhibit is the exhibit's own
    ("ARTICLE 1" of a licence attached): the style's run before the exhibit is taken if it
    has one, and a run only found in exhibits ranks after every other."""
    found = _articles_of(style, headings, text_length)
    if not _after(found[0], first_annex):
        return found
    before = [h for h in headings if h.line_start < first_annex]
    earlier = _articles_of(style, before, text_length) if before else ([], 0.0)
    return earlier if earlier[0] else found


def _main_articles(headings: list[Heading], text_length: int, first_annex: int) -> list[Heading]:
    by_style: dict[str, list[Heading]] = {}
    for heading in headings:
        # Unnumbered lines after the first exhibit are its tables and titles ("Table A-1",
        # "Figure A-2"): counted, they outweighed the contract's numbered articles.
        if heading.style not in _UNNUMBERED or heading.line_start < first_annex:
            by_style.setdefault(heading.style, []).append(heading)
    ranked = sorted(
        (_run_of(style, by_style[style], text_length, first_annex) for style in _STYLE_WEIGHT
         if style in by_style),
        key=lambda found: (_after(found[0], first_annex), -found[1]),
    )  # fmt: skip
    # A style needs two articles to win, so that one stray line cannot take over.
    chosen = next((top for top, _score in ranked if len(top) >= 2), None)
    if chosen is None:
        return next((top for top, _ in ranked if top), [])
    chosen_score = next(score for top, score in ranked if top is chosen)
    return _outer_run(chosen, chosen_score, ranked, text_length)


def _inside_one_article(inner: list[Heading], outer: list[Heading], text_length: int) -> bool:
    ends = [heading.line_start for heading in outer[1:]] + [text_length]
    return any(
        all(start.line_start < h.line_start < end for h in inner)
        for start, end in zip(outer, ends, strict=True)
    )


def _outer_run(
    chosen: list[Heading],
    chosen_score: float,
    ranked: list[tuple[list[Heading], float]],
    text_length: int,
) -> list[Heading]:
    """Lettered and numbered headings nest either way ("H. OPPORTUNITIES" holding "1.", "2.",
    or "VIII. MISCELLANEOUS" holding "A.", "B."): the run holding the other inside one of its
    articles is the articles' when it weighs at least half as much (three lettered sections
    before the numbered articles, "C. APPENDICES" then "1." to "17.", do not hold them)."""
    if chosen[0].style not in _NESTING:
        return chosen
    for run, score in ranked:
        if (
            len(run) >= _MIN_OUTER_RUN
            and score >= _OUTER_RUN_SHARE * chosen_score
            and run[0].style in _NESTING
            and (run[0].style == "lettered") != (chosen[0].style == "lettered")
            and _inside_one_article(chosen, run, text_length)
        ):
            return run
    return chosen


def _with_annexes(top: list[Heading], annexes: list[Heading], text_length: int) -> list[Heading]:
    floor = top[0].line_start if top else text_length * _NO_ARTICLE_ANNEX_SHARE
    annexes = [h for h in annexes if h.line_start > floor]
    if not annexes:
        return top
    first_annex = annexes[0].line_start
    return [h for h in top if h.line_start < first_annex] + annexes


def _with_divisions(top: list[Heading], divisions: list[Heading]) -> list[Heading]:
    """Each article starts at the "TITRE II" or "CHAPITRE 3" line just above it, if any."""
    moved: list[Heading] = []
    floor = -1
    for heading in top:
        above = [
            d
            for d in divisions
            if floor < d.line_start < heading.line_start <= d.line_start + _DIVISION_REACH
        ]
        floor = heading.line_start
        moved.append(replace(heading, line_start=above[0].line_start) if above else heading)
    return moved


def top_level(headings: list[Heading], text_length: int) -> list[Heading]:
    """The headings that start chunks, in text order."""
    annexes = [h for h in headings if h.style == "annex"]
    cover_end = text_length * _NO_ARTICLE_ANNEX_SHARE
    first_annex = next((h.line_start for h in annexes if h.line_start > cover_end), text_length)
    top = _main_articles([h for h in headings if h.style != "annex"], text_length, first_annex)
    top = _with_annexes(top, annexes, text_length)
    if top and top[0].style != "division":
        divisions = [h for h in headings if h.style == "division"]
        top = _with_divisions(top, divisions)
    # Moved starts never cross: each stays after the previous article's own start.
    ordered: list[Heading] = []
    for heading in sorted(top, key=lambda h: h.line_start):
        if not ordered or heading.line_start > ordered[-1].line_start:
            ordered.append(heading)
    return ordered
