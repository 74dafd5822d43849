"""The product's own settings (``LEXROOM_*``), read from the environment by the typed readers:
playbooks, documents and ingestion, tools, search, the local LLM and its agent, case law.
``config.settings`` takes them all (with the upload limits Django reads, set beside them)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from core.env import env_bool, env_float, env_int, env_list, env_prices, env_str

# --- Playbooks: a firm admin's file and patterns, bounded first (docs/security/patterns.md).
LEXROOM_PLAYBOOK_MAX_DEPTH = env_int("LEXROOM_PLAYBOOK_MAX_DEPTH", 20, minimum=4)
# YAML is read in pure Python (about 20 µs a node): this keeps a file's reading near a second.
LEXROOM_PLAYBOOK_MAX_NODES = env_int("LEXROOM_PLAYBOOK_MAX_NODES", 50_000, minimum=100)
LEXROOM_PATTERN_MAX_CHARS = env_int("LEXROOM_PATTERN_MAX_CHARS", 1000, minimum=10)
# RE2's memory budget for one compiled pattern (its program and its DFA cache).
LEXROOM_PATTERN_MAX_MEM_MB = env_int("LEXROOM_PATTERN_MAX_MEM_MB", 8, minimum=1)
# One pattern's matching time on one contract; past it the rule is reported, not run further.
LEXROOM_PATTERN_SECONDS = env_float("LEXROOM_PATTERN_SECONDS", 1.0)
# All of a playbook's patterns (regex rules and cues) together on one contract: many rules each
# just under their own time still cost a contract no more than this.
LEXROOM_CONTRACT_PATTERN_SECONDS = env_float("LEXROOM_CONTRACT_PATTERN_SECONDS", 5.0)

# --- Documents and embeddings.
LEXROOM_MAX_UPLOAD_BYTES = env_int("LEXROOM_MAX_UPLOAD_MB", 100, minimum=1) * 1024 * 1024
# Largest request body of any page or API call (several files of an upload together); MCP has
# its own, smaller cap.
LEXROOM_MAX_REQUEST_BYTES = env_int("LEXROOM_MAX_REQUEST_MB", 200, minimum=1) * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Above the upload form's own limit (200 files, with its message), so Django's bare 400 is
# only for a request no form sends.
DATA_UPLOAD_MAX_NUMBER_FILES = 1000
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
LEXROOM_ZIP_MAX_FILES = env_int("LEXROOM_ZIP_MAX_FILES", 2000, minimum=1)
LEXROOM_ZIP_MAX_TOTAL_BYTES = env_int("LEXROOM_ZIP_MAX_TOTAL_MB", 1000, minimum=1) * 1024 * 1024
# Production default on GPU; tests, CI and `make run` use the model shipped in a wheel.
# auto: BAAI/bge-m3 on a GPU, a small multilingual e5 on CPU (core.embeddings).
LEXROOM_EMBEDDING_MODEL = env_str("LEXROOM_EMBEDDING_MODEL", "auto")
LEXROOM_EMBEDDING_DEVICE = env_str("LEXROOM_EMBEDDING_DEVICE", "auto")
LEXROOM_EMBEDDING_DTYPE = env_str("LEXROOM_EMBEDDING_DTYPE", "auto")
if LEXROOM_EMBEDDING_DTYPE not in {"auto", "float32", "float16", "bfloat16"}:
    raise ImproperlyConfigured(
        f"LEXROOM_EMBEDDING_DTYPE={LEXROOM_EMBEDDING_DTYPE!r}: use auto, float32, float16 or "
        "bfloat16."
    )
LEXROOM_EMBEDDING_BATCH_SIZE = env_int("LEXROOM_EMBEDDING_BATCH_SIZE", 0, minimum=0)
LEXROOM_EMBEDDING_MAX_TOKENS = env_int("LEXROOM_EMBEDDING_MAX_TOKENS", 512, minimum=16)

# --- Ingestion limits: one huge text must not hold up a workspace.
# A document past a limit is kept (its original is stored) and marked failed, naming the limit.
# OCR of scanned PDFs (ocrmypdf + tesseract-ocr-fra/eng, detected at run time).
LEXROOM_OCR = env_bool("LEXROOM_OCR", default=True)
# Below the task timeout (LEXROOM_TASK_TIMEOUT, 600 s), so a slow scan fails with a reason.
LEXROOM_OCR_TIMEOUT = env_int("LEXROOM_OCR_TIMEOUT", 540, minimum=10)
LEXROOM_OCR_JOBS = env_int("LEXROOM_OCR_JOBS", 1, minimum=1)
LEXROOM_OCR_MAX_PAGES = env_int("LEXROOM_OCR_MAX_PAGES", 500, minimum=1)
LEXROOM_MAX_DOCUMENT_CHARS = env_int("LEXROOM_MAX_DOCUMENT_CHARS", 5_000_000, minimum=1000)
# Measured while the text is read, not after: a file stops at the first page past a limit.
# PDF and DOCX are read in a child process with these CPU seconds and this address space,
# killed at the deadline; LEXROOM_MAX_DOCUMENT_CHARS is the characters' limit.
LEXROOM_EXTRACT_MAX_PAGES = env_int("LEXROOM_EXTRACT_MAX_PAGES", 2000, minimum=1)
LEXROOM_EXTRACT_SECONDS = env_int("LEXROOM_EXTRACT_SECONDS", 120, minimum=1)
LEXROOM_EXTRACT_MEMORY_MB = env_int("LEXROOM_EXTRACT_MEMORY_MB", 2048, minimum=256)
LEXROOM_MAX_CHUNKS_PER_DOCUMENT = env_int("LEXROOM_MAX_CHUNKS_PER_DOCUMENT", 5000, minimum=1)
# Dotted path of a reader the metadata step asks for the fields the rules left unknown (an
# LLM, later); its answers are kept only when their quotes are found word for word in the
# text. Empty: none (the default; no LLM is needed to read metadata).
LEXROOM_METADATA_FALLBACK = env_str("LEXROOM_METADATA_FALLBACK", "")
# Articles per page of a contract (get_contract tool, document page): reads stay bounded.
LEXROOM_ARTICLES_PER_PAGE = env_int("LEXROOM_ARTICLES_PER_PAGE", 50, minimum=1)

# --- Tools (MCP, REST, CLI, agent).
# Tool calls per minute per user: all of a user's tokens and sessions share one budget.
LEXROOM_TOOL_RATE_PER_MINUTE = env_int("LEXROOM_TOOL_RATE_PER_MINUTE", 600, minimum=0)
# Live (not revoked, not expired) personal access tokens one user may hold at once.
LEXROOM_MAX_TOKENS_PER_USER = env_int("LEXROOM_MAX_TOKENS_PER_USER", 10, minimum=1)
LEXROOM_MCP_MAX_BODY_BYTES = env_int("LEXROOM_MCP_MAX_BODY_BYTES", 1024 * 1024, minimum=1024)
# Adds a Server-Timing header (app, tool durations) to /mcp responses; bench_mcp turns it on.
LEXROOM_SERVER_TIMING = env_bool("LEXROOM_SERVER_TIMING", default=False)

# --- Search.
LEXROOM_VECTOR_MIN_SIMILARITY = env_float("LEXROOM_VECTOR_MIN_SIMILARITY", 0.25)
# A clause query lists a contract only when one of its articles holds this share of the
# query's content words (stemmed) or is this near it in meaning (cosine); the others are
# counted in weak_matches_left_out. Calibrated on ACORD's train split with the packaged
# MiniLM encoder (docs/architecture/search.md): another encoder may need another similarity.
LEXROOM_RELEVANCE_MIN_WORD_SHARE = env_float("LEXROOM_RELEVANCE_MIN_WORD_SHARE", 0.35)
if not 0 <= LEXROOM_RELEVANCE_MIN_WORD_SHARE <= 1:  # NaN fails this too
    raise ImproperlyConfigured("LEXROOM_RELEVANCE_MIN_WORD_SHARE must be between 0 and 1.")
LEXROOM_RELEVANCE_MIN_SIMILARITY = env_float("LEXROOM_RELEVANCE_MIN_SIMILARITY", 0.4375)
if not -1 <= LEXROOM_RELEVANCE_MIN_SIMILARITY <= 1:
    raise ImproperlyConfigured("LEXROOM_RELEVANCE_MIN_SIMILARITY must be between -1 and 1.")
# Clause-type prior in the fusion (search.ranking._prior): 0 turns it off. Tuned on ACORD's
# train queries (judged protocol: 0.03 to 0.1 score alike); a fused RRF score is at most
# about 0.033, a prior at most 1.
LEXROOM_CLAUSE_PRIOR_WEIGHT = env_float("LEXROOM_CLAUSE_PRIOR_WEIGHT", 0.05)
if not 0 <= LEXROOM_CLAUSE_PRIOR_WEIGHT < float("inf"):  # NaN fails this too
    raise ImproperlyConfigured("LEXROOM_CLAUSE_PRIOR_WEIGHT must be a number, 0 (off) or more.")
LEXROOM_RERANK = env_str("LEXROOM_RERANK", "auto")  # auto (GPU only) | on | off
if LEXROOM_RERANK not in {"auto", "on", "off"}:
    raise ImproperlyConfigured(f"LEXROOM_RERANK={LEXROOM_RERANK!r}: use auto, on or off.")
LEXROOM_RERANK_MODEL = env_str("LEXROOM_RERANK_MODEL", "BAAI/bge-reranker-v2-m3")
LEXROOM_RERANK_TOP_N = env_int("LEXROOM_RERANK_TOP_N", 50, minimum=1)
LEXROOM_RERANK_THRESHOLD = env_float("LEXROOM_RERANK_THRESHOLD", 0.0)
# cross-encoder (LEXROOM_RERANK_MODEL) | llm (a pointwise judge, 0-4 per clause, on Ollama).
LEXROOM_RERANKER = env_str("LEXROOM_RERANKER", "cross-encoder")
if LEXROOM_RERANKER not in {"cross-encoder", "llm"}:
    raise ImproperlyConfigured(f"LEXROOM_RERANKER={LEXROOM_RERANKER!r}: use cross-encoder or llm.")
# The judge's model; empty: LEXROOM_LLM_MODEL.
LEXROOM_RERANK_LLM_MODEL = env_str("LEXROOM_RERANK_LLM_MODEL", "")
LEXROOM_RERANK_LLM_CONCURRENCY = env_int("LEXROOM_RERANK_LLM_CONCURRENCY", 4, minimum=1)
# Past this, the clauses not yet rescored keep their fused order after the rescored ones.
LEXROOM_RERANK_BUDGET_MS = env_int("LEXROOM_RERANK_BUDGET_MS", 5000, minimum=1)
# The firm's query adapter learnt from its relevance judgments (train_search_adapter).
LEXROOM_SEARCH_ADAPTERS = env_bool("LEXROOM_SEARCH_ADAPTERS", default=True)
# train_search_adapter refuses to fit on fewer judged queries than this.
LEXROOM_ADAPTER_MIN_QUERIES = env_int("LEXROOM_ADAPTER_MIN_QUERIES", 8, minimum=2)
# No member's ratings may be more than this share of those a fit uses (the excess is
# down-sampled), and a fit needs this many distinct raters: one member cannot steer the firm.
LEXROOM_ADAPTER_MAX_USER_SHARE = env_float("LEXROOM_ADAPTER_MAX_USER_SHARE", 0.25)
if not 0 < LEXROOM_ADAPTER_MAX_USER_SHARE <= 1:
    raise ImproperlyConfigured("LEXROOM_ADAPTER_MAX_USER_SHARE must be in (0, 1].")
LEXROOM_ADAPTER_MIN_RATERS = env_int("LEXROOM_ADAPTER_MIN_RATERS", 4, minimum=1)
# The search page's rating buttons, per member and workspace (tools have the tool limit).
LEXROOM_RATINGS_PER_MINUTE = env_int("LEXROOM_RATINGS_PER_MINUTE", 60, minimum=0)

# --- Local LLM (Ollama): the firm's own server; nothing is sent elsewhere.
OLLAMA_URL = env_str("OLLAMA_URL", "http://127.0.0.1:11434")
LEXROOM_LLM_MODEL = env_str("LEXROOM_LLM_MODEL", "qwen3:8b")
LEXROOM_LLM_TIMEOUT = env_int("LEXROOM_LLM_TIMEOUT", 60, minimum=1)
# A smaller model for planning (the first choice of tools); empty: LEXROOM_LLM_MODEL.
LEXROOM_LLM_FAST_MODEL = env_str("LEXROOM_LLM_FAST_MODEL", "")
# More attempts when Ollama cannot be reached or fails before answering.
LEXROOM_LLM_RETRIES = env_int("LEXROOM_LLM_RETRIES", 2, minimum=0)
# Let thinking models (qwen3) think before answering: better plans, much slower.
LEXROOM_LLM_THINK = env_bool("LEXROOM_LLM_THINK", default=False)
# Cost per million tokens in and out, per model: "qwen3:8b=0.02/0.06,…" (no entry: no cost).
LEXROOM_LLM_PRICES = env_prices("LEXROOM_LLM_PRICES")
LEXROOM_LLM_PRICE_CURRENCY = env_str("LEXROOM_LLM_PRICE_CURRENCY", "EUR")
# The chat agent: model turns with tools before it must answer, and sources it may cite.
LEXROOM_AGENT_MAX_STEPS = env_int("LEXROOM_AGENT_MAX_STEPS", 4, minimum=1)
LEXROOM_AGENT_MAX_SOURCES = env_int("LEXROOM_AGENT_MAX_SOURCES", 30, minimum=1)
# Earlier questions and answers of the conversation given to the model.
LEXROOM_AGENT_HISTORY_TURNS = env_int("LEXROOM_AGENT_HISTORY_TURNS", 3, minimum=0)
# Tool calls the agent runs per model reply and per answer; calls past them are not run, and
# the model is told so (one reply once asked 120 case-law searches).
LEXROOM_AGENT_TOOL_CALLS_PER_REPLY = env_int("LEXROOM_AGENT_TOOL_CALLS_PER_REPLY", 4, minimum=1)
LEXROOM_AGENT_TOOL_CALLS_PER_ANSWER = env_int("LEXROOM_AGENT_TOOL_CALLS_PER_ANSWER", 12, minimum=1)
# What the agent may send to a public site: a short query, never a passage it has read.
LEXROOM_AGENT_EXTERNAL_QUERY_WORDS = env_int("LEXROOM_AGENT_EXTERNAL_QUERY_WORDS", 12, minimum=1)
LEXROOM_AGENT_EXTERNAL_QUERY_CHARS = env_int("LEXROOM_AGENT_EXTERNAL_QUERY_CHARS", 120, minimum=1)
# Hosts an answer may link to (and their subdomains); relative links to the app are kept.
# Any other link loses its address, and images are dropped (a client that renders them would
# fetch them, sending what the address holds).
LEXROOM_ANSWER_LINK_HOSTS = env_list(
    "LEXROOM_ANSWER_LINK_HOSTS",
    ["legifrance.gouv.fr", "conseil-etat.fr", "justice-administrative.fr", "courdecassation.fr"],
)
# Contracts a filter-only search may list for one answer (pages are fetched up to this).
LEXROOM_AGENT_MAX_LISTED = env_int("LEXROOM_AGENT_MAX_LISTED", 200, minimum=1)
# Questions a member may ask per minute (each one costs minutes of the firm's GPU); 0: no limit.
LEXROOM_AGENT_QUESTIONS_PER_MINUTE = env_int("LEXROOM_AGENT_QUESTIONS_PER_MINUTE", 10, minimum=0)
# Questions of one member being answered at once in a workspace (each holds a model).
LEXROOM_AGENT_CONCURRENT_QUESTIONS = env_int("LEXROOM_AGENT_CONCURRENT_QUESTIONS", 2, minimum=1)
# Requests one session or token may have in flight at once in one server process (0: no cap);
# past it, 429 before any database connection is taken (static files are not counted).
LEXROOM_REQUESTS_PER_CREDENTIAL = env_int("LEXROOM_REQUESTS_PER_CREDENTIAL", 10, minimum=0)
# Requests a second one session or token may send one server process, with bursts of twice
# that (0: no cap); past it, 429 before Django or MCP do any work.
LEXROOM_REQUESTS_PER_SECOND = env_int("LEXROOM_REQUESTS_PER_SECOND", 20, minimum=0)
# Answer streams (server-sent events) open at once, per user and per firm, across the web
# processes of the machine (agents.streams); past them: 429 with Retry-After.
LEXROOM_STREAMS_PER_USER = env_int("LEXROOM_STREAMS_PER_USER", 4, minimum=1)
LEXROOM_STREAMS_PER_FIRM = env_int("LEXROOM_STREAMS_PER_FIRM", 32, minimum=1)
# Case law (sources.caselaw): the two public sites, read live and cached in Postgres.
LEXROOM_ARIANEWEB_URL = env_str("LEXROOM_ARIANEWEB_URL", "https://www.conseil-etat.fr")
LEXROOM_OPENDATA_URL = env_str(
    "LEXROOM_OPENDATA_URL", "https://opendata.justice-administrative.fr/recherche/api"
)
# The sites' terms ask for 500 ms between requests; a lower value applies to loopback only.
LEXROOM_CASELAW_MIN_INTERVAL_MS = env_int("LEXROOM_CASELAW_MIN_INTERVAL_MS", 500, minimum=0)
LEXROOM_CASELAW_TIMEOUT = env_float("LEXROOM_CASELAW_TIMEOUT", 20.0)
LEXROOM_CASELAW_RETRIES = env_int("LEXROOM_CASELAW_RETRIES", 2, minimum=0)
LEXROOM_CASELAW_BACKOFF_SECONDS = env_float("LEXROOM_CASELAW_BACKOFF_SECONDS", 1.0)
# Searches are cached a day, documents (decisions, conclusions, analyses) thirty.
LEXROOM_CASELAW_SEARCH_TTL = env_int("LEXROOM_CASELAW_SEARCH_TTL", 86_400, minimum=0)
LEXROOM_CASELAW_DOCUMENT_TTL = env_int("LEXROOM_CASELAW_DOCUMENT_TTL", 30 * 86_400, minimum=0)
LEXROOM_CASELAW_MAX_BYTES = env_int("LEXROOM_CASELAW_MAX_MB", 20, minimum=1) * 1024 * 1024
# Requests to one site a firm may have waiting for their turn (firms take turns); past it the
# caller is told "busy" with a Retry-After.
LEXROOM_CASELAW_QUEUE_PER_FIRM = env_int("LEXROOM_CASELAW_QUEUE_PER_FIRM", 4, minimum=1)
# OpenTelemetry spans per turn, model call and tool call go to this OTLP/HTTP endpoint
# (``pip install -e '.[otel]'``); empty: none.
OTEL_EXPORTER_OTLP_ENDPOINT = env_str("OTEL_EXPORTER_OTLP_ENDPOINT", "")
