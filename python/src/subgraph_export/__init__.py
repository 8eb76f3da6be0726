"""A Neo4j subgraph, exported by the subgraph-export plugin as an Arrow stream, in pyarrow, pandas, polars, NetworkX.

>>> import subgraph_export as sx
>>> export = sx.traverse("http://localhost:7474", label="Object", key="id", value=1)  # doctest: +SKIP
>>> nodes, relationships = export.to_pandas()  # doctest: +SKIP
"""

from ._endpoints import cypher, open_cypher, open_traverse, traverse
from ._errors import ExportError, ExportFailedError, ExportRequestError, TruncatedStreamError
from ._export import Delta, Export, Header, Summary
from ._partitions import PartitionFailedError, StateChangedError, read_partitioned
from ._stream import ExportStream, read_stream
from ._tables import split

__all__ = [
    "Delta", "Export", "ExportError", "ExportFailedError", "ExportRequestError", "ExportStream", "Header", "Summary",
    "TruncatedStreamError", "cypher", "open_cypher", "open_traverse", "read_stream", "split", "traverse",
    "PartitionFailedError", "StateChangedError", "read_partitioned",
]
