"""Helpers shared by the measurement commands (``bench_*``, ``eval_*``); runtime never imports."""
