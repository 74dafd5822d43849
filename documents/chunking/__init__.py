"""Cut a contract's text into retrieval chunks along its articles.

An article is the unit a lawyer cites ("article 8"), so it is the unit we store: one chunk
per top-level heading, the text before the first heading as a preamble, and only articles
longer than `max_chars` cut further (at sub-sections, then paragraphs, lines, sentences).
Pure functions: no models, no settings. ``_headings`` finds the articles, ``_split`` cuts.
"""

from __future__ import annotations

from documents.chunking._split import ChunkDraft, index_text, page_of, split_into_chunks

__all__ = ["ChunkDraft", "index_text", "page_of", "split_into_chunks"]
