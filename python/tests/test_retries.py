"""A partitioned export's retries and restarts against a real local HTTP server answering with golden streams (no
Neo4j needed): a transient error record is fetched again pinned to the first state, an in-band
``Export.StateChanged`` restarts the export or raises naming both states. (test_partitions.py does the same
against the real server, with cuts, 5xx and commits.)"""

import http.server
import io
import threading
import urllib.parse

import pyarrow as pa
import pytest

import subgraph_export as sx

from test_partitions import assert_same_export

STATE = "3f1c2d4e-0000-4000-8000-00000000abcd:42"  # the golden files' state (FixtureStream.STATE)
MOVED = "3f1c2d4e-0000-4000-8000-00000000abcd:43"


def _changed_stream(golden, code="Export.StateChanged") -> bytes:
    """The fixture's records, then the error record a pinned stream ends with when its database moved on."""
    reader = pa.ipc.open_stream((golden / "fixture.arrow").read_bytes())
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, reader.schema) as writer:
        batch = reader.read_next_batch()
        writer.write_batch(batch)
        empty = batch.take(pa.array([], pa.int32()))  # a slice(0, 0) of a union is written unreadably
        writer.write_batch(empty, custom_metadata={
            "subgraph.record": "error", "subgraph.code": code,
            "subgraph.message": f"the database moved on from state {STATE} to {MOVED} (a transaction committed): "
                                "read the export again, all of its partitions, without state= or with the new state"})
    return sink.getvalue()


class _Server:
    """Answers request n with ``bodies[n]`` (an arrow stream, whole or cut) and keeps each request's query."""

    def __init__(self, bodies) -> None:
        self.queries = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                server.queries.append(dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)))
                body = bodies[min(len(server.queries), len(bodies)) - 1]
                self.send_response(200)
                self.send_header("Content-Type", sx._http.MEDIA_TYPE)
                self.send_header("Subgraph-Export-State", STATE)
                self.end_headers()
                self.wfile.write(body)  # no Content-Length: a short body is a cut stream

            def log_message(self, *args) -> None:
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_port}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture
def serve():
    servers = []

    def start(bodies):
        servers.append(_Server(bodies))
        return servers[-1]

    yield start
    for s in servers:
        s.http.shutdown()
        s.http.server_close()


def _expected(golden) -> sx.Export:
    return sx.read_stream(io.BytesIO((golden / "fixture.arrow").read_bytes()))


def test_a_transient_error_record_is_fetched_again_pinned(serve, golden):
    server = serve([(golden / "arrow-error.arrow").read_bytes(), (golden / "fixture.arrow").read_bytes()])
    export = sx.traverse(server.url, "4:x:0", partitions=1)
    assert_same_export(export, _expected(golden))
    assert export.state == STATE
    assert [q.get("state") for q in server.queries] == [None, STATE]
    assert [(q["partitions"], q["partition"]) for q in server.queries] == [("1", "0")] * 2


def test_an_in_band_state_change_after_a_cut_restarts_unpinned(serve, golden):
    whole = (golden / "fixture.arrow").read_bytes()  # cut after its records: the state is known, the retry pinned
    server = serve([whole[:len(whole) - 100], _changed_stream(golden), whole])
    export = sx.traverse(server.url, "4:x:0", partitions=1)
    assert_same_export(export, _expected(golden))
    assert [q.get("state") for q in server.queries] == [None, STATE, None]


def test_an_in_band_state_change_with_fail_names_both_states(serve, golden):
    whole = (golden / "fixture.arrow").read_bytes()
    server = serve([whole[:len(whole) - 100], _changed_stream(golden)])
    with pytest.raises(sx.StateChangedError) as changed:
        sx.traverse(server.url, "4:x:0", partitions=1, on_state_change="fail")
    assert (changed.value.expected, changed.value.actual) == (STATE, MOVED)
    assert len(server.queries) == 2


def test_another_error_record_is_not_retried(serve, golden):
    server = serve([_changed_stream(golden, "Export.Failed")])
    with pytest.raises(sx.ExportFailedError):
        sx.traverse(server.url, "4:x:0", partitions=1)
    assert len(server.queries) == 1


def test_a_server_that_does_not_partition_is_refused(serve, golden):
    server = serve([(golden / "fixture.arrow").read_bytes()])  # partition 0 of 1, asked for 0 of 2
    with pytest.raises(sx.ExportError, match="does not partition"):
        sx.traverse(server.url, "4:x:0", partitions=2)
