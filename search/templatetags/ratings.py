"""``ratings|rating_of:chunk_id``: the member's rating of an article (True, False or None)."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter(name="rating_of")
def rating_of(ratings: dict[int, bool] | None, chunk_id: int) -> bool | None:
    return (ratings or {}).get(chunk_id)
