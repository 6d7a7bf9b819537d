"""The package's import structure (issue 12): the modules of torchlite import each
other at module level only, and those imports form no cycle. An import inside a
function body is allowed only for an optional third-party package, which the
package must not import when it is imported itself.

Read from the sources with `ast`, not by importing: a cycle hidden behind a
function-level import is what this looks for."""
import ast
import importlib.util
import os

import pytest

# the torchlite the other tests import, found without importing it
PACKAGE_DIR = os.path.dirname(importlib.util.find_spec("torchlite").origin)

# Packages that may be imported inside a function, with why each cannot be imported
# when torchlite is: none of them is a dependency of torchlite.
OPTIONAL_PACKAGES = {
    "cupy": "CUDA arrays, imported when the first cuda tensor is made (_backend)",
    "graphviz": "drawing a graph (autograd.graph), where the dot program is missing",
    "matplotlib": "the demo's plots",
    "torch": "the oracle, in the child of `python -m torchlite compare` that runs under torch",
}

# Function-level imports from torchlite itself that this branch leaves alone, as
# (module, line's text stripped). None today.
KNOWN_FUNCTION_LEVEL = set()

# Import cycles this branch leaves alone, each as the sorted modules of its
# strongly connected component. None today.
KNOWN_CYCLES = set()


def _modules():
    """{module name: path} for every .py file of the package."""
    found = {}
    for root, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(root, os.path.dirname(PACKAGE_DIR))
        package = rel.replace(os.sep, ".")
        for name in sorted(files):
            if name.endswith(".py"):
                module = package if name == "__init__.py" else f"{package}.{name[:-3]}"
                found[module] = os.path.join(root, name)
    return found


MODULES = _modules()
# the C++ extension (csrc/), a leaf: it imports none of the package's modules when loaded
EXTENSIONS = {"torchlite._C"}


def _is_package(module):
    return MODULES[module].endswith("__init__.py")


def _resolve(module, node):
    """The absolute module name an ImportFrom node imports from."""
    if node.level == 0:
        return node.module
    package = module if _is_package(module) else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _ancestors(module):
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _targets(module, node):
    """The package's modules whose import `node` runs (or needs finished) in `module`.
    `from P import name` needs P.name when that is a module, else P itself (name is
    one of P's attributes), even when P is `module`'s own package; the packages above
    `module` are imported before it and are not edges of their own (but `import P`
    of one of them is)."""
    found = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            # `import P` of its own package P: the module reads P's attributes
            found.append((alias.name, "attribute") if alias.name in _ancestors(module) else alias.name)
    else:
        base = _resolve(module, node)
        found.append(base)
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            if sub in MODULES or sub in EXTENSIONS:
                found.append(sub)
            elif base in _ancestors(module):
                found.append((base, "attribute"))
    edges = set()
    for target in found:
        if isinstance(target, tuple):
            edges.add(target[0])
            continue
        for name in _ancestors(target) | {target}:
            if name in MODULES and name not in _ancestors(module) and name != module:
                edges.add(name)
    return edges


def _is_torchlite(module, node):
    name = node.names[0].name if isinstance(node, ast.Import) else _resolve(module, node)
    return name == "torchlite" or name.startswith("torchlite.")


def _top_level_name(module, node):
    name = node.names[0].name if isinstance(node, ast.Import) else _resolve(module, node)
    return name.partition(".")[0]


class _Imports(ast.NodeVisitor):
    """The module-level imports of a module, and those inside function bodies."""

    def __init__(self):
        self.module_level, self.in_function = [], []
        self.depth = 0

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _import(self, node):
        (self.in_function if self.depth else self.module_level).append(node)

    visit_Import = visit_ImportFrom = _import


def _parse(module):
    with open(MODULES[module], encoding="utf-8") as f:
        source = f.read()
    visitor = _Imports()
    visitor.visit(ast.parse(source, MODULES[module]))
    return source.splitlines(), visitor


def import_graph():
    """{module: set of the package's modules it imports at module level}."""
    return {m: set().union(*(_targets(m, n) for n in _parse(m)[1].module_level)) for m in MODULES}


def strongly_connected_components(graph):
    """Tarjan's algorithm: the components of more than one module, or of one that imports itself."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _cycle_in(graph, component):
    """One cycle through the component, as a path of imports."""
    start = min(component)
    path, seen = [start], {start}
    while True:
        nxt = min(w for w in graph[path[-1]] if w in component)
        if nxt in seen:
            return path[path.index(nxt):] + [nxt]
        path.append(nxt)
        seen.add(nxt)


def test_the_package_is_found():
    assert {"torchlite", "torchlite._tensor", "torchlite._backend", "torchlite.cuda",
            "torchlite.autograd", "torchlite.autograd.gradcheck"} <= set(MODULES)


def test_module_level_imports_form_no_cycle():
    graph = import_graph()
    cycles = [c for c in strongly_connected_components(graph) if tuple(sorted(c)) not in KNOWN_CYCLES]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(_cycle_in(graph, c)) for c in cycles)


def test_known_cycles_still_exist():
    # an entry left in KNOWN_CYCLES after its cycle is gone would hide a new one
    found = {tuple(sorted(c)) for c in strongly_connected_components(import_graph())}
    assert KNOWN_CYCLES <= found


def function_level_imports():
    """(module, line number, line's text, whether it is allowed) per import inside a function."""
    found = []
    for module in MODULES:
        lines, visitor = _parse(module)
        for node in visitor.in_function:
            text = lines[node.lineno - 1].strip()
            if _is_torchlite(module, node):
                allowed = (module, text) in KNOWN_FUNCTION_LEVEL
            else:
                allowed = _top_level_name(module, node) in OPTIONAL_PACKAGES
            found.append((module, node.lineno, text, allowed))
    return found


def test_no_function_level_imports_but_optional_packages():
    bad = [f"{m}:{line}: {text}" for m, line, text, allowed in function_level_imports() if not allowed]
    assert not bad, "imports inside functions (move them to the top of the module):\n" + "\n".join(bad)


def test_known_function_level_imports_still_exist():
    found = {(m, text) for m, _, text, _ in function_level_imports()}
    assert KNOWN_FUNCTION_LEVEL <= found


# The checks themselves, on small sources.

@pytest.mark.parametrize("source, module, expected", [
    ("from .. import _dtypes", "torchlite.autograd.gradcheck", {"torchlite._dtypes"}),
    ("from .. import zeros", "torchlite.autograd.gradcheck", {"torchlite"}),
    ("from . import grad", "torchlite.autograd.gradcheck", {"torchlite.autograd"}),
    ("from .grad_mode import no_grad", "torchlite.autograd.graph", {"torchlite.autograd.grad_mode"}),
    ("from . import cuda", "torchlite._backend", {"torchlite.cuda"}),
    ("import torchlite", "torchlite._compare", {"torchlite"}),
    ("import torchlite.autograd.graph", "torchlite._tensor", {"torchlite.autograd", "torchlite.autograd.graph"}),
    ("from torchlite.autograd import graph", "torchlite.utils.checkpoint",
     {"torchlite.autograd", "torchlite.autograd.graph"}),
    ("from .. import _C", "torchlite.autograd.variable", set()),
    ("import numpy as np", "torchlite._tensor", set()),
])
def test_edges_of_an_import(source, module, expected):
    (node,) = ast.parse(source).body
    assert _targets(module, node) == expected


def test_a_cycle_is_found_and_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    components = strongly_connected_components(graph)
    assert sorted(map(sorted, components)) == [["a", "b", "c"], ["e"]]
    assert _cycle_in(graph, {"a", "b", "c"}) == ["a", "b", "c", "a"]


def test_imports_inside_functions_and_methods_are_told_apart():
    visitor = _Imports()
    visitor.visit(ast.parse("import os\nclass A:\n    import sys\n    def f(self):\n        import json\n"
                            "def g():\n    def h():\n        from . import x\n"))
    assert [n.lineno for n in visitor.module_level] == [1, 3]
    assert [n.lineno for n in visitor.in_function] == [5, 8]
