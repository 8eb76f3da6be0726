"""Merges PIT's mutations.xml of client, plugin and conformance into one verdict per mutant and writes the
per-package table of benchmarks/results/mutation.md (run by scripts/mutation; not a script of its own).

A mutant (class, method, descriptor, line, mutator, instruction indexes) is killed when any module's tests kill it
(KILLED, TIMED_OUT, MEMORY_ERROR, RUN_ERROR: the mutant made a test fail or hang), survived when covered somewhere
and killed nowhere, no coverage when no test of any module ran its line. The verdicts are kept between runs in
<build dir>/mutation-verdicts.json at the top of the checkout: a run of one package replaces that package's mutants
and leaves the others' rows as their last run left them; a run of some classes (a glob) replaces those classes'
mutants only, and the row names the globs its figures come from until a run of the whole package.
Equivalent mutants are read from benchmarks/results/mutation-equivalent.md, one per line:
    - `encode.WireBuffer:123 NegateConditionalsMutator` reason
(class relative to org.subgraphexport, line, PIT's mutator class name); it matches every surviving or uncovered
mutant of that mutator on that line, and the score counts them out: killed / (mutants - equivalent).
"""
import argparse
import datetime
import fnmatch
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

PREFIX = "org.subgraphexport."
MODULES = ("client", "plugin", "conformance")
KILLED = {"KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR"}
RANK = {"NON_VIABLE": 0, "NO_COVERAGE": 1, "SURVIVED": 2, "KILLED": 3}
BEGIN, END = "<!-- mutation:table -->", "<!-- /mutation:table -->"



def read_module(path):
    out = {}
    for m in ET.parse(path).getroot().iter("mutation"):
        cls = m.findtext("mutatedClass")
        key = "|".join([cls, m.findtext("mutatedMethod"), m.findtext("methodDescription"), m.findtext("lineNumber"),
                        m.findtext("mutator"), ",".join(i.text for i in m.iter("index"))])
        status = m.get("status")
        verdict = "KILLED" if status in KILLED else status
        out[key] = {"class": cls, "line": int(m.findtext("lineNumber")), "method": m.findtext("mutatedMethod"),
                    "mutator": m.findtext("mutator").rsplit(".", 1)[-1], "description": m.findtext("description"),
                    "verdict": verdict}
    return out


def read_equivalent(path):
    eq = {}
    if not os.path.exists(path):
        return eq
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^- `([\w.$]+):(\d+) (\w+)`\s*(.*)$", line.strip())
        if m:
            # a nested class (ArrowColumn$Fixed) is listed by name but counted under its outer class, as below
            eq[(PREFIX + m.group(1).split("$")[0], int(m.group(2)), m.group(3))] = m.group(4)
    return eq


def package_of(cls):
    pkg = cls.rsplit(".", 1)[0]
    return pkg[len(PREFIX):] if pkg.startswith(PREFIX) else pkg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--equivalent", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--threads", default="")
    ap.add_argument("--targets", default="", help="the PIT globs of the run, comma-separated")
    ap.add_argument("--modules", default="")
    ap.add_argument("--table-only", action="store_true")
    a = ap.parse_args()

    os.makedirs(a.build_dir, exist_ok=True)
    store_path = os.path.join(a.build_dir, "mutation-verdicts.json")
    store = json.load(open(store_path)) if os.path.exists(store_path) else {"mutants": {}, "runs": {}}
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    if not a.table_only:
        run = {}
        for mod in a.modules.split():
            path = os.path.join(mod, a.build_dir, "mutation", "mutations.xml")
            if not os.path.exists(path):  # PIT writes none when no chosen class is in reach of the module
                print(f"scripts/mutation: no report at {path} (no mutant in reach of {mod}'s tests)", file=sys.stderr)
                continue
            for key, mut in read_module(path).items():
                old = run.get(key)
                if old is None or RANK.get(mut["verdict"], 0) > RANK.get(old["verdict"], 0):
                    run[key] = mut
        globs = [g for g in a.targets.split(",") if g]

        def in_run(cls):
            return any(fnmatch.fnmatchcase(cls, g) for g in globs)
        # the run's classes replace their old mutants wholesale (a deleted mutant must not linger)
        store["mutants"] = {k: v for k, v in store["mutants"].items() if not in_run(v["class"])}
        store["mutants"].update({k: v for k, v in run.items() if in_run(v["class"])})
        for g in globs:
            pkg = package_of(g.rstrip("*").rstrip(".") + ".X") if g.endswith(".*") else package_of(g)
            scope = store["runs"].setdefault(pkg, {"scope": {}})
            if g.endswith(".*") or g.endswith(".[A-Z]*"):
                scope["scope"] = {}  # a whole-package run supersedes the partial ones
                scope["scope"]["all"] = now
            elif "all" not in scope["scope"]:
                scope["scope"][g.rsplit(".", 1)[-1]] = now
            scope.update({"date": now, "command": a.command, "modules": a.modules, "threads": a.threads,
                          "elapsed_s": a.elapsed})
        json.dump(store, open(store_path, "w"), indent=0, sort_keys=True)

    eq = read_equivalent(a.equivalent)
    rows = {}
    survivors = []
    for mut in store["mutants"].values():
        if mut["verdict"] == "NON_VIABLE":
            continue
        r = rows.setdefault(package_of(mut["class"]), {"mutants": 0, "KILLED": 0, "SURVIVED": 0, "NO_COVERAGE": 0,
                                                       "equivalent": 0})
        r["mutants"] += 1
        if mut["verdict"] != "KILLED" and (mut["class"].split("$")[0], mut["line"], mut["mutator"]) in eq:
            r["equivalent"] += 1
            survivors.append(dict(mut, verdict="EQUIVALENT"))
        else:
            r[mut["verdict"]] += 1
            if mut["verdict"] != "KILLED":
                survivors.append(mut)

    lines = [BEGIN, "", f"Written by `{a.command}` on {now}" + (f" ({a.elapsed // 60} min, {a.threads} threads,"
             f" modules {a.modules})" if not a.table_only else " (table only)") + ".", "",
             "| package | mutants | killed | survived | no coverage | equivalent | score | last run |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    tot = {"mutants": 0, "KILLED": 0, "SURVIVED": 0, "NO_COVERAGE": 0, "equivalent": 0}
    for pkg in sorted(rows):
        r = rows[pkg]
        for k in tot:
            tot[k] += r[k]
        lines.append(row(pkg, r, store["runs"].get(pkg, {})))
    if len(rows) > 1:
        lines.append(row("**all**", tot, {}))
    lines += ["", "score = killed / (mutants - equivalent). Survivors, uncovered and equivalent mutants of the "
              f"last runs: `{a.build_dir}/mutation-survivors.txt`; PIT's reports: "
              f"`<module>/{a.build_dir}/mutation/index.html`.",
              "", END]
    text = open(a.out, encoding="utf-8").read() if os.path.exists(a.out) else ""
    block = "\n".join(lines)
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = (text.rstrip() + "\n\n" if text else "# Mutation testing\n\n") + "## The latest table\n\n" + block + "\n"
    open(a.out, "w", encoding="utf-8").write(text)

    with open(os.path.join(a.build_dir, "mutation-survivors.txt"), "w", encoding="utf-8") as f:
        for m in sorted(survivors, key=lambda m: (m["class"], m["line"])):
            f.write(f"{m['verdict']:<12} {m['class'][len(PREFIX):]}:{m['line']} {m['mutator']} "
                    f"[{m['method']}] {m['description']}\n")
    print("\n".join(lines[4:-4]), flush=True)
    print(f"{len(survivors)} survivors, uncovered and equivalent mutants: {a.build_dir}/mutation-survivors.txt",
          file=sys.stderr)


def row(pkg, r, run):
    counted = r["mutants"] - r["equivalent"]
    score = f"{100.0 * r['KILLED'] / counted:.1f}%" if counted else "-"
    scope = run.get("scope", {})
    classes = "" if not scope or "all" in scope else " (classes " + ", ".join(sorted(scope)) + ")"
    return (f"| {pkg}{classes} | {r['mutants']} | {r['KILLED']} | {r['SURVIVED']} | {r['NO_COVERAGE']} | "
            f"{r['equivalent']} | {score} | {run.get('date', '')} |")


if __name__ == "__main__":
    main()
