"""The rules of `kernel_diff.py --normalize`: known, intended differences between 89bb99e and
later commits, each named by the commit and issue that made it. A rule rewrites one or both sides
so that what it explains disappears; the comparison reports which rules a file needed, and what
remains after all of them is shown as a diff (unexplained).

Kernel sources (C, CUDA, OpenCL) are compared function by function: the preamble (includes,
helpers) and each top-level function separately, so that a rule applies where it is needed and a
function that is identical stays visibly identical.
"""

import json
import re

import kernel_diff_sources as sources

RULES = {
    "status-abi": "e0412cd (issue 12): C functions return int64_t kg_status_ (0 or the bytes a "
                  "failed kg_alloc asked for), kg_alloc(bytes, &kg_status_) no longer aborts, the "
                  "body that needs a temporary runs under if (p != NULL), kernelgen_status_abi "
                  "exported",
    "idx64": "5913346 (issue 12): kernels <fn>_idx64 (64-bit loop variables and addresses) beside "
             "each kernel over symbolic dims, with the 64-bit helpers kg_*_i64 they call",
    "index-width": "5913346 + b7f8d97 (issue 12): the 32-bit kernels over symbolic dims compute "
                   "addresses in 32 bits (the launcher runs _idx64 above 2^30 elements) where "
                   "89bb99e widened each address to 64 bits; compared with integer casts, LL "
                   "suffixes and parentheses removed (a weaker check: equal operands, operators "
                   "and constants in the same order)",
    "unguarded-init": "c26056c (issue 13): OpenCL kernels with barriers zero private "
                      "accumulators outside the tile's bound check (UnguardedPrivateInit)",
    "manifest-format-2": "66ecd31 (issue 12): manifest format 2, C libraries per ISA level "
                         "(sharedLibraries: isa, file, sha256) instead of one sharedLibrary",
    "manifest-fatbin": "295ca9f (issue 12): CUDA module as one fatbin (file, sha256, "
                       "architectures) instead of ptx + cubins",
    "manifest-idx64": "5913346 (issue 12): targetsIndex64 (the _idx64 kernels of a variant with "
                      "symbolic dims)",
    "manifest-intermediates": "2b02dc1 (issue 12): a variant's intermediates (buffers the C and "
                              "Java kernels allocate) for the launcher's element count",
    "manifest-isa": "b5cbd1d / 7003dea (issue 12): C schedules chosen per ISA level (tuned "
                    "targets keyed by level)",
    "autosched-default": "d4ed7d4 / 33eb893 (issue 13): an operator without a schedule method "
                         "for a target (nor a library template that lowers) gets the "
                         "auto-scheduler's generated schedule (knobs with 'sketch') instead of "
                         "89bb99e's plain default; its kernels, and its knobs, space, trace and "
                         "launch geometry in the manifest, differ accordingly",
    "tuned-choice": "a variant whose configuration is 'tuned' in either manifest: its knobs come "
                    "from a timed search (measurement noise), and at HEAD from the race with the "
                    "generated schedules (130b148, issue 13) and per ISA level (b5cbd1d / 7003dea, "
                    "issue 12: the tuned C schedule is in <L>.x86-64-vN.c; <L>.c holds the "
                    "defaults of the levels without records)",
    "java-preamble": "the Java kernel class's imports and per-thread workspaces: "
                     "java.util.stream for the parallel loops of generated schedules (d4ed7d4, "
                     "issue 13) and the _idx64 methods' LongStream (5913346, issue 12); ThreadLocal "
                     "WORKSPACE_* arrays (0c96315, issue 12)",
    "launcher-out": "f3bd87e (issue 11): the output parameter is named after its role (out), not "
                    "after the last stage",
    "launcher-lifecycle": "4581c3a (issue 12): Lifecycle field, checkOpen() per call, calls "
                          "inside try (Lifecycle.Use ...) (re-indenting the dispatch), close() "
                          "once",
    "launcher-aliasing": "4581c3a (issue 12): Checks.noAliasing per call",
    "launcher-workspace": "4581c3a (issue 12): temporaries from a Workspace kept by the launcher",
    "launcher-idx64": "5913346 / 2b02dc1 (issue 12): the _idx64 kernels chosen by "
                      "ElementCounts.wide(...) over the arguments and intermediates",
    "launcher-binaries": "66ecd31 / 295ca9f (issue 12): C libraries per ISA level with sha256, "
                         "the CUDA fatbin with sha256 and architectures",
    "launcher-load": "66ecd31 (issue 12): load() falls back to the Java kernels where the C "
                     "library cannot load (Launchers.load)",
    "sha256": "content digests (sourceSha256, sha256, ...): follow the files they digest, "
              "compared separately",
    "cuda-binaries": "295ca9f (issue 12): one fatbin per CUDA module (SASS for every configured "
                     "architecture and PTX of the newest) replaces the .ptx and .sm_XX.cubin",
    "c-isa-libraries": "66ecd31 (issue 12): the C module compiled per ISA level "
                       "(x86-64-v2/v3/v4, libgcc static, glibc <= 2.28) into "
                       "c/linux-amd64/<level>/lib<L>.so instead of one -march=native library",
    "c-isa-source": "b5cbd1d (issue 12): a C build tuned at some ISA level gets that level's "
                    "own source, <L>.<level>.c",
    "build-digest": "ae79859 (issue 12): target/kernelgen/inputs.sha256 also digests the "
                    "compilers, the plugin's own code and class-path directories; it changes with "
                    "any change of the plugin's code",
    "maven-download": "Maven's own 'Downloading/Downloaded' lines inside the plugin's section of "
                      "a build log (repository state, not the plugin)",
    "msg-spec-method": "2dd0f05 (issue 11): every spec error is prefixed with the spec method of "
                       "its operator (File.java: class.method(): ), errors are collected",
    "msg-missing-tool": "75c8209 (issue 11): the missing nvcc/cc hint says how to install the "
                        "tool and proposes only targets the libraries declare",
    "msg-tuning": "kernels:tune's progress and results: timed (noise), plus the race with the "
                  "generated schedules (130b148, issue 13), the 90%-of-final-speed line (8fdbd45, "
                  "issue 13) and ISA levels in generate's lines (b5cbd1d / 7003dea, issue 12: "
                  "'at x86-64-vN', more fallback builds with the _idx64 variants and levels "
                  "without records); configurations shown as {...}",
    "tuning-log": "records of a timed search: the chosen configuration varies with measurement "
                  "noise; new members (versions.isa b5cbd1d, versions.timing 9a1797f, the "
                  "generated-schedule race 130b148)",
}


def describe():
    return "\n".join(f"  {k}: {v}" for k, v in RULES.items())


# ---------------------------------------------------------------- files only on one side

def explain_only_new(path):
    if re.search(r"/c/linux-amd64/x86-64-v\d/lib\w+\.so$", path):
        return ["c-isa-libraries"]
    if path.endswith(".fatbin"):
        return ["cuda-binaries"]
    if re.search(r"/c/\w+\.x86-64-v\d\.c$", path):
        return ["c-isa-source"]
    return []


def explain_only_old(path):
    if re.search(r"/c/linux-amd64/lib\w+\.so$", path):
        return ["c-isa-libraries"]
    if path.endswith((".ptx", ".cubin")):
        return ["cuda-binaries"]
    return []


# ---------------------------------------------------------------- manifests

def normalize_manifest(old_text, new_text):
    used = set()
    o, n = json.loads(old_text), json.loads(new_text)

    def drop_sha(x):
        if isinstance(x, dict):
            for k in list(x):
                if k.lower().endswith("sha256"):
                    del x[k]
                    used.add("sha256")
                else:
                    drop_sha(x[k])
        elif isinstance(x, list):
            for v in x:
                drop_sha(v)

    if o.get("format") == 1 and n.get("format") == 2:
        o["format"] = n["format"]
        used.add("manifest-format-2")
    c_old, c_new = o.get("modules", {}).get("C"), n.get("modules", {}).get("C")
    if c_old and c_new and "sharedLibrary" in c_old and "sharedLibraries" in c_new:
        del c_old["sharedLibrary"]
        c_old.pop("sharedLibrarySha256", None)
        del c_new["sharedLibraries"]
        used.add("manifest-format-2")
    cu_old, cu_new = o.get("modules", {}).get("CUDA"), n.get("modules", {}).get("CUDA")
    if cu_old and cu_new and "fatbin" in cu_new and "ptx" in cu_old:
        for k in ("ptx", "ptxArchitecture", "ptxSha256", "cubins"):
            cu_old.pop(k, None)
        del cu_new["fatbin"]
        used.add("manifest-fatbin")
    for name, op in n.get("operators", {}).items():
        old_variants = o.get("operators", {}).get(name, {}).get("variants", [])
        for i, variant in enumerate(op.get("variants", [])):
            before = old_variants[i] if i < len(old_variants) else {}
            for key, rule in (("targetsIndex64", "manifest-idx64"),
                              ("intermediates", "manifest-intermediates")):
                if key in variant and key not in before:
                    del variant[key]
                    used.add(rule)
    lib_dir = _context.get("manifest_dir")
    for side in (o, n):
        for a, b, c, d, e in _variant_targets(side):
            if (lib_dir, a, b, c, d) in _context.get("tuned_keys", set()):
                for k in ("knobs", "space", "trace", "temporaries", "kernels", "configuration"):
                    e.pop(k, None)
                used.add("tuned-choice")
    old_entries = {(a, b, c, d): e for a, b, c, d, e in _variant_targets(o)}
    for key4 in [(a, b, c, d) for a, b, c, d, e in _variant_targets(n) if _is_autosched(e)]:
        for side in (old_entries.get(key4), dict(((a, b, c, d), e) for a, b, c, d, e
                                                  in _variant_targets(n))[key4]):
            if side is not None:
                for k in ("knobs", "space", "trace", "temporaries", "kernels"):
                    side.pop(k, None)
        used.add("autosched-default")
    drop_sha(o)
    drop_sha(n)
    return (json.dumps(o, indent=2, sort_keys=True) + "\n",
            json.dumps(n, indent=2, sort_keys=True) + "\n", used)


# ---------------------------------------------------------------- generated default schedules

_TARGET_DIRS = {"c": "C", "cuda": "CUDA", "opencl": "OPENCL", "java": "JAVA"}


def _variant_targets(manifest):
    """(operator, variant index, target, entry) of every built variant of a manifest."""
    for op_name, op in manifest.get("operators", {}).items():
        for i, variant in enumerate(op.get("variants", [])):
            for key in ("targets", "targetsIndex64"):
                for target, entry in (variant.get(key) or {}).items():
                    yield op_name, i, key, target, entry


def _is_autosched(entry):
    return entry.get("schedule") == "default" and "sketch" in (entry.get("knobs") or {})


def autosched_kernels(files):
    """{(library dir, target): kernel names} of the variants whose schedule is the
    auto-scheduler's default in the (new) manifests among `files`."""
    out = {}
    for path, data in files.items():
        if not path.endswith("manifest.json"):
            continue
        lib_dir = path.rsplit("/", 1)[0]
        for _, _, _, target, entry in _variant_targets(json.loads(data)):
            if _is_autosched(entry):
                names = out.setdefault((lib_dir, target), set())
                names.update(k.get("name") for k in entry.get("kernels", []))
    return out


_context = {}


def tuned_variants(files):
    """{(library dir, target): kernel names} and {(operator, variant, key, target)} of the
    variants a manifest among `files` says are tuned."""
    names, keys = {}, set()
    for path, data in files.items():
        if not path.endswith("manifest.json"):
            continue
        lib_dir = path.rsplit("/", 1)[0]
        for op, i, key, target, entry in _variant_targets(json.loads(data)):
            if entry.get("configuration") == "tuned":
                names.setdefault((lib_dir, target), set()).update(
                    k.get("name") for k in entry.get("kernels", []))
                keys.add((lib_dir, op, i, key, target))
    return names, keys


def prepare(old_files, new_files):
    """Called once per unit before its files are normalized."""
    _context["autosched"] = autosched_kernels(new_files)
    tuned = {}
    tuned_keys = set()
    for files in (old_files, new_files):
        names, keys = tuned_variants(files)
        for k, v in names.items():
            tuned.setdefault(k, set()).update(v)
        tuned_keys |= keys
    _context["tuned"] = tuned
    _context["tuned_keys"] = tuned_keys
    # C schedules tuned at one ISA level live in <L>.x86-64-vN.c and are not marked in the
    # manifest (finding 3 of the results): generate's messages name them.
    leveled = set()
    for files in (old_files, new_files):
        text = files.get("messages.txt", b"").decode(errors="replace")
        leveled.update(re.findall(r"operator '(\w+)' for C(?: specialized to \S+)? at "
                                  r"x86-64-v\d: tuned configuration", text))
    _context["tuned_at_level"] = leveled


def _autosched_names(path, kind="autosched"):
    if path.endswith("Java.java"):
        # The Java kernel class <L>Java.java: its library's manifest is <L>/manifest.json.
        lib = path.rsplit("/", 1)[1][: -len("Java.java")]
        return set().union(*[v for (d, t), v in _context.get(kind, {}).items()
                             if t == "JAVA" and d.endswith("/" + lib)] or [set()])
    lib_dir, target_dir = path.rsplit("/", 2)[0], path.rsplit("/", 2)[1]
    return _context.get(kind, {}).get((lib_dir, _TARGET_DIRS.get(target_dir)), set())


def _block_rule(path, name):
    """The rule that explains a whole kernel of `path`, if its schedule is tuned or generated."""
    if re.search(r"\.x86-64-v\d\.c$", path) and any(
            name == op or name.startswith(op + "_") for op in _context.get("tuned_at_level", ())):
        return "tuned-choice"
    if name in _autosched_names(path, "tuned"):
        return "tuned-choice"
    if name in _autosched_names(path):
        return "autosched-default"
    return None


# ---------------------------------------------------------------- entry point

def normalize(path, old_text, new_text):
    """(old, new, rules used) with the known differences rewritten."""
    if path.endswith((".c", ".cu", ".cl")):
        o, n, used = sources.normalize_source(path, old_text, new_text, _block_rule)
        return o, n, sorted(used)
    if path.endswith("manifest.json"):
        _context["manifest_dir"] = path.rsplit("/", 1)[0]
        o, n, used = normalize_manifest(old_text, new_text)
        return o, n, sorted(used)
    if path.endswith("inputs.sha256"):
        return "", "", ["build-digest"]
    if path.endswith(".jsonl"):
        return "", "", ["tuning-log"]
    if path == "messages.txt":
        return normalize_messages(old_text, new_text)
    if path.endswith("Java.java"):
        o, n, used = sources.normalize_source(path, old_text, new_text, _block_rule)
        return o, n, sorted(used)
    if path.endswith(".java"):
        return launcher_lines(old_text, new_text)
    return old_text, new_text, []


# ---------------------------------------------------------------- launchers

_LAUNCHER_KEYWORDS = [
    ("launcher-lifecycle", r"lifecycle|Lifecycle|calls in flight|IllegalStateException|"
                           r"Unloads the kernels|"
                           r"calls after close|^\}$|^\{$|^\}\)?;?$"),
    ("launcher-aliasing", r"noAliasing|runtime\.Checks;"),
    ("launcher-workspace", r"[Ww]orkspace"),
    ("launcher-idx64", r"ElementCounts|_idx64|SIGNATURE_\d|^return;$|^if \(config != null\) \{$"),
    ("launcher-binaries", r"cudaFatbin|\.ptx|cubin|x86-64-v\d|Launchers\.c\(|"
                          r"import java\.util\.Map;"),
    ("launcher-load", r"Launchers\.load\(|Launchers\.device\(|cannot load|cannot$|"
                      r"reason is logged|variable \{@code KERNELGEN_TARGET\}\) names another"),
]


def launcher_lines(old_text, new_text):
    """A launcher is compared line by line: every removed or added line must be explained by a
    rule (the output renamed, lines only re-indented, a keyword of a known change); what is left
    is returned as the residue (old = unexplained removed lines, new = unexplained added lines)."""
    import difflib
    used = set()
    a, b = old_text.splitlines(), new_text.splitlines()
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed.extend(a[i1:i2])
            added.extend(b[j1:j2])
    # The output renamed to `out` (from the old javadoc's `@param NAME output`).
    renames = set(re.findall(r"@param (\w+) output \{@code \w+\}", old_text))

    def rename(line):
        codes = re.findall(r"\{@code \w+\}", line)
        line = re.sub(r"\{@code \w+\}", "\0", line)
        for name in renames:
            line = re.sub(r"\b" + name + r"\b", "out", line)
            line = re.sub(r"\b" + name + r"Type\b", "outType", line)
            line = line.replace('"' + name + '"', '"out"')
        for code in codes:
            line = line.replace("\0", code, 1)
        return line

    pool = {}
    for line in added:
        pool[line.strip()] = pool.get(line.strip(), 0) + 1

    def take(key):
        if pool.get(key, 0) > 0:
            pool[key] -= 1
            return True
        return False

    left_removed = []
    for line in removed:
        if take(line.strip()):
            used.add("launcher-lifecycle")  # the same line, re-indented by the try (Use) block
        elif renames and take(rename(line).strip()):
            used.add("launcher-out")
        else:
            left_removed.append(line)
    left_added = [k for k, c in pool.items() for _ in range(c)]
    # Joined signature lines: the renamed output may shorten a wrapped parameter list.
    if renames:
        joined = " ".join(rename(x).strip() for x in left_removed)
        for line in list(left_added):
            if line and line in joined and re.search(r"\bout\b", line):
                left_added.remove(line)
                used.add("launcher-out")
        for line in list(left_removed):
            if any(rename(line).strip() and rename(line).strip() in x for x in added):
                left_removed.remove(line)
                used.add("launcher-out")

    def explained(line):
        text = line.strip()
        if not text:
            return True
        for rule, pattern in _LAUNCHER_KEYWORDS:
            if re.search(pattern, text):
                used.add(rule)
                return True
        return False

    # Launch geometry of kernels whose schedule is generated (autosched) or tuned.
    regenerated = set()
    for kind in ("autosched", "tuned"):
        for names in _context.get(kind, {}).values():
            regenerated |= names

    def geometry(line):
        m = re.search(r'Launchers\.config\("(\w+)"', line)
        if m and m.group(1) in regenerated:
            used.add("autosched-default" if any(m.group(1) in v for v in
                     _context.get("autosched", {}).values()) else "tuned-choice")
            return True
        return False

    left_removed = [x for x in left_removed if not geometry(x)]
    left_added = [x for x in left_added if not geometry(x)]
    rest_old = [x for x in left_removed if not explained(x)]
    rest_new = [x for x in left_added if not explained(x)]
    return ("\n".join(rest_old) + "\n" if rest_old else "",
            "\n".join(rest_new) + "\n" if rest_new else "", sorted(used))


# ---------------------------------------------------------------- messages

def normalize_messages(old_text, new_text):
    used = set()

    def rewrite(text):
        out = []
        for line in text.splitlines():
            if re.match(r"\[INFO\] Download(ing|ed) from ", line):
                used.add("maven-download")
                continue
            if re.search(r"\[#+-*\]|: best <time>|of the final speed|generated schedules\)",
                         line):
                used.add("msg-tuning")
                continue
            if "comes with the CUDA Toolkit" in line or "Configure the plugin's <nvcc>" in line:
                used.add("msg-missing-tool")
                continue
            stripped = re.sub(r"(\w+\.java: [\w.$]+\(\): )+", "", line)
            if stripped != line:
                line = stripped
                used.add("msg-spec-method")
            tuned = re.sub(r"\{[^}]*\}", "{...}", re.sub(r" at x86-64-v\d", "", line))
            tuned = re.sub(r"\d+ build\(s\) fell back", "N build(s) fell back", tuned)
            if tuned != line:
                used.add("msg-tuning")
            out.append(tuned)
        return "\n".join(out) + "\n"

    o, n = rewrite(old_text), rewrite(new_text)
    return o, n, sorted(used)
