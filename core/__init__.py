"""The floor: infrastructure every app stands on (settings readers, the database backend and
roles, encoders, the LLM client, metrics, text normalisation, locks, request parsers).

No domain here, and no import of an app or of ``config``: the arrows only point down to it.
"""
