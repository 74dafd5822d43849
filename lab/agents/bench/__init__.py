"""Measurement harnesses for the agents app (bench_mcp, bench_web, bench_fairness). Runtime
modules never import these."""

from lab.agents.bench._abuse import hostile_pdf

__all__ = ["hostile_pdf"]
