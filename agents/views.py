"""HTML pages of the agents app: the model status page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from agents.status import llm_status


@require_GET
@login_required
def llm_status_page(request: HttpRequest) -> HttpResponse:
    """Ollama and the embedding models as this server sees them, for any signed-in user: model
    names and the server's address, nothing of any workspace. Always a 200: a model that is
    down is what the page is there to say."""
    return render(request, "agents/llm_status.html", {"status": llm_status()})
