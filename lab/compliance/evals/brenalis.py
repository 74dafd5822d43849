"""eval_compliance --suite brenalis: the French due-diligence playbook on the Brenalis room.

What a buyer's lawyer flags there, read off the contracts by hand (issue #15): change of
control in c01 (article 8), exclusivity in c03 (article 4), a foreign governing law in c05,
c16 and c20, no governing law named in c10, a liability cap in c14 (article 3). Each expected
flag is found or not, with the article it cites; the other flags are listed for review.
"""

from __future__ import annotations

import time
from typing import Any

from compliance.models import Flag
from compliance.playbooks import DEFAULTS, parse_playbook
from compliance.scanning import scan_run
from compliance.services import playbook_assign, playbook_import, scan_create
from lab.search.evals import EVAL_USER
from lab.search.evals.suites import EvalOptions, run_brenalis
from workspaces.models import User, Workspace
from workspaces.tenancy import firm_scope, workspace_scope

PLAYBOOK = DEFAULTS / "fr-due-diligence.yaml"
# (contract, rule, heading the cited article starts with; None: any or none)
EXPECTED = (
    ("c01", "changement-de-controle", "ARTICLE 8"),
    ("c03", "exclusivite", "ARTICLE 4"),
    ("c05", "droit-francais", None),
    ("c16", "droit-francais", None),
    ("c20", "droit-francais", None),
    ("c10", "droit-francais", None),
    ("c14", "plafond-de-responsabilite", "ARTICLE 3"),
)


def run(options: EvalOptions) -> dict[str, Any]:
    run_brenalis(options)  # indexes (or reuses) the eval workspace
    workspace = Workspace.objects.select_related("firm").get(slug="eval-brenalis")
    user = User.objects.get(email=EVAL_USER)
    spec = parse_playbook(PLAYBOOK.read_text(encoding="utf-8"))
    with firm_scope(workspace.firm_id):
        playbook, _ = playbook_import(firm=workspace.firm, spec=spec)
    started = time.perf_counter()
    with workspace_scope(workspace):
        playbook_assign(workspace=workspace, key=playbook.key)
        Flag.objects.filter(workspace=workspace).delete()  # each run measures a fresh scan
        scan = scan_create(workspace=workspace, playbook=playbook, user=user)
    scan = scan_run(scan=scan)
    seconds = time.perf_counter() - started
    with workspace_scope(workspace):
        flags = [(f.document.ref, f.rule.key, f.article_ref) for f in
                 Flag.objects.filter(scan=scan).select_related("document", "rule")]  # fmt: skip
    checks = []
    for contract, rule, heading in EXPECTED:
        cited = [a for c, r, a in flags if c == contract and r == rule]
        found = bool(cited) and (heading is None or any(a.startswith(heading) for a in cited))
        checks.append({"contract": contract, "rule": rule, "article": heading,
                       "found": found, "cited": cited})  # fmt: skip
    expected_pairs = {(c, r) for c, r, _ in EXPECTED}
    return {
        "suite": "brenalis",
        "playbook": f"{playbook.key} v{playbook.version}",
        "checks": checks,
        "found": sum(check["found"] for check in checks),
        "expected": len(checks),
        "other_flags": sorted({(c, r) for c, r, _ in flags} - expected_pairs),
        "flags": len(flags),
        "not_checked": scan.skipped,
        "scan_seconds": round(seconds, 2),
        "contracts_per_second": round(scan.documents_done / seconds, 1) if seconds else None,
    }
