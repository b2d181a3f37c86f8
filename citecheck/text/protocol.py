"""What the extraction worker and its parent agree on, importable without pdfium."""

from __future__ import annotations

EXIT_OOM = 3
"""Exit status of a worker that ran out of its address-space limit (MemoryError)."""
