#!/usr/bin/env python
"""Django's command-line utility for administrative tasks (`lexroom` once installed)."""

from __future__ import annotations

from config.manage import main

if __name__ == "__main__":
    main()
