"""Against a real Neo4j with the plugin (PythonClientIT starts it): every value of an arrow export equals the json
export of the same request, errors carry the server's status and code, the conversions and the CLI work."""

import json
import os
import urllib.request

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import subgraph_export as sx
from subgraph_export import cli

from oracle import assert_same_graph, from_export, from_json

ROOT = dict(label="Object", key="id", value=1)


@pytest.fixture(scope="session")
def auth():
    user, _, password = os.environ.get("SUBGRAPH_EXPORT_AUTH", "neo4j:").partition(":")
    return (user, password)


def _json_export(server, auth, path, body=None):
    request = urllib.request.Request(server + "/extension/json/" + path, data=body,
                                     headers={"Content-Type": "application/json"} if body else {})
    request.add_header("Authorization", "Basic " + __import__("base64").b64encode(":".join(auth).encode()).decode())
    with urllib.request.urlopen(request) as r:
        return from_json(json.loads(r.read()))


def test_traverse_equals_the_json_export_value_for_value(server, auth):
    export = sx.traverse(server, **ROOT, auth=auth)
    expected = _json_export(server, auth, "traverse?label=Object&key=id&value=1")
    assert_same_graph(from_export(export), expected)
    assert export.summary == sx.Summary(4, 4, False, export.header.state)
    assert export.header.state.startswith(export.header.node_id_prefix.split(":")[1] + ":")
    assert export.header.root == export.header.node_id_prefix + str(
        export.nodes.filter(pa.compute.equal(export.nodes["element_id"], export.header.root))["id"][0].as_py())
    # the year-10000 date-time is in extra_properties, exactly; the string under a long key has a column of its own
    extras = [json.loads(e) for e in export.nodes["extra_properties"].to_pylist() if e]
    assert extras == [{"zdtFar": {"datetime": "+10000-01-01T00:00:00Z"}}]
    assert [v for v in export.nodes["n:string"].to_pylist() if v is not None] == ["mixed type"]
    assert export.nodes.schema.field("n:string").metadata == {b"subgraph.key": b"n", b"subgraph.type": b"string"}
    assert export.nodes.schema.field("n").metadata == {b"subgraph.key": b"n", b"subgraph.type": b"long"}


def test_cypher_graph_mode_equals_traverse(server, auth):
    query = ("MATCH p = (r:Object {id: $id})-[:CHILDREN*0..]->(c) OPTIONAL MATCH q = (c)-[:PROPERTY*]->() "
             "RETURN p, q")
    export = sx.cypher(server, query, {"id": 1}, auth=auth)
    body = json.dumps({"query": query, "params": {"id": 1}}).encode()
    assert_same_graph(from_export(export), _json_export(server, auth, "cypher", body))
    assert export.header.root == ""
    assert set(export.nodes["element_id"].to_pylist()) == set(
        sx.traverse(server, **ROOT, auth=auth).nodes["element_id"].to_pylist())


def test_limit_sets_truncated(server, auth):
    export = sx.traverse(server, **ROOT, limit=2, auth=auth)
    assert export.summary.truncated and export.nodes.num_rows == 2


def test_refusals_raise_with_status_and_code(server, auth):
    with pytest.raises(sx.ExportRequestError) as e:
        sx.traverse(server, label="Object", key="id", value=999, auth=auth)
    assert (e.value.status, e.value.code) == (404, "Export.RootNotFound")
    with pytest.raises(sx.ExportRequestError) as e:
        sx.traverse(server, **ROOT, max_depth=-1, auth=auth)
    assert (e.value.status, e.value.code) == (400, "Export.InvalidParameter")
    with pytest.raises(sx.ExportRequestError) as e:
        sx.traverse(server, **ROOT, auth=(auth[0], auth[1] + "x"))
    assert e.value.status == 401
    with pytest.raises(sx.ExportRequestError) as e:
        sx.cypher(server, "CREATE (n)", auth=auth)
    assert (e.value.status, e.value.code) == (400, "Export.WriteQueryRefused")
    request = urllib.request.Request(server + "/extension/arrow/cypher?mode=rows", method="POST",
                                     data=b'{"query": "RETURN 1"}', headers={"Content-Type": "application/json"})
    with pytest.raises(sx.ExportRequestError) as e:
        sx._http._open(request.full_url, request.data, auth, None)  # noqa: SLF001 (the raw refusal)
    assert e.value.status == 400


def test_pyarrow_alone_reads_the_http_body(server, auth):
    request = urllib.request.Request(server + "/extension/arrow/traverse?label=Object&key=id&value=1")
    request.add_header("Authorization", "Basic " + __import__("base64").b64encode(":".join(auth).encode()).decode())
    with urllib.request.urlopen(request) as r:
        assert r.headers["Content-Type"].startswith("application/vnd.apache.arrow.stream")
        table = pa.ipc.open_stream(r).read_all()
    assert table.num_rows == 8


def test_properties_named_like_the_element_id_columns_keep_both(server, auth):
    # node 3's property "element_id" and the relationship 2 -> 3's "target_element_id": columns key:type beside the
    # element ids (docs/wire-format.md 7.2); before, two columns of one name and pyarrow refused the table
    for export in (sx.traverse(server, **ROOT, auth=auth), sx.traverse(server, **ROOT, auth=auth, partitions=3)):
        nodes, rels = export.nodes, export.relationships
        c = nodes.filter(pa.compute.equal(nodes["name"], "c"))
        assert c["element_id:string"].to_pylist() == ["a property"]
        assert c["element_id"].to_pylist() == [export.header.node_id_prefix + str(c["id"][0].as_py())]
        assert nodes.schema.field("element_id:string").metadata == {b"subgraph.key": b"element_id",
                                                                   b"subgraph.type": b"string"}
        into_c = rels.filter(pa.compute.equal(rels["target"], c["id"][0]))
        assert into_c["target_element_id:long"].to_pylist() == [3]
        assert into_c["target_element_id"].to_pylist() == c["element_id"].to_pylist()


def test_conversions(server, auth):
    export = sx.traverse(server, **ROOT, auth=auth, progress=True)
    nodes, rels = export.to_pandas()
    assert len(nodes) == 4 and len(rels) == 4
    assert sorted(nodes["name"].dropna()) == ["a", "c", "root"]
    pn, pr = export.to_polars()
    assert pn.height == 4 and pr.height == 4
    with pytest.raises(sx.ExportError, match="to_pandas"):
        export.to_networkx()  # the root's year -5000 date and nanosecond local time have no Python value
    part = sx.cypher(server, "MATCH p = (a:Object {id: 2})-[:CHILDREN|PROPERTY]->() RETURN p", auth=auth)
    g = part.to_networkx()
    assert g.number_of_nodes() == 3 and g.number_of_edges() == 2
    a = part.nodes.filter(pa.compute.equal(part.nodes["name"], "a"))["element_id"][0].as_py()
    assert g.nodes[a]["labels"] == ["Object", "Extra"] or sorted(g.nodes[a]["labels"]) == ["Extra", "Object"]
    assert g.nodes[a]["n"] == "mixed type"
    edges = {d["type"]: (k, v) for _, v, k, d in g.out_edges(a, keys=True, data=True)}
    assert set(edges) == {"CHILDREN", "PROPERTY"}
    assert edges["PROPERTY"][0].startswith(part.header.relationship_id_prefix)
    assert g.nodes[edges["PROPERTY"][1]]["v"] == [1.5, 2.5]


def test_record_batches_stream(server, auth):
    with sx.open_traverse(server, **ROOT, auth=auth) as stream:
        batches = list(stream)
        assert stream.summary == sx.Summary(4, 4, False, stream.header.state)
    nodes, rels = stream.split(pa.Table.from_batches(batches))
    assert (nodes.num_rows, rels.num_rows) == (4, 4)


def test_cli_writes_parquet(server, auth, tmp_path):
    code = cli.main([server, "--label", "Object", "--key", "id", "--value", "1", "--user", auth[0],
                     "--password", auth[1], "-o", str(tmp_path)])
    assert code == 0
    assert pq.read_table(tmp_path / "nodes.parquet").num_rows == 4
    assert pq.read_table(tmp_path / "relationships.parquet").num_rows == 4
    assert cli.main([server, "--label", "Object", "--key", "id", "--value", "999", "--user", auth[0],
                     "--password", auth[1], "-o", str(tmp_path / "none")]) == 1
