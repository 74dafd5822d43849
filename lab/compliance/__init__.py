"""Measurement of the compliance app: bench_compliance, eval_compliance."""
