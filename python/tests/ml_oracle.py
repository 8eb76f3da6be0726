"""What ``to_pyg`` and ``to_scipy`` must give, computed independently: a Python loop over every node and relationship
of :func:`oracle.from_export`'s canonical values (element id -> labels, typed properties), compared with every index,
element id and tensor value."""

from __future__ import annotations

import math
import struct
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa
import torch

import subgraph_export as sx

from oracle import from_export

SCALARS = {"boolean": torch.bool, "byte": torch.int8, "short": torch.int16, "int": torch.int32, "long": torch.int64,
           "float": torch.float32, "double": torch.float64}
"""Neo4j's numeric and boolean types and the dtype of a tensor of them (no gaps, one type)."""
ARRAYS = {f"{t}[]": d for t, d in SCALARS.items()}
ARRAYS.update({f"vector({k})": d for k, d in (("INT8", torch.int8), ("INT16", torch.int16), ("INT32", torch.int32),
                                            ("INT64", torch.int64), ("FLOAT32", torch.float32),
                                            ("FLOAT64", torch.float64))})
NODE_RESERVED = {"x", "element_id", "num_nodes", "batch", "ptr", "node_type", "n_id"}
EDGE_RESERVED = {"edge_index", "edge_attr", "element_id", "num_edges", "edge_type", "e_id", "batch", "ptr"}


def number(tag: str, value: Any) -> Any:
    """A canonical value of oracle.py (floats as their bits) as the Python number or list of numbers it is."""
    if tag in ("float", "vector(FLOAT32)", "float[]"):
        f = lambda b: struct.unpack("<f", struct.pack("<i", b))[0]  # noqa: E731
    elif tag in ("double", "vector(FLOAT64)", "double[]"):
        f = lambda b: struct.unpack("<d", struct.pack("<q", b))[0]  # noqa: E731
    else:
        f = lambda v: v  # noqa: E731
    return [f(v) for v in value] if isinstance(value, list) else f(value)


def type_name(labels: Sequence[str], group_by: Sequence[str] = (), separator: str = "_") -> str:
    chosen = next((g for g in group_by if g in labels), None)
    return chosen if chosen is not None else separator.join(sorted(labels)) if labels else "_unlabelled"


def _numeric_id(element_id: str) -> int:
    return int(element_id.rsplit(":", 1)[1])


def expected_tensors(entities: List[Dict[str, Tuple[str, Any]]]) -> Dict[str, Tuple[Optional[torch.dtype], list]]:
    """Per key: (dtype if one type and no gaps else None, values in order; None where no number)."""
    out = {}
    for key in dict.fromkeys(k for props in entities for k in props):
        values = [props.get(key) for props in entities]
        numeric = [v for v in values if v is not None and (v[0] in SCALARS or v[0] in ARRAYS)]
        if not numeric:
            continue
        kinds = {v[0] in SCALARS for v in numeric}
        if len(kinds) > 1:
            continue
        if not kinds.pop():
            lengths = {len(v[1]) for v in numeric}
            if len(lengths) > 1 or 0 in lengths:
                continue
        tags = {v[0] for v in numeric}
        one = len(tags) == 1 and len(numeric) == len(values)
        dtype = (SCALARS.get(next(iter(tags))) or ARRAYS.get(next(iter(tags)))) if one else None
        out[key] = (dtype, [number(*v) if v is not None and (v[0] in SCALARS or v[0] in ARRAYS) else None
                            for v in values])
    return out


def assert_tensor(t: torch.Tensor, dtype: Optional[torch.dtype], values: list, what: str) -> None:
    if dtype is not None:
        assert t.dtype == dtype, f"{what}: {t.dtype} != {dtype}"
    else:
        assert t.dtype in (torch.float32, torch.float64), f"{what}: gaps or several types must be float: {t.dtype}"
    assert t.shape[0] == len(values), what
    for i, v in enumerate(values):
        got = t[i].tolist()
        if v is None:
            assert all(math.isnan(g) for g in (got if isinstance(got, list) else [got])), f"{what}[{i}] {got}: NaN"
        elif dtype is not None:
            expected = v
            assert got == expected or (isinstance(v, float) and math.isnan(v) and math.isnan(got)) or (
                isinstance(v, list) and all(a == b or (a != a and b != b) for a, b in zip(got, v))), \
                f"{what}[{i}]: {got} != {v}"
        else:  # promoted to float: the value exactly (every fixture and demo number fits the float chosen)
            as_list = v if isinstance(v, list) else [v]
            got_list = got if isinstance(got, list) else [got]
            for a, b in zip(got_list, as_list):
                b = float(b)
                if t.dtype == torch.float32:
                    b = struct.unpack("<f", struct.pack("<f", b))[0]
                assert a == b or (a != a and b != b), f"{what}[{i}]: {got} != {v}"


def assert_store(store: Any, entities: List[Dict[str, Any]], reserved: set, stacked: str, what: str,
                 features: Optional[Sequence[str]] = None) -> None:
    """Every tensor attribute of a node or edge store against the oracle's values, and ``x``/``edge_attr``."""
    expected = expected_tensors(entities)
    names = {(k + "_" if k in reserved else k): k for k in expected}
    present = [k for k in store.keys() if k not in ("num_nodes", "element_id", "edge_index", stacked)]
    assert sorted(present) == sorted(names), f"{what}: attributes {sorted(present)} != {sorted(names)}"
    for name, key in names.items():
        dtype, values = expected[key]
        assert_tensor(store[name], dtype, values, f"{what}.{name}")
    n = len(entities)
    assert present == sorted(present, key=lambda k: names[k]), f"{what}: attributes sorted by key"
    order = present if features is None else [k + "_" if k in reserved else k for k in features]
    if order:
        side_by_side = torch.cat([store[name].reshape(n, -1).to(torch.float32) for name in order], dim=1)
        assert store[stacked].dtype == torch.float32
        assert torch.equal(torch.nan_to_num(store[stacked], nan=12345.0), torch.nan_to_num(side_by_side, nan=12345.0))
    else:
        assert stacked not in store, what


def assert_pyg(export: sx.Export, data: Any, group_by: Sequence[str] = (),
               features: Optional[Dict[Any, Sequence[str]]] = None, separator: str = "_") -> None:
    """``data`` (HeteroData from ``export``) against the oracle: node types, every index's element id, every edge's
    ends and type, every property tensor value, ``x`` and ``edge_attr``."""
    nodes, rels = from_export(export)
    by_type: Dict[str, List[str]] = {}
    for element_id, (labels, _) in nodes.items():
        by_type.setdefault(type_name(labels, group_by, separator), []).append(element_id)
    assert data.node_types == sorted(by_type)
    where = {}
    for t, ids in by_type.items():
        ids.sort(key=_numeric_id)
        assert data[t].element_id.tolist() == ids, f"{t}: element ids in index order"
        assert data[t].num_nodes == len(ids)
        where.update({e: (t, i) for i, e in enumerate(ids)})
        assert_store(data[t], [nodes[e][1] for e in ids], NODE_RESERVED, "x", t,
                     None if features is None else features.get(t))
    seen = Counter()
    for edge_type in data.edge_types:
        store = data[edge_type]
        ids = store.element_id.tolist()
        assert ids == sorted(ids, key=_numeric_id), f"{edge_type}: relationships in id order"
        index = store.edge_index
        assert index.dtype == torch.int64 and tuple(index.shape) == (2, len(ids))
        for j, e in enumerate(ids):
            rel_type, start, end, _ = rels[e]
            assert (where[start][0], rel_type, where[end][0]) == edge_type, e
            assert index[0, j].item() == where[start][1] and index[1, j].item() == where[end][1], e
            seen[e] += 1
        wanted = None if features is None else features.get(edge_type, features.get(edge_type[1]))
        assert_store(store, [rels[e][3] for e in ids], EDGE_RESERVED, "edge_attr", str(edge_type), wanted)
    assert seen == Counter(list(rels)), "every relationship in exactly one edge type"


def assert_homogeneous(hetero: Any, data: Any) -> None:
    """``Data`` against the ``HeteroData`` of the same export: types one after another, as to_homogeneous()."""
    offsets, start = {}, 0
    for i, t in enumerate(hetero.node_types):
        n = hetero[t].num_nodes
        offsets[t] = start
        assert data.node_type[start:start + n].tolist() == [i] * n
        assert data.element_id[start:start + n].tolist() == hetero[t].element_id.tolist()
        start += n
    assert data.num_nodes == start and data.node_type_names == hetero.node_types
    assert data.edge_type_names == hetero.edge_types
    start = 0
    for i, edge_type in enumerate(hetero.edge_types):
        store = hetero[edge_type]
        e = store.edge_index.shape[1]
        assert data.edge_type[start:start + e].tolist() == [i] * e
        assert data.edge_element_id[start:start + e].tolist() == store.element_id.tolist()
        shift = torch.tensor([[offsets[edge_type[0]]], [offsets[edge_type[2]]]])
        assert torch.equal(data.edge_index[:, start:start + e], store.edge_index + shift)
        start += e
    assert data.edge_index.shape[1] == start
    back = data.to_heterogeneous()
    assert back.node_types == hetero.node_types and back.edge_types == hetero.edge_types


def assert_scipy(export: sx.Export, adjacency: Any, weight: Optional[str] = None) -> None:
    """Every entry of the matrix: the relationships (or their summed ``weight``) between its two nodes."""
    nodes, rels = from_export(export)
    ids = adjacency.element_id.tolist()
    assert sorted(ids) == sorted(nodes)
    at = {e: i for i, e in enumerate(ids)}
    expected: Dict[Tuple[int, int], float] = {}
    for _, (_, start, end, props) in rels.items():
        key = (at[start], at[end])
        if weight is None:
            expected[key] = expected.get(key, 0) + 1
        else:
            v = props.get(weight)
            value = float(number(*v)) if v is not None and v[0] in SCALARS else float("nan")
            expected[key] = expected.get(key, 0.0) + value
    coo = adjacency.matrix.tocoo()
    got = {(int(r), int(c)): v for r, c, v in zip(coo.row, coo.col, coo.data.tolist())}
    assert set(got) == set(expected)
    for k, v in expected.items():
        assert got[k] == v or (math.isnan(v) and math.isnan(got[k])), (k, got[k], v)


def shuffled(export: sx.Export, seed: int = 7, chunk: int = 3) -> sx.Export:
    """The same rows in another order and other chunks, as a partitioned export may hold them."""
    import random

    def mix(table: pa.Table) -> pa.Table:
        order = list(range(table.num_rows))
        random.Random(seed).shuffle(order)
        taken = table.take(pa.array(order, pa.int64()))
        return pa.Table.from_batches(taken.to_batches(max_chunksize=chunk), schema=table.schema)

    return sx.Export(export.header, export.summary, mix(export.nodes), mix(export.relationships))
