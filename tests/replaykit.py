"""Build replay folders (citecheck's recording format) for tests.

Bodies come from ../shared/corpus by reference (a ``file`` pointer, never copied) or are
small JSON objects generated in the test; each generated entry says so in ``note``.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def corpus_path(relative: str) -> Path:
    import pytest

    path = CORPUS / relative
    if not path.exists():
        pytest.skip(f"corpus file not available: {relative}")
    return path


def write_entry(folder: Path, key: str, *, status: int = 200, body=None, file: Path | None = None,
                headers: dict | None = None, note: str = "") -> None:
    service = key.split(" ", 1)[1].split(":", 1)[0]
    response: dict = {"status": status,
                      "headers": headers or {"content-type": "application/json"}}
    if file is not None:
        response["file"] = str(file)
    elif isinstance(body, (bytes, str)):
        response["text"] = body if isinstance(body, str) else body.decode()
    else:
        response["json"] = body
    entry = {"request": {"method": "GET", "service": service, "key": key}, "response": response,
             "note": note}
    name = hashlib.sha256(key.encode()).hexdigest()[:16] + ".json"
    (folder / service).mkdir(parents=True, exist_ok=True)
    (folder / service / name).write_text(json.dumps(entry), encoding="utf-8")


def empty_openalex_list() -> dict:
    return {"meta": {"count": 0, "per_page": 100, "next_cursor": None}, "results": []}
