"""The widget asset: shipped, loadable, valid JavaScript, and free of HTML-writing APIs."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from citecheck.widget import widget_script


def test_asset_loads_from_the_package():
    script = widget_script()
    assert 'customElements.define("citecheck-report"' in script
    assert ".citecheck-badge[data-src]" in script
    assert 'SUPPORTED_MAJOR = "1"' in script


def test_no_markup_writing_apis():
    script = widget_script()
    for api in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                "new Function", "setAttribute(\"href\"", "srcdoc"):
        assert api not in script, api
    assert re.search(r"\.href = safe\b", script)  # the one place a link target is set


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_is_valid_javascript(tmp_path):
    path = tmp_path / "widget.js"
    path.write_text(widget_script(), encoding="utf-8")
    subprocess.run(["node", "--check", str(path)], check=True, capture_output=True, timeout=30)
