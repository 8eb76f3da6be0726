"""Canonical values from both sides, independently: pyarrow's decoding of an arrow export, and the json format's
records (docs/wire-format.md section 4), so a test compares every value of every node and relationship exactly."""

from __future__ import annotations

import base64
import json
import re
import struct
from typing import Any, Dict, List, Tuple

import pyarrow as pa

import subgraph_export as sx

Graph = Tuple[Dict[str, Any], Dict[str, Any]]  # element id -> (labels, props); element id -> (type, start, end, props)


def _bits64(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _bits32(x: float) -> int:
    return struct.unpack("<i", struct.pack("<f", x))[0]


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date, any year (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = y // 400  # floor division: Python's // is what the C version's adjustment emulates
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_DATE = re.compile(r"([+-]?\d{4,})-(\d\d)-(\d\d)")
_TIME = re.compile(r"(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?")
_OFFSET = re.compile(r"Z|[+-]\d\d:\d\d(?::\d\d)?")


def _date(s: str) -> int:
    y, m, d = _DATE.fullmatch(s).groups()
    return _days_from_civil(int(y), int(m), int(d))


def _time(s: str) -> int:
    h, mi, sec, frac = _TIME.fullmatch(s).groups()
    return ((int(h) * 60 + int(mi)) * 60 + int(sec or 0)) * 10**9 + int((frac or "").ljust(9, "0"))


def _offset(s: str) -> int:
    if s == "Z":
        return 0
    sign = -1 if s[0] == "-" else 1
    parts = [int(p) for p in s[1:].split(":")] + [0]
    return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])


def _split_offset(s: str) -> Tuple[str, str]:
    m = list(_OFFSET.finditer(s))[-1]
    return s[:m.start()], s[m.start():]


def _local_datetime(s: str) -> int:
    date, time = s.split("T")
    return _date(date) * 86400 * 10**9 + _time(time)


def json_value(v: Any) -> Any:
    """A json-format value (section 4.2) in canonical form."""
    if isinstance(v, bool):
        return ("boolean", v)
    if isinstance(v, int):
        return ("long", v)
    if isinstance(v, float):
        return ("double", _bits64(v))
    if isinstance(v, str):
        return ("string", v)
    (tag, p), = v.items()
    if tag.endswith("[]"):
        return (tag, [json_value({tag[:-2]: e})[1] for e in p])
    if tag in ("byte", "short", "int"):
        return (tag, p)
    if tag == "long":
        return (tag, p)
    if tag == "float":
        return (tag, _bits32(float(p)))
    if tag == "double":
        return (tag, _bits64(float(p)))
    if tag == "boolean":
        return (tag, p)
    if tag == "string":
        return (tag, p)
    if tag == "char":
        return (tag, ord(p))
    if tag == "bytes":
        return (tag, base64.b64decode(p))
    if tag == "point":
        c = [_bits64(float(x)) for x in p["coordinates"]]
        return (tag, (p["srid"], c[0], c[1], c[2] if len(c) == 3 else None))
    if tag == "duration":
        return (tag, tuple(p))
    if tag == "date":
        return (tag, _date(p))
    if tag == "localtime":
        return (tag, _time(p))
    if tag == "time":
        t, off = _split_offset(p)
        return (tag, (_time(t), _offset(off)))
    if tag == "localdatetime":
        return (tag, _local_datetime(p))
    if tag == "datetime":
        zone = None
        if p.endswith("]"):
            p, zone = p[:-1].split("[")
        local, off = _split_offset(p)
        return (tag, (_local_datetime(local) - _offset(off) * 10**9, zone or off))
    if tag == "uuid":
        return (tag, bytes.fromhex(p.replace("-", "")))
    if tag == "vector":
        kind = p["kind"]
        if kind.startswith("FLOAT"):
            bits = _bits32 if kind == "FLOAT32" else _bits64
            return (f"vector({kind})", [bits(float(x)) for x in p["values"]])
        return (f"vector({kind})", list(p["values"]))
    raise AssertionError(f"unknown json tag {tag}")


def _arrow(arr: pa.Array) -> List[Any]:
    """pyarrow's values of ``arr`` in canonical form, without Python's datetime ranges (raw integers)."""
    t = arr.type
    if isinstance(t, pa.BaseExtensionType):
        return _arrow(arr.storage)
    if pa.types.is_date32(t):
        return arr.cast(pa.int32()).to_pylist()
    if pa.types.is_time64(t) or pa.types.is_timestamp(t):
        return arr.cast(pa.int64()).to_pylist()
    if pa.types.is_float32(t):
        return [None if x is None else _bits32(x) for x in arr.to_pylist()]
    if pa.types.is_float64(t):
        return [None if x is None else _bits64(x) for x in arr.to_pylist()]
    if pa.types.is_struct(t):
        children = [_arrow(arr.field(i)) for i in range(t.num_fields)]
        valid = arr.is_valid().to_pylist()
        return [tuple(c[i] for c in children) if valid[i] else None for i in range(len(arr))]
    if pa.types.is_list(t):
        values = _arrow(arr.flatten())
        offsets = arr.offsets.to_pylist()
        valid = arr.is_valid().to_pylist()
        return [values[offsets[i]:offsets[i + 1]] if valid[i] else None for i in range(len(arr))]
    return arr.to_pylist()


def _tag(field: pa.Field) -> str:
    return field.metadata[b"subgraph.type"].decode()


def _properties(table: pa.Table, skip: set) -> List[Dict[str, Any]]:
    rows: List[Dict[str, Any]] = [dict() for _ in range(table.num_rows)]
    for f in table.schema:
        if f.name in skip:
            continue
        values = _arrow(table.column(f.name).combine_chunks())
        tag = _tag(f)
        key = f.metadata[b"subgraph.key"].decode()
        for row, v in zip(rows, values):
            if v is not None:
                assert key not in row, f"{key} in two columns of one row"
                row[key] = (tag, v)
    for row, extra in zip(rows, table.column(sx._tables.EXTRA).to_pylist()):
        if extra is not None:
            for k, v in json.loads(extra).items():
                assert k not in row, f"{k} both in a column and in extra_properties"
                row[k] = json_value(v)
    return rows


def from_export(export: sx.Export) -> Graph:
    """The graph as pyarrow read it through the package."""
    n, r = export.nodes, export.relationships
    node_props = _properties(n, {"element_id", "id", "labels", sx._tables.EXTRA})
    rel_props = _properties(r, {"element_id", "id", "type", "source", "target", "source_element_id",
                                "target_element_id", sx._tables.EXTRA})
    nodes = {e: (sorted(labels), p) for e, labels, p in zip(n.column("element_id").to_pylist(),
                                                             n.column("labels").to_pylist(), node_props)}
    rels = {e: (t, s, d, p) for e, t, s, d, p in zip(r.column("element_id").to_pylist(), r.column("type").to_pylist(),
                                                     r.column("source_element_id").to_pylist(),
                                                     r.column("target_element_id").to_pylist(), rel_props)}
    return nodes, rels


def from_json(records: List[Dict[str, Any]]) -> Graph:
    """The graph of a json-format stream (its records)."""
    assert records[-1]["record"] == "end", records[-1]
    nodes, rels = {}, {}
    for rec in records:
        props = {k: json_value(v) for k, v in rec.get("properties", {}).items()}
        if rec["record"] == "node":
            nodes[rec["id"]] = (sorted(rec["labels"]), props)
        elif rec["record"] == "relationship":
            rels[rec["id"]] = (rec["type"], rec["start"], rec["end"], props)
    return nodes, rels


def assert_same_graph(actual: Graph, expected: Graph) -> None:
    """Equal graphs, or an assertion naming the first element and key that differ."""
    for i, kind in enumerate(("node", "relationship")):
        assert sorted(actual[i]) == sorted(expected[i]), f"{kind} element ids differ"
        for element_id, exp in expected[i].items():
            act = actual[i][element_id]
            assert act[:-1] == exp[:-1], f"{kind} {element_id}: {act[:-1]} != {exp[:-1]}"
            props_a, props_e = act[-1], exp[-1]
            for key in sorted(set(props_a) | set(props_e)):
                assert props_a.get(key) == props_e.get(key), \
                    f"{kind} {element_id} property {key}: arrow {props_a.get(key)} != json {props_e.get(key)}"
