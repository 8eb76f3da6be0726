"""Table shaping: a stream's record batches (one dense union column, a struct child per group of nodes or
relationships) as the nodes table and the relationships table of an :class:`Export`, with element id columns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:  # pragma: no cover
    from ._export import Header

EXTRA = "extra_properties"
LEFT = (b"left_node", b"left_relationship")
"""The kinds of a delta stream's two groups of ids that left: nodes, relationships."""
NODE_COLUMNS = ("element_id", "id", "labels")
RELATIONSHIP_COLUMNS = ("element_id", "id", "type", "source", "target", "source_element_id", "target_element_id")


def split(table: Union[pa.Table, pa.RecordBatch], header: Header) -> Tuple[pa.Table, pa.Table]:
    """The nodes table and the relationships table (see :class:`Export`) of a stream's batches: each group (a
    struct child of the ``element`` union, holding only its own rows) becomes a table, without copying; the groups
    of a kind are concatenated, a column a group lacks filled with nulls."""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    parts = _groups(table.schema, [c for c in table.column(0).chunks if len(c)], header)
    return (_combine(parts[b"node"], table.schema.metadata, b"node"),
            _combine(parts[b"relationship"], table.schema.metadata, b"relationship"))


def _groups(schema: pa.Schema, chunks: List[pa.Array], header: Header) -> Dict[bytes, List[pa.Table]]:
    """Each group of the stream's union arrays ``chunks`` as a table of its own rows (no copy), with its element id
    columns, by kind. (Empty arrays are left out by the callers: pyarrow reads them with null buffers.)"""
    union = schema.field(0).type
    parts: Dict[bytes, List[pa.Table]] = {b"node": [], b"relationship": []}
    if any(union.field(i).metadata[b"subgraph.kind"] in LEFT for i in range(union.num_fields)):
        parts.update({kind: [] for kind in LEFT})
    for i in range(union.num_fields):
        group = union.field(i)
        kind = group.metadata[b"subgraph.kind"]
        part = pa.Table.from_batches([pa.RecordBatch.from_struct_array(c.field(i)) for c in chunks],
                                     schema=pa.schema(list(group.type)))
        if kind in LEFT:  # a delta stream's ids that left (docs/wire-format.md section 7.6)
            prefix = header.node_id_prefix if kind == LEFT[0] else header.relationship_id_prefix
            derived = {"element_id": _element_ids(prefix, part.column("id"))}
        elif kind == b"node":
            derived = {"element_id": _element_ids(header.node_id_prefix, part.column("id"))}
        else:
            derived = {"element_id": _element_ids(header.relationship_id_prefix, part.column("id")),
                       "source_element_id": _element_ids(header.node_id_prefix, part.column("source")),
                       "target_element_id": _element_ids(header.node_id_prefix, part.column("target"))}
        for name, column in derived.items():
            part = part.append_column(pa.field(name, pa.string(), nullable=False), column)
        parts[kind].append(part)
    return parts


def _combine(parts: List[pa.Table], metadata: Optional[Mapping[bytes, bytes]], kind: bytes) -> pa.Table:
    """The groups of one kind as one table: the fixed columns (with the element ids), the property columns in order
    of first appearance, ``extra_properties`` last."""
    fixed = NODE_COLUMNS if kind == b"node" else RELATIONSHIP_COLUMNS
    combined = pa.concat_tables(parts, promote_options="default")
    properties = [n for n in combined.column_names if n not in fixed and n != EXTRA]
    return combined.select([*fixed, *properties, EXTRA]).replace_schema_metadata(metadata)


def _element_ids(prefix: str, ids: pa.ChunkedArray) -> pa.ChunkedArray:
    return pc.utf8_replace_slice(pc.cast(ids, pa.string()), 0, 0, prefix)  # the prefix inserted: ~2x a join
