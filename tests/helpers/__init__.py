"""What several test modules share: contracts and how to ingest them, the agent's scripted
model turns, the permission matrix's credentials. Test modules import these from here (or use
the fixtures of a conftest), never from another test module (tests/test_layering.py)."""
