#!/usr/bin/env python3
"""Compares the generated outputs of two build trees made by `bench/kernel-diff.sh build`.

A unit is the depthwise sample or one invoker IT. Its files are what the plugin generated
(target/generated-sources/kernels: launchers; target/generated-resources/kernels: kernel sources,
binaries, manifests) and, for every IT, the plugin's messages in its build.log (`messages.txt`:
the lines of the kernels plugin and the build's errors, with the build's own paths replaced).

usage: kernel_diff.py OLD NEW [--normalize] [--out DIR] [--quiet]

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
    old_keys = set(old)
    new_keys = set(new)
    pairs = {}
    if normalize:
        rules.prepare(old, new)
        # Files renamed by a known change (e.g. PTX + cubin -> fatbin) are compared by their pair.
        pairs = rules.renamed_pairs(old_keys, new_keys)
    for path in sorted(old_keys | new_keys):
        if path in pairs.values() and path not in old_keys:
            continue
        if path not in new_keys and path not in pairs:
            rows.append((path, "only-old", rules.explain_only_old(path) if normalize else [], []))
            continue
        new_path = pairs.get(path, path)
        if path not in old_keys:
            rows.append((path, "only-new", rules.explain_only_new(path, new[path]) if normalize
                         else [], []))
            continue
        a, b = old[path], new[new_path]
        label = path if new_path == path else f"{path} -> {new_path}"
        if a == b:
            rows.append((label, "identical", [], []))
            continue
        if not (is_text(a) and is_text(b)):
            used = rules.explain_binary(path, new_path) if normalize else []
            rows.append((label, "differs (binary)", used, []))
            continue
        ta, tb = a.decode(), b.decode()
        used = []
        if normalize:
            ta, tb, used = rules.normalize(path, ta, tb)
            if ta == tb:
                rows.append((label, "same-normalized", used, []))
                continue
        diff = list(difflib.unified_diff(ta.splitlines(), tb.splitlines(),
                                         "old/" + path, "new/" + new_path, lineterm="", n=2))
        rows.append((label, "differs", used, diff))
    return rows


def main():
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
    if args.out:
        os.makedirs(args.out, exist_ok=True)
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
        if not args.quiet:
            listing.extend(unit_diff)
    report = "\n".join(table) + "\n\n" + "\n".join(listing) + "\n"
    if args.normalize:
        report += "\nrules (--normalize):\n" + rules.describe() + "\n"
    sys.stdout.write(report)
    if args.out:
        with open(os.path.join(args.out, "summary.md"), "w") as f:
            f.write(report if args.quiet else "\n".join(table) + "\n")


if __name__ == "__main__":
    main()
