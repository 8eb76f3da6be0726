"""What an export is: its :class:`Header` and :class:`Summary` (the stream's first and last records) and the
:class:`Export` (nodes and relationships as pyarrow Tables), with its conversions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa

from . import _convert

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx
    import pandas as pd
    import polars as pl
    from torch_geometric.data import Data, HeteroData

    from .ml import Adjacency


@dataclass(frozen=True)
class Header:
    """What the stream starts with (the schema's metadata). ``state`` is the store state the export read (the
    ``Subgraph-Export-State`` token; empty in a version 1 stream); ``partition`` of ``partitions`` says which share
    of a partitioned export the stream carries (0 of 1: the whole export)."""

    database: str
    root: str
    node_id_prefix: str
    relationship_id_prefix: str
    version: int
    state: str = ""
    partition: int = 0
    partitions: int = 1
    since: str = ""
    """A delta stream's earlier state (the ``since=`` it answers, docs/wire-format.md section 1.4); empty for an
    export."""


@dataclass(frozen=True)
class Summary:
    """The end record: counts written by the server, whether a limit cut the subgraph short, and the store state
    when the stream ended (equal to the header's: no commit happened while the export read; empty in version 1)."""

    nodes: int
    relationships: int
    truncated: bool
    state: str = ""

@dataclass
class Delta:
    """A delta stream read whole (``since=``, docs/wire-format.md section 1.4): ``nodes`` and ``relationships`` that
    joined or changed since ``header.since`` (tables as :class:`Export` has them), and the element ids of the nodes
    and relationships that left (``left_nodes``, ``left_relationships``: string arrays). :meth:`Export.refresh`
    applies one."""

    header: Header
    summary: Summary
    nodes: pa.Table
    relationships: pa.Table
    left_nodes: pa.ChunkedArray
    left_relationships: pa.ChunkedArray


@dataclass
class Export:
    """A complete export: ``nodes`` and ``relationships`` as pyarrow Tables.

    Nodes: ``element_id`` (string), ``id`` (the numeric part), ``labels`` (list of dictionary strings), one column
    per property key, ``extra_properties``. Relationships: ``element_id``, ``id``, ``type``, ``source``, ``target``
    (numeric node ids), ``source_element_id``, ``target_element_id``, properties, ``extra_properties``.
    Rows come grouped as the stream has them: nodes by label set, relationships by type (groups in order of first
    appearance, the catch-all groups first), in walk order within a group. A property column is named by its key;
    a key with values of several types has a column per type, the later ones named ``key:type`` (``value:long``),
    as does a key named like a fixed column (``id:long``); the field metadata ``subgraph.key`` and
    ``subgraph.type`` say which. ``extra_properties`` holds, as a JSON object in the json format's value encoding,
    every property no column holds (docs/wire-format.md section 7); null where there is none.
    """

    header: Header
    summary: Summary
    nodes: pa.Table
    relationships: pa.Table
    source: Optional[Any] = field(default=None, repr=False, compare=False)
    """Where the export was read from (set by :func:`traverse`): what :meth:`refresh` asks again."""

    def refresh(self) -> "Export":
        """This export as it is now on the server, as a new Export (tables included): only what changed since this
        export's :attr:`state` (a delta stream, ``since=``: docs/wire-format.md section 1.4) applied to its tables, or
        the whole export read again when the server cannot answer a delta exactly (``410 Export.DeltaUnavailable``,
        or that error record), when commits fell inside three deltas in a row, or when this export has no state.
        Only for exports read by :func:`traverse` without ``partitions``. Rows that stayed keep their order, new and
        changed rows come after them; a property column keeps this export's name for its key and type (a key with
        several types may name its columns otherwise than a fresh export would: the field metadata ``subgraph.key``
        and ``subgraph.type`` say which). Raises as :func:`traverse`."""
        from ._delta import refresh

        return refresh(self)

    @property
    def state(self) -> str:
        """The store state the export read (``Subgraph-Export-State``; the header's ``state``): pass it as ``state=``
        to :func:`open_traverse` to read more of exactly this state, or compare it to a later export's."""
        return self.header.state

    def to_pandas(self, **kwargs: Any) -> Tuple[pd.DataFrame, pd.DataFrame]:
        """``(nodes, relationships)`` as pandas DataFrames, every value exact: dates as ``datetime64[ms]``
        (``date_as_object=False``: Python's ``date`` stops at the years 1 and 9999), local times as timedeltas since
        midnight, UUIDs as 16 ``bytes``; lists (``labels``, array properties) and structs (points, date-times,
        durations) stay Arrow-backed (``pandas.ArrowDtype``: no Python object per row; an element is a Python list
        or dict, ``.list`` and ``.struct`` accessors work on the column). ``kwargs`` go to
        ``pyarrow.Table.to_pandas`` and override these (``types_mapper=None``: lists as object arrays, structs as
        dicts, about 5x slower)."""
        return _convert.to_pandas(self, **kwargs)

    def to_polars(self) -> Tuple[pl.DataFrame, pl.DataFrame]:
        """``(nodes, relationships)`` as polars DataFrames (UUIDs as 16-byte binary, local times as durations)."""
        return _convert.to_polars(self)

    def to_networkx(self) -> nx.MultiDiGraph[str]:
        """A ``networkx.MultiDiGraph``: nodes keyed by element id with ``labels`` and the properties as attributes,
        edges keyed by relationship element id with ``type`` and the properties. Properties are Python values
        (``as_py``); those in ``extra_properties`` stay in their json-format encoding (tagged values). A date or
        time Python cannot represent (years beyond 1..9999, nanoseconds of a local time) raises ExportError."""
        return _convert.to_networkx(self)

    def to_pyg(self, *, group_by: Union[None, str, Sequence[str]] = None, features: Optional[Mapping[Any, Any]] = None,
               homogeneous: bool = False, relationship_types: Optional[Sequence[str]] = None,
               separator: str = "_") -> Union[HeteroData, Data]:
        """A ``torch_geometric.data.HeteroData``: a node type per label set (labels sorted, joined by ``separator``;
        or per label of ``group_by``), an edge
        type per (source type, relationship type, target type), ``element_id`` in every store, numeric and boolean
        properties as tensors and ``x`` / ``edge_attr`` side by side; ``homogeneous=True``: a ``Data`` with node and
        edge type ids. Needs torch and torch_geometric (``pip install 'subgraph-export[ml]'``); see
        :func:`subgraph_export.ml.to_pyg` for every rule."""
        from .ml import to_pyg

        return to_pyg(self, group_by=group_by, features=features, homogeneous=homogeneous,
                      relationship_types=relationship_types, separator=separator)

    def to_scipy(self, *, weight: Optional[str] = None, relationship_types: Optional[Sequence[str]] = None,
                 separator: str = "_") -> Adjacency:
        """``(matrix, element_id)``: the adjacency as a ``scipy.sparse.csr_array`` (row = source, column = target,
        relationships counted, or ``weight`` summed) and the element id of the node at each index. Needs scipy
        (``pip install 'subgraph-export[scipy]'``); see :func:`subgraph_export.ml.to_scipy`."""
        from .ml import to_scipy

        return to_scipy(self, weight=weight, relationship_types=relationship_types, separator=separator)
