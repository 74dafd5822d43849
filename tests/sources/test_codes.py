"""The codes library: versions at a date in SQL, lookup, idempotent import, bad input."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from sources.embedding import versions_embed
from sources.models import ArticleVersion, LegalCode
from sources.ranking import asked_articles, search_articles, vectors_cover
from sources.references import _shared_stem, renvois_out
from sources.selectors import (
    ArticleNotFound,
    CodeNotFound,
    SourceError,
    article_get,
    code_get,
    versions_in_force,
)
from sources.services import code_import
from tests.sources.factories import D, demo_record, import_code, import_demo, version

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    """The messages asserted below, in English (French is the default language)."""
    with translation.override("en"):
        yield


@pytest.fixture
def code() -> LegalCode:
    import_demo()
    return LegalCode.objects.get(slug="code-des-essais")


def test_modified_in_2016_old_text_in_2015_new_in_2017(code):
    old = article_get(code=code, number="L. 101-1", as_of=D(2015, 6, 1))
    new = article_get(code=code, number="L101-1", as_of=D(2017, 6, 1))
    assert "un mois" in old.text and "deux mois" in new.text
    # The day of the change belongs to the new version ([valid_from, valid_to)).
    assert "deux mois" in article_get(code=code, number="L101-1", as_of=D(2016, 3, 1)).text


def test_repealed_article_disappears_after_its_repeal(code):
    assert article_get(code=code, number="L101-3", as_of=D(2017, 6, 30)).number == "L101-3"
    with pytest.raises(ArticleNotFound) as caught:
        article_get(code=code, number="L101-3", as_of=D(2017, 7, 1))
    assert "not in force" in caught.value.message
    assert caught.value.details["versions"][0]["valid_to"] == "2017-07-01"
    last = article_get(code=code, number="L101-3", as_of=D(2020, 1, 1), include_repealed=True)
    assert last.state == "ABROGE"


def test_in_force_is_one_version_per_article_in_sql(code):
    rows = versions_in_force(as_of=D(2017, 1, 1), codes=[code])
    assert sorted(rows.values_list("number", flat=True)) == ["L101-1", "L101-2", "L101-3", "R101-1"]
    assert "valid_from" in str(rows.query) and "valid_to" in str(rows.query)
    later = versions_in_force(as_of=D(2018, 1, 1), codes=[code])
    assert "L101-3" not in set(later.values_list("number", flat=True))
    before = versions_in_force(as_of=D(2011, 1, 1), codes=[code])
    assert "R101-1" not in set(before.values_list("number", flat=True))


@pytest.mark.parametrize(
    "written", ["L101-2", "L. 101-2", "art. L 101-2", "Article L.101-2", "l101-2"]
)
def test_numbers_as_lawyers_write_them(code, written):
    assert article_get(code=code, number=written, as_of=D(2017, 1, 1)).number == "L101-2"


def test_unknown_article_and_code_list_close_matches(code):
    with pytest.raises(ArticleNotFound) as caught:
        article_get(code=code, number="L101-9", as_of=D(2017, 1, 1))
    assert "L101-1" in caught.value.details["close_matches"]
    with pytest.raises(CodeNotFound) as unknown:
        code_get("code des esais")
    assert unknown.value.details["close_matches"] == ["code-des-essais"]
    assert code_get("Code des essais") == code == code_get("code-des-essais")


def test_as_of_before_the_code_existed_is_an_error(code):
    with pytest.raises(SourceError) as caught:
        article_get(code=code, number="L101-1", as_of=D(2005, 1, 1))
    assert caught.value.details["earliest"] == "2010-01-01"


def test_reimport_updates_never_duplicates(code):
    count = ArticleVersion.objects.count()
    report = import_demo()
    assert (report.created, report.updated, report.unchanged) == (0, 0, 5)
    assert ArticleVersion.objects.count() == count
    record = demo_record()
    record.versions[1].text = "Le délai de préavis est de trois mois."
    ArticleVersion.objects.filter(code=code).update(embedding_model="x")
    report = code_import(record=record)
    assert (report.created, report.updated) == (0, 1)
    changed = article_get(code=code, number="L101-1", as_of=D(2017, 1, 1))
    assert "trois mois" in changed.text and changed.embedding_model == ""
    assert ArticleVersion.objects.count() == count


def test_reimport_without_a_text_keeps_the_stored_one(code):
    record = demo_record()
    record.versions[0].text, record.versions[0].text_known = "", False
    code_import(record=record)
    assert "un mois" in article_get(code=code, number="L101-1", as_of=D(2015, 1, 1)).text


def test_other_format_needs_replace(code):
    record = demo_record()
    record.source_format = "legi-json"
    record.versions = [version("L101-1", "Texte LEGI.", D(2010, 1, 1), None, key="LEGIARTI1")]
    with pytest.raises(Exception, match="--replace"):
        code_import(record=record)
    assert ArticleVersion.objects.filter(code=code).count() == 5
    code_import(record=record, replace=True)
    assert list(ArticleVersion.objects.filter(code=code).values_list("text", flat=True)) == [
        "Texte LEGI."
    ]


def test_search_ranks_only_versions_in_force(code):
    hits = search_articles(query="délai de préavis", as_of=D(2015, 1, 1), codes=[code], mode="fts")
    assert hits and hits[0].version.number == "L101-1" and "un mois" in hits[0].version.text
    later = search_articles(query="délai de préavis", as_of=D(2017, 1, 1), codes=[code], mode="fts")
    assert "deux mois" in later[0].version.text
    gone = search_articles(
        query="quittance gratuite", as_of=D(2018, 1, 1), codes=[code], mode="fts"
    )
    assert "L101-3" not in [hit.version.number for hit in gone]
    folded = search_articles(query="delai preavis", as_of=D(2017, 1, 1), codes=[code], mode="fts")
    assert folded and folded[0].version.number == "L101-1"


def _jsonl(tmp_path, rows, history=""):
    folder = tmp_path / "codes"
    folder.mkdir()
    (folder / "code-des-tests.jsonl").write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows)
    )
    header = "commit\tdate_effective\tamending_text\tstatus\tpath\tpath_renamed_to\n"
    (folder / "HISTORY_versions_index.tsv").write_text(header + history)
    return folder


ROW = {
    "code": "code-des-tests",
    "code_title": "Code des tests",
    "article": "L1",
    "path": ["Partie législative"],
    "text": "Un article inventé pour les tests.",
    "source": "codes/code-des-tests/partie/article-l1.md",
}


def test_import_command_jsonl_with_history_is_idempotent(tmp_path):
    history = (
        "c1\t2014-01-01\tLOI inventée\tA\tcodes/code-des-tests/partie/article-l1.md\t\n"
        "c2\t2016-01-01\tLOI modifiante\tM\tcodes/code-des-tests/partie/article-l1.md\t\n"
    )
    folder = _jsonl(tmp_path, [ROW], history)
    call_command("import_legal_codes", str(folder), "--no-embed")
    call_command("import_legal_codes", str(folder / "code-des-tests.jsonl"), "--no-embed")
    rows = ArticleVersion.objects.filter(code__slug="code-des-tests").order_by("valid_from")
    assert [(v.valid_from, v.valid_to, v.text_known) for v in rows] == [
        (D(2014, 1, 1), D(2016, 1, 1), False),
        (D(2016, 1, 1), None, True),
    ]
    assert LegalCode.objects.get(slug="code-des-tests").snapshot_date == D(2016, 1, 1)


def test_malformed_line_imports_nothing_of_that_file(tmp_path):
    folder = _jsonl(tmp_path, [ROW, '{"code": "code-des-tests", "article": '])
    with pytest.raises(CommandError, match="not imported"):
        call_command("import_legal_codes", str(folder), "--no-embed")
    assert not LegalCode.objects.filter(slug="code-des-tests").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/nonexistent/codes"], "no such file"),
        (["README.md"], "cannot tell its format"),
    ],
)
def test_import_command_bad_paths(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("import_legal_codes", *args, "--no-embed")


def test_import_command_unknown_code_filter(tmp_path):
    folder = _jsonl(tmp_path, [ROW])
    with pytest.raises(CommandError, match="code-des-tests"):
        call_command("import_legal_codes", str(folder), "--code", "code-des-test", "--no-embed")


def test_legi_json_that_is_not_a_code(tmp_path):
    path = tmp_path / "LEGITEXT000000000001.json"
    path.write_text('{"type": "section"}')
    with pytest.raises(CommandError):
        call_command("import_legal_codes", str(path), "--no-embed")
    path.write_text("{not json")
    with pytest.raises(CommandError):
        call_command("import_legal_codes", str(path), "--no-embed")


def test_a_refresh_ends_articles_the_new_file_no_longer_holds(code):
    record = demo_record()
    record.snapshot_date = D(2019, 1, 1)
    record.versions = [v for v in record.versions if v.number != "L101-2"]
    report = code_import(record=record)
    assert report.closed == 1
    assert article_get(code=code, number="L101-2", as_of=D(2018, 12, 31)).number == "L101-2"
    with pytest.raises(ArticleNotFound):
        article_get(code=code, number="L101-2", as_of=D(2019, 1, 1))
    kept = ArticleVersion.objects.get(code=code, number="L101-2")
    assert kept.state == "ABROGE" and "baux" in kept.text  # nothing stored is lost


def test_the_last_version_of_a_repealed_article_is_its_latest_not_its_unknown_start(code):
    code_import(record=_with_unknown_start(demo_record()))
    last = article_get(code=code, number="L101-4", as_of=D(2020, 1, 1), include_repealed=True)
    assert last.valid_from == D(2014, 1, 1) and "seconde" in last.text


def _with_unknown_start(record):
    record.versions += [
        version("L101-4", "Première rédaction.", None, D(2014, 1, 1)),
        version("L101-4", "Rédaction seconde.", D(2014, 1, 1), D(2018, 1, 1), state="ABROGE"),
    ]
    return record


@pytest.mark.parametrize(
    ("first", "last", "stem"),
    [("L1233-3", "L1233-7", "L1233-"), ("L1", "L10", "L"), ("1", "10", ""), ("R9", "R12", "R")],
)
def test_a_range_is_narrowed_only_to_what_all_its_members_share(first, last, stem):
    assert _shared_stem(first, last) == stem


def test_a_bare_range_reaches_every_member(code):
    nu = import_code(
        *[version(str(n), f"Texte {n}.", None, None) for n in range(1, 12)]
        + [version("12", "Les articles 1 à 10 s'appliquent.", None, None)]
    )
    twelve = article_get(code=nu, number="12", as_of=D(2020, 1, 1))
    (resolved,) = renvois_out(twelve, as_of=D(2020, 1, 1))
    assert [t.number for t in resolved.targets] == [str(n) for n in range(1, 11)]


def test_a_query_naming_a_bare_article_finds_it(code):
    import_code(version("1240", "Texte sans rapport.", None, None))
    hits = search_articles(query="que dit l'article 1240 ?", as_of=D(2020, 1, 1))
    assert hits[0].version.number == "1240" and "reference" in hits[0].arms


def test_an_article_named_as_lawyers_write_it_comes_first_in_the_code_named():
    words = "La responsabilité du fait des choses et la réparation du dommage causé."
    import_code(
        version("1240", "Tout fait quelconque de l'homme oblige à réparer.", None, None),
        version("1241", words, None, None),
        slug="code-civil",
        title="Code civil",
    )
    import_code(
        version("1240", "Texte sans rapport.", None, None),
        version("L231-1", "Un article sur tout autre chose.", None, None),
        version("L231-2", words, None, None),
        slug="code-de-commerce",
        title="Code de commerce",
    )
    day = D(2020, 1, 1)
    named = search_articles(query="article 1240 du code civil", as_of=day)
    assert (named[0].version.code.slug, named[0].version.number) == ("code-civil", "1240")
    # The other code's article 1240 is not what was asked for.
    other = [h for h in named if h.version.code.slug == "code-de-commerce"]
    assert all("reference" not in h.arms for h in other)
    # Named by number only: that article first, even when another's words match the query
    # better ("réparation du dommage" is L231-2's text, not L231-1's).
    for query in ("L. 231-1", "art. L231-1 réparation du dommage causé"):
        hits = search_articles(query=query, as_of=day)
        assert hits[0].version.number == "L231-1", query
    assert asked_articles("article 1240 du code civil et L. 231-1") == {
        "1240": "code-civil",
        "L231-1": None,
    }


def test_hybrid_search_without_vectors_or_encoder_still_answers(code, settings):
    settings.LEXROOM_EMBEDDING_MODEL = "pkg:no_such_model_package"
    hits = search_articles(query="délai de préavis", as_of=D(2017, 1, 1), codes=[code])
    assert hits[0].version.number == "L101-1" and hits[0].arms == ["fts"]


def test_vectors_are_used_only_where_they_cover_every_article(code):
    import_code(version("1", "Le délai de préavis du bail est de trois mois.", None, None))
    versions_embed(codes=[code])  # the other code is not embedded
    as_of = D(2017, 1, 1)
    assert vectors_cover([code], as_of) and not vectors_cover(None, as_of)
    mixed = search_articles(query="délai de préavis", as_of=as_of)
    assert all("vector" not in hit.arms for hit in mixed)
    alone = search_articles(query="délai de préavis", as_of=as_of, codes=[code])
    assert any("vector" in hit.arms for hit in alone)


def test_rare_words_select_the_candidates_and_every_word_scores(code):
    many = [version(f"L{n}", f"Le salarié numéro {n} travaille.", None, None) for n in range(40)]
    one = version("L99", "Le salarié donne un préavis.", None, None)
    nu = import_code(*many, one)
    hits = search_articles(query="préavis du salarié", as_of=D(2020, 1, 1), codes=[nu], mode="fts")
    # "salarié" is in every article: it scores L99 but selects none of the forty others.
    assert [hit.version.number for hit in hits] == ["L99"]
    alone = search_articles(query="salarié", as_of=D(2020, 1, 1), codes=[nu], mode="fts", limit=50)
    assert len(alone) == 41  # no rare word: every word selects


def test_a_query_word_no_article_holds_does_not_empty_the_search(code):
    many = [version(f"L{n}", f"Le salarié numéro {n} travaille.", None, None) for n in range(40)]
    nu = import_code(*many, version("L99", "Le préavis.", None, None))
    hits = search_articles(query="préavis zygomatique", as_of=D(2020, 1, 1), codes=[nu], mode="fts")
    assert [hit.version.number for hit in hits] == ["L99"]
