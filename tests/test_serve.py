"""citecheck serve: reports and the widget on 127.0.0.1 with JSON types, nosniff and CORS;
no traversal, no listing, nothing outside the folder, GET only."""
import http.client
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from citecheck.serve import make_server
from citecheck.widget import widget_script

REPORT = {"schema_version": "1.0", "work": {"title": "<img src=x onerror=alert(1)>"}}


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "site"
    (root / "reports").mkdir(parents=True)
    (root / "reports" / "10.5555_x.json").write_text(json.dumps(REPORT))
    (root / "reports" / "page.html").write_text("<!DOCTYPE html><p>report</p>")
    (root / "reports" / "notes.txt").write_text("not a report")
    (root / "reports" / ".hidden.json").write_text("{}")
    (tmp_path / "secret.json").write_text('{"secret": true}')
    (root / "escape.json").symlink_to(tmp_path / "secret.json")
    (root / "escape-dir").symlink_to(tmp_path)
    server = make_server(root, host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def request(port, path, method="GET", headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.putrequest(method, path, skip_accept_encoding=True)  # raw path: no normalising
    for name, value in (headers or {}).items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def test_serve_report_json_with_nosniff_and_cors(served):
    status, headers, body = request(served, "/reports/10.5555_x.json",
                                    headers={"Origin": "https://example.org"})
    assert status == 200 and json.loads(body) == REPORT
    assert headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == "GET"
    assert "python" not in headers["server"].lower()


def test_serve_widget_script(served):
    status, headers, body = request(served, "/citecheck-widget.js")
    assert status == 200 and body.decode() == widget_script()
    assert headers["content-type"].startswith("text/javascript")
    assert headers["x-content-type-options"] == "nosniff"


def test_serve_html_report_keeps_its_no_script_policy(served):
    status, headers, _ = request(served, "/reports/page.html")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in headers["content-security-policy"]


@pytest.mark.parametrize("path", [
    "/", "/reports", "/reports/", "/reports/notes.txt", "/reports/.hidden.json",
    "/../secret.json", "/reports/../../secret.json", "/reports/%2e%2e/%2e%2e/secret.json",
    "/%2e%2e%2fsecret.json", "/reports/..%5c..%5csecret.json", "/escape.json",
    "/escape-dir/secret.json", "//etc/passwd", "/reports/10.5555_x.json%00.txt",
    "/nothing.json",
])
def test_serve_refuses_traversal_listing_and_other_files(served, path):
    status, headers, body = request(served, path)
    assert status == 404 and json.loads(body) == {"error": "not found"}
    assert headers["x-content-type-options"] == "nosniff"
    assert b"secret" not in body and b"10.5555_x" not in body


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_serve_is_read_only(served, method):
    status, headers, _ = request(served, "/reports/10.5555_x.json", method=method)
    assert status == 405 and headers["allow"] == "GET, HEAD, OPTIONS"


def test_serve_preflight_offers_get_only(served):
    status, headers, body = request(served, "/reports/10.5555_x.json", method="OPTIONS", headers={
        "Origin": "https://example.org", "Access-Control-Request-Method": "GET"})
    assert status == 204 and body == b""
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == "GET"


def test_serve_head_has_headers_and_no_body(served):
    status, headers, body = request(served, "/reports/10.5555_x.json", method="HEAD")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0


def test_cli_serve_runs_and_stops_on_interrupt(tmp_path):
    (tmp_path / "r.json").write_text("{}")
    process = subprocess.Popen([sys.executable, "-m", "citecheck", "serve", str(tmp_path),
                                "--port", "0"], stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = process.stderr.readline()
        assert line.startswith(f"serving {tmp_path} at http://127.0.0.1:")
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        assert request(port, "/r.json")[0] == 200
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0


def test_cli_serve_missing_folder_exits_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "citecheck", "serve", str(tmp_path / "nope")],
                          check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("citecheck: no such folder")


def test_serve_port_in_use_is_bad_input(served, tmp_path):
    from citecheck.errors import BadInputError

    with pytest.raises(BadInputError, match="cannot listen"):
        make_server(tmp_path, host="127.0.0.1", port=served)
