"""The Dask reader against a real Neo4j with the plugin (PythonClientIT starts it), on Dask's local scheduler: the
value-type fixture and the demo graph equal the single-stream export value for value, one Dask partition per export
partition; a partition cut mid-read is fetched again; a commit in the middle of a computation is detected."""

import base64
import json
import os
import urllib.request

import dask
import pyarrow as pa
import pytest

import subgraph_export as sx
from subgraph_export.dask import read_traverse

from engines_oracle import assert_same_rows
from test_partitions import Proxy

ROOT = dict(label="Object", key="id", value=1)


@pytest.fixture(scope="module")
def auth():
    user, _, password = os.environ.get("SUBGRAPH_EXPORT_AUTH", "neo4j:").partition(":")
    return (user, password)


def touch(url, auth=None):
    """A commit (through the transactional HTTP API): the database's state moves on."""
    body = json.dumps({"statements": [{"statement": "MERGE (t:EngineTouch) SET t.n = coalesce(t.n, 0) + 1"}]})
    headers = {"Content-Type": "application/json"}
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(auth).encode()).decode()
    with urllib.request.urlopen(urllib.request.Request(url + "/db/neo4j/tx/commit", body.encode(), headers)) as r:
        assert not json.loads(r.read())["errors"]


def as_arrow(frame) -> pa.Table:
    return pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False)


def assert_equals_single_stream(nodes, relationships, single: sx.Export) -> None:
    expected = single.to_pandas()
    actual = dask.compute(nodes, relationships, scheduler="threads")
    for a, e in zip(actual, expected):
        # the same pandas types, but dictionaries decoded: labels list<string>, the relationship type str
        decoded = e.dtypes.astype(str).str.replace("dictionary<values=string, indices=int32, ordered=0>", "string")
        assert list(a.dtypes.astype(str)) == list(decoded.replace("category", "str"))
        assert_same_rows(as_arrow(a), as_arrow(e))


@pytest.mark.parametrize("partitions", [1, 3])
def test_the_value_types_equal_the_single_stream(server, auth, partitions):
    nodes, relationships = read_traverse(server, **ROOT, auth=auth, partitions=partitions)
    assert nodes.npartitions == relationships.npartitions == partitions
    single = sx.traverse(server, **ROOT, auth=auth)
    assert_equals_single_stream(nodes, relationships, single)
    # meta is the export's: every property column's pandas type before anything is read
    assert str(nodes.dtypes["lt"]) == "timedelta64[ns]" and str(nodes.dtypes["d"]) == "datetime64[ms]"
    assert "n:string" in nodes.columns and "zdtFar" in nodes.columns


def test_the_demo_graph_equals_the_single_stream(demo):
    nodes, relationships = read_traverse(demo, **ROOT, partitions=4)
    single = sx.traverse(demo, **ROOT)
    assert single.summary.nodes > 4 * 256, "records in every partition"
    assert_equals_single_stream(nodes, relationships, single)
    assert nodes.map_partitions(len).compute(scheduler="threads").min() > 0


def test_a_partition_cut_mid_read_is_fetched_again(demo):
    # fetch 1 of each partition is the schema read by read_traverse, fetch 2 the computation's read
    proxy = Proxy(demo, lambda partition, fetch: ("cut", 40000) if (partition, fetch) == (1, 2) else None)
    try:
        nodes, relationships = read_traverse(proxy.url, **ROOT, partitions=3, on_state_change="fail")
        assert_equals_single_stream(nodes, relationships, sx.traverse(demo, **ROOT))
        # the cut read asked again (a busy server's 503s, waited out, can add requests to any partition)
        assert proxy.fetches[1] >= 3 and proxy.fetches[0] >= 2 and proxy.fetches[2] >= 2
    finally:
        proxy.close()


class CommitOnceArmed:
    """A :class:`Proxy` rule: once :meth:`arm` is called, the next request for ``partition`` commits (``touch``)
    before it goes on; ``fetch`` is then the number of that request. With the commit tied to fetch 2, a CI run under
    load once saw nothing raised: a busy 503 during read_traverse's schema reads adds a request to a partition, which
    puts the commit among the schema reads, and those start over at the new state."""

    def __init__(self, demo, partition):
        self.demo, self.partition, self.armed, self.fetch = demo, partition, False, None

    def arm(self):
        self.armed = True

    def __call__(self, partition, fetch):
        if self.armed and partition == self.partition and self.fetch is None:
            self.fetch = fetch
            return lambda: touch(self.demo)
        return None


def test_a_commit_in_the_middle_is_detected(demo):
    commit = CommitOnceArmed(demo, 2)
    proxy = Proxy(demo, commit)
    try:
        nodes, relationships = read_traverse(proxy.url, **ROOT, partitions=3)
        state = nodes.dtypes  # noqa: F841 (meta is there without a read)
        commit.arm()
        with pytest.raises(sx.StateChangedError) as failed:
            dask.compute(nodes, relationships, scheduler="threads")
        assert commit.fetch and failed.value.expected != failed.value.actual and failed.value.actual
        # computed again (on_state_change="restart"), it reads the state the database is in now
        assert_equals_single_stream(nodes, relationships, sx.traverse(demo, **ROOT))
    finally:
        proxy.close()


def test_with_fail_a_later_computation_after_a_commit_raises(demo):
    nodes, relationships = read_traverse(demo, **ROOT, partitions=2, on_state_change="fail")
    touch(demo)
    with pytest.raises(sx.StateChangedError):
        nodes.compute(scheduler="threads")


def test_unknown_keywords_and_bad_partitions_are_refused(demo):
    with pytest.raises(TypeError):
        read_traverse(demo, **ROOT, partitions=2, colour="red")
    with pytest.raises(ValueError):
        read_traverse(demo, **ROOT, partitions=0)
