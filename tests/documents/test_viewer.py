"""The document viewer and the original file: facts with their source, citations opening
the right page of articles, untrusted text escaped, outsiders answered 404."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from documents.models import Chunk, Document
from tests.helpers.contracts import ingest_entries
from tests.helpers.rooms import BrenalisRoom, Room, login
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db

HOSTILE = {
    "filename": "piege.txt",
    "title": "Contrat <img src=x onerror=alert(1)>",
    "parties": ["SCI Alpha", "Boutique Beta SARL"],
    "contract_type": "bail commercial",
    "signature_date": "2022-01-10",
    "governing_law": "droit français",
    "content": "BAIL COMMERCIAL\n\nARTICLE 1 — LOYER\nLe loyer <script>alert('x')</script> est dû "
    "chaque trimestre.\n",
}


def _chunks(room: BrenalisRoom, ref: str) -> list[Chunk]:
    with workspace_scope(room.workspace):
        return list(
            Chunk.objects.filter(document__workspace=room.workspace, document__ref=ref)
            .order_by("ordinal")
            .only("id", "ordinal")
        )


def _viewer_url(room: BrenalisRoom, ref: str) -> str:
    return reverse("document_detail", args=[room.workspace.slug, ref])


def test_viewer_shows_sources_parties_and_links(brenalis_room: BrenalisRoom):
    page = login(brenalis_room.owner).get(_viewer_url(brenalis_room, "c09")).content.decode()
    assert "métadonnées" in page  # a value read from the metadata says so
    assert 'id="parties"' in page and "SIREN" in page
    assert 'id="amendments"' in page and "c18" in page  # c18 amends c09
    amendment = login(brenalis_room.owner).get(_viewer_url(brenalis_room, "c18")).content
    assert _viewer_url(brenalis_room, "c09").encode() in amendment


def test_viewer_lists_the_other_members_of_its_duplicate_group(brenalis_room: BrenalisRoom):
    page = login(brenalis_room.owner).get(_viewer_url(brenalis_room, "c11")).content.decode()
    duplicates = page.split('id="duplicates"', 1)[1].split("</ul>", 1)[0]
    assert _viewer_url(brenalis_room, "c19") in duplicates


def test_citation_opens_the_page_holding_the_article_highlighted(
    brenalis_room: BrenalisRoom, settings
):
    settings.LEXROOM_ARTICLES_PER_PAGE = 2
    chunks = _chunks(brenalis_room, "c01")
    assert len(chunks) > 4
    cited = chunks[-1]
    url = _viewer_url(brenalis_room, "c01") + f"?article={cited.pk}"
    page = login(brenalis_room.owner).get(url).content.decode()
    assert f'class="chunk cited" id="chunk-{cited.pk}" aria-current="location"' in page
    assert f'id="chunk-{chunks[0].pk}"' not in page
    # The page is the one the "next" links reach: its first article starts a page of two.
    shown = [c for c in chunks if f'id="chunk-{c.pk}"' in page]
    assert chunks.index(shown[0]) % 2 == 0


def test_a_chunk_of_another_document_is_not_highlighted(brenalis_room: BrenalisRoom):
    other = _chunks(brenalis_room, "c02")[0]
    url = _viewer_url(brenalis_room, "c01") + f"?article={other.pk}"
    response = login(brenalis_room.owner).get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert "aria-current" not in page and f"chunk-{other.pk}" not in page


def test_viewer_role_sees_no_write_buttons(brenalis_room: BrenalisRoom):
    page = login(brenalis_room.viewer).get(_viewer_url(brenalis_room, "c01")).content.decode()
    assert reverse("document_upload", args=[brenalis_room.workspace.slug]) not in page
    # The top bar's own forms (log out, language) are the page's only writes.
    posts = re.findall(r'<form[^>]*method="post"[^>]*>', page)
    actions = {re.search(r'action="([^"]*)"', form).group(1) for form in posts}
    assert actions == {reverse("logout"), reverse("language_switch")}


def test_outsider_gets_404_on_viewer_and_original(brenalis_room: BrenalisRoom):
    outsider = login(brenalis_room.outsider)
    slug = brenalis_room.workspace.slug
    assert outsider.get(_viewer_url(brenalis_room, "c01")).status_code == 404
    assert outsider.get(reverse("document_original", args=[slug, "c01"])).status_code == 404


def test_original_is_an_attachment_with_its_type_and_nosniff(brenalis_room: BrenalisRoom):
    slug = brenalis_room.workspace.slug
    response = login(brenalis_room.viewer).get(reverse("document_original", args=[slug, "c01"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"  # a data-room entry, as stored
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"content" in b"".join(response.streaming_content)


def test_viewer_query_count_is_pinned(brenalis_room: BrenalisRoom, django_assert_max_num_queries):
    client = login(brenalis_room.owner)
    chunk = _chunks(brenalis_room, "c09")[-1]
    with django_assert_max_num_queries(25):
        response = client.get(_viewer_url(brenalis_room, "c09") + f"?article={chunk.pk}")
    assert response.status_code == 200


def _hostile_room(room: Room) -> None:
    ingest_entries(room.workspace, HOSTILE)


def test_document_text_is_escaped_in_the_viewer_and_in_search(room: Room, owner_client: Client):
    _hostile_room(room)
    with workspace_scope(room.workspace):
        ref = Document.objects.get(workspace=room.workspace).ref
    viewer = owner_client.get(reverse("document_detail", args=["deal-alpha", ref]))
    search = owner_client.get(reverse("search", args=["deal-alpha"]), {"q": "loyer trimestre"})
    for response in (viewer, search):
        page = response.content.decode()
        assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;" in viewer.content.decode()
    assert "&lt;script&gt;" in search.content.decode()
    assert "<mark>loyer</mark>" in search.content.decode().lower()
