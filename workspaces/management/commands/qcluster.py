"""`qcluster`, plus: the tasks a cluster killed mid-work had pulled run again at once; the
cluster takes turns by firm and stops in seconds (``workspaces.cluster``).

Without this they stay locked for ``Q_CLUSTER["retry"]`` seconds (the task timeout + 60):
a worker restarted during an ingestion left it stalled that long. See
``workspaces.tasks.queue_locks_release_orphaned`` for when unlocking is safe.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from typing import Any

from django import db
from django.conf import settings
from django.utils import timezone
from django.utils.translation import ngettext
from django_q.management.commands.qcluster import Command as DjangoQCluster

from workspaces.cluster import QuickStopCluster
from workspaces.tasks import STAT_TTL_SECONDS, queue_locks_release_orphaned

# Long enough for the stat of a cluster killed just before this one started to expire.
RELEASE_AFTER_SECONDS = STAT_TTL_SECONDS + 2


class Command(DjangoQCluster):  # type: ignore[misc]  # django-q2 ships no types
    def handle(self, *args: Any, **options: Any) -> None:
        settings.SECRET_KEY  # noqa: B018 - as django-q2's: fail now without a signing key
        if options.get("cluster_name"):
            os.environ["Q_CLUSTER_NAME"] = options["cluster_name"]
        started = timezone.now()
        cluster = QuickStopCluster()
        cluster.start()
        if options.get("run_once"):
            cluster.stop()
            return
        self.wait(cluster, started)

    def wait(self, cluster: QuickStopCluster, started: datetime) -> None:
        """Until the cluster stops (SIGTERM/SIGINT stop it); release orphans once, early on."""
        release_at: float | None = time.monotonic() + RELEASE_AFTER_SECONDS
        while cluster.sentinel is not None and cluster.sentinel.is_alive():
            if release_at is not None and time.monotonic() >= release_at:
                release_at = None
                released = queue_locks_release_orphaned(
                    pulled_before=started, own_cluster=cluster.cluster_id
                )
                db.connections.close_all()
                if released:
                    message = ngettext(
                        "%(count)d task left locked by a stopped worker is queued again.",
                        "%(count)d tasks left locked by a stopped worker are queued again.",
                        released,
                    )
                    self.stderr.write(message % {"count": released})
            cluster.sentinel.join(1)
