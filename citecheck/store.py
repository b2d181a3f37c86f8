"""The one SQLite store: HTTP response cache, LLM call log (also the LLM cache).

Schema changes are an ordered list of migration functions recorded in
``_citecheck_migrations`` (the pattern of simonw/llm). No credential is ever part of
a key or a stored value: callers pass keys built from redacted requests.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path


def _m001_http_cache(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE http_cache (
            key TEXT PRIMARY KEY, url TEXT NOT NULL, status INTEGER NOT NULL,
            headers TEXT NOT NULL, body BLOB NOT NULL, stored_at REAL NOT NULL)"""
    )


def _m002_llm_calls(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE llm_calls (
            id TEXT PRIMARY KEY, cache_key TEXT NOT NULL, model TEXT, prompt_id TEXT,
            prompt_version TEXT, prompt_sha256 TEXT, request_json TEXT, response_json TEXT,
            input_tokens INTEGER, output_tokens INTEGER, duration_ms INTEGER,
            datetime_utc TEXT, status TEXT, error TEXT)"""
    )
    db.execute("CREATE INDEX llm_calls_cache_key ON llm_calls(cache_key)")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_m001_http_cache, _m002_llm_calls)
LLM_FIELDS = ("id", "cache_key", "model", "prompt_id", "prompt_version", "prompt_sha256",
              "request_json", "response_json", "input_tokens", "output_tokens", "duration_ms",
              "datetime_utc", "status", "error")


class Store:
    """Thread-safe access to the SQLite file (one connection, one lock, WAL mode)."""

    def __init__(self, path: str | Path | None = None):
        if path is None:
            from .config import get_settings

            path = get_settings().db_path
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.row_factory = sqlite3.Row
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._migrate()

    def _migrate(self) -> None:
        with self._lock, self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS _citecheck_migrations (name TEXT PRIMARY KEY)")
            done = {row[0] for row in self._db.execute("SELECT name FROM _citecheck_migrations")}
            for migration in MIGRATIONS:
                if migration.__name__ not in done:
                    migration(self._db)
                    self._db.execute("INSERT INTO _citecheck_migrations VALUES (?)",
                                     (migration.__name__,))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # HTTP cache -----------------------------------------------------------------------
    def get_response(self, key: str) -> tuple[int, dict, bytes, str] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT status, headers, body, url FROM http_cache WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        return row["status"], json.loads(row["headers"]), bytes(row["body"]), row["url"]

    def put_response(self, key: str, url: str, status: int, headers: dict, body: bytes) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO http_cache VALUES (?, ?, ?, ?, ?, ?)",
                (key, url, status, json.dumps(headers), body, time.time()),
            )

    # LLM calls ------------------------------------------------------------------------
    def get_llm_call(self, cache_key: str) -> dict | None:
        """The latest successful call with this key, or ``None``."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM llm_calls WHERE cache_key = ? AND status = 'ok' "
                "ORDER BY datetime_utc DESC LIMIT 1",
                (cache_key,),
            ).fetchone()
        return dict(row) if row else None

    def put_llm_call(self, record: dict) -> None:
        values = tuple(record.get(name) for name in LLM_FIELDS)
        with self._lock, self._db:
            self._db.execute(
                f"INSERT OR REPLACE INTO llm_calls ({', '.join(LLM_FIELDS)}) "
                f"VALUES ({', '.join('?' * len(LLM_FIELDS))})",
                values,
            )

    def llm_calls(self) -> list[dict]:
        with self._lock:
            return [dict(r) for r in self._db.execute("SELECT * FROM llm_calls ORDER BY datetime_utc")]
