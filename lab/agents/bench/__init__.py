"""Measurement harnesses for the agents app (bench_mcp). Runtime modules never import these."""
