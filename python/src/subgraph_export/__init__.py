"""A Neo4j subgraph, exported by the subgraph-export plugin as an Arrow stream, in pyarrow, pandas, polars, NetworkX.

>>> import subgraph_export as sx
>>> export = sx.traverse("http://localhost:7474", label="Object", key="id", value=1)  # doctest: +SKIP
>>> nodes, relationships = export.to_pandas()  # doctest: +SKIP
"""

from ._export import (
    Export,
    ExportError,
    ExportFailedError,
    ExportRequestError,
    ExportStream,
    Header,
    Summary,
    TruncatedStreamError,
    cypher,
    open_cypher,
    open_traverse,
    read_stream,
    split,
    traverse,
)
from ._partitions import PartitionFailedError, StateChangedError, read_partitioned

__all__ = [
    "Export", "ExportError", "ExportFailedError", "ExportRequestError", "ExportStream", "Header", "Summary",
    "TruncatedStreamError", "cypher", "open_cypher", "open_traverse", "read_stream", "split", "traverse",
    "PartitionFailedError", "StateChangedError", "read_partitioned",
]
