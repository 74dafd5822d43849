from __future__ import annotations

from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
