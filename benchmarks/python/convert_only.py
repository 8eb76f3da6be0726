"""The conversions alone: one export of the demo subgraph read once into memory, then ``to_pandas()``, ``to_pyg()``,
``to_pyg(homogeneous=True)`` and ``to_scipy()`` timed in turn (rows interleaved, medians after one warm-up round).
What bench_python.py's rows spend after the shared ``traverse``.

    python/.venv/bin/python benchmarks/python/convert_only.py --url http://127.0.0.1:7474 --runs 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable, Dict, List

import subgraph_export as sx


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:7474")
    p.add_argument("--runs", type=int, default=7)
    a = p.parse_args()
    import pandas  # noqa: F401  (imports before the clock starts)
    import scipy.sparse  # noqa: F401
    import torch_geometric  # noqa: F401

    export = sx.traverse(a.url, label="Object", key="id", value=1)
    rows: Dict[str, Callable[[], Any]] = {
        "to_pandas()": export.to_pandas, "to_pyg()": export.to_pyg,
        "to_pyg(homogeneous=True)": lambda: export.to_pyg(homogeneous=True), "to_scipy()": export.to_scipy}
    times: Dict[str, List[float]] = {k: [] for k in rows}
    for i in range(a.runs + 1):
        for name, run in rows.items():
            t0 = time.perf_counter()
            run()
            if i:
                times[name].append(time.perf_counter() - t0)
    print(f"{export.nodes.num_rows:,} nodes, {export.relationships.num_rows:,} relationships; load average at the end "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| conversion | median | min - max |\n|---|---:|---:|")
    for name, ts in times.items():
        print(f"| {name} | {statistics.median(ts):.3f} s | {min(ts):.3f} - {max(ts):.3f} s |")


if __name__ == "__main__":
    main()
