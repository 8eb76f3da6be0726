"""Partitioned exports against a real Neo4j with the plugin (PythonClientIT starts it): N partitions read together
equal the single stream exactly, a cut or failing partition is fetched again alone, and a commit between the
partitions restarts the export or raises StateChangedError.

The graph is this module's own (label ``PartRoot``, created through the transactional HTTP API): 1,876 nodes and
1,875 relationships, 15 blocks of 256 records, so that every partition of 2, 3 or 7 holds several blocks. Values
are chosen so that partitions see different things: a key with three types (the first type differs between
partitions), keys only a few nodes have, a key named like a fixed column, label sets in some partitions only, a
date-time beyond Arrow's range (in ``extra_properties``). A local TCP proxy between the client and the server cuts
responses, answers 502 or commits before it forwards a request, and counts the requests per partition."""

import base64
import json
import os
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import subgraph_export as sx
from subgraph_export import cli
from subgraph_export._convert import _replace

ROOT = dict(label="PartRoot", key="name", value="partitions", expand="HAS>")
ITEMS = 1500  # + a root and a leaf under every 4th item: 1,876 nodes, 1,875 relationships

GRAPH = """
MATCH (r:PartRoot) OPTIONAL MATCH (r)-[:HAS*]->(n) DETACH DELETE r, n
WITH count(*) AS gone
CREATE (r:PartRoot {name: 'partitions', id: -1, created: date('2020-01-01')})
WITH r
UNWIND range(0, $items - 1) AS i
CREATE (r)-[h:HAS {w: i / 10.0}]->(n:PartItem {n: i})
SET n.value = CASE i % 3 WHEN 0 THEN 'text ' + toString(i) WHEN 1 THEN i ELSE i + 0.5 END
FOREACH (_ IN CASE WHEN i % 2 = 1 THEN [1] ELSE [] END | SET n:Odd)
FOREACH (_ IN CASE WHEN i % 500 = 7 THEN [1] ELSE [] END | SET n.rare = [i, -i], h.note = 'rare ' + toString(i))
FOREACH (_ IN CASE WHEN i = 1234 THEN [1] ELSE [] END | SET n.far = datetime('+10000-01-01T00:00Z'), n:Late)
FOREACH (_ IN CASE WHEN i % 4 = 0 THEN [1] ELSE [] END |
  CREATE (n)-[:HAS {leaf: true}]->(:PartLeaf {at: localdatetime('2024-01-01T00:00') + duration({seconds: i}),
                                              pt: point({x: i, y: -i})}))
"""


@pytest.fixture(scope="module")
def auth():
    user, _, password = os.environ.get("SUBGRAPH_EXPORT_AUTH", "neo4j:").partition(":")
    return (user, password)


def _commit(server, auth, statement, parameters=None):
    """Runs one statement through the transactional HTTP API (POST /db/neo4j/tx/commit)."""
    body = json.dumps({"statements": [{"statement": statement, "parameters": parameters or {}}]}).encode()
    request = urllib.request.Request(server + "/db/neo4j/tx/commit", data=body, headers={
        "Content-Type": "application/json", "Accept": "application/json",
        "Authorization": "Basic " + base64.b64encode(":".join(auth).encode()).decode()})
    with urllib.request.urlopen(request) as r:
        answer = json.loads(r.read())
    assert not answer["errors"], answer["errors"]


@pytest.fixture(scope="module")
def graph(server, auth):
    _commit(server, auth, GRAPH, {"items": ITEMS})
    return server


def _touch(server, auth):
    """A commit that changes the exported subgraph."""
    _commit(server, auth, "MATCH (r:PartRoot {name: 'partitions'}) SET r.touched = coalesce(r.touched, 0) + 1")


def _plain(table: pa.Table) -> pa.Table:
    """The table with its dictionaries decoded (the partitions' dictionaries list labels in another order) and in
    one chunk: ``equals`` then compares every value, every type, the field and the schema metadata."""
    columns = []
    for c in table.columns:
        t = _replace(c.type, lambda x: x.value_type if pa.types.is_dictionary(x) else None)
        columns.append(c.cast(t) if t != c.type else c)
    fields = [f.with_type(c.type) for f, c in zip(table.schema, columns)]
    return pa.Table.from_arrays(columns, schema=pa.schema(fields, table.schema.metadata)).combine_chunks()


def assert_same_export(actual: sx.Export, expected: sx.Export) -> None:
    assert actual.header == expected.header
    assert actual.summary == expected.summary
    for a, e in ((actual.nodes, expected.nodes), (actual.relationships, expected.relationships)):
        a, e = _plain(a), _plain(e)
        assert a.schema.equals(e.schema, check_metadata=True), (a.schema, e.schema)
        for name in e.column_names:  # the same rows in the same order, every value (NaN equal to NaN)
            assert a.column(name).equals(e.column(name)) or (
                    repr(a.column(name).to_pylist()) == repr(e.column(name).to_pylist())), name


class Proxy:
    """A TCP proxy to the server that sees each request's ``partition`` parameter (-1: none) and how many times that
    partition was asked for (1 for the first request), and then, as ``rule(partition, fetch)`` says: ``None``
    forwards the request and the response; ``("cut", n)`` forwards n bytes of the response and closes the
    connection; ``("status", code)`` answers that status itself; a callable is run first (a commit), then forwarded.
    """

    def __init__(self, upstream: str, rule=lambda partition, fetch: None) -> None:
        parsed = urllib.parse.urlsplit(upstream)
        self.upstream = (parsed.hostname, parsed.port)
        self.rule = rule
        self.fetches = Counter()
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                data = client.recv(65536)
                if not data:
                    return
                head += data
            target = head.split(b" ", 2)[1].decode()
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
            partition = int(query.get("partition", ["-1"])[0])
            with self.lock:
                self.fetches[partition] += 1
                fetch = self.fetches[partition]
            action = self.rule(partition, fetch)
            if callable(action):
                action()
                action = None
            if action is not None and action[0] == "status":
                body = b'{"message": "the proxy says no"}'
                client.sendall(b"HTTP/1.1 %d Proxy\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                               b"Connection: close\r\n\r\n%s" % (action[1], len(body), body))
                return
            if action is not None and action[0] == "busy":  # as the server answers above max_partitions_streaming
                body = b'{"status":503,"code":"Export.ServerBusy","message":"this partitioned export already streams"}'
                client.sendall(b"HTTP/1.1 503 Busy\r\nContent-Type: application/json\r\nRetry-After: %d\r\n"
                               b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (action[1], len(body), body))
                return
            limit = action[1] if action is not None else None
            with socket.create_connection(self.upstream) as upstream:
                upstream.sendall(head)
                sent = 0
                try:
                    while limit is None or sent < limit:
                        data = upstream.recv(min(65536, limit - sent) if limit is not None else 65536)
                        if not data:
                            break
                        client.sendall(data)
                        sent += len(data)
                except OSError:
                    pass  # the client went away (an aborted round)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def proxy(graph):
    proxies = []

    def start(rule=lambda partition, fetch: None):
        proxies.append(Proxy(graph, rule))
        return proxies[-1]

    yield start
    for p in proxies:
        p.close()


@pytest.mark.parametrize("partitions", [1, 2, 3, 7])
def test_the_partitions_together_equal_the_single_stream_exactly(graph, auth, partitions):
    single = sx.traverse(graph, **ROOT, auth=auth)
    assert single.summary.nodes + single.summary.relationships == 2 * (ITEMS + ITEMS // 4) + 1
    assert single.summary.nodes + single.summary.relationships > 256 * 2 * 7, "several blocks in every partition"
    # what makes the join non-trivial is there: a key of three types, a key named like a fixed column
    assert {"id:long", "rare", "far"} <= set(single.nodes.column_names)
    assert len([f for f in single.nodes.schema if f.metadata and f.metadata[b"subgraph.key"] == b"value"]) == 3
    export = sx.traverse(graph, **ROOT, auth=auth, partitions=partitions)
    assert_same_export(export, single)
    assert export.state == export.summary.state == single.state != ""


def _value_types(table):
    return {n: f.metadata[b"subgraph.type"] for n, f in zip(table.column_names, table.schema)
            if f.metadata and f.metadata[b"subgraph.key"] == b"value"}


def test_partitions_alone_name_columns_otherwise_and_the_join_renames_them(graph, auth):
    whole = sx.traverse(graph, **ROOT, auth=auth)
    alone = []
    for i in range(7):
        with sx.open_traverse(graph, **ROOT, auth=auth, partitions=7, partition=i) as stream:
            alone.append(_value_types(stream.read().nodes))
    assert any(names != _value_types(whole.nodes) for names in alone), "no partition names `value` otherwise"
    assert _value_types(sx.traverse(graph, **ROOT, auth=auth, partitions=7).nodes) == _value_types(whole.nodes)


def test_a_cut_partition_is_fetched_again_alone(proxy, graph, auth):
    p = proxy(lambda partition, fetch: ("cut", 3000) if (partition, fetch) == (1, 1) else None)
    export = sx.traverse(p.url, **ROOT, auth=auth, partitions=3)
    assert dict(p.fetches) == {0: 1, 1: 2, 2: 1}
    assert_same_export(export, sx.traverse(graph, **ROOT, auth=auth))


def test_a_cut_first_partition_is_fetched_again_pinned(proxy, graph, auth):
    p = proxy(lambda partition, fetch: ("cut", 20000) if (partition, fetch) == (0, 1) else None)
    export = sx.traverse(p.url, **ROOT, auth=auth, partitions=2, concurrency=1)
    assert dict(p.fetches) == {0: 2, 1: 1}
    assert_same_export(export, sx.traverse(graph, **ROOT, auth=auth))


@pytest.mark.parametrize("failure", [("cut", 3000), ("status", 502)])
def test_a_partition_that_always_fails_gives_up_after_its_attempts(proxy, auth, failure):
    p = proxy(lambda partition, fetch: failure if partition == 2 else None)
    with pytest.raises(sx.PartitionFailedError) as failed:
        sx.traverse(p.url, **ROOT, auth=auth, partitions=3, attempts=2)
    assert p.fetches[2] == 2
    assert (failed.value.partition, failed.value.partitions, failed.value.attempts) == (2, 3, 2)
    assert "partition 2 of 3 failed 2 times" in str(failed.value)
    if failure[0] == "status":
        assert all(isinstance(e, sx.ExportRequestError) and e.status == 502 for e in failed.value.errors)
    else:
        assert all(isinstance(e, sx.TruncatedStreamError) for e in failed.value.errors)


def test_a_busy_answer_while_other_partitions_stream_is_asked_again_when_one_ends(proxy, graph, auth):
    # the server's bound on one export's partitions streaming at once: no need to wait out its Retry-After
    p = proxy(lambda partition, fetch: ("busy", 30) if (partition, fetch) == (2, 1) else None)
    started = time.monotonic()
    export = sx.traverse(p.url, **ROOT, auth=auth, partitions=3, busy_wait=60)
    assert time.monotonic() - started < 15
    assert dict(p.fetches) == {0: 1, 1: 1, 2: 2}
    assert_same_export(export, sx.traverse(graph, **ROOT, auth=auth))


def test_a_refusal_is_not_retried(proxy, auth):
    p = proxy()
    with pytest.raises(sx.ExportRequestError) as refused:
        sx.traverse(p.url, **{**ROOT, "value": "none"}, auth=auth, partitions=3)
    assert (refused.value.status, refused.value.code) == (404, "Export.RootNotFound")
    assert dict(p.fetches) == {0: 1}


def test_a_commit_between_the_partitions_starts_the_export_over(proxy, graph, auth):
    before = sx.traverse(graph, **ROOT, auth=auth).state
    p = proxy(lambda partition, fetch: (lambda: _touch(graph, auth)) if (partition, fetch) == (1, 1) else None)
    export = sx.traverse(p.url, **ROOT, auth=auth, partitions=3)
    assert p.fetches[0] == 2 and p.fetches[1] == 2, p.fetches  # partition 2 may or may not have started first
    fresh = sx.traverse(graph, **ROOT, auth=auth)
    assert export.state == fresh.state != before
    assert_same_export(export, fresh)


def test_with_fail_a_commit_raises_naming_both_states(proxy, graph, auth):
    before = sx.traverse(graph, **ROOT, auth=auth).state
    p = proxy(lambda partition, fetch: (lambda: _touch(graph, auth)) if (partition, fetch) == (1, 1) else None)
    with pytest.raises(sx.StateChangedError) as changed:
        sx.traverse(p.url, **ROOT, auth=auth, partitions=3, on_state_change="fail")
    after = sx.traverse(graph, **ROOT, auth=auth).state
    assert (changed.value.expected, changed.value.actual, changed.value.restarts) == (before, after, 0)
    assert before in str(changed.value) and after in str(changed.value)
    assert isinstance(changed.value, sx.ExportError)


def test_restarts_are_bounded(proxy, graph, auth):
    p = proxy(lambda partition, fetch: (lambda: _touch(graph, auth)) if partition == 1 else None)
    with pytest.raises(sx.StateChangedError) as changed:
        sx.traverse(p.url, **ROOT, auth=auth, partitions=2, max_restarts=1)
    assert changed.value.restarts == 1 and "after 1 restart" in str(changed.value)
    assert dict(p.fetches) == {0: 2, 1: 2}


def test_a_stale_state_is_refused_with_the_current_one(graph, auth):
    before = sx.traverse(graph, **ROOT, auth=auth).state
    _touch(graph, auth)
    with pytest.raises(sx.ExportRequestError) as refused:
        sx.open_traverse(graph, **ROOT, auth=auth, partitions=2, partition=1, state=before)
    assert (refused.value.status, refused.value.code) == (412, "Export.StateChanged")
    assert refused.value.state == sx.traverse(graph, **ROOT, auth=auth).state != before


def test_cli_partitions_with_a_progress_bar(graph, auth, tmp_path, capsys):
    code = cli.main([graph, "--label", "PartRoot", "--key", "name", "--value", "partitions", "--expand", "HAS>",
                     "--user", auth[0], "--password", auth[1], "--partitions", "3", "--progress", "-o", str(tmp_path)])
    assert code == 0
    single = sx.traverse(graph, **ROOT, auth=auth)
    nodes, relationships = pq.read_table(tmp_path / "nodes.parquet"), pq.read_table(tmp_path / "relationships.parquet")
    assert nodes.column("element_id").to_pylist() == single.nodes.column("element_id").to_pylist()
    assert relationships.column("element_id").to_pylist() == single.relationships.column("element_id").to_pylist()
    assert "partitions 3/3" in capsys.readouterr().err
