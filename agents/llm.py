"""Which models the agent asks, and what a call to one costs (the client is :mod:`core.llm`)."""

from __future__ import annotations

from django.conf import settings


def main_model() -> str:
    return str(settings.LEXROOM_LLM_MODEL)


def fast_model() -> str:
    """The model that plans (picks the first tools); the main one when none is set."""
    return str(settings.LEXROOM_LLM_FAST_MODEL or settings.LEXROOM_LLM_MODEL)


def cost_of(model: str, tokens_in: int | None, tokens_out: int | None) -> float | None:
    """What a call cost by the price table (``LEXROOM_LLM_PRICES``, per million tokens);
    None when the model has no price or Ollama did not count the tokens: never a guess."""
    price = settings.LEXROOM_LLM_PRICES.get(model)
    if price is None or tokens_in is None or tokens_out is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000
