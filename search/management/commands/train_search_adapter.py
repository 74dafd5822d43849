"""train_search_adapter --firm NAME [--dry-run] [--json]: learn the firm's query adapter from
its members' relevance judgments (``rate_result``) and store it as a candidate, which the
ranking uses once a firm admin approves it (``/search/learning/``)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from documents.management.model_command import ModelCommand
from search.learning import TrainingRefused, search_adapter_train
from workspaces.models import Firm


class Command(ModelCommand):
    help = (
        "Fit the firm's search adapter (a linear map on the query embedding) on its relevance "
        "judgments; the vector arm applies it for the firm's workspaces. Nothing is re-indexed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--firm", required=True, help="Firm name.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Fit and report, but store nothing."
        )
        parser.add_argument(
            "--json", action="store_true", help="Print only the report, as one JSON object."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        firm = Firm.objects.filter(name=options["firm"]).first()
        if firm is None:
            known = ", ".join(Firm.objects.order_by("name").values_list("name", flat=True))
            message = gettext("No firm %(name)r (firms: %(known)s).")
            raise CommandError(message % {"name": options["firm"], "known": known or "—"})
        try:
            report = search_adapter_train(firm=firm, dry_run=options["dry_run"])
        except TrainingRefused as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
            return
        self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
        if report["stored"]:
            message = gettext(
                "Candidate adapter stored: held-out nDCG@10 %(before).3f → %(after).3f. Search "
                "uses it once a firm admin approves it (/search/learning/)."
            )
            fit = report["fit"]
            values = {
                "before": fit["held_out_ndcg@10_before"],
                "after": fit["held_out_ndcg@10_after"],
            }
            self.stderr.write(message % values)
        else:
            self.stderr.write(gettext("Nothing stored: %(reason)s") % {"reason": report["reason"]})
