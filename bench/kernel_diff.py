#!/usr/bin/env python3
"""Compares the generated outputs of two build trees made by `bench/kernel-diff.sh build`.

A unit is the depthwise sample or one invoker IT. Its files are what the plugin generated
(target/generated-sources/kernels: launchers; target/generated-resources/kernels: kernel sources,
binaries, manifests) and, for every IT, the plugin's messages in its build.log (`messages.txt`:
the lines of the kernels plugin and the build's errors, with the build's own paths replaced).

usage: kernel_diff.py OLD NEW [--normalize] [--out DIR] [--quiet]
       kernel_diff.py --chain TREE1 TREE2 ... [--out DIR]

With --chain, the trees are builds of successive commits (`kernel-diff.sh steps`): for each step
it lists the files whose content changed from the tree before (the commit that changed them),
and with --out writes each step's unified diffs (DIR/NN-SHA.diff).

Prints, per unit, every file as identical / differs / only-old / only-new (with --normalize also
`same-normalized`: equal once the known differences of issues 12 and 13 are rewritten, the rules
named), a table of counts, and unified diffs of text files (stdout unless --quiet; with --out,
one file per unit and summary.md).
"""

import argparse
import difflib
import os
import re
import sys

import kernel_diff_rules as rules

def units(root):
    """(name, directory) of the sample and every IT the build ran."""
    out = [("sample", os.path.join(root, "samples/depthwise-conv"))]
    its = os.path.join(root, "it/target/it")
    if os.path.isdir(its):
        for name in sorted(os.listdir(its)):
            if os.path.isfile(os.path.join(its, name, "pom.xml")):
                out.append(("it/" + name, os.path.join(its, name)))
    return out


def message_lines(log_path, root):
    """The plugin's messages and the errors of an IT's build.log, paths made root-relative."""
    keep = []
    in_plugin = False
    with open(log_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("[INFO] --- "):
                # The plugin's goals print as "--- kernels:VERSION:generate (default) @ project ---".
                in_plugin = line.startswith("[INFO] --- kernels:")
                if in_plugin:
                    keep.append(re.sub(r"\s*@.*$", "", line))
                continue
            if line.startswith("[INFO] BUILD") or line.startswith("[INFO] ---"):
                in_plugin = False
            # Only the plugin's own lines: not Maven's stack traces or repository warnings.
            if not line.startswith("["):
                continue
            if "Checksum validation" in line or "Could not validate integrity" in line:
                continue
            if in_plugin or line.startswith("[ERROR]"):
                keep.append(line)
    text = "\n".join(keep) + "\n"
    text = text.replace(os.path.realpath(root), "<root>").replace(root, "<root>")
    # Durations and timestamps vary between any two builds.
    text = re.sub(r"\b\d+(\.\d+)? ?(ms|s|us)\b", "<time>", text)
    return text.encode()


# Under a unit's target/: what the build made besides the plugin's outputs.
SKIP_DIRS = {"classes", "test-classes", "lib", "maven-status", "maven-archiver", "surefire-reports",
             "spotless-index", "generated-test-sources", "it", "it-repo"}


def collect(root):
    """{unit: {relative path: bytes}}: everything the plugin wrote under the unit's target/
    (kernel sources and binaries, manifests, launchers, the build digest; an IT may direct them
    elsewhere than generated-*, as reproducible does), the tuning log tune-then-generate made, and
    the plugin's messages (the sample's from the reactor's log, DIR.build.log)."""
    root = root.rstrip("/")
    result = {}
    for name, unit_dir in units(root):
        files = {}
        target = os.path.join(unit_dir, "target")
        for dirpath, dirs, names in os.walk(target):
            dirs[:] = sorted(d for d in dirs if not (dirpath == target and d in SKIP_DIRS))
            for n in names:
                if n.endswith((".jar", ".class")) or n == "spotless-index":
                    continue
                p = os.path.join(dirpath, n)
                with open(p, "rb") as f:
                    files[os.path.relpath(p, unit_dir)] = f.read()
        tuning = os.path.join(unit_dir, "src/main/kernels/tuning")
        if name.startswith("it/") and os.path.isdir(tuning):
            for n in sorted(os.listdir(tuning)):
                if n.endswith(".jsonl"):
                    with open(os.path.join(tuning, n), "rb") as f:
                        files["src/main/kernels/tuning/" + n] = f.read()
        log = os.path.join(unit_dir, "build.log") if name.startswith("it/") else root + ".build.log"
        if os.path.isfile(log):
            files["messages.txt"] = message_lines(log, root)
        result[name] = files
    return result


def is_text(data):
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def compare_unit(old, new, normalize):
    """[(path, status, rules used, diff lines)] over the union of both sides' paths."""
    rows = []
    if normalize:
        rules.prepare(old, new)
    for path in sorted(set(old) | set(new)):
        if path not in new:
            rows.append((path, "only-old", rules.explain_only_old(path) if normalize else [], []))
            continue
        if path not in old:
            rows.append((path, "only-new", rules.explain_only_new(path) if normalize else [], []))
            continue
        a, b = old[path], new[path]
        if a == b:
            rows.append((path, "identical", [], []))
            continue
        if not (is_text(a) and is_text(b)):
            rows.append((path, "differs (binary)", [], []))
            continue
        ta, tb = a.decode(), b.decode()
        used = []
        if normalize:
            ta, tb, used = rules.normalize(path, ta, tb)
            if ta == tb:
                rows.append((path, "same-normalized", used, []))
                continue
        diff = list(difflib.unified_diff(ta.splitlines(), tb.splitlines(),
                                         "old/" + path, "new/" + path, lineterm="", n=2))
        rows.append((path, "differs", used, diff))
    return rows


def json_changes(x, y, path=""):
    """The members that differ between two JSON values, list indices and operator, variant and
    kernel names folded into '*' so that one kind of change is one line."""
    out = set()
    if type(x) is not type(y):
        out.add(f"{path or '/'}: changed")
    elif isinstance(x, dict):
        fold = path.endswith(("/operators", "/targets", "/targetsIndex64", "/knobs", "/space",
                              "/modules", "/cubins"))
        for k in set(x) | set(y):
            sub = f"{path}/{'*' if fold else k}"
            if k not in x:
                out.add(f"{sub}: added" if not fold else f"{path}/{k}: added")
            elif k not in y:
                out.add(f"{sub}: removed" if not fold else f"{path}/{k}: removed")
            else:
                out |= json_changes(x[k], y[k], sub)
    elif isinstance(x, list):
        if len(x) != len(y):
            out.add(f"{path}: length {len(x)} -> {len(y)}")
        for u, v in zip(x, y):
            out |= json_changes(u, v, path + "[]")
    elif x != y:
        out.add(f"{path}: changed")
    return out


def chain(trees, out):
    """Per step (tree i against tree i-1): the files that changed."""
    import json
    import subprocess
    snaps = [collect(t) for t in trees]
    report = []
    for i in range(1, len(trees)):
        label = os.path.basename(trees[i].rstrip("/"))
        sha = label.split("-", 1)[-1]
        try:
            subject = subprocess.run(["git", "log", "-1", "--format=%s", sha], capture_output=True,
                                     text=True, cwd=os.path.dirname(os.path.abspath(__file__))
                                     ).stdout.strip()
        except OSError:
            subject = ""
        report.append(f"## {label}: {subject[:150]}")
        diffs = []
        prev, cur = snaps[i - 1], snaps[i]
        changed = 0
        one_side = sorted(set(prev) ^ set(cur))
        if one_side:
            report.append(f"  (built in one of the two trees only, not compared: "
                          f"{', '.join(one_side)})")
        for unit in sorted(set(prev) & set(cur)):
            a, b = prev[unit], cur[unit]
            for path in sorted(set(a) | set(b)):
                if path.endswith("inputs.sha256"):
                    continue  # the build digest changes with any change of the plugin's code
                x, y = a.get(path), b.get(path)
                if x == y:
                    continue
                changed += 1
                kind = "added" if x is None else "removed" if y is None else "changed"
                if kind == "changed" and path.endswith(".json") and \
                        json.loads(x) == json.loads(y):
                    kind = "key-order"  # same members, another order

                report.append(f"  {kind:8} {unit}: {path}")
                if kind == "changed" and path.endswith(".json"):
                    members = sorted(json_changes(json.loads(x), json.loads(y)))
                    report.extend(f"      {m}" for m in members[:12])
                    if len(members) > 12:
                        report.append(f"      ... {len(members) - 12} more")
                if x is not None and y is not None and is_text(x) and is_text(y):
                    diffs.extend(difflib.unified_diff(
                        x.decode().splitlines(), y.decode().splitlines(),
                        f"{unit}/{path}", f"{unit}/{path}", lineterm="", n=1))
        if not changed:
            report.append("  (no generated file changed)")
        if out and diffs:
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, label + ".diff"), "w") as f:
                f.write("\n".join(diffs) + "\n")
    text = "\n".join(report) + "\n"
    sys.stdout.write(text)
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "chain.md"), "w") as f:
            f.write(text)


def main():
    if "--chain" in sys.argv:
        args = [a for a in sys.argv[1:] if a != "--chain"]
        args = [a for a in args if not a.endswith(".build.log")]
        out = None
        if "--out" in args:
            k = args.index("--out")
            out = args[k + 1]
            del args[k:k + 2]
        chain(args, out)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--normalize", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    old, new = collect(args.old), collect(args.new)
    statuses = ["identical", "same-normalized", "differs", "differs (binary)", "only-old",
                "only-new"]
    table = ["| unit | files | " + " | ".join(statuses) + " |",
             "|---|---|" + "---|" * len(statuses)]
    listing = []
    diffs = []
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for n in os.listdir(args.out):
            if n.endswith(".diff"):
                os.remove(os.path.join(args.out, n))
    for unit in sorted(set(old) | set(new), key=lambda u: (u != "sample", u)):
        if unit not in old or unit not in new:
            side = "only-old" if unit in old else "only-new"
            files = old.get(unit) or new.get(unit) or {}
            table.append(f"| {unit} ({side}) | {len(files)} |" + " |" * len(statuses))
            listing.append(f"## {unit}: {side} ({len(files)} files)")
            listing.extend(f"  {p}" for p in sorted(files))
            continue
        rows = compare_unit(old[unit], new[unit], args.normalize)
        counts = {s: sum(1 for r in rows if r[1] == s) for s in statuses}
        table.append(f"| {unit} | {len(rows)} | " + " | ".join(str(counts[s]) for s in statuses)
                     + " |")
        listing.append(f"## {unit}")
        unit_diff = []
        for path, status, used, diff in rows:
            listing.append(f"  {status:17} {path}" + (f"   [{', '.join(used)}]" if used else ""))
            unit_diff.extend(diff)
        if args.out and unit_diff:
            name = unit.replace("/", "_") + ".diff"
            with open(os.path.join(args.out, name), "w") as f:
                f.write("\n".join(unit_diff) + "\n")
        diffs.extend(unit_diff)
    report = "\n".join(table) + "\n\n" + "\n".join(listing) + "\n"
    if args.normalize:
        report += "\nrules (--normalize):\n" + rules.describe() + "\n"
    sys.stdout.write(report if args.quiet else report + "\n" + "\n".join(diffs) + "\n")
    if args.out:
        with open(os.path.join(args.out, "summary.md"), "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()
