"""The recording folder: citecheck's fixture format for offline replay.

Layout (human-readable, one JSON file per request)::

    DIR/README.md                    what was recorded, when, and how (written by ``record``)
    DIR/<service>/<slug>.json        {"request": {...}, "response": {...}}

``request`` holds ``method``, ``service`` and ``key`` (the method plus the URL path and
sorted query, with credential and contact parameters removed); ``response`` holds
``status``, the headers that matter and the body as ``json`` (parsed) or ``text``/``base64``.
Replay looks requests up by ``key``; a request missing from the folder is an error that
names it, never a silent network call.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from .errors import ReplayMissError

KEPT_HEADERS = ("content-type", "retry-after", "x-rate-limit-limit", "x-rate-limit-interval",
                "x-concurrency-limit", "location", "content-encoding")


@dataclass
class Recorded:
    status: int
    headers: dict[str, str]
    body: bytes


def _slug(key: str) -> str:
    tail = re.sub(r"[^A-Za-z0-9]+", "_", key.split(" ", 1)[-1])[-60:].strip("_")
    return f"{tail}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def encode_body(body: bytes, content_type: str) -> dict:
    if "json" in content_type or body[:1] in (b"{", b"["):
        try:
            return {"json": json.loads(body)}
        except ValueError:
            pass
    if content_type.startswith("application/pdf") or body[:5] == b"%PDF-":
        return {"base64": base64.b64encode(body).decode()}
    try:
        return {"text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(body).decode()}


def decode_body(response: dict) -> bytes:
    if "json" in response:
        return json.dumps(response["json"]).encode()
    if "base64" in response:
        return base64.b64decode(response["base64"])
    if "file" in response:
        raise ValueError("file bodies are resolved by Replay")
    return response.get("text", "").encode()


class Recorder:
    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self._lock = threading.Lock()

    def save(self, service: str, key: str, url: str, status: int, headers: dict, body: bytes):
        kept = {k: v for k, v in headers.items() if k.lower() in KEPT_HEADERS}
        entry = {
            "request": {"method": key.split(" ", 1)[0], "service": service, "key": key, "url": url},
            "response": {"status": status, "headers": kept,
                         **encode_body(body, kept.get("content-type", ""))},
        }
        path = self.folder / service / f"{_slug(key)}.json"
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(entry, indent=1, ensure_ascii=False), encoding="utf-8")
            tmp.replace(path)


class Replay:
    """Serves the responses of a recording folder by request key."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"replay folder not found: {self.folder}")
        self._entries: dict[str, Recorded] = {}
        for path in sorted(self.folder.rglob("*.json")):
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
                request, response = entry["request"], entry["response"]
            except (ValueError, KeyError, TypeError):
                continue
            if "file" in response:
                body = (path.parent / response["file"]).read_bytes()
            else:
                body = decode_body(response)
            headers = {k.lower(): str(v) for k, v in response.get("headers", {}).items()}
            self._entries[request["key"]] = Recorded(int(response["status"]), headers, body)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Recorded:
        try:
            return self._entries[key]
        except KeyError:
            raise ReplayMissError(f"not in the recording {self.folder}: {key}") from None


def write_readme(folder: Path, doi: str) -> None:
    from datetime import datetime, timezone

    when = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    (Path(folder) / "README.md").write_text(
        f"# Recording of `citecheck check {doi}`\n\nRecorded live on {when} by `citecheck record`. "
        "One JSON file per request under `<service>/`; see `citecheck/recording.py` for the format. "
        "Credentials and the contact address are not part of any key or file.\n", encoding="utf-8")
