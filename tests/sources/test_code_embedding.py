"""The codes' embedding after `make run` opens the login: the worker's task in batches with its
progress row, full-text search meanwhile, embed_legal_codes --here/--queue/--wait, stale rows
(a killed worker, a re-import with --no-embed) and the codes page's progress line."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import CommandError
from django.utils import timezone, translation
from django_q.conf import Conf
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from sources import embedding
from sources.embedding import code_embedding_round
from sources.models import ArticleVersion, CodeEmbedding, EmbeddingStatus, LegalCode
from sources.ranking import search_articles
from sources.tasks import LIBRARY, STALE_SECONDS, code_embedding_queue
from tests.helpers.commands import run_command
from tests.helpers.data import TEST_EMBEDDING_MODEL
from tests.helpers.rooms import Room, login
from tests.sources.factories import D, import_code, version

pytestmark = pytest.mark.django_db
NBSP = "\u00a0"  # French sets a no-break space before ":"


@pytest.fixture(autouse=True)
def _english():
    """The messages asserted below, in English (French is the default language)."""
    with translation.override("en"):
        yield


@pytest.fixture
def code(monkeypatch) -> LegalCode:
    """Six invented articles, embedded two at a time."""
    monkeypatch.setattr(embedding, "MIN_BATCH", 1)  # the first batch: twice the least
    monkeypatch.setattr(embedding, "MAX_BATCH", 2)
    texts = ["préavis du bail", "quittance de loyer", "dépôt de garantie", "état des lieux"]
    texts += ["congé pour vente", "révision du loyer"]
    return import_code(
        *[version(f"L{n}", f"Article sur le {text}.", None, None) for n, text in enumerate(texts)]
    )


def _state(code: LegalCode) -> CodeEmbedding:
    return CodeEmbedding.objects.get(code=code)


def _embedded(code: LegalCode) -> int:
    return ArticleVersion.objects.filter(code=code, embedding_model=TEST_EMBEDDING_MODEL).count()


def test_the_queued_task_embeds_in_batches_and_records_its_progress(
    code, monkeypatch, django_capture_on_commit_callbacks
):
    assert _state(code).status == EmbeddingStatus.PENDING  # imported, nothing queued
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr("sources.tasks.ROUND_SECONDS", 0)  # one batch a round: 3 rounds
    real_round = code_embedding_round

    def watched(**kwargs):
        embedded = real_round(**kwargs)
        state = _state(code)
        seen.append((state.done, state.total))
        return embedded

    monkeypatch.setattr("sources.tasks.code_embedding_round", watched)
    monkeypatch.setattr(Conf, "SYNC", True)
    with django_capture_on_commit_callbacks(execute=True):
        assert code_embedding_queue(code=code).status == EmbeddingStatus.QUEUED
    assert seen == [(2, 6), (4, 6), (6, 6)]
    state = _state(code)
    assert state.status == EmbeddingStatus.DONE and state.model == TEST_EMBEDDING_MODEL
    assert state.started_at <= state.finished_at and _embedded(code) == 6


def test_the_task_is_queued_for_the_library_not_a_workspace(
    code, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(Conf, "SYNC", False)
    OrmQ.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        run_command("embed_legal_codes", "--queue")
    (queued,) = OrmQ.objects.all()
    task = SignedPackage.loads(queued.payload)
    assert task["name"] == f"embed-code-{code.pk}" and task["args"][1] == LIBRARY
    assert _state(code).status == EmbeddingStatus.QUEUED and _embedded(code) == 0


def test_a_half_embedded_code_is_searched_by_full_text_meanwhile(code):
    code_embedding_round(code=code, seconds=0)  # one batch, then the worker is killed
    state = _state(code)
    assert (state.status, state.done, state.total) == (EmbeddingStatus.RUNNING, 2, 6)
    hits = search_articles(query="révision du loyer", as_of=D(2020, 1, 1), codes=[code])
    assert hits[0].version.number == "L5" and hits[0].arms == ["fts"]


def test_a_row_left_running_by_a_killed_worker_resumes_when_queued_again(
    code, monkeypatch, django_capture_on_commit_callbacks
):
    code_embedding_round(code=code, seconds=0)
    first = set(ArticleVersion.objects.filter(code=code).values_list("id", "embedding_model"))
    monkeypatch.setattr(Conf, "SYNC", True)
    with django_capture_on_commit_callbacks(execute=True) as queued:
        code_embedding_queue(code=code)  # --queue: the row moved just now, its round is alive
    assert not queued and _state(code).status == EmbeddingStatus.RUNNING
    with django_capture_on_commit_callbacks(execute=True):
        code_embedding_queue(code=code, force=True)  # what run_setup does on the next make run
    state = _state(code)
    assert (state.status, state.done, state.total) == (EmbeddingStatus.DONE, 6, 6)
    # The two versions embedded before the kill were not embedded again: same rows kept.
    kept = set(ArticleVersion.objects.filter(code=code).values_list("id", "embedding_model"))
    assert {row for row in first if row[1]} <= kept


def test_a_running_row_that_stopped_moving_is_queued_again(
    code, django_capture_on_commit_callbacks
):
    code_embedding_round(code=code, seconds=0)
    with django_capture_on_commit_callbacks() as queued:
        assert code_embedding_queue(code=code).status == EmbeddingStatus.RUNNING
    assert not queued
    CodeEmbedding.objects.filter(code=code).update(
        updated_at=timezone.now() - dt.timedelta(seconds=STALE_SECONDS + 1)
    )
    with django_capture_on_commit_callbacks() as queued:
        assert code_embedding_queue(code=code).status == EmbeddingStatus.QUEUED
    assert len(queued) == 1


def test_a_reimport_that_changes_a_text_without_vectors_is_not_left_done(code):
    run_command("embed_legal_codes", "--here")
    assert _state(code).status == EmbeddingStatus.DONE
    import_code(version("L0", "Un autre texte sur le préavis.", None, None))
    state = _state(code)
    assert state.status == EmbeddingStatus.PENDING and state.done < state.total


def test_embed_here_prints_its_progress_and_ends_done(code, monkeypatch):
    monkeypatch.setattr("sources.management.commands.embed_legal_codes.REPORT_S", 0)
    out = run_command("embed_legal_codes", "--here", "--code", code.slug)
    assert "code-nu: 2 of 6 article versions embedded" in out
    assert "code-nu: Done, 6 of 6 article versions embedded." in out
    assert _embedded(code) == 6


def test_wait_without_a_worker_says_so_and_gives_up_at_its_timeout(code, capsys):
    with pytest.raises(CommandError, match="Still embedding after"):
        run_command("embed_legal_codes", "--wait", "--timeout", "0.5")
    assert "No worker is running" in capsys.readouterr().err


def test_wait_ends_once_every_code_is_done(code):
    run_command("embed_legal_codes", "--here")
    out = run_command("embed_legal_codes", "--wait")
    assert "code-nu: 6 of 6 article versions embedded" in out


def test_an_unknown_code_is_refused_with_the_close_names(code):
    with pytest.raises(CommandError, match="code-nu"):
        run_command("embed_legal_codes", "--queue", "--code", "code-n")


def test_the_codes_page_shows_the_meaning_search_progress_and_polls(room: Room, code):
    code_embedding_round(code=code, seconds=0)
    client = login(room.viewer)
    page = client.get("/codes/").content.decode()
    assert f"Recherche par le sens{NBSP}: 2 sur 6 versions d'articles prêtes" in page  # French
    assert 'hx-get="/codes/?part=embedding"' in page and 'href="/codes/"' in page
    part = client.get("/codes/", {"part": "embedding"}, HTTP_HX_REQUEST="true")
    assert part.status_code == 200 and "2 sur 6 versions d'articles prêtes" in part.content.decode()
    assert "<form" not in part.content.decode()  # only the progress line
    code_embedding_round(code=code)
    done = client.get("/codes/", {"part": "embedding"}, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-get" not in done and "Recherche par le sens" not in done  # the poll stops


def test_a_row_no_worker_moves_stops_the_page_polling_and_says_what_to_run(room: Room, code):
    code_embedding_round(code=code, seconds=0)
    long_ago = timezone.now() - dt.timedelta(seconds=STALE_SECONDS + 60)
    CodeEmbedding.objects.filter(code=code).update(
        status=EmbeddingStatus.RUNNING, updated_at=long_ago, started_at=long_ago
    )
    part = login(room.viewer).get("/codes/", {"part": "embedding"}, HTTP_HX_REQUEST="true")
    html = part.content.decode()
    assert "hx-get" not in html  # nothing will move: the page stops asking
    assert "embed_legal_codes --queue" in html and code.title in html
    CodeEmbedding.objects.filter(code=code).update(updated_at=timezone.now())
    html = login(room.viewer).get("/codes/", {"part": "embedding"}, HTTP_HX_REQUEST="true")
    assert 'hx-get="/codes/?part=embedding"' in html.content.decode()  # moving again: polled
