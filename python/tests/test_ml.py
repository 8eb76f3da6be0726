"""Export.to_pyg() and to_scipy() on the golden arrow files (no server): every index against the element ids, every
tensor value against the oracle's, the same result from the rows in any order and chunking (a partitioned export),
the values that went to ``extra_properties``, the options and the refusals."""

import io

import numpy as np
import pyarrow as pa
import pytest
import torch

import subgraph_export as sx

from ml_oracle import assert_homogeneous, assert_pyg, assert_scipy, shuffled


def _read(golden, name):
    return sx.read_stream(io.BytesIO((golden / f"{name}.arrow").read_bytes()))


@pytest.fixture(scope="module")
def fixture(golden):
    return _read(golden, "fixture")


@pytest.fixture(scope="module")
def fallback(golden):
    return _read(golden, "arrow-fallback")


@pytest.mark.parametrize("name", ["fixture", "arrow-fallback"])
def test_every_index_and_value_against_the_oracle(golden, name):
    export = _read(golden, name)
    data = export.to_pyg()
    assert_pyg(export, data)
    assert_homogeneous(data, export.to_pyg(homogeneous=True))
    assert_scipy(export, export.to_scipy())


def _only(export, numeric_ids):
    """The export with only these nodes, and no relationships."""
    keep = pa.compute.is_in(export.nodes["id"], pa.array(numeric_ids, pa.int64()))
    return sx.Export(export.header, export.summary, export.nodes.filter(keep), export.relationships.slice(0, 0))


SCALARS = ("bool", "byte", "short", "int", "long", "float", "double")


def test_dtypes_follow_neo4j_types(fixture):
    alone = _only(fixture, [0]).to_pyg()["Object"]  # every scalar type on one node, no gaps
    assert [alone[k].dtype for k in SCALARS] == [
        torch.bool, torch.int8, torch.int16, torch.int32, torch.int64, torch.float32, torch.float64]
    assert alone.longMin.tolist() == [-2**63] and alone.x.dtype == torch.float32
    arrays = _only(fixture, [15]).to_pyg()["Object"]
    assert [arrays[k].dtype for k in ("booleans", "shorts", "ints", "longs", "floats", "doubles")] == [
        torch.bool, torch.int16, torch.int32, torch.int64, torch.float32, torch.float64]
    assert arrays.booleans.shape == (1, 3) and arrays.ints.shape == (1, 5)
    vectors = fixture.to_pyg()["Thing"]
    assert [vectors[k].dtype for k in ("int8", "int16", "int32", "int64", "float32", "float64")] == [
        torch.int8, torch.int16, torch.int32, torch.int64, torch.float32, torch.float64]
    assert "float32Empty" not in vectors and "charsEmpty" not in arrays, "empty arrays make no tensor"


def test_a_key_missing_on_some_nodes_is_float_with_nan(fixture):
    data = fixture.to_pyg()
    o = data["Object"]  # node 0 has the scalars, node 15 the arrays
    assert [o[k].dtype for k in SCALARS] == [torch.float32, torch.float32, torch.float32, torch.float64,
                                             torch.float64, torch.float32, torch.float64]
    assert all(torch.isnan(o[k][1]) for k in SCALARS)
    assert o.bool[0].item() == 1.0 and o.longMin[0].item() == float(-2**63)
    assert torch.isnan(o.booleans[0]).all() and o.booleans.dtype == torch.float32 and o.booleans.shape == (2, 3)
    assert "char" not in o and "string" not in o and "chars" not in o, "characters and strings make no tensor"
    assert o.x.dtype == torch.float32 and o.x.shape[0] == 2
    nonfinite = data["_unlabelled"]
    assert torch.isnan(nonfinite.doubleNaN).all() and nonfinite.floatInf.tolist() == [float("inf")]
    assert torch.equal(torch.signbit(nonfinite.doubleNegZero), torch.tensor([True]))
    assert nonfinite.x[0].tolist()[list(nonfinite.keys()).index("doubleMax") - 2] == float("inf"), \
        "a double beyond float32 is inf in x"


def test_tensors_are_writable(fixture):
    o = fixture.to_pyg()["Object"]
    o.x.nan_to_num_(0.0)
    o.double.add_(1)
    assert not torch.isnan(o.x).any()


def test_values_in_extra_properties_are_read_and_gaps_are_nan(fallback):
    data = fallback.to_pyg()
    label0 = data["Label0"]
    ids = [int(e.rsplit(":", 1)[1]) for e in label0.element_id.tolist()]
    assert ids == list(range(9))
    key1 = label0.key1.tolist()
    assert label0.key1.dtype == torch.float64, "longs and a double (from extra_properties), a string between"
    assert key1[:5] + key1[6:] == [0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.5] and np.isnan(key1[5])
    assert np.isnan(label0.key3[:8].numpy()).all() and label0.key3[8].item() == 0.5


def test_a_partitioned_export_gives_the_same_tensors(fixture, fallback):
    for export in (fixture, fallback):
        a, b = export.to_pyg(), shuffled(export).to_pyg()
        assert a.node_types == b.node_types and a.edge_types == b.edge_types
        for key in a.node_types + a.edge_types:
            sa, sb = a[key], b[key]
            assert list(sa.keys()) == list(sb.keys())
            for name in sa.keys():
                va, vb = sa[name], sb[name]
                if isinstance(va, torch.Tensor):
                    assert va.dtype == vb.dtype and torch.equal(torch.nan_to_num(va), torch.nan_to_num(vb)), name
                elif isinstance(va, np.ndarray):
                    assert va.tolist() == vb.tolist(), name
                else:
                    assert va == vb, name
        ma, mb = export.to_scipy(), shuffled(export).to_scipy()
        assert ma.element_id.tolist() == mb.element_id.tolist() and (ma.matrix != mb.matrix).nnz == 0


def test_group_by_one_label(fixture):
    data = fixture.to_pyg(group_by=["Thing", "Object"])
    assert data.node_types == sorted(["_unlabelled", "Empty", "Object", "Thing"])
    assert_pyg(fixture, data, group_by=["Thing", "Object"])
    assert fixture.to_pyg(group_by="Object").node_types == sorted(["_unlabelled", "Empty", "Object", "Thing",
                                                                    "Thing_Ünïcödé 🏷"])


def test_features_pick_keys_per_type(fixture):
    features = {"Object": ["double", "bool", "ints"], "CHILDREN": []}
    data = fixture.to_pyg(features=features)
    o = data["Object"]
    assert_pyg(fixture, data, features=features)
    assert o.x.shape == (2, 1 + 1 + 5)
    assert "long" in o and "longs" in o, "every key stays an attribute"
    assert o.x[:, 0].tolist()[0] == o.double.float()[0].item() and o.x[0, 2:].isnan().all()
    assert o.x[1, 2:].tolist() == o.ints[1].float().tolist() and o.x[:, 1].tolist()[0] == 1.0
    assert "edge_attr" not in data["Object", "CHILDREN", "Object_Thing"]
    links = data["Object_Thing", "LINKS", "Thing_Ünïcödé 🏷"]
    assert links.ints.tolist() == [[7]] and links.edge_attr.tolist() == [[7.0]], "types not named stack every key"
    with pytest.raises(ValueError, match="'string'"):
        fixture.to_pyg(features={"Object": ["string"]})


def test_relationship_types_and_weights(fixture):
    data = fixture.to_pyg(relationship_types=["LINKS"])
    assert data.edge_types == [("Object_Thing", "LINKS", "Thing_Ünïcödé 🏷")]
    assert sum(data[t].num_nodes for t in data.node_types) == 8, "every node stays"
    assert_scipy(fixture, fixture.to_scipy(weight="weight"), weight="weight")
    matrix, element_id = fixture.to_scipy(relationship_types=["SELF"])
    assert matrix.nnz == 1 and matrix.dtype == np.int64
    with pytest.raises(ValueError, match="name"):
        fixture.to_scipy(weight="name")


def test_refusals(fixture):
    n = fixture.nodes
    without_root = sx.Export(fixture.header, fixture.summary, n.filter(pa.compute.not_equal(n["element_id"],
                                                                                            fixture.header.root)),
                             fixture.relationships)
    with pytest.raises(ValueError, match="not in export.nodes"):
        without_root.to_pyg()
    twice = sx.Export(fixture.header, fixture.summary, pa.concat_tables([n, n.slice(0, 1)]), fixture.relationships)
    with pytest.raises(ValueError, match="more than once"):
        twice.to_scipy()


def test_element_ids_are_a_lookup_table_transforms_leave_alone(fixture):
    import torch_geometric.transforms as T

    data = fixture.to_pyg()
    ids = data["Object"].element_id
    assert isinstance(ids, sx.ml.ElementIds) and len(ids) == 2 and ids[1] == ids.tolist()[1]
    assert ids[torch.tensor([1])].tolist() == [ids[1]] and ids[torch.tensor([False, True])].tolist() == [ids[1]]
    assert ids[torch.tensor(1)] == ids[1] and list(ids) == ids.tolist() and np.asarray(ids).dtype == object
    undirected = T.ToUndirected()(data)
    assert ("Thing_Ünïcödé 🏷", "rev_LINKS", "Object_Thing") in undirected.edge_types
    assert undirected["Object", "CHILDREN", "Object"].edge_index.shape == (2, 2)
    assert undirected["Object", "CHILDREN", "Object"].element_id == data["Object", "CHILDREN", "Object"].element_id
    sub = data.subgraph({"Object": torch.tensor([1])})
    assert sub["Object"].num_nodes == 1 and sub["Object"].element_id == ids


def test_a_separator_and_names_that_would_merge(fixture):
    data = fixture.to_pyg(separator=":")
    assert "Object:Thing" in data.node_types
    assert_pyg(fixture, data, separator=":")
    labels = pa.array([["A_B"], ["A", "B"]], pa.list_(pa.string()))
    n = pa.table({"element_id": ["4:x:0", "4:x:1"], "id": pa.array([0, 1], pa.int64()), "labels": labels,
                  "extra_properties": pa.array([None, None], pa.string())})
    r = fixture.relationships.slice(0, 0)
    export = sx.Export(fixture.header, fixture.summary, n, r)
    with pytest.raises(ValueError, match="both named 'A_B'"):
        export.to_pyg()
    assert export.to_pyg(separator=":").node_types == ["A:B", "A_B"]


def test_an_empty_export(fixture):
    empty = sx.Export(fixture.header, fixture.summary, fixture.nodes.slice(0, 0), fixture.relationships.slice(0, 0))
    data = empty.to_pyg()
    assert data.node_types == [] and data.edge_types == []
    assert empty.to_pyg(homogeneous=True).num_nodes == 0
    matrix, element_id = empty.to_scipy()
    assert matrix.shape == (0, 0) and len(element_id) == 0
