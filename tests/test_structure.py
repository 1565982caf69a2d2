"""The house: no import cycle, no module too long, each criterion and the growth written once."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dtree"
MAX_LINES = 700


def _module_name(path):
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports():
    """Module -> the package modules it imports, at any level of its code."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        if "datasets" in path.parts:
            continue
        name = _module_name(path)
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                base = package[:len(package) - (node.level - 1)]
                if node.module:
                    deps.add(".".join(base + node.module.split(".")))
                else:
                    deps.update(".".join(base + [alias.name]) for alias in node.names)
        graph[name] = deps
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
    long = {p.name: n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_readers_do_not_import_builders():
    # what reads a fitted tree never imports what grows one
    builders = {"_node_store", "_grow", "_hist_splitter", "_c45", "_splitter", "_fit.fit"}
    graph = _imports()
    for reader in ("_model.tree", "_deploy.model_file", "export", "_deploy.onnx",
                   "_fit.pruning"):
        assert not graph[reader] & builders, reader


def _cython_sources():
    return {p.name: p.read_text(encoding="utf-8")
            for pattern in ("*.pyx", "*.pxd") for p in PACKAGE.glob(pattern)}


def test_each_criterion_is_spelt_out_in_its_kernel_module_and_one_specialised_scan():
    import re

    sources = _cython_sources()
    codes = set(re.findall(r"\bCRIT_[A-Z_]+\b", sources["_criterion.pxd"]))
    assert {"CRIT_GINI", "CRIT_ENTROPY", "CRIT_GAIN_RATIO", "CRIT_SQUARED_ERROR"} <= codes
    for code in codes:
        modules = {name.split(".")[0] for name, text in sources.items()
                   if re.search(rf"\b{code}\b", text)}
        assert modules - {"_criterion"} <= {"_splitter"}, (code, modules)
    # the histogram splitter, the growers and C4.5 name no criterion at all
    for name in ("_hist_splitter.pyx", "_grow.pyx", "_c45.pyx", "_node_store.pyx"):
        assert "CRIT_" not in sources[name], name


def test_growth_is_written_once():
    # nodes are added to the store by the growers only, and only _grow grows
    # over the splitters (C4.5's fractional cases have their own grower)
    sources = _cython_sources()
    adders = {name for name, text in sources.items() if "store.add(" in text}
    assert adders == {"_grow.pyx", "_c45.pyx"}
    heaps = {name for name, text in sources.items() if "frontier_push" in text}
    assert heaps == {"_grow.pyx"}
    # C4.5 keeps its nodes in the shared store, not in Python lists
    assert "cdef NodeStore store" in sources["_c45.pyx"]
    assert "cdef list" not in sources["_c45.pyx"].split("cdef class _Grower")[1].split("def __init__")[0]
