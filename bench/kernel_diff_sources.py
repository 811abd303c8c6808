"""Kernel sources for `kernel_diff.py --normalize`: C, CUDA and OpenCL sources and the Java
kernel classes split into blocks (preamble, each top-level function or method), the exact
rewrite of the C status ABI (e0412cd), and the weaker canonical forms (index width, OpenCL
accumulator zeroing). The rule names are described in kernel_diff_rules.RULES."""

import re


_ATTR = re.compile(r"__attribute__\(\(.*?\)\)|__launch_bounds__\(\d+\)")


def java_blocks(text):
    """[(name, text)] of a generated Java kernel class: 'preamble', then each static member at
    two spaces' indent up to its closing brace, with the blank lines after it."""
    out = []
    cur_name, cur = "preamble", []
    in_block = False
    for line in text.splitlines(keepends=True):
        if not in_block and line.strip() == "" and out and not cur:
            name, t = out[-1]
            out[-1] = (name, t + line)
            continue
        if not in_block and re.match(r"^  (public|private|static|final| )+.*\{$", line):
            if cur:
                out.append((cur_name, "".join(cur)))
            m = re.search(r"(\w+)\s*\(", line) or re.search(r"class (\w+)", line)
            cur_name, cur, in_block = (m.group(1) if m else line.strip()), [line], True
            continue
        cur.append(line)
        if in_block and line.rstrip() == "  }":
            out.append((cur_name, "".join(cur)))
            cur_name, cur, in_block = "between", [], False
    if cur:
        out.append((cur_name, "".join(cur)))
    seen = {}
    unique = []
    for name, t in out:
        seen[name] = seen.get(name, 0) + 1
        unique.append((name if seen[name] == 1 else f"{name}#{seen[name]}", t))
    return unique


def blocks(text):
    """[(name, text)] of a C, CUDA or OpenCL source: 'preamble' up to the first definition, then
    each top-level definition (helper or kernel) up to its closing brace at column 0, with the
    blank lines after it."""
    out = []
    cur_name, cur = "preamble", []
    in_block = False
    for line in text.splitlines(keepends=True):
        if not in_block and line.strip() == "" and out and not cur:
            name, t = out[-1]
            out[-1] = (name, t + line)
            continue
        if not in_block and line[:1] not in ("", " ", "\n", "#", "}") and "(" in line \
                and line.rstrip().endswith("{"):
            if cur:
                out.append((cur_name, "".join(cur)))
            m = re.search(r"(\w+)\s*\(", _ATTR.sub("", line))
            cur_name, cur, in_block = (m.group(1) if m else line.strip()), [line], True
            continue
        cur.append(line)
        if in_block and line.rstrip() == "}":
            out.append((cur_name, "".join(cur)))
            cur_name, cur, in_block = "between", [], False
    if cur:
        out.append((cur_name, "".join(cur)))
    # Unique names (a source never defines one twice, but 'between' text may recur).
    seen = {}
    unique = []
    for name, t in out:
        seen[name] = seen.get(name, 0) + 1
        unique.append((name if seen[name] == 1 else f"{name}#{seen[name]}", t))
    return unique


_OLD_KG_ALLOC = (
    "static void* kg_alloc(size_t bytes) {\n"
    "  // aligned_alloc wants a multiple of the alignment; NULL would crash later.\n"
    "  void* p = aligned_alloc(64, bytes == 0 ? 64 : (bytes + 63) / 64 * 64);\n"
    "  if (p == NULL) {\n"
    "    abort();\n"
    "  }\n"
    "  return p;\n"
    "}\n")


def undo_status_abi(text):
    """The new C text as 89bb99e printed it, before e0412cd's status return."""
    t = text.replace(
        '__attribute__((visibility("default"))) const int32_t kernelgen_status_abi = 1;\n\n', "")
    t = re.sub(r"static void\* kg_alloc\(size_t bytes, int64_t\* status\) \{\n.*?\n\}\n",
               lambda m: _OLD_KG_ALLOC, t, flags=re.S)
    t = re.sub(r'(__attribute__\(\(visibility\("default"\)\)\)) int64_t (\w+\()', r"\1 void \2",
               t)
    t = re.sub(r"^\s*int64_t kg_status_ = 0;\n", "", t, flags=re.M)
    t = re.sub(r"^\s*return kg_status_;\n", "", t, flags=re.M)
    t = t.replace(", &kg_status_)", ")")
    # Unwrap `if (p != NULL) {` ... `}` after `T* p = (T*)kg_alloc(...);`, dedenting its body;
    # repeated, as such blocks nest.
    while True:
        unwrapped = _unwrap_null_checks(t)
        if unwrapped == t:
            return t
        t = unwrapped


def _unwrap_null_checks(t):
    lines = t.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)if \((\w+) != NULL\) \{$", line)
        if m and i > 0 and re.search(r"\b" + re.escape(m.group(2)) + r" = \(\w+\*\)kg_alloc\(",
                                     lines[i - 1]):
            indent = m.group(1)
            j = i + 1
            while j < len(lines) and lines[j] != indent + "}":
                j += 1
            body = [x[2:] if x.startswith(indent + "  ") else x for x in lines[i + 1:j]]
            return "\n".join(lines[:i] + body + lines[j + 1:])
    return t


def canonical_width(text):
    """Integer casts, 64-bit literal suffixes and parentheses removed, spaces collapsed."""
    t = re.sub(r"\((?:int64_t|int32_t|long long|long|int|size_t)\)", "", text)
    t = re.sub(r"\b(\d+)LL\b|\b(\d+)L\b", lambda m: m.group(1) or m.group(2), t)
    t = re.sub(r"\b(int64_t|long long|long)\b(?= \w+ = | \w+;)", "int", t)
    return re.sub(r"[() \t]", "", t)


def canonical_unguarded(text):
    """OpenCL: an accumulator zeroed outside its bound check (c26056c) compared as if inside: the
    zeroing statements `X_local[k] = 0.0f;` are dropped on both sides (a weak comparison, tried
    only on OpenCL kernels that still differ after the exact rules)."""
    return re.sub(r"^\s*\w+_local\[\d+\] = 0\.0f;\n", "", text, flags=re.M)


def normalize_source(path, old_text, new_text, explain):
    """(old, new, rules used): the exact rules on the whole text, then per block the weaker
    comparisons; `explain(path, block name)` names a rule that explains a whole block (its
    schedule is generated or tuned), or None."""
    used = set()
    lang_c = path.endswith(".c")
    if lang_c and "kernelgen_status_abi" in new_text and "kernelgen_status_abi" not in old_text:
        new_text = undo_status_abi(new_text)
        used.add("status-abi")
    split = java_blocks if path.endswith(".java") else blocks
    ob, nb = split(old_text), split(new_text)
    old_names = {n for n, _ in ob}
    kept = []
    for name, text in nb:
        if name not in old_names and (name.endswith("_idx64") or re.fullmatch(r"kg_\w+_i64", name)):
            used.add("idx64")
            continue
        kept.append((name, text))
    new_text = "".join(t for _, t in kept)
    if old_text == new_text:
        return old_text, new_text, used
    # Per block: the weaker comparisons, only where a block still differs.
    ob, nb = split(old_text), split(new_text)
    nd = dict(nb)
    old_out, new_out = [], []
    for name, ot in ob:
        nt = nd.pop(name, None)
        if nt is None or nt == ot:
            old_out.append(ot)
            new_out.append(nt or "")
            continue
        if name == "preamble" and path.endswith("Java.java"):
            strip = lambda t: re.sub(  # noqa: E731
                r"^import java\.util\.stream\.\w+;\n|^  private static final ThreadLocal<.*\n"
                r"^      ThreadLocal\.withInitial.*\n\n?", "", t, flags=re.M)
            if strip(ot) == strip(nt):
                used.add("java-preamble")
                old_out.append(nt)
                new_out.append(nt)
                continue
        rule = explain(path, name)
        if rule:
            used.add(rule)
            old_out.append(nt)
            new_out.append(nt)
            continue
        for rule, canon in (("unguarded-init", canonical_unguarded),
                            ("index-width", canonical_width)):
            if path.endswith(".cl") or rule != "unguarded-init":
                if canon(ot) == canon(nt):
                    used.add(rule)
                    ot = nt
                    break
        if ot != nt and path.endswith(".cl") and \
                canonical_width(canonical_unguarded(ot)) == canonical_width(canonical_unguarded(nt)):
            used.update(("unguarded-init", "index-width"))
            ot = nt
        old_out.append(ot)
        new_out.append(nt)
    new_out.extend(t for _, t in nd.items())
    return "".join(old_out), "".join(new_out), used


