"""Waiting out a busy server (503 + Retry-After) against a real local HTTP server that answers as the plugin does."""

import email.utils
import http.server
import threading
import time

import pytest

import subgraph_export as sx

BUSY = (b'{"status":503,"code":"Export.ServerBusy","message":"the server is streaming its maximum of 5 exports '
        b'(server.subgraph_export.max_concurrent); retry later"}')


STATE = "3f1c2d4e-0000-4000-8000-00000000abcd:42"  # the golden files' state (FixtureStream.STATE)


class _Server:
    """Answers request n (0-based) with ``answers[n]``: a Retry-After value, "" for a 503 without one, or None for
    the golden arrow export; past the list, the export."""

    def __init__(self, answers, export: bytes) -> None:
        self.arrivals = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                n = len(server.arrivals)
                server.arrivals.append(time.monotonic())
                answer = answers[n] if n < len(answers) else None
                if answer is None:
                    self.send_response(200)
                    self.send_header("Content-Type", sx._http.MEDIA_TYPE)
                    body = export
                else:
                    self.send_response(503)
                    self.send_header("Content-Type", "application/json")
                    if answer:
                        self.send_header("Retry-After", answer)
                    body = BUSY
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_port}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def waits(self):
        return [b - a for a, b in zip(self.arrivals, self.arrivals[1:])]


@pytest.fixture
def serve(golden):
    servers = []

    def start(answers):
        servers.append(_Server(answers, (golden / "fixture.arrow").read_bytes()))
        return servers[-1]

    yield start
    for s in servers:
        s.http.shutdown()
        s.http.server_close()


def test_a_busy_answer_is_waited_out_and_the_export_read(serve):
    server = serve(["1"])
    export = sx.traverse(server.url, "4:x:0")
    assert export.summary == sx.Summary(8, 8, False, STATE)
    assert len(server.arrivals) == 2
    assert 1.0 <= server.waits()[0] < 1.25 + 0.5


def test_without_a_budget_the_busy_answer_raises_with_status_and_code(serve):
    server = serve(["1"])
    with pytest.raises(sx.ExportRequestError) as refused:
        sx.traverse(server.url, "4:x:0", busy_wait=0)
    assert (refused.value.status, refused.value.code) == (503, "Export.ServerBusy")
    assert "server.subgraph_export.max_concurrent" in refused.value.message
    assert len(server.arrivals) == 1


def test_retries_stop_when_the_waits_would_exceed_the_budget(serve):
    # Retry-After: 0 still waits 0.1 s (+ up to 25%): two waits fit in 0.25 s, a third does not
    server = serve(["0"] * 10)
    with pytest.raises(sx.ExportRequestError) as refused:
        sx.traverse(server.url, "4:x:0", busy_wait=0.25)
    assert refused.value.status == 503
    assert len(server.arrivals) == 3


def test_a_retry_after_beyond_the_budget_is_not_waited_for(serve):
    server = serve(["5"])
    started = time.monotonic()
    with pytest.raises(sx.ExportRequestError):
        sx.traverse(server.url, "4:x:0", busy_wait=2)
    assert time.monotonic() - started < 1
    assert len(server.arrivals) == 1


def test_only_a_503_with_retry_after_is_retried(serve):
    server = serve(["", "soon"])
    with pytest.raises(sx.ExportRequestError) as refused:
        sx.traverse(server.url, "4:x:0")
    assert refused.value.status == 503
    assert len(server.arrivals) == 1
    with pytest.raises(sx.ExportRequestError):  # an unparseable Retry-After is no Retry-After
        sx.traverse(server.url, "4:x:0")
    assert len(server.arrivals) == 2


def test_an_http_date_retry_after_is_a_wait_until_then(serve):
    past = email.utils.formatdate(time.time() - 60, usegmt=True)
    soon = email.utils.formatdate(int(time.time()) + 2, usegmt=True)
    server = serve([past, soon])
    assert sx.traverse(server.url, "4:x:0").summary == sx.Summary(8, 8, False, STATE)
    first, second = server.waits()
    assert 0.1 <= first < 0.125 + 0.5, "a date in the past waits the minimum"
    assert 0.9 <= second < 2.5 + 0.5, "until the date"
