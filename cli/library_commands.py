"""History library commands (ingest, sql, stats, export): registered on the app, duckdb imported lazily."""

from __future__ import annotations
