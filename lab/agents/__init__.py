"""Measurement of the agents app: bench_mcp, bench_web, bench_fairness, eval_agent, fuzz."""
