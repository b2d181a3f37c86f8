"""A fuzz harness over ``citecheck.text.extract_pdf``: small generated PDFs, mutated
(truncated, bytes flipped, PDF tokens spliced in, streams nested in extra FlateDecode
layers, xref dropped), go through the production sandbox. Every outcome must be an
``Extraction`` whose status and reason are classified; any exception fails.

CI runs a few dozen cases; ``bench/fuzz_extract.py --minutes N`` runs the same ``mutate``
for longer and prints counts.
"""
from __future__ import annotations

import random
import re
import tempfile
import zlib
from pathlib import Path
from typing import get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reliability_pdf import (
    circular_forms_pdf,
    flate_bomb_pdf,
    many_boxes_pdf,
    plain_pdf,
    recursive_pages_pdf,
    text_pdf,
)

from citecheck.text import Extraction, extract_pdf
from citecheck.text.extract import Reason

REASONS = frozenset(get_args(Reason))
TOKENS = [b"<<", b">>", b"[", b"]", b"(", b")", b"/Length 999999999", b"/Length -1", b"0 0 R",
          b"99 0 R", b"/Filter /FlateDecode", b"/Filter [/FlateDecode /LZWDecode /ASCII85Decode]",
          b"/Type /Pages", b"/Kids [2 0 R 2 0 R]", b"/Count 2147483647", b"endstream", b"endobj",
          b"stream\n", b"xref", b"trailer", b"%%EOF", b"/MediaBox [0 0 0 0]",
          b"/MediaBox [1e308 -1e308 nan 4]", b"BT /F1 1e30 Tf ET", b"q " * 64, b"Q " * 64,
          b"\x00" * 8, b"\xff\xfe", b"/Encrypt 1 0 R", b"<ABC", b"(\\", b"1 0 obj", b"/Do"]
KINDS = ("truncate", "flip", "splice", "nest", "drop_xref", "repeat")


def seed_pdfs() -> list[bytes]:
    """Small valid PDFs of different shapes to mutate from."""
    seeds = [plain_pdf(), text_pdf(), circular_forms_pdf(), recursive_pages_pdf(),
             many_boxes_pdf(300), flate_bomb_pdf(200_000, layers=2)]
    try:
        import pdfgen
    except ImportError:  # reportlab missing: the hand-written seeds still cover the shapes
        return seeds
    with tempfile.TemporaryDirectory() as directory:
        seeds.append(pdfgen.make_one_column_numbered(Path(directory) / "one.pdf").read_bytes())
    return seeds


def _nest_streams(data: bytes, rng: random.Random) -> bytes:
    """Wrap the first uncompressed content stream in extra FlateDecode layers."""
    match = re.search(rb"<< /Length (\d+)\s*>>\nstream\n", data)
    if not match:
        return data
    start, length = match.end(), int(match.group(1))
    body = data[start:start + length]
    layers = rng.randint(1, 6)
    for _ in range(layers):
        body = zlib.compress(body, rng.randint(0, 9))
    header = b"<< /Length %d /Filter [%s] >>\nstream\n" % (
        len(body), b" ".join([b"/FlateDecode"] * layers))
    return data[:match.start()] + header + body + data[start + length:]


def mutate(data: bytes, rng: random.Random, rounds: int | None = None) -> tuple[bytes, list[str]]:
    """``data`` with 1–3 random mutations applied; also the names of the mutations."""
    applied = []
    for _ in range(rounds or rng.randint(1, 3)):
        kind = rng.choice(KINDS)
        applied.append(kind)
        size = len(data)
        if kind == "truncate":
            data = data[:rng.randint(8, max(9, size - 1))]
        elif kind == "flip":
            buffer = bytearray(data)
            for _ in range(rng.randint(1, 16)):
                position = rng.randrange(8, max(9, size))
                if position < len(buffer):
                    buffer[position] = rng.randrange(256)
            data = bytes(buffer)
        elif kind == "splice":
            position = rng.randrange(8, max(9, size))
            cut = rng.randint(0, 12)
            data = data[:position] + rng.choice(TOKENS) + data[position + cut:]
        elif kind == "nest":
            data = _nest_streams(data, rng)
        elif kind == "drop_xref":
            data = re.sub(rb"xref\n.*?trailer", b"trailer", data, flags=re.DOTALL)
        elif kind == "repeat":
            position = rng.randrange(8, max(9, size))
            data = data[:position] + data[position:position + 200] * rng.randint(2, 50) + data[position:]
    return data, applied


def check_outcome(extraction: Extraction) -> str:
    """The outcome's label (``ok``/``partial``/a reason); raises AssertionError if unclassified."""
    assert isinstance(extraction, Extraction)
    assert extraction.status in ("ok", "partial", "failed")
    if extraction.status == "ok":
        return "ok"
    assert extraction.reason in REASONS, extraction.reason
    if extraction.status == "failed":
        assert extraction.pages == [] and extraction.references == []
    return f"{extraction.status}:{extraction.reason}"


SEEDS = seed_pdfs()


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed_index=st.integers(0, len(SEEDS) - 1), mutation_seed=st.integers(0, 2**32 - 1))
def test_mutated_pdfs_always_end_in_a_classified_extraction(seed_index, mutation_seed):
    data, applied = mutate(SEEDS[seed_index], random.Random(mutation_seed))
    extraction = extract_pdf(data, timeout_s=10, memory_mb=512)
    check_outcome(extraction)
    assert extraction.artifact.bytes == len(data), applied


def test_every_seed_extracts_cleanly():
    for data in SEEDS:
        assert check_outcome(extract_pdf(data, timeout_s=20)) in {"ok", "partial:no_text_layer",
                                                                 "failed:parse_error"}
