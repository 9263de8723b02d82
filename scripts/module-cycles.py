#!/usr/bin/env python3
"""Finds import cycles between the top-level modules of a crate.

Reads every `crate::a::b`, `super::a` and `self::a` path in each file under
src/ (uses, paths in code, and intra-doc links; a relative path is resolved
from the inline module it is written in, so `use super::*` in a file's
`mod tests` names the file itself), maps the file and the path to their
top-level module (or to the module path at the given depth; `--files`: each
file on its own, so that two files of one layer, or of one folder, naming
each other are a cycle too), and prints the cycles of the resulting graph.
Usage: module-cycles.py [SRC_DIR] [--depth N | --files] [--edges]
"""
import os, re, sys

args = [a for a in sys.argv[1:]]
depth = 1
show_edges = False
if "--depth" in args:
    i = args.index("--depth"); depth = int(args[i + 1]); del args[i:i + 2]
if "--files" in args:
    args.remove("--files"); depth = 1000
if "--edges" in args:
    args.remove("--edges"); show_edges = True
src = args[0] if args else "src"

def module_of(path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel in (["lib"], ["main"]):
        return []
    return rel

mods = set()
files = []
for root, _, names in os.walk(src):
    for n in names:
        if n.endswith(".rs"):
            p = os.path.join(root, n); files.append(p); mods.add(tuple(module_of(p)))

def skip_literal(text, k):
    """The index after a string, char literal or comment starting at k, or k."""
    c = text[k]
    if text.startswith("//", k):
        e = text.find("\n", k)
        return len(text) if e < 0 else e
    if text.startswith("/*", k):
        e = text.find("*/", k + 2)
        return len(text) if e < 0 else e + 2
    m = re.match(r'r(#*)"', text[k:k + 20])
    if m and (k == 0 or not (text[k - 1].isalnum() or text[k - 1] == "_")):
        close = '"' + m.group(1)
        e = text.find(close, k + len(m.group(0)))
        return len(text) if e < 0 else e + len(close)
    if c == '"':
        i = k + 1
        while i < len(text) and text[i] != '"':
            i += 2 if text[i] == "\\" else 1
        return i + 1
    m = re.match(r"'(\\.|[^\\'])'", text[k:k + 4]) or re.match(r"'\\u\{[0-9a-fA-F]+\}'", text[k:k + 12])
    if c == "'" and m:
        return k + len(m.group(0))
    return k

def inline_mods(text):
    """(start, end, name) of each inline `mod name { ... }` block."""
    out, stack, k = [], [], 0
    opener = re.compile(r"\bmod\s+(\w+)\s*\{")
    while k < len(text):
        j = skip_literal(text, k)
        if j != k:
            k = j; continue
        c = text[k]
        if c == "{":
            m = None
            # is this brace the one of a `mod name {`?
            back = text.rfind("mod", max(0, k - 80), k)
            if back >= 0:
                m = opener.match(text, back)
                if m and m.end() != k + 1:
                    m = None
            stack.append((k, m.group(1) if m else None))
        elif c == "}" and stack:
            start, name = stack.pop()
            if name:
                out.append((start, k, name))
        k += 1
    return out

def expand(text, here):
    """Yields each full path (from the crate root) that `crate::...`,
    `super::...` or `self::...` names, expanding `{a, b::c}` groups; `here`
    is the file's module path."""
    mods_inline = inline_mods(text)
    out = []
    for m in re.finditer(r"\b(crate|super|self)::", text):
        if m.start() > 0 and text[m.start() - 1] == ":":
            continue  # the inner `super::` of `super::super::x`, read with the outer
        j = m.start()
        # read a path with nested braces
        depth_b = 0; k = j
        while k < len(text):
            c = text[k]
            if c == "{": depth_b += 1
            elif c == "}":
                if depth_b == 0: break
                depth_b -= 1
            elif depth_b == 0 and not (c.isalnum() or c in "_:"):
                break
            k += 1
        path = text[j:k]
        if path.startswith("crate::"):
            out.extend(flatten(path[len("crate::"):]))
            continue
        base = list(here) + [n for (s0, e0, n) in sorted(mods_inline) if s0 < j < e0]
        segs = path.split("::")
        while segs and segs[0] in ("super", "self"):
            if segs.pop(0) == "super":
                base = base[:-1]
        rest = "::".join(segs)
        out.extend("::".join(base + [x]) if base else x for x in flatten(rest))
    return out

def flatten(p):
    p = re.sub(r"\s+", "", p)
    if "{" not in p:
        return [p.rstrip(":")]
    i = p.index("{"); prefix = p[:i]; inner = p[i + 1:p.rindex("}")]
    parts, d, cur = [], 0, ""
    for c in inner:
        if c == "," and d == 0: parts.append(cur); cur = ""; continue
        if c == "{": d += 1
        if c == "}": d -= 1
        cur += c
    parts.append(cur)
    res = []
    for part in parts:
        if part:
            res.extend(prefix + x for x in flatten(part))
    return res

def target(path):
    segs = [s for s in path.split("::") if s]
    # longest known module prefix, cut to depth
    best = []
    for n in range(len(segs), 0, -1):
        if tuple(segs[:n]) in mods:
            best = segs[:n]; break
    return tuple(best[:depth])

edges = {}
for f in files:
    me = tuple(module_of(f)[:depth])
    if not me:
        continue
    text = open(f).read()
    for p in expand(text, module_of(f)):
        t = target(p)
        # A parent naming its child is how Rust declares it; a child naming
        # an ancestor (crate::verbs from verbs::init) is a dependency back.
        if t and t != me and t[:len(me)] != me:
            edges.setdefault(me, {}).setdefault(t, set()).add(os.path.relpath(f, src))

name = lambda m: "::".join(m)
if show_edges:
    for a in sorted(edges):
        print(f"{name(a)} -> {', '.join(sorted(name(b) for b in edges[a]))}")

# strongly connected components (Tarjan)
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
nodes = set(edges) | {b for a in edges for b in edges[a]}
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, {}):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1:
            sccs.append(comp)
for v in sorted(nodes):
    if v not in index:
        strong(v)

if not sccs:
    scope = "files" if depth >= 1000 else f"modules at depth {depth}"
    print(f"{src}: no import cycles between {scope} ({len(nodes)} modules, {sum(len(v) for v in edges.values())} edges)")
    sys.exit(0)
for comp in sccs:
    print("cycle:", " <-> ".join(sorted(name(c) for c in comp)))
    for a in sorted(comp):
        for b in sorted(edges.get(a, {})):
            if b in comp:
                print(f"  {name(a)} -> {name(b)}  ({', '.join(sorted(edges[a][b]))})")
sys.exit(1)
