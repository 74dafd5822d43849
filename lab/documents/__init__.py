"""Measurement of the documents app: bench_ingest, bench_ocr, eval_metadata."""
