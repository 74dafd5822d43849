"""Measurement of the search app: bench_search, bench_ui, eval_search."""
