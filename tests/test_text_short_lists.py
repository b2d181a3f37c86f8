"""A bibliography of one or two "[n]" entries is still split and its markers resolved."""
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from citecheck.text import extract_pdf


def test_two_bracketed_entries(tmp_path):
    path = tmp_path / "short.pdf"
    canvas = Canvas(str(path), pagesize=A4)
    y = 800
    for line in ["A short note", "Aphids declined in set-aside fields [1], unlike predators [2].",
                 "References", "[1] Cited A. Aphid decline. J Test Ecol. 2020;1:1-9.",
                 "doi:10.5555/cited.2", "[2] Else C. Field margins. J Test Ecol. 2019;3:10-19."]:
        canvas.drawString(60, y, line)
        y -= 14
    canvas.save()
    extraction = extract_pdf(path)
    assert [r.doi for r in extraction.references] == ["10.5555/cited.2", None]
    assert extraction.contexts[0].ref_ids == ["ref-001", "ref-002"]


def test_the_parser_process_gets_no_secrets(tmp_path, monkeypatch):
    import threading

    from citecheck.text import forkserver

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-canary-123456")
    monkeypatch.setenv("OPENALEX_API_KEY", "oa-canary-123456")
    monkeypatch.setenv("CITECHECK_MAILTO", "canary@example.org")
    monkeypatch.setattr(forkserver, "_local", threading.local())  # a server started now
    path = tmp_path / "p.pdf"
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path))
    canvas.drawString(60, 800, "Hello")
    canvas.save()
    assert extract_pdf(path).status == "ok"
    server = forkserver._local.server
    try:
        # Workers are forked from the server: they have its environment.
        environ = Path(f"/proc/{server.process.pid}/environ").read_bytes()
    finally:
        server.close()
    assert b"PATH=" in environ and b"canary" not in environ
