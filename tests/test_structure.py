"""The house: no import cycle among the package's modules, none of them too long."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dtree"
MAX_LINES = 700


def _imports():
    """Module -> the package modules it imports, at any level of its code."""
    graph = {}
    for path in PACKAGE.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                deps.add(node.module.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.level == 1:
                deps.update(alias.name for alias in node.names)
        graph[path.stem] = deps
    return graph


def test_no_import_cycle():
    graph = _imports()
    state = {}

    def visit(module, path):
        state[module] = "open"
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == "open":
                raise AssertionError(f"import cycle: {' -> '.join(path + [dep])}")
            if dep not in state:
                visit(dep, path + [dep])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_no_python_module_is_too_long():
    long = {p.name: n for p in PACKAGE.glob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_readers_do_not_import_builders():
    # what reads a fitted tree never imports what grows one
    builders = {"_tree", "_hist", "_c45", "_splitter", "_fit"}
    graph = _imports()
    for reader in ("_nodes", "_io", "export", "_onnx", "_pruning"):
        assert not graph[reader] & builders, reader
