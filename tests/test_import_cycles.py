"""No import cycles between kgbench's Python modules (issue 33).

Every ``import`` / ``from ... import`` of a ``kgbench`` module, at module level or inside a
function, is an edge from the importing module to the module it names (``from kgbench.a
import b`` names ``kgbench.a.b`` when that is a module, else ``kgbench.a``). A package's
``__init__`` importing its own submodules is not an edge. The modules that import each other,
directly or through others (the strongly connected components of that graph), must be none.
A shared piece two modules need sits in a module below both.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "kgbench"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


def import_base(node: ast.ImportFrom, package: str) -> str:
    """The absolute module ``node`` imports from, written in a module of ``package``
    (``from ..a import b`` in ``kgbench.x.y`` -> ``kgbench.a``)."""
    base = node.module or ""
    if node.level:
        anchor = package
        for _ in range(node.level - 1):
            anchor = anchor.rpartition(".")[0]
        base = f"{anchor}.{base}" if base else anchor
    return base


def import_graph() -> dict[str, set[str]]:
    """Module -> the kgbench modules it imports (see the module docstring)."""
    modules = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, (path, is_package) in modules.items():
        package = module if is_package else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = import_base(node, package)
                names = [base, *(f"{base}.{a.name}" for a in node.names)]
            else:
                continue
            for name in names:
                target = resolve(name) if name.startswith("kgbench") else None
                if target is None or target == module:
                    continue
                if is_package and target.startswith(module + "."):
                    continue
                graph[module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_check_finds_a_cycle() -> None:
    """The check itself: a two-module and a three-module cycle are found, a chain is not."""
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}}
    assert sorted(cycles(graph)) == [["a", "b"], ["c", "d", "e"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert len(graph) > 100, "the package was not found"
    found = cycles(graph)
    detail = "\n".join(
        " <-> ".join(c) + "\n" + "\n".join(f"    {m} -> {sorted(graph[m] & set(c))}" for m in c)
        for c in found
    )
    assert not found, f"modules that import each other:\n{detail}"


# -- Packages: no cycle between them, and the layers (issue 40) --------------------------------

#: Each package's layer (docs/development.md, "Layers"): a package imports only packages of
#: its own layer or below, never one above it. A top-level module (``kgbench.tasks``) is its
#: own package; ``kgbench`` is the package's ``__init__`` (the version and the error base).
LAYERS: dict[str, int] = {
    **dict.fromkeys(("kgbench", "_core", "errors", "fileio", "progress"), 0),
    **dict.fromkeys(("tasks", "query", "llm", "convert", "iso", "noise"), 1),
    **dict.fromkeys(("neo4j", "rdb"), 2),
    "generate": 3,
    **dict.fromkeys(("predict", "evaluate"), 4),
    "families": 5,
    **dict.fromkeys(("commands", "report", "demo"), 6),
    **dict.fromkeys(("cli", "__main__"), 7),
}

#: Packages of one layer that import nothing of each other (either way).
INDEPENDENT: list[tuple[str, str]] = [("predict", "evaluate")]

#: Package edges still to be removed (none since the family layer of issue 40): the check fails
#: on an edge listed here that is gone, so the list only shrinks.
KNOWN_PACKAGE_EDGES: list[tuple[str, str]] = []


def package_of(module: str) -> str:
    """``kgbench.evaluate.runner`` -> ``evaluate``; ``kgbench.tasks`` -> ``tasks``;
    ``kgbench`` -> ``kgbench``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_edges(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(importing package, imported package) -> the (module, module) imports behind it."""
    edges: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for module in sorted(graph):
        for target in sorted(graph[module]):
            a, b = package_of(module), package_of(target)
            if a != b:
                edges.setdefault((a, b), []).append((module, target))
    return edges


def package_graph(edges: dict[tuple[str, str], list[tuple[str, str]]]) -> dict[str, set[str]]:
    """Package -> the packages it imports (every package of ``edges`` a node)."""
    graph: dict[str, set[str]] = {p: set() for edge in edges for p in edge}
    for a, b in edges:
        graph[a].add(b)
    return graph


def layer_violations(
    edges: dict[tuple[str, str], list[tuple[str, str]]],
    layers: dict[str, int],
    independent: list[tuple[str, str]],
) -> list[str]:
    """One line per import that goes up a layer or joins two independent packages, naming the
    importing and the imported module; a package missing from ``layers`` is one line too."""
    out = []
    packages = {p for edge in edges for p in edge}
    for package in sorted(packages - set(layers)):
        out.append(f"package {package} has no layer in LAYERS")
    pairs = {frozenset(p) for p in independent}
    for (a, b), imports in sorted(edges.items()):
        if a not in layers or b not in layers:
            continue
        if layers[b] > layers[a]:
            why = f"layer {layers[a]} ({a}) imports layer {layers[b]} ({b})"
        elif frozenset((a, b)) in pairs:
            why = f"{a} and {b} import nothing of each other"
        else:
            continue
        out.extend(f"{m} imports {t}: {why}" for m, t in imports)
    return out


def test_the_layer_check_finds_an_upward_import() -> None:
    """The check itself: an import from a lower layer into a higher one, an import between
    independent packages and a package without a layer are each reported by module."""
    graph = {
        "kgbench.errors": {"kgbench.generate.sampling"},
        "kgbench.generate.sampling": {"kgbench.errors"},
        "kgbench.predict.run": {"kgbench.evaluate.runner"},
        "kgbench.evaluate.runner": {"kgbench.neo4j.executor"},
        "kgbench.neo4j.executor": set(),
        "kgbench.attic": {"kgbench.errors"},
    }
    edges = package_edges(graph)
    assert edges[("errors", "generate")] == [("kgbench.errors", "kgbench.generate.sampling")]
    assert cycles(package_graph(edges)) == [["errors", "generate"]]
    assert layer_violations(edges, LAYERS, INDEPENDENT) == [
        "package attic has no layer in LAYERS",
        "kgbench.errors imports kgbench.generate.sampling: layer 0 (errors) imports layer 3 "
        "(generate)",
        "kgbench.predict.run imports kgbench.evaluate.runner: predict and evaluate import "
        "nothing of each other",
    ]


def test_no_package_cycles_and_no_upward_imports() -> None:
    edges = package_edges(import_graph())
    assert ("generate", "neo4j") in edges, "the package graph was not built"
    known = set(KNOWN_PACKAGE_EDGES)
    gone = sorted(known - set(edges))
    assert not gone, f"no longer imported (remove from KNOWN_PACKAGE_EDGES): {gone}"
    kept = {edge: imports for edge, imports in edges.items() if edge not in known}
    found = cycles(package_graph(kept))
    detail = "\n".join(
        " <-> ".join(c)
        + "\n"
        + "\n".join(
            f"    {m} -> {t}" for a, b in sorted(kept) if a in c and b in c for m, t in kept[(a, b)]
        )
        for c in found
    )
    assert not found, f"packages that import each other:\n{detail}"
    wrong = layer_violations(kept, LAYERS, INDEPENDENT)
    assert not wrong, "imports against the layers (docs/development.md, Layers):\n" + "\n".join(
        wrong
    )


# -- Rust: the module graph of the core crate --------------------------------------------------

CORE = Path(__file__).resolve().parents[1] / "rust" / "kgbench-core" / "src"

#: Module cycles of the core crate still to be folded (none since issue 33): the check fails on
#: any other cycle, and on one of these once it is gone (so the list only shrinks).
KNOWN_RUST_CYCLES: list[list[str]] = []


def rust_module_graph() -> dict[str, set[str]]:
    """Module -> the modules of the same crate its code names (``crate::a::b``, ``super::x``,
    ``self::y`` paths, including ``use super::{x, y}`` lists), test modules and comments left
    out. A
    module naming its own descendants or ancestors is not an edge (``mod`` declarations and
    ``super::`` items of a parent are how Rust nests modules)."""
    import re

    modules: dict[str, Path] = {}
    for path in CORE.rglob("*.rs"):
        parts = list(path.relative_to(CORE).with_suffix("").parts)
        if parts[-1] in ("mod", "lib"):
            parts.pop()
        modules["::".join(["crate", *parts])] = path

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition("::")[0]
        return name or None

    def absolute(module: str, segs: list[str]) -> str:
        if segs[0] == "crate":
            return "::".join(segs)
        base, i = module, 0
        if segs[0] == "self":
            i = 1
        while i < len(segs) and segs[i] == "super":
            base, i = base.rpartition("::")[0], i + 1
        return "::".join([base, *segs[i:]])

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        text = re.split(r"#\[cfg\(test\)\]\s*mod tests", path.read_text(encoding="utf-8"))[0]
        text = re.sub(r"//[^\n]*", "", text)  # comments (doc links are not dependencies)
        names = [
            m.group(1).split("::") for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", text)
        ]
        for m in re.finditer(r"use\s+((?:crate|super|self)(?:::\w+)*)::\{([^}]*)\}", text):
            for item in m.group(2).split(","):
                head = item.strip().split("::")[0].split(" ")[0]
                if head:
                    names.append([*m.group(1).split("::"), head])
        for segs in names:
            target = resolve(absolute(module, segs))
            if target is None or target == module:
                continue
            if target.startswith(module + "::") or module.startswith(target + "::"):
                continue
            graph[module].add(target)
    return graph


def test_no_new_rust_module_cycles() -> None:
    graph = rust_module_graph()
    assert "crate::evaluate::ex" in graph, "the core crate was not found"
    found = sorted(cycles(graph))
    new = [c for c in found if c not in KNOWN_RUST_CYCLES]
    gone = [c for c in KNOWN_RUST_CYCLES if c not in found]
    assert not new, f"new module cycles in the core crate: {new}"
    assert not gone, f"folded (remove from KNOWN_RUST_CYCLES): {gone}"
