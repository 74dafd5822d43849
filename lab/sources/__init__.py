"""Measurement of the public legal sources: bench_legal, eval_legal."""
