"""DOI parsing, canonical form, validation, per-service encoding and file-name slugs.

The canonical form is the lower-cased DOI without any resolver prefix: DOIs are
case-insensitive (DOI Handbook 2.4), so ``10.1000/ABC`` and ``doi:10.1000/abc`` are one key.
Non-ASCII characters that look like ASCII ones (U+2010 hyphen, en dash, NBSP, zero-width
space…) are never silently replaced: they make the DOI *suspicious* and the caller decides.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from .errors import InvalidDOIError

_PREFIXES = re.compile(
    r"^(?:(?:https?://)?(?:dx\.|www\.)?doi\.org/|doi\s*:\s*|info:doi/|urn:doi:)",
    re.IGNORECASE,
)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_TRAILING = ".,;:"
_LOOKALIKE_NAMES = ("HYPHEN", "DASH", "SPACE", "ZERO WIDTH", "MINUS", "SOLIDUS", "SLASH",
                    "FULL STOP", "QUOTATION", "APOSTROPHE")


@dataclass(frozen=True)
class ParsedDOI:
    doi: str
    suspicious: tuple[str, ...] = field(default=())

    @property
    def is_suspicious(self) -> bool:
        return bool(self.suspicious)


def _strip_trailing(doi: str) -> str:
    while doi and (doi[-1] in _TRAILING or (doi[-1] == ")" and doi.count("(") < doi.count(")"))):
        doi = doi[:-1]
    return doi


def _decode_once(text: str) -> str:
    """Undo URL-encoding, but only when that leaves no escape behind: ``10.1000%2Fabc`` is
    decoded, ``10.1000/a%2525`` is kept, so normalising a normalised DOI changes nothing."""
    if "%" not in text:
        return text
    decoded = unquote(text)
    return text if _ESCAPE.search(decoded) else decoded


def _suspicious_chars(text: str) -> tuple[str, ...]:
    found = []
    for ch in text:
        if ord(ch) < 128:
            continue
        name = unicodedata.name(ch, "UNKNOWN")
        category = unicodedata.category(ch)
        compatible = unicodedata.normalize("NFKC", ch)
        if (category in ("Zs", "Cf", "Cc") or any(part in name for part in _LOOKALIKE_NAMES)
                or (compatible.isascii() and compatible.isprintable())):
            found.append(f"U+{ord(ch):04X} {name}")
    return tuple(dict.fromkeys(found))


def parse_doi(text: str) -> ParsedDOI:
    """Parse any common spelling of a DOI; raise ``InvalidDOIError`` for a non-DOI."""
    if not isinstance(text, str):
        raise InvalidDOIError("a DOI must be a string")
    raw = _decode_once(text.strip())
    raw = _PREFIXES.sub("", raw.strip()).strip()
    suspicious = _suspicious_chars(raw)
    if suspicious:
        raw = raw.replace("\u00a0", " ").strip()
    doi = _strip_trailing(raw).lower()
    if not _DOI.match(doi) and not suspicious:
        shown = text.strip()[:80]
        raise InvalidDOIError(f"not a DOI: {shown!r} (expected something like 10.1234/abc)")
    if not doi.startswith("10."):
        raise InvalidDOIError(f"not a DOI: {text.strip()[:80]!r}")
    return ParsedDOI(doi=doi, suspicious=suspicious)


def normalize_doi(text: str) -> str:
    """The canonical DOI; raise ``InvalidDOIError`` if it is not one or looks forged."""
    parsed = parse_doi(text)
    if parsed.is_suspicious:
        raise InvalidDOIError(
            f"suspicious DOI: contains {', '.join(parsed.suspicious)}; retype it in plain ASCII",
            reason="suspicious_doi",
        )
    return parsed.doi


def try_normalize_doi(text: str | None) -> str | None:
    """The canonical DOI, or ``None`` for anything that is not a clean DOI."""
    if not text:
        return None
    try:
        return normalize_doi(text)
    except InvalidDOIError:
        return None


def crossref_path(doi: str) -> str:
    """The DOI as one path segment of ``/works/{doi}`` (slashes kept, everything else encoded).

    Trailing slashes are sent as ``%2F``: habanero strips ``/`` from the end of the URL, which
    would silently ask for another DOI."""
    path = quote(doi, safe="/")
    bare = path.rstrip("/")
    return bare + "%2F" * (len(path) - len(bare))



def openalex_filter_value(doi: str) -> str | None:
    """The DOI as a value inside an OpenAlex ``doi:a|b`` filter, or ``None`` when it must be
    looked up singly (``|`` and ``,`` separate filter values and cannot be escaped)."""
    if "|" in doi or "," in doi:
        return None
    return doi.replace("&", "%26")


def doi_url(doi: str) -> str:
    return "https://doi.org/" + quote(doi, safe="/")


def doi_slug(doi: str) -> str:
    """A file-system-safe, collision-free name for a DOI."""
    readable = re.sub(r"[^a-z0-9]+", "_", doi.lower()).strip("_")[:80]
    digest = hashlib.sha256(doi.encode("utf-8")).hexdigest()[:8]
    return f"{readable}-{digest}"
