"""The measurement lab: benchmarks (``bench_*``), evaluations (``eval_*``) and the fuzzer, one
subpackage per measured app. Installed by the dev and test settings, never shipped in the
product wheel; it uses the apps' public interfaces only, and no product module imports it."""
