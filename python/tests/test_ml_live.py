"""Export.to_pyg() and to_scipy() against real servers (PythonClientIT starts them): the value-type fixture and a
small demo graph, every index and value checked against the oracle, and a GNN that runs and trains on the result."""

import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy.sparse.csgraph import connected_components
from torch_geometric.nn import SAGEConv, to_hetero

import subgraph_export as sx

from ml_oracle import assert_homogeneous, assert_pyg, assert_scipy

ROOT = dict(label="Object", key="id", value=1)


@pytest.fixture(scope="module")
def auth():
    user, _, password = os.environ.get("SUBGRAPH_EXPORT_AUTH", "neo4j:").partition(":")
    return (user, password)


@pytest.fixture(scope="module")
def fixture(server, auth):
    return sx.traverse(server, **ROOT, auth=auth)


@pytest.fixture(scope="module")
def demo_export(demo):
    return sx.traverse(demo, **ROOT)


class SAGE(torch.nn.Module):
    """Two GraphSAGE layers, as PyG's heterogeneous examples have them (lazy input sizes)."""

    def __init__(self, hidden: int, out: int) -> None:
        super().__init__()
        self.conv1 = SAGEConv((-1, -1), hidden)
        self.conv2 = SAGEConv((-1, -1), out)

    def forward(self, x, edge_index):
        return self.conv2(self.conv1(x, edge_index).relu(), edge_index)


def test_the_fixture_against_the_oracle(fixture):
    data = fixture.to_pyg()
    assert data.node_types == ["Extra_Object", "Object", "Structure"]
    assert data.edge_types == [("Extra_Object", "CHILDREN", "Object"), ("Extra_Object", "PROPERTY", "Structure"),
                               ("Object", "CHILDREN", "Extra_Object"), ("Object", "CHILDREN", "Object")]
    assert_pyg(fixture, data)
    assert_homogeneous(data, fixture.to_pyg(homogeneous=True))
    assert_scipy(fixture, fixture.to_scipy())
    assert_scipy(fixture, fixture.to_scipy(weight="w"), weight="w")
    o = data["Object"]  # the root (id 1) and c (id 3): the root's property x is x_, n is missing on c
    assert o.id.tolist() == [1, 3] and o.id.dtype == torch.int64
    assert o.x_.tolist()[0] == 1.5 and np.isnan(o.x_.tolist()[1]) and o.x_.dtype == torch.float64
    assert o.n.tolist()[0] == -5.0 and o.flag.dtype == torch.float32
    assert o.ints.tolist()[0] == [1.0, -2.0, 3.0] and o.ints.dtype == torch.float64
    assert not {"s", "d", "pt", "dur"} & set(o.keys()), "strings, dates, points, durations stay out"
    assert data["Structure"].v.tolist() == [[1.5, 2.5]]
    assert data["Object", "CHILDREN", "Object"].loop.tolist() == [True]


def test_group_by_object_and_a_cypher_export_give_the_same(server, auth, fixture):
    data = fixture.to_pyg(group_by="Object")
    assert data.node_types == ["Object", "Structure"]
    assert_pyg(fixture, data, group_by=["Object"])
    n = data["Object"].n  # -5 on the root, a string on a, missing on c
    assert n.tolist()[0] == -5.0 and np.isnan(n.tolist()[1:]).all()
    query = ("MATCH p = (r:Object {id: $id})-[:CHILDREN*0..]->(c) OPTIONAL MATCH q = (c)-[:PROPERTY*]->() "
             "RETURN p, q")
    other = sx.cypher(server, query, {"id": 1}, auth=auth).to_pyg(group_by="Object")
    for key in data.node_types + data.edge_types:
        assert data[key].element_id.tolist() == other[key].element_id.tolist()
    for edge_type in data.edge_types:
        assert torch.equal(data[edge_type].edge_index, other[edge_type].edge_index)


def test_a_heterogeneous_graphsage_runs_on_the_fixture(fixture):
    data = fixture.to_pyg(features={"Object": ["id", "flag"], "Extra_Object": ["id"], "Structure": ["v"]})
    for t in data.node_types:
        data[t].x = torch.nan_to_num(data[t].x)
    model = to_hetero(SAGE(8, 3), data.metadata(), aggr="sum")
    out = model(data.x_dict, data.edge_index_dict)
    assert {t: tuple(v.shape) for t, v in out.items()} == {"Extra_Object": (1, 3), "Object": (2, 3),
                                                          "Structure": (1, 3)}


def test_the_demo_graph_against_the_oracle(demo_export):
    data = demo_export.to_pyg()
    assert data.node_types == ["Object", "Sequence", "Structure"]
    assert_pyg(demo_export, data)
    assert_homogeneous(data, demo_export.to_pyg(homogeneous=True))
    o = data["Object"]
    assert o.element_id[0] == demo_export.header.root and o.id[0].item() == 1
    assert o.active.dtype == torch.bool and o.weight.dtype == torch.float64 and o.version.dtype == torch.int32
    value = data["Structure"].value  # strings, longs and doubles under one key: the numbers, NaN for the strings
    assert value.dtype == torch.float64 and 0 < int(torch.isnan(value).sum()) < len(value)
    adjacency = demo_export.to_scipy()
    assert_scipy(demo_export, adjacency)
    assert connected_components(adjacency.matrix, directed=True, connection="weak")[0] == 1, "one tree"
    assert adjacency.element_id.tolist()[:data["Object"].num_nodes] == o.element_id.tolist()


def _assert_same_pyg(a, b):
    assert a.node_types == b.node_types and a.edge_types == b.edge_types
    for key in a.node_types + a.edge_types:
        assert list(a[key].keys()) == list(b[key].keys()), key
        for name, value in a[key].items():
            if isinstance(value, torch.Tensor):
                assert value.dtype == b[key][name].dtype and torch.equal(torch.nan_to_num(value),
                                                                        torch.nan_to_num(b[key][name])), (key, name)
            else:
                assert value == b[key][name], (key, name)


def test_a_partitioned_export_gives_the_same_tensors(demo, demo_export):
    """traverse(..., partitions=3) gives the same HeteroData and adjacency as the single stream, tensor for tensor;
    so do the three partitions read raw, pinned to one state, their tables concatenated last partition first (other
    row order, other column order)."""
    import pyarrow as pa

    partitioned = sx.traverse(demo, **ROOT, partitions=3)
    single = demo_export.to_pyg()
    _assert_same_pyg(single, partitioned.to_pyg())
    assert (demo_export.to_scipy().matrix != partitioned.to_scipy().matrix).nnz == 0
    parts = [sx.open_traverse(demo, **ROOT, partitions=3, partition=i, state=demo_export.header.state or None).read()
             for i in (2, 1, 0)]
    assert [p.header.partition for p in parts] == [2, 1, 0] and all(p.nodes.num_rows for p in parts)
    nodes = pa.concat_tables([p.nodes for p in parts], promote_options="default")
    rels = pa.concat_tables([p.relationships for p in parts], promote_options="default")
    assert nodes.column_names != demo_export.nodes.column_names or nodes["id"] != demo_export.nodes["id"]
    raw = sx.Export(parts[0].header, demo_export.summary, nodes, rels)
    _assert_same_pyg(single, raw.to_pyg())
    assert (demo_export.to_scipy().matrix != raw.to_scipy().matrix).nnz == 0


def test_one_epoch_on_the_demo_graph_as_the_readme_shows(demo_export):
    # python/README.md's example, as it is there
    import torch_geometric.transforms as T

    data = demo_export.to_pyg(features={"Object": ["version", "weight"]})
    data = T.ToUndirected()(data)  # messages flow both ways: reverse edge types rev_CHILDREN, rev_PROPERTY
    for t in data.node_types:  # a type with no numeric property gets a constant feature; NaN (gaps) become 0
        store = data[t]
        store.x = torch.nan_to_num(store.x) if "x" in store else torch.ones(store.num_nodes, 1)
    y = data["Object"].active.long()  # predict whether an Object is active
    train = torch.rand(len(y), generator=torch.Generator().manual_seed(0)) < 0.8

    model = to_hetero(SAGE(32, 2), data.metadata(), aggr="sum")
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    optimizer.zero_grad()
    out = model(data.x_dict, data.edge_index_dict)["Object"]
    loss = F.cross_entropy(out[train], y[train])
    loss.backward()
    optimizer.step()
    predictions = dict(zip(data["Object"].element_id, out.argmax(1).tolist()))  # element id -> class, to write back

    assert torch.isfinite(loss) and len(predictions) == data["Object"].num_nodes
    before = [p.detach().clone() for p in model.parameters()]
    optimizer.zero_grad()
    F.cross_entropy(model(data.x_dict, data.edge_index_dict)["Object"][train], y[train]).backward()
    optimizer.step()
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters())), "the step changed the weights"
