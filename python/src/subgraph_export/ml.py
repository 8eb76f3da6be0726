"""An :class:`~subgraph_export.Export` as what graph learning consumes: PyTorch Geometric's ``HeteroData`` (or
``Data``), and a SciPy sparse adjacency. ``Export.to_pyg()`` and ``Export.to_scipy()`` call :func:`to_pyg` and
:func:`to_scipy`.

Everything here is vectorised (pyarrow.compute and numpy over whole columns); Python loops run over label sets,
relationship types and property columns, never over nodes or relationships. The one exception is documented at
:func:`to_pyg`: rows whose properties went to ``extra_properties`` (the wire format's fallback, by design rare).

**What these functions read.** Only ``export.nodes``, ``export.relationships`` and ``export.header``: the ``id``,
``labels``, ``element_id``, ``type``, ``source`` and ``target`` columns, the property columns with their field
metadata (``subgraph.key``, ``subgraph.type``) and ``extra_properties``. They do not depend on the order of the
rows, on how the tables are chunked, or on the stream's batches and groups: node indices are assigned by node type,
then by numeric id, and edges are ordered by edge type, then by relationship id, so any export holding the same rows
(a partitioned one, a Cypher one, a table re-read from Parquet) gives the same tensors.

torch, torch_geometric and scipy are imported when called: ``pip install "subgraph-export[ml]"`` (or ``[scipy]``
for :func:`to_scipy` alone).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
    cast,
)

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._tables import EXTRA, NODE_COLUMNS, RELATIONSHIP_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    from torch_geometric.data import Data, HeteroData

    from ._export import Export

NO_LABELS = "_unlabelled"
"""The node type of nodes without a label (PyTorch module names cannot be empty)."""
LABEL_SEPARATOR = "_"
"""Joins the labels of a label set, sorted, into its node type name: ``Extra_Object``. PyG's ``to_hetero`` warns about
type names that are not Python identifiers (``Extra:Object``); ``separator=`` picks another."""
RESERVED_NODE_ATTRIBUTES = frozenset({"x", "element_id", "num_nodes", "batch", "ptr", "node_type", "n_id"})
RESERVED_EDGE_ATTRIBUTES = frozenset({"edge_index", "edge_attr", "element_id", "num_edges", "edge_type", "e_id",
                                      "batch", "ptr"})
"""Attribute names this module sets (or PyG's loaders do): a property with such a key is stored as ``key + "_"``."""
HOMOGENEOUS_NAMES = RESERVED_NODE_ATTRIBUTES | RESERVED_EDGE_ATTRIBUTES | {
    "edge_element_id", "node_type_names", "edge_type_names"}

EdgeType = Tuple[str, str, str]
Features = Mapping[Union[str, EdgeType], Optional[Sequence[str]]]

_SCALAR = {pa.bool_(): "bool", pa.int8(): "int8", pa.int16(): "int16", pa.int32(): "int32", pa.int64(): "int64",
           pa.float32(): "float32", pa.float64(): "float64"}
"""The Arrow types that become tensors (char, uint16, does not: it is a character)."""
_JSON_TAGS = {"byte": "int8", "short": "int16", "int": "int32", "long": "int64", "float": "float32",
              "double": "float64"}
_JSON_ARRAYS = {"boolean[]": "bool", "byte[]": "int8", "short[]": "int16", "int[]": "int32", "long[]": "int64",
                "float[]": "float32", "double[]": "float64"}
_JSON_VECTORS = {"INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64", "FLOAT32": "float32",
                 "FLOAT64": "float64"}
_NON_FINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class ElementIds:
    """The element ids of a store's nodes or relationships, in index order: ``ids[i]`` is the element id of index
    ``i``; an index tensor or array, a slice or a boolean mask gives an ``ElementIds`` of those. ``tolist()``,
    ``numpy()`` (an object array), ``len``, iteration.

    The strings are made when asked for: this holds the export's ``element_id`` column and the row of each index
    (8 bytes an entity, no Python string per entity until then). A lookup table, not a per-node feature: PyG's
    transforms and loaders leave it as it is (it is neither a tensor nor a list), so ``ToUndirected`` and
    ``RandomLinkSplit`` work, and a mini-batch maps back through its ``n_id`` / ``e_id``
    (``data['Object'].element_id[batch['Object'].n_id]``)."""

    __slots__ = ("_column", "_rows")

    def __init__(self, column: pa.ChunkedArray, rows: np.ndarray) -> None:
        self._column = column
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        if hasattr(index, "detach"):  # a torch tensor (numpy reads a one-element one as an integer)
            index = index.detach().cpu().numpy()
        if isinstance(index, np.ndarray) and index.ndim == 0:
            index = index.item()
        if isinstance(index, (int, np.integer)):
            return self._column[int(self._rows[index])].as_py()
        return ElementIds(self._column, self._rows[index])

    def __iter__(self) -> Iterator[str]:
        return iter(self.tolist())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.numpy() if dtype is None else self.numpy().astype(dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ElementIds) and self.tolist() == other.tolist()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ElementIds({len(self._rows)})"

    def arrow(self) -> pa.Array:
        """The element ids as a pyarrow string array (one ``take``)."""
        return self._column.take(pa.array(self._rows)).combine_chunks()

    def tolist(self) -> List[str]:
        return self.arrow().to_pylist()

    def numpy(self) -> np.ndarray:
        """A numpy object array of ``str``."""
        return self.arrow().to_numpy(zero_copy_only=False)


class Adjacency(NamedTuple):
    """What :func:`to_scipy` returns: ``matrix`` (``scipy.sparse.csr_array``, n x n: row = source, column = target)
    and ``element_id`` (:class:`ElementIds`: the element id of the node at each index)."""

    matrix: Any
    element_id: ElementIds


# ---- the index: node types, node order, edge types, edge order --------------------------------------------------


@dataclass
class _Index:
    """Node and edge order shared by every conversion. Positions are "global": nodes by type, then id."""

    node_types: List[str]
    node_type: np.ndarray  # per row of export.nodes: its node type's position in node_types
    node_order: np.ndarray  # rows of export.nodes in global index order
    node_starts: np.ndarray  # node type t has global indices node_starts[t] .. node_starts[t + 1] - 1
    edge_types: List[EdgeType]
    edge_order: np.ndarray  # rows of export.relationships in edge order
    edge_starts: np.ndarray
    source: np.ndarray  # global index of each edge's source node, in edge order
    target: np.ndarray

    def nodes_of(self, t: int) -> np.ndarray:
        return self.node_order[self.node_starts[t]:self.node_starts[t + 1]]

    def edges_of(self, e: int) -> np.ndarray:
        return self.edge_order[self.edge_starts[e]:self.edge_starts[e + 1]]


class _Lookup:
    """Rows of a table by numeric id: ``by_id`` (the rows in ascending id order) and :meth:`rows` (the row of each
    id asked, -1 where none). Ids of one database are dense (0 .. a little over the count): a table indexed by id
    (a counting sort, no comparison sort) where the ids span at most 8 times their number, else a sort and binary
    searches."""

    def __init__(self, ids: np.ndarray, what: str) -> None:
        n = len(ids)
        self._low = int(ids.min()) if n else 0
        span = int(ids.max()) - self._low + 1 if n else 0
        self._table: Optional[np.ndarray] = None
        if span <= 8 * n + 1024:
            table = np.full(span, -1, dtype=np.int64)
            table[ids - self._low] = np.arange(n, dtype=np.int64)
            self.by_id = table[table >= 0]
            self._table = table
            duplicated = len(self.by_id) != n
        else:
            self.by_id = np.argsort(ids, kind="stable")
            self._sorted = ids[self.by_id]
            duplicated = bool(np.any(self._sorted[1:] == self._sorted[:-1]))
        if duplicated:
            counts = np.unique(ids, return_counts=True)
            raise ValueError(f"{what}{counts[0][counts[1] > 1][0]} is there more than once")

    def rows(self, ids: np.ndarray) -> np.ndarray:
        if self._table is not None:
            at = ids - self._low
            if len(at) and at.min() >= 0 and at.max() < len(self._table):
                return self._table[at]  # every id within the table's span: one gather
            inside = (at >= 0) & (at < len(self._table))
            out = np.full(len(ids), -1, dtype=np.int64)
            out[inside] = self._table[at[inside]]
            return out
        at = np.minimum(np.searchsorted(self._sorted, ids), max(len(self._sorted) - 1, 0))
        found = self._sorted[at] == ids if len(self._sorted) else np.zeros(len(ids), bool)
        return np.where(found, self.by_id[at] if len(self.by_id) else at, -1)


def _grouped(by_id: np.ndarray, code: np.ndarray, n_codes: int) -> np.ndarray:
    """``by_id`` (rows in id order) regrouped by ``code`` (stable: in id order within a code); numpy's stable sort is
    a radix sort for 16-bit keys."""
    key = code[by_id].astype(np.int16 if n_codes < 2 ** 15 else np.int64)
    return by_id[np.argsort(key, kind="stable")]


def _index(export: "Export", group_by: Union[None, str, Sequence[str]] = None,
           relationship_types: Optional[Iterable[str]] = None, separator: str = LABEL_SEPARATOR) -> _Index:
    nodes, rels = export.nodes, export.relationships
    type_names, node_type = _node_types(nodes.column("labels"), group_by, separator)
    ids = _int64(nodes.column("id"))
    lookup = _Lookup(ids, "export.nodes: node " + export.header.node_id_prefix)
    node_order = _grouped(lookup.by_id, node_type, len(type_names))
    node_starts = _starts(node_type, len(type_names))
    position = np.empty(len(ids), dtype=np.int64)
    position[node_order] = np.arange(len(ids), dtype=np.int64)

    rel_type_names, rel_type = _dictionary_codes(rels.column("type"))
    rows = None
    if relationship_types is not None:
        wanted = set(relationship_types)
        rows = np.flatnonzero(np.isin(rel_type, [i for i, n in enumerate(rel_type_names) if n in wanted]))
    rel_ids = _int64(rels.column("id"))
    if rows is not None:
        rel_ids, rel_type = rel_ids[rows], rel_type[rows]
    ends = []
    for column in ("source", "target"):
        end_ids = _int64(rels.column(column))
        found = lookup.rows(end_ids if rows is None else end_ids[rows])  # row of export.nodes
        if found.size and found.min() < 0:
            j = int(np.argmax(found < 0))
            raise ValueError(f"relationship {export.header.relationship_id_prefix}{rel_ids[j]}: its {column} node "
                             f"{export.header.node_id_prefix}{(end_ids if rows is None else end_ids[rows])[j]} is "
                             "not in export.nodes")
        ends.append(found)
    n_types, n_rel = len(type_names), max(len(rel_type_names), 1)
    code = (node_type[ends[0]] * n_rel + rel_type) * n_types + node_type[ends[1]]
    encoded = pa.array(code).dictionary_encode()  # hashing: the few distinct edge types, no sort of E codes
    codes = encoded.dictionary.to_numpy()
    edge_types = [(type_names[c // n_rel // n_types], rel_type_names[c // n_types % n_rel], type_names[c % n_types])
                  for c in codes.tolist()]
    by_name = sorted(range(len(edge_types)), key=lambda i: edge_types[i])
    rank = np.empty(len(edge_types), dtype=np.int64)
    rank[by_name] = np.arange(len(edge_types))
    edge_types = [edge_types[i] for i in by_name]
    edge_code = rank[encoded.indices.to_numpy()] if len(edge_types) else np.zeros(0, np.int64)
    local_order = _grouped(_Lookup(rel_ids, "export.relationships: " + export.header.relationship_id_prefix).by_id,
                           edge_code, len(edge_types))
    edge_order = local_order if rows is None else rows[local_order]
    return _Index(type_names, node_type, node_order, node_starts, edge_types, edge_order,
                  _starts(edge_code, len(edge_types)), position[ends[0][local_order]],
                  position[ends[1][local_order]])


def _starts(codes: np.ndarray, n: int) -> np.ndarray:
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=n), out=starts[1:])
    return starts


def _int64(column: Union[pa.ChunkedArray, pa.Array]) -> np.ndarray:
    if isinstance(column, pa.ChunkedArray) and column.num_chunks == 1:
        column = column.chunk(0)
    array = column.to_numpy() if column.null_count == 0 else None
    if array is None:
        raise ValueError("null in an id column")
    return np.asarray(array, dtype=np.int64)


def _dictionary_codes(column: pa.ChunkedArray) -> Tuple[List[str], np.ndarray]:
    """A string or dictionary column as (distinct values, sorted; each row's position among them)."""
    names: Dict[str, int] = {}
    parts = []
    for chunk in column.chunks:
        if not pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_encode()
        lut = np.array([names.setdefault(s, len(names)) for s in chunk.dictionary.to_pylist()] or [0], np.int64)
        parts.append(lut[chunk.indices.to_numpy(zero_copy_only=False)])
    codes = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    ordered = sorted(names)
    rank = np.array([ordered.index(n) for n in names] or [0], dtype=np.int64)
    return ordered, rank[codes]


def _node_types(labels: pa.ChunkedArray, group_by: Union[None, str, Sequence[str]],
                separator: str) -> Tuple[List[str], np.ndarray]:
    """Each node's type: its label set's name (labels sorted, joined by ``separator``), or with ``group_by`` the
    first label of that list it carries (nodes with none of them keep their label set's name). Types sorted by
    name. Two label sets with one name (``A_B`` and ``A``, ``B``) raise ValueError: they would merge silently."""
    names: Dict[str, int] = {}
    parents, codes, offset = [], [], 0
    for chunk in labels.chunks:
        values = chunk.flatten()
        if not pa.types.is_dictionary(values.type):
            values = values.dictionary_encode()
        lut = np.array([names.setdefault(s, len(names)) for s in values.dictionary.to_pylist()] or [0], np.int64)
        codes.append(lut[values.indices.to_numpy(zero_copy_only=False)])
        parents.append(pc.list_parent_indices(chunk).to_numpy() + offset)
        offset += len(chunk)
    n = offset
    parent = np.concatenate(parents) if parents else np.zeros(0, np.int64)
    code = np.concatenate(codes) if codes else np.zeros(0, np.int64)
    words = max(1, -(-len(names) // 64))
    mask = np.zeros((n, words), dtype=np.uint64)
    bits = np.left_shift(np.uint64(1), (code % 64).astype(np.uint64))
    if words == 1 and len(parent) == n and (n == 0 or (parent[0] == 0 and np.all(np.diff(parent) == 1))):
        mask[:, 0] = bits  # one label per node, the common case: no scatter
    else:
        np.bitwise_or.at(mask, (parent, code // 64), bits)
    if words == 1:
        encoded = pa.array(mask[:, 0]).dictionary_encode()
        sets, which = encoded.dictionary.to_numpy().reshape(-1, 1), encoded.indices.to_numpy().astype(np.int64)
    else:
        sets, which = np.unique(mask, axis=0, return_inverse=True)
        which = which.reshape(-1)
    label_names = list(names)
    priority = [group_by] if isinstance(group_by, str) else list(group_by or [])
    type_of_set = []
    named: Dict[str, Tuple[str, ...]] = {}
    for bits in sets:
        members = [label_names[i] for i in range(len(label_names)) if int(bits[i // 64]) >> (i % 64) & 1]
        chosen = next((label for label in priority if label in members), None)
        name = chosen if chosen is not None else separator.join(sorted(members)) if members else NO_LABELS
        if chosen is None and named.setdefault(name, tuple(sorted(members))) != tuple(sorted(members)):
            raise ValueError(f"the label sets {list(named[name])} and {sorted(members)} are both named {name!r}: "
                             "pass another separator (separator=':')")
        type_of_set.append(name)
    type_names = sorted(set(type_of_set))
    lut = np.array([type_names.index(t) for t in type_of_set] or [0], dtype=np.int64)
    return type_names, lut[which] if n else np.zeros(0, np.int64)


# ---- property columns into arrays --------------------------------------------------------------------------------


@dataclass
class _Column:
    """One source of a property key's values: an Arrow column of the table (all rows), or values decoded from
    ``extra_properties`` (rows given by ``rows``, positions in the table)."""

    kind: str  # "scalar", "list" or "other"
    dtype: Optional[str]  # numpy dtype name of the scalar or of the list's elements
    column: Optional[pa.ChunkedArray] = None
    extra_rows: Optional[np.ndarray] = None
    extra_values: Optional[List[Any]] = None
    groups: Optional[np.ndarray] = None  # per group of rows (type): whether any of its rows has a value here


def _columns(table: pa.Table, fixed: Sequence[str]) -> Dict[str, List[_Column]]:
    """The property columns of ``table`` by key, plus what ``extra_properties`` holds (decoded row by row: the
    fallback rows only)."""
    by_key: Dict[str, List[_Column]] = {}
    for field in table.schema:
        if field.name in fixed or field.name == EXTRA:
            continue
        key = (field.metadata or {}).get(b"subgraph.key", field.name.encode()).decode()
        t = field.type
        if t in _SCALAR:
            c = _Column("scalar", _SCALAR[t], table.column(field.name))
        elif (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)) \
                and t.value_type in _SCALAR:
            c = _Column("list", _SCALAR[t.value_type], table.column(field.name))
        else:
            c = _Column("other", None, table.column(field.name))
        by_key.setdefault(key, []).append(c)
    if EXTRA in table.column_names:
        extra = table.column(EXTRA)
        if extra.null_count < len(extra):
            rows = np.flatnonzero(extra.is_valid().to_numpy(zero_copy_only=False))
            found: Dict[Tuple[str, str, Optional[str]], Tuple[List[int], List[Any]]] = {}
            for row, text in zip(rows.tolist(), extra.take(pa.array(rows)).to_pylist()):
                for key, value in json.loads(text).items():
                    kind, dtype, decoded = _json_value(value)
                    entry = found.setdefault((key, kind, dtype), ([], []))
                    entry[0].append(row)
                    entry[1].append(decoded)
            for (key, kind, dtype), (where, values) in found.items():
                by_key.setdefault(key, []).append(_Column(kind, dtype, None, np.array(where, np.int64), values))
    return by_key


def _json_value(value: Any) -> Tuple[str, Optional[str], Any]:
    """A value in the json format's encoding (docs/wire-format.md 4.2) as (kind, dtype, number or list)."""
    if isinstance(value, bool):
        return "scalar", "bool", value
    if isinstance(value, int):
        return "scalar", "int64", value
    if isinstance(value, float):
        return "scalar", "float64", value
    if isinstance(value, dict) and len(value) == 1:
        (tag, payload), = value.items()
        if tag in _JSON_TAGS:
            return "scalar", _JSON_TAGS[tag], _NON_FINITE.get(payload, payload) if isinstance(payload, str) else payload
        if tag in _JSON_ARRAYS:
            return "list", _JSON_ARRAYS[tag], [_NON_FINITE.get(v, v) if isinstance(v, str) else v for v in payload]
        if tag == "vector" and payload.get("kind") in _JSON_VECTORS:
            return "list", _JSON_VECTORS[payload["kind"]], [_NON_FINITE.get(v, v) if isinstance(v, str) else v
                                                            for v in payload["values"]]
    return "other", None, None


def _promote(dtypes: Sequence[str], missing: bool) -> str:
    """One dtype for several sources (long and double values of one key), or for values with gaps (float, NaN in
    the gaps: float32 where it holds every value exactly, float64 otherwise)."""
    kinds = {np.dtype(d).kind for d in dtypes}
    if not missing:
        if len(set(dtypes)) == 1:
            return dtypes[0]
        if kinds == {"i"}:
            return np.result_type(*dtypes).name
    small = all(np.dtype(d).kind == "b" or np.dtype(d).itemsize <= 2 or d == "float32" for d in dtypes)
    return "float32" if small else "float64"


def _property_array(sources: List[_Column], rows: np.ndarray, position: np.ndarray,
                    group: Optional[int] = None) -> Optional[np.ndarray]:
    """The values of one key for the table rows ``rows`` (in that order) as one numpy array, or None if the key is
    not a tensor here (no numeric value, a non-numeric kind mixed with lists, arrays of several lengths).

    ``position`` maps a table row to its place in ``rows`` (-1 elsewhere); ``group`` is the rows' position in the
    sources' ``groups``, where known. Rows without a numeric value (the key missing, or holding a string there) are
    NaN, the array then float."""
    n = len(rows)
    present: List[Tuple[_Column, Any, Optional[List[Any]]]] = []
    for s in sources:
        if s.kind == "other":  # a string, date, ... where a number would be: NaN there, as a missing value
            continue
        if s.column is not None:
            if group is not None and s.groups is not None and not s.groups[group]:
                continue  # the key is not on these rows: nothing to take
            taken = s.column.take(pa.array(rows))
            if taken.null_count < len(taken):
                present.append((s, taken, None))
        else:
            at = position[s.extra_rows]
            keep = at >= 0
            if keep.any():
                picked = [v for v, k in zip(cast("List[Any]", s.extra_values), keep.tolist()) if k]
                present.append((s, at[keep], picked))
    numeric = present
    if not numeric or len({p[0].kind for p in numeric}) > 1:
        return None
    kind = numeric[0][0].kind
    covered = 0
    for _, taken, values in numeric:
        covered += len(taken) - taken.null_count if values is None else len(values)
    missing = covered < n
    dtype = _promote([cast("str", p[0].dtype) for p in numeric], missing)  # set on every numeric source
    if kind == "scalar":
        if len(numeric) == 1 and numeric[0][2] is None and not missing:
            return _numpy(numeric[0][1], dtype)
        out = np.full(n, np.nan, dtype=dtype) if missing else np.empty(n, dtype=dtype)
        for _, taken, values in numeric:
            if values is None:
                valid = taken.is_valid().to_numpy(zero_copy_only=False)
                out[valid] = _numpy(taken.drop_null(), dtype)
            else:
                out[taken] = np.array(values, dtype=dtype)
        return out
    lengths = set()
    for _, taken, values in numeric:
        if values is None:
            lengths.update(pc.unique(pc.list_value_length(taken).drop_null()).to_pylist())
        else:
            lengths.update(len(v) for v in values)
    if len(lengths) != 1 or 0 in lengths:  # several lengths, or only empty arrays: no tensor
        return None
    width = lengths.pop()
    if len(numeric) == 1 and numeric[0][2] is None and not missing:
        return _numpy(pc.list_flatten(numeric[0][1]), dtype).reshape(n, width)
    out = np.full((n, width), np.nan, dtype=dtype) if missing else np.empty((n, width), dtype=dtype)
    for _, taken, values in numeric:
        if values is None:
            valid = taken.is_valid().to_numpy(zero_copy_only=False)
            out[valid] = _numpy(pc.list_flatten(taken.drop_null()), dtype).reshape(-1, width)
        else:
            out[taken] = np.array(values, dtype=dtype).reshape(-1, width)
    return out


def _numpy(values: Union[pa.Array, pa.ChunkedArray], dtype: str) -> np.ndarray:
    """Arrow values without nulls, made by this module (a ``take``, never the export's own buffers), as a writable
    numpy array of ``dtype``: on Arrow's buffer itself where it has that dtype (numpy's view of it is read-only, and
    a tensor must take ``x.nan_to_num_()``: the buffer is mutable and ours, so it is mapped writable), else one
    conversion."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    array = values.to_numpy(zero_copy_only=False)
    if array.dtype != np.dtype(dtype):
        return array.astype(dtype)
    if array.flags.writeable:
        return array
    data = values.buffers()[1]
    if data is not None and data.is_mutable and array.dtype.kind != "b":
        return np.frombuffer(data, dtype=array.dtype, count=len(values), offset=values.offset * array.itemsize)
    return array.copy()


def _attributes(table: pa.Table, fixed: Sequence[str], index_rows: Sequence[np.ndarray], names: Sequence[Any],
                features: Optional[Features], is_edge: bool) -> List[Tuple[Dict[str, np.ndarray], List[str]]]:
    """Per group of rows (a node or edge type): its tensor-able properties by key, in column order, and the keys
    ``x`` (``edge_attr``) stacks: those ``features`` names for the type, else all."""
    by_key = _columns(table, fixed)
    group_of_row = np.full(table.num_rows, len(index_rows), dtype=np.int64)  # len: rows in no group
    for g, rows in enumerate(index_rows):
        group_of_row[rows] = g
    for sources in by_key.values():
        for s in sources:
            if s.column is not None and s.kind != "other":
                s.groups = _groups_holding(s.column, group_of_row, len(index_rows) + 1)
    position = np.full(table.num_rows, -1, dtype=np.int64)
    out = []
    for g, (rows, name) in enumerate(zip(index_rows, names)):
        position[rows] = np.arange(len(rows))
        arrays: Dict[str, np.ndarray] = {}
        for key, sources in sorted(by_key.items()):
            array = _property_array(sources, rows, position, g) if len(rows) else None
            if array is not None:
                arrays[key] = array
        position[rows] = -1
        wanted = _wanted(features, name, is_edge)
        for key in wanted or []:
            if key not in arrays:
                raise ValueError(f"features: {name!r} has no numeric, boolean or equal-length numeric array values "
                                 f"of {key!r}")
        out.append((arrays, sorted(arrays) if wanted is None else wanted))
    return out


def _groups_holding(column: pa.ChunkedArray, group_of_row: np.ndarray, n_groups: int) -> np.ndarray:
    """Which groups of rows have a value in ``column``, chunk by chunk: a chunk of nulls only (a label set without
    the key: most chunks of most columns) is skipped on its null count, a chunk whose rows are all in one group
    costs a min and a max."""
    held = np.zeros(n_groups, dtype=bool)
    start = 0
    for chunk in column.chunks:
        end = start + len(chunk)
        if chunk.null_count < len(chunk):
            groups = group_of_row[start:end]
            low, high = groups.min(), groups.max()
            if low == high:
                held[low] = True
            else:
                valid = chunk.is_valid().to_numpy(zero_copy_only=False)
                held[np.unique(groups[valid])] = True
        start = end
    return held


def _wanted(features: Optional[Features], name: Any, is_edge: bool) -> Optional[List[str]]:
    if features is None:
        return None
    if name in features:
        picked = features[name]
    elif is_edge and name[1] in features:
        picked = features[name[1]]
    else:
        return None
    return None if picked is None else list(picked)


def _attribute_name(key: str, reserved: FrozenSet[str]) -> str:
    return key + "_" if key in reserved else key


def _element_ids(table: pa.Table, rows: np.ndarray) -> ElementIds:
    return ElementIds(table.column("element_id"), rows)


def _stack(arrays: Iterable[np.ndarray], n: int) -> Optional[np.ndarray]:
    """The arrays side by side as float32 (n x total width), or None if there are none."""
    with np.errstate(over="ignore"):  # a double beyond float32's range becomes +-inf, as torch's .float() does
        parts = [a.reshape(n, -1).astype(np.float32, copy=False) for a in arrays]
    return np.concatenate(parts, axis=1) if parts else None


# ---- the conversions ---------------------------------------------------------------------------------------------


def to_pyg(export: "Export", *, group_by: Union[None, str, Sequence[str]] = None,
           features: Optional[Features] = None, homogeneous: bool = False,
           relationship_types: Optional[Iterable[str]] = None,
           separator: str = LABEL_SEPARATOR) -> Union[HeteroData, Data]:
    """The export as ``torch_geometric.data.HeteroData`` (or ``Data`` with ``homogeneous=True``).

    **Node types.** One per label set, named by its labels sorted and joined by ``separator`` (default ``_``:
    ``Object``, ``Extra_Object``; PyG's ``to_hetero`` warns about names that are not Python identifiers; nodes
    without labels: ``_unlabelled``; two label sets with one name raise ``ValueError``). ``group_by`` (a label, or a
    list of them in priority order) groups by one label instead: a node goes to the first of those labels it
    carries; a node with none of them keeps its label set's type. Types are sorted by name. Within a type, nodes are
    indexed 0 .. n-1 in ascending numeric id; each node store has ``num_nodes`` and ``element_id``
    (:class:`ElementIds`: the element id at each index, to write predictions back; a lookup table that PyG's
    transforms and loaders leave alone, so a mini-batch maps back through its ``n_id``).

    **Edge types.** One per (source node type, relationship type, target node type), sorted; edges in ascending
    relationship id. Each edge store has ``edge_index`` (int64, 2 x E, indices of the node types' stores) and
    ``element_id`` (the relationships' element ids). ``relationship_types`` keeps only those types (all nodes stay).

    **Properties.** A property key becomes a tensor attribute of a store named by the key
    (``data['Structure'].weight``; a key that collides with ``x``, ``element_id``, ``edge_index``, ``num_nodes``,
    ``batch``, ``ptr`` and the like gets a trailing ``_``) when its values in that type are numbers or booleans
    (shape n), or numeric arrays or vectors of one length (n x length). The dtype is Neo4j's: boolean ``torch.bool``,
    byte/short/int/long ``int8``/``int16``/``int32``/``int64``, float/double ``float32``/``float64``. Where the key is
    missing on some nodes (or holds a non-numeric value there, such as a string), the tensor is float with NaN there:
    ``float32`` for booleans, bytes, shorts and floats, ``float64`` otherwise (a long beyond 2**53 is then rounded);
    keys with values of several numeric types (long and double) promote the same way. Strings, dates, points and
    other types, and arrays of several lengths, make no tensor: they stay in ``export.nodes`` /
    ``export.relationships``. ``x`` (nodes) and ``edge_attr`` (edges) are the chosen keys side by side in float32
    (n x total width; a double beyond float32's range is +-inf there): every such key sorted by name (not in column
    order, which follows the stream's batches), or those ``features`` picks for the type, in its order; a type with
    none has no ``x``. ``features`` maps a node type's
    name, a relationship type or an edge type to a list of keys: ``{"Object": ["weight", "version"], "CHILDREN": [],
    ("Object", "PROPERTY", "Structure"): ["order"]}`` (``None``: all); types not named stack every key. The
    attributes stay there for every key (a target ``y`` is one of them: ``data['Object'].active``). A named key
    that makes no tensor raises ``ValueError``.

    Values in ``extra_properties`` (a key or type first seen after the stream's first batch) are decoded from their
    JSON, one row at a time: the only per-row Python work, on the rows that have such values (by design few).

    **Homogeneous.** ``homogeneous=True`` returns ``torch_geometric.data.Data`` in the order PyG's
    ``HeteroData.to_homogeneous()`` uses (node types one after another): ``edge_index``, ``node_type`` and
    ``edge_type`` (int64 positions in the lists ``node_type_names`` and ``edge_type_names``, attributes too, where
    ``Data.to_heterogeneous()`` finds them), ``element_id`` and ``edge_element_id``, ``num_nodes``; ``x`` and
    ``edge_attr`` when every type has one of the same width; property tensors of a key that every node (edge) type
    has with the same trailing shape (edge ones as ``edge_<key>``), promoted to one dtype.

    PyG's batching (``DataLoader`` over several graphs) adds offsets to attributes whose name contains ``index``
    or ``batch``: a property named so (the demo's ``PROPERTY.index``) would be shifted there; loaders that sample
    one graph (``NeighborLoader``) leave it alone.

    **Memory and copies.** Tensors are made with ``torch.from_numpy`` on the buffers of Arrow's ``take`` that puts
    them in index order (one copy of each column: the reordering itself); ids and edge indices are int64 throughout.
    Besides the tensors, the index takes a few int64 arrays of one entry per node and relationship while it is
    built. On the founding-size demo graph (583,125 nodes, 583,124 relationships): 47 MB of tensors, the process
    grew by 114 MB (the export's own tables: 255 MB).

    Depends only on ``export.nodes``, ``export.relationships`` and ``export.header`` (see the module's docstring),
    not on row order, batches or groups: it works unchanged on a partitioned export. Raises ``ValueError`` if a
    relationship's end node is not in ``export.nodes`` or a node is there twice.
    """
    import torch
    from torch_geometric.data import Data, HeteroData

    index = _index(export, group_by, relationship_types, separator)
    nodes, rels = export.nodes, export.relationships
    node_rows = [index.nodes_of(t) for t in range(len(index.node_types))]
    edge_rows = [index.edges_of(e) for e in range(len(index.edge_types))]
    node_attrs = _attributes(nodes, NODE_COLUMNS, node_rows, index.node_types, features, False)
    edge_attrs = _attributes(rels, RELATIONSHIP_COLUMNS, edge_rows, index.edge_types, features, True)
    tensor = torch.from_numpy
    if homogeneous:
        data = Data()
        data.edge_index = tensor(np.stack([index.source, index.target]))
        data.node_type = tensor(np.repeat(np.arange(len(index.node_types), dtype=np.int64),
                                          np.diff(index.node_starts)))
        data.edge_type = tensor(np.repeat(np.arange(len(index.edge_types), dtype=np.int64),
                                          np.diff(index.edge_starts)))
        data.node_type_names = list(index.node_types)
        data.edge_type_names = list(index.edge_types)
        data._node_type_names = list(index.node_types)  # as HeteroData.to_homogeneous(): Data.to_heterogeneous()
        data._edge_type_names = list(index.edge_types)
        data.element_id = _element_ids(nodes, index.node_order)
        data.edge_element_id = _element_ids(rels, index.edge_order)
        data.num_nodes = nodes.num_rows
        for types_attrs, types_rows, reserved, prefix, stacked_name in (
                (node_attrs, node_rows, RESERVED_NODE_ATTRIBUTES, "", "x"),
                (edge_attrs, edge_rows, RESERVED_EDGE_ATTRIBUTES, "edge_", "edge_attr")):
            stacks = [_stack([a[k] for k in keys], len(r)) for (a, keys), r in zip(types_attrs, types_rows)]
            present = [s for s in stacks if s is not None]
            if stacks and len(present) == len(stacks) and len({s.shape[1] for s in present}) == 1:
                data[stacked_name] = tensor(np.concatenate(present))
            for key in types_attrs[0][0] if types_attrs else []:
                found = [a.get(key) for a, _ in types_attrs]
                arrays = [a for a in found if a is not None]
                if len(arrays) == len(found) and len({a.shape[1:] for a in arrays}) == 1:
                    dtype = _promote([a.dtype.name for a in arrays], False)
                    data[_attribute_name(prefix + key, reserved | HOMOGENEOUS_NAMES)] = tensor(
                        np.concatenate([a.astype(dtype, copy=False) for a in arrays]))
        return data
    data = HeteroData()
    for name, rows, (attrs, stacked) in zip(index.node_types, node_rows, node_attrs):
        store = data[name]
        store.num_nodes = len(rows)
        store.element_id = _element_ids(nodes, rows)
        for key, array in attrs.items():
            store[_attribute_name(key, RESERVED_NODE_ATTRIBUTES)] = tensor(array)
        x = _stack([attrs[k] for k in stacked], len(rows))
        if x is not None:
            store.x = tensor(x)
    for e, (edge_type, rows, (attrs, stacked)) in enumerate(zip(index.edge_types, edge_rows, edge_attrs)):
        src, dst = index.node_types.index(edge_type[0]), index.node_types.index(edge_type[2])
        span = slice(index.edge_starts[e], index.edge_starts[e + 1])
        store = data[edge_type]
        store.edge_index = tensor(np.stack([index.source[span] - index.node_starts[src],
                                            index.target[span] - index.node_starts[dst]]))
        store.element_id = _element_ids(rels, rows)
        for key, array in attrs.items():
            store[_attribute_name(key, RESERVED_EDGE_ATTRIBUTES)] = tensor(array)
        edge_attr = _stack([attrs[k] for k in stacked], len(rows))
        if edge_attr is not None:
            store.edge_attr = tensor(edge_attr)
    return data


def to_scipy(export: "Export", *, weight: Optional[str] = None, relationship_types: Optional[Iterable[str]] = None,
             separator: str = LABEL_SEPARATOR) -> Adjacency:
    """The export's adjacency as a ``scipy.sparse.csr_array`` (n x n, row = source, column = target) with the
    element id of the node at each index (:class:`Adjacency`; unpacks as ``matrix, element_id = ...``).

    Node indices are those of ``to_pyg(export, homogeneous=True)``: label sets sorted by name, then ascending numeric
    id. An entry counts the relationships from its row to its column (int64), or with ``weight`` sums that
    relationship property's values (float64; NaN where a relationship lacks it, or holds no number).
    ``relationship_types`` keeps only those types. Depends only on ``export.nodes``, ``export.relationships`` and
    ``export.header``: works unchanged on a partitioned export.
    """
    import scipy.sparse

    index = _index(export, None, relationship_types, separator)
    n = export.nodes.num_rows
    if weight is None:
        values = np.ones(len(index.source), dtype=np.int64)
    else:
        position = np.full(export.relationships.num_rows, -1, dtype=np.int64)
        position[index.edge_order] = np.arange(len(index.edge_order))
        sources = _columns(export.relationships, RELATIONSHIP_COLUMNS).get(weight, [])
        array = _property_array(sources, index.edge_order, position) if sources else None
        if array is None or array.ndim != 1:
            raise ValueError(f"weight: the relationships have no numeric values of {weight!r}")
        values = array.astype(np.float64, copy=False)
    matrix = scipy.sparse.csr_array((values, (index.source, index.target)), shape=(n, n))
    matrix.sum_duplicates()
    return Adjacency(matrix, _element_ids(export.nodes, index.node_order))
