"""The embeddable widget: one dependency-free script shipped in the package (assets/widget.js).

Sites embed reports with ``<citecheck-report src="…/report.json">`` (fallback content inside)
or ``<div class="citecheck-badge" data-src="…/report.json">``; the script's header comment
documents both forms. It is read with :mod:`importlib.resources` so it works from a wheel.
"""
from __future__ import annotations

import logging
from importlib.resources import files

logger = logging.getLogger(__name__)

WIDGET_ASSET = "widget.js"


def widget_script() -> str:
    """The widget's JavaScript source, as shipped in ``citecheck/assets/``."""
    return (files("citecheck") / "assets" / WIDGET_ASSET).read_text(encoding="utf-8")
