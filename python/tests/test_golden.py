"""The golden arrow files the Java tests pin, read by pyarrow (the oracle) and checked value by value."""

import io
import json

import pyarrow as pa
import pytest

import subgraph_export as sx

from oracle import assert_same_graph, from_export, from_json, json_value


def test_pyarrow_reads_the_fixture_with_no_project_code(golden):
    reader = pa.ipc.open_stream((golden / "fixture.arrow").read_bytes())
    table = reader.read_all()
    assert table.num_rows == 16
    assert reader.schema.metadata[b"subgraph.database"] == b"neo4j"
    assert table.column_names == ["element"]
    union = table.schema.field(0).type
    assert union.mode == "dense"
    groups = [union.field(i) for i in range(union.num_fields)]
    assert [g.name for g in groups[:2]] == ["node", "relationship"], "the catch-all groups come first"
    for g in groups:
        kind = g.metadata[b"subgraph.kind"].decode()
        assert g.name == kind or g.name.startswith(kind + ":")
        names = [f.name for f in g.type]
        assert names[:2] == (["id", "labels"] if kind == "node" else ["id", "type"]) and names[-1] == "extra_properties"
    rows = sum(len(chunk.field(i)) for chunk in table.column(0).chunks for i in range(union.num_fields))
    assert rows == 16, "each group holds its own rows only"


STATE = "3f1c2d4e-0000-4000-8000-00000000abcd:42"  # FixtureStream.STATE


def test_unlabelled_nodes_of_the_first_batch_have_a_group_named_like_the_catch_all(golden):
    # wire-format.md 7.1: group names are not identifiers; readers go by position, kind metadata and the labels column
    table = pa.ipc.open_stream((golden / "fixture.arrow").read_bytes()).read_all()
    union = table.schema.field(0).type
    groups = [union.field(i).name for i in range(union.num_fields)]
    assert [i for i, name in enumerate(groups) if name == "node"] == [0, 5]
    chunk = next(c for c in table.column(0).chunks if len(c))
    assert len(chunk.field(0)) == 0, "the catch-all holds nothing: every label set came in the first batch"
    assert chunk.field(5).field("labels").to_pylist() == [[]] and chunk.field(5).field("id").to_pylist() == [14]


def test_a_stream_that_stops_after_the_closing_batch_without_the_end_of_stream_marker_is_complete(golden):
    data = (golden / "fixture.arrow").read_bytes()
    assert data[-8:] == b"\xff\xff\xff\xff\x00\x00\x00\x00", "the end-of-stream marker"
    export = sx.read_stream(io.BytesIO(data[:-8]))  # wire-format.md 7.4: the closing batch makes it complete
    assert export.summary == sx.Summary(8, 8, False, STATE)
    assert export.nodes.num_rows == 8 and export.relationships.num_rows == 8


def test_every_value_of_the_fixture_equals_the_json_golden_file(golden):
    export = sx.read_stream(io.BytesIO((golden / "fixture.arrow").read_bytes()))
    expected = from_json(json.loads((golden / "fixture.json").read_bytes()))
    assert export.summary == sx.Summary(8, 8, False, STATE)
    assert (export.header.version, export.header.state, export.header.partition, export.header.partitions) == (
        2, STATE, 0, 1)
    assert_same_graph(from_export(export), expected)
    assert export.nodes.column("extra_properties").null_count == 8, "every fixture value has its column"


def test_values_no_column_can_hold_go_to_extra_properties_exactly(golden):
    export = sx.read_stream(io.BytesIO((golden / "arrow-fallback.arrow").read_bytes()))
    assert export.summary == sx.Summary(10, 2, True, STATE)
    nodes, rels = from_export(export)
    prefix = export.header.node_id_prefix
    assert nodes[prefix + "0"][1] == {"key1": ("long", 0), "key2": ("date", 19782)}
    assert nodes[prefix + "1"][1]["key2"] == json_value({"date": "+999999999-12-31"})
    assert nodes[prefix + "2"][1]["key2"] == ("date", -2545740)
    assert nodes[prefix + "3"][1]["key2"] == ("localdatetime", json_value({"localdatetime": "2300-01-01T00:00:00"})[1])
    assert nodes[prefix + "5"][1] == {"key1": ("string", "five")}
    assert nodes[prefix + "8"][1] == {"key1": json_value(8.5), "key3": json_value(0.5)}
    assert nodes[prefix + "9"] == (["Label0", "Label9"], {"key1": ("long", 9), "key3": ("double", json_value(0.5)[1])})
    ids, extra = export.nodes.column("element_id").to_pylist(), export.nodes.column("extra_properties").to_pylist()
    # the catch-all group first (9), then label 0's: out of range (1, 3), a type (8) or a key (8, 9) after the schema
    assert [e for e, v in zip(ids, extra) if v is not None] == [prefix + str(i) for i in (9, 1, 3, 8)]
    assert export.nodes.schema.field("key1:string").metadata == {b"subgraph.key": b"key1", b"subgraph.type": b"string"}
    rel = rels[export.header.relationship_id_prefix + "1"]
    assert rel[0] == "TYPE_0" and rel[1] == prefix + "0" and rel[2] == prefix + "1"
    assert rel[3]["key4"][0] == "datetime[]" and len(rel[3]["key4"][1]) == 2


def test_an_error_record_raises_after_the_complete_rows(golden):
    stream = sx.ExportStream(io.BytesIO((golden / "arrow-error.arrow").read_bytes()))
    batches = []
    with pytest.raises(sx.ExportFailedError) as e:
        for b in stream:
            batches.append(b)
    assert e.value.code == "Neo.TransientError.Transaction.Terminated"
    assert e.value.message == "The transaction has been terminated."
    assert sum(b.num_rows for b in batches) == 2, "the unfinished third node is dropped whole"
    nodes, _ = stream.split(pa.Table.from_batches(batches))
    assert nodes.column("key1").to_pylist() == ["n0", "n1"]
    with pytest.raises(sx.ExportFailedError):
        sx.read_stream(io.BytesIO((golden / "arrow-error.arrow").read_bytes()))


@pytest.mark.parametrize("name", ["fixture", "arrow-fallback"])
def test_a_stream_cut_anywhere_raises(golden, name):
    data = (golden / f"{name}.arrow").read_bytes()
    # anywhere before the end record is complete; a stream cut inside the final end-of-stream marker raises too
    for cut in sorted({1, 7, 8, 100, len(data) // 3, len(data) // 2, len(data) - 100, len(data) - 9, len(data) - 1}):
        with pytest.raises(sx.TruncatedStreamError):
            sx.read_stream(io.BytesIO(data[:cut]))


def test_the_delta_example_reads_with_pyarrow_and_the_package(golden):
    """docs/wire-format.md section 5's delta example in arrow (section 7.6): since in the schema metadata, the left
    groups as children 2 and 3, and read_delta's tables and left ids."""
    data = (golden / "arrow-delta.arrow").read_bytes()
    reader = pa.ipc.open_stream(data)
    assert reader.schema.metadata[b"subgraph.since"] == b"db:42"
    assert reader.schema.metadata[b"subgraph.state"] == b"db:45"
    union = reader.schema.field(0).type
    assert [union.field(i).metadata[b"subgraph.kind"] for i in range(4)] == [
        b"node", b"relationship", b"left_node", b"left_relationship"]
    with pytest.raises(sx.ExportError):
        sx.read_stream(io.BytesIO(data))
    delta = sx.ExportStream(io.BytesIO(data)).read_delta()
    assert delta.header.since == "db:42" and delta.header.state == "db:45"
    assert delta.summary == sx.Summary(1, 1, False, "db:45")
    assert delta.nodes.select(["element_id", "labels", "name", "age"]).to_pylist() == [
        {"element_id": "4:db:1", "labels": ["Person"], "name": "Bob", "age": -4}]
    assert delta.relationships.select(["element_id", "type", "source_element_id", "target_element_id"]).to_pylist() == [
        {"element_id": "5:db:8", "type": "KNOWS", "source_element_id": "4:db:0", "target_element_id": "4:db:1"}]
    assert delta.left_nodes.to_pylist() == [] and delta.left_relationships.to_pylist() == ["5:db:7"]
