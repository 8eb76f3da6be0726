#!/usr/bin/env python3
"""The Python table of benchmarks/results/mutation.md (scripts/mutation --python): mutmut's verdicts, read from the
.meta files it leaves beside each mutated module in python/mutants, counted per module, with the equivalent mutants
of mutation-equivalent.md's "python" section counted out. Rewrites only the text between the python markers (added
at the end of the page if missing) and lists every survivor, timeout and untested mutant in
python/mutants/survivors.txt. Standard library only: runs with any python3."""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import re
import sys

BEGIN, END = "<!-- mutation:python -->", "<!-- /mutation:python -->"
# mutmut's exit codes (mutmut/stats.py): 1 and 3 are a failing test run, timeouts and crashes count as detected
# as PIT counts them; 5 and 33: no test reaches the function
KILLED = {1, 3}
SURVIVED = {0}
NO_TESTS = {5, 33}
TIMEOUT = {24, -24, 36, 152, 255}
CRASHED = {-9, -11}


def equivalents(path: pathlib.Path) -> dict[str, str]:
    """Mutant name -> reason, from the bullets of the "## python" section: - `subgraph_export._x.f__mutmut_3` reason"""
    found: dict[str, str] = {}
    section = False
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        if line.startswith("## "):
            section = line.strip().lower() == "## python"
        elif section:
            m = re.match(r"- `([^`]+)` (.+)", line)
            if m:
                found[m.group(1)] = m.group(2)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mutants", type=pathlib.Path, required=True, help="python/mutants")
    ap.add_argument("--out", type=pathlib.Path)
    ap.add_argument("--equivalent", type=pathlib.Path)
    ap.add_argument("--command")
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--workers", default="")
    ap.add_argument("--mutmut", default="")
    ap.add_argument("--list-open", action="store_true",
                    help="print the survivors, untested and timed-out mutants, one a line")
    ap.add_argument("--timeouts-only", action="store_true", help="with --list-open: only the timed-out mutants")
    args = ap.parse_args()
    if args.list_open:
        wanted = TIMEOUT if args.timeouts_only else SURVIVED | NO_TESTS | TIMEOUT
        for meta in sorted((args.mutants / "src").rglob("*.py.meta")):
            codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
            print("".join(f"{name}\n" for name, code in sorted(codes.items()) if code in wanted), end="")
        return 0
    for required in ("out", "equivalent", "command"):
        if getattr(args, required) is None:
            ap.error(f"--{required} is needed")

    metas = sorted((args.mutants / "src").rglob("*.py.meta"))
    if not metas:
        print(f"mutation_python: no mutmut results under {args.mutants}/src: run scripts/mutation --python",
              file=sys.stderr)
        return 1
    equivalent = equivalents(args.equivalent)
    seen: set[str] = set()
    rows = []
    listed = []
    totals = [0] * 7
    for meta in metas:
        module = meta.name[: -len(".py.meta")]
        codes: dict[str, int | None] = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        counts = [0] * 7  # mutants, killed, survived, no tests, equivalent, not checked, timeouts (in killed)
        for name, code in sorted(codes.items()):
            counts[0] += 1
            if name in equivalent:
                seen.add(name)
                counts[4] += 1
                if code not in SURVIVED:
                    listed.append(f"{name}: listed as equivalent but {'not checked' if code is None else code}")
            elif code in KILLED or code in TIMEOUT or code in CRASHED:
                counts[1] += 1
                if code not in KILLED:
                    counts[6] += 1
                    listed.append(f"{name}: {'timeout' if code in TIMEOUT else 'crashed'} (counted as killed)")
            elif code in SURVIVED:
                counts[2] += 1
                listed.append(f"{name}: survived")
            elif code in NO_TESTS:
                counts[3] += 1
                listed.append(f"{name}: no test reaches it")
            else:
                counts[5] += 1
                listed.append(f"{name}: not checked ({code})")
        totals = [t + c for t, c in zip(totals, counts)]
        rows.append((module, counts))
    for name in sorted(set(equivalent) - seen):
        listed.append(f"{name}: listed as equivalent in {args.equivalent.name}, but mutmut made no such mutant")

    def score(c: list[int]) -> str:
        counted = c[0] - c[4]
        return f"{100.0 * c[1] / counted:.1f}%" if counted else "-"

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [BEGIN, "",
             f"Written by `{args.command}` on {now} ("
             + (f"{args.elapsed / 60:.1f} min, {args.workers} worker process(es), " if args.elapsed else "")
             + f"{args.mutmut}).", "",
             "| module | mutants | killed | of which timeout or crash | survived | no tests | equivalent | score |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for module, c in rows:
        lines.append(f"| `{module}.py` | {c[0]} | {c[1]} | {c[6]} | {c[2]} | {c[3]} | {c[4]} | {score(c)}"
                     + (f" ({c[5]} not checked)" if c[5] else "") + " |")
    lines.append(f"| **all** | {totals[0]} | {totals[1]} | {totals[6]} | {totals[2]} | {totals[3]} | {totals[4]} |"
                 f" {score(totals)}" + (f" ({totals[5]} not checked)" if totals[5] else "") + " |")
    lines += ["", "score = killed / (mutants - equivalent), mutants not checked yet counted as not killed; a timeout or crash counts as killed. Survivors, untested and "
              "timed-out mutants: `python/mutants/survivors.txt`; `cd python && .venv/bin/mutmut show NAME` shows "
              "one.", "", END]
    block = "\n".join(lines)

    page = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    if BEGIN in page and END in page:
        page = page[: page.index(BEGIN)] + block + page[page.index(END) + len(END):]
    else:
        page = page.rstrip("\n") + "\n\n## The latest Python table\n\n" + block + "\n"
    args.out.write_text(page, encoding="utf-8")
    (args.mutants / "survivors.txt").write_text("".join(x + "\n" for x in listed), encoding="utf-8")
    print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
