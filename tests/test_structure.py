"""The house: its layers checked on the transitive closure of imports, no cycle, no
module too long, each criterion spelt out once, the growth and the routing rule written
once, and every fact about criteria, splitters and presets at home in the registry."""
import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dtree"
MAX_LINES = 700

# kernels that grow trees, and the Python modules that drive them
BUILDERS = {"_splitter", "_sparse_splitter", "_hist_splitter", "_grow", "_node_store", "_c45",
            "_audit_scan", "_fit.grow", "_fit.fit", "_fit.audit", "_fit.levelwise"}
# the fitted model and everything that reads one
READERS = ("_model", "_deploy", "export", "inspection", "_route")


def _module_name(path):
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _python_imports(path, name):
    """The package modules a Python module imports, at any level of its code."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    deps = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            base = package[:len(package) - (node.level - 1)]
            if node.module:
                target = ".".join(base + node.module.split("."))
                deps.add(target)
                # "from .pkg import module" imports the module too
                deps.update(f"{target}.{alias.name}" for alias in node.names)
            else:
                deps.update(".".join(base + [alias.name]) for alias in node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""]
            deps.update(n[len("dtree."):] for n in names if n.startswith("dtree."))
    return deps


def _kernel_imports(path):
    """The package modules a Cython file imports or cimports."""
    text = path.read_text(encoding="utf-8")
    return set(re.findall(r"^\s*from \.(\w+) c?import", text, re.M))


def _graph():
    """Module -> the modules it imports (existing ones only; a package's __init__
    counts as imported with any of its modules)."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        if "datasets" not in path.parts:
            name = _module_name(path)
            graph[name] = _python_imports(path, name)
    for path in list(PACKAGE.glob("*.pyx")) + list(PACKAGE.glob("*.pxd")):
        graph.setdefault(path.stem, set()).update(_kernel_imports(path))
    known = set(graph)
    out = {}
    for name, deps in graph.items():
        edges = set()
        for dep in deps:
            parts = dep.split(".")
            edges.update(".".join(parts[:i]) for i in range(1, len(parts) + 1)
                         if ".".join(parts[:i]) in known)
        out[name] = edges - {name, ""}
    return out


def _closure(graph, start):
    seen, stack = set(), [start]
    while stack:
        for dep in graph.get(stack.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return seen


def _in_layer(name, layer):
    return name == layer or name.startswith(layer + ".")


def test_no_import_cycle():
    graph = _graph()
    state = {}

    def visit(module, path):
        state[module] = "open"
        for dep in sorted(graph.get(module, ())):
            # a package's __init__ imports its own modules: not a cycle
            if dep.startswith(module + ".") or module.startswith(dep + "."):
                continue
            if state.get(dep) == "open":
                raise AssertionError(f"import cycle: {' -> '.join(path + [dep])}")
            if dep not in state:
                visit(dep, path + [dep])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_the_fitted_model_and_its_readers_never_reach_a_builder():
    graph = _graph()
    readers = [m for m in graph if any(_in_layer(m, layer) for layer in READERS)]
    assert {"_model.tree", "_model.routing", "_deploy.model_file", "_deploy.sql",
            "_deploy.onnx", "export", "export.drawing", "inspection"} <= set(readers)
    for reader in readers:
        reached = _closure(graph, reader) & BUILDERS
        assert not reached, f"{reader} reaches the builders {sorted(reached)}"


def test_kernels_import_no_python_layer():
    graph = _graph()
    kernels = {p.stem for p in PACKAGE.glob("*.pyx")} | {p.stem for p in PACKAGE.glob("*.pxd")}
    for kernel in kernels:
        assert _closure(graph, kernel) <= kernels, kernel


def test_the_plan_and_the_input_are_made_before_anything_is_built():
    graph = _graph()
    for module in graph:
        if _in_layer(module, "_plan") or _in_layer(module, "_input"):
            reached = _closure(graph, module) & (BUILDERS | {"_fit"})
            assert not reached, (module, sorted(reached))


def test_subpackages_import_nothing_when_opened():
    # an import of one module of a layer must not pull in the others (the layer
    # rules are checked on what a module imports, not on what its package does)
    for init in PACKAGE.glob("_*/__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert not [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], init


def test_no_python_module_is_too_long():
    long = {p.name: n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def _cython_sources():
    return {p.name: p.read_text(encoding="utf-8")
            for pattern in ("*.pyx", "*.pxd") for p in PACKAGE.glob(pattern)}


def test_each_criterion_is_spelt_out_in_its_kernel_module_only():
    sources = _cython_sources()
    codes = set(re.findall(r"\bCRIT_[A-Z_]+\b", sources["_criterion.pxd"]))
    assert {"CRIT_GINI", "CRIT_ENTROPY", "CRIT_GAIN_RATIO", "CRIT_SQUARED_ERROR",
            "CRIT_POISSON", "CRIT_ABSOLUTE_ERROR", "CRIT_QUANTILE"} <= codes
    for code in codes:
        modules = {name.split(".")[0] for name, text in sources.items()
                   if re.search(rf"\b{code}\b", text)}
        assert modules <= {"_criterion"}, (code, modules)
    # one section per criterion, in the order the module's docstring gives
    text = sources["_criterion.pxd"]
    sections = re.findall(r"^# =+ (.+)$", text, re.M)
    assert sections[:8] == ["codes and their properties", "gini", "entropy (information gain)",
                            "gain ratio", "squared error", "poisson",
                            "quantile and absolute error", "the dispatchers"]


def test_properties_of_a_code_do_not_rest_on_the_order_of_the_codes():
    text = _cython_sources()["_criterion.pxd"]
    assert not re.search(r"crit\s*[<>]=?\s*CRIT_", text)
    assert not re.search(r"crit\s*[<>]=?\s*\d", text)


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


def test_the_routing_rule_is_written_once():
    sources = _cython_sources()
    # the rule compares a value with a threshold in _route.pxd only (the scans
    # compare values with each other, and C4.5 routes by sorted positions)
    rule = re.compile(r"\bx\s*(<=|>)\s*\w*\.?threshold\b")
    code = {name: "\n".join(line.split("#")[0] for line in text.splitlines())
            for name, text in sources.items()}
    holders = {name for name, text in code.items() if rule.search(text)}
    assert holders == {"_route.pxd"}
    for name in ("_splitter.pyx", "_sparse_splitter.pyx", "_route.pyx"):
        assert "side(" in sources[name], name
    # Python: the category-set bit test lives in _model.routing only
    bit_test = re.compile(r">>\s*\(?\s*\w+\s*(%|&)\s*(64|63)")
    python = {_module_name(p): p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}
    assert {name for name, text in python.items() if bit_test.search(text)} <= {"_model.routing"}
    assert sum("TREE_LEAF = -1" in text for text in python.values()) == 1


# ---------------------------------------------------------------- one home for each fact
def _criterion_names():
    from dtree._plan import registry
    return {row.name for row in registry.CRITERIA} | set(registry.DEPRECATED_CRITERIA)


def _docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value,
                                                                      ast.Constant):
                out.add(id(body[0].value))
    return out


def test_a_criterion_is_named_in_the_registry_only():
    # (docstrings aside; "quantile" is also a parameter's name, as in
    # scikit-learn's constraints; the benchmark names the configurations it times)
    names = _criterion_names() - {"quantile"}
    found = []
    for path in PACKAGE.rglob("*.py"):
        name = _module_name(path)
        if name in ("_plan.registry", "bench") or "datasets" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    id(node) not in docs and node.value in names:
                found.append((name, node.lineno, node.value))
    for path in list(PACKAGE.glob("*.pyx")) + list(PACKAGE.glob("*.pxd")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            for word in _criterion_names():
                if re.search(rf"[\"']{word}[\"']", code):
                    found.append((path.name, lineno, word))
    assert found == []


def test_kernel_codes_and_properties_agree_with_the_registry():
    from dtree import _criterion
    from dtree._plan import registry

    kernel = _criterion.kernel_codes()
    assert {row.code for row in registry.CRITERIA} == set(kernel)
    for row in registry.CRITERIA:
        classification, quantile = kernel[row.code]
        assert classification == (row.task == registry.CLASSIFICATION), row.name
        assert quantile == (row.value == "weighted_quantile"), row.name


def test_docstrings_and_the_guide_list_what_the_registry_holds():
    import dtree
    from dtree._plan import registry

    def listed(doc, parameter):
        line = next(l for l in doc.splitlines() if l.strip().startswith(f"{parameter} : {{"))
        return set(re.findall(r'"([\w.]+)"', line.split("}")[0]))

    clf, reg = dtree.DecisionTreeClassifier.__doc__, dtree.DecisionTreeRegressor.__doc__
    reg_doc = reg.replace("\\\n", "")
    assert listed(clf, "criterion") == set(registry.criteria(registry.CLASSIFICATION))
    assert listed(reg_doc, "criterion") == set(registry.criteria(registry.REGRESSION)) | \
        set(registry.DEPRECATED_CRITERIA)
    assert listed(clf, "splitter") == set(registry.names("splitter"))
    assert listed(clf, "algorithm") == set(registry.names("algorithm"))
    assert f'default="{registry.DEFAULT_CRITERION[registry.CLASSIFICATION]}"' in clf
    # the parameter tables and the compatibility table: the user guide's
    # estimators page (docs/guide/estimators.md; they were the README's)
    guide = (PACKAGE.parent / "docs" / "guide" / "estimators.md").read_text(encoding="utf-8")
    table = {}
    for line in guide.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and cells[1].startswith("`") and cells[1].endswith("`"):
            table[cells[1].strip("`")] = set(re.findall(r"`\"?([\w.]+)\"?`", cells[2]))
    assert set(registry.criteria(registry.CLASSIFICATION)) | \
        set(registry.criteria(registry.REGRESSION)) | set(registry.DEPRECATED_CRITERIA) \
        <= table["criterion"]
    assert set(registry.names("splitter")) <= table["splitter"]
    assert set(registry.names("algorithm")) <= table["algorithm"]
    # the guide's table of what works with what is the registry's own
    assert registry.compatibility_table() in guide


def test_the_layout_lists_every_module():
    # the Layout section of the developer guide (docs/developer.md; it was the README's)
    guide = (PACKAGE.parent / "docs" / "developer.md").read_text(encoding="utf-8")
    layout = guide.split("## Layout")[1].split("\n## ")[0]
    files = [p for pattern in ("*.py", "*.pyx", "*.pxd") for p in PACKAGE.rglob(pattern)
             if "datasets" not in p.parts and not (p.name == "__init__.py"
                                                     and p.parent.name.startswith("_"))]
    folders = {p.parent.name for p in files if p.parent != PACKAGE}
    # (a .pxd declares its .pyx: listing either lists both)
    missing = [str(p.relative_to(PACKAGE)) for p in files
               if p.name not in layout and f"{p.stem}.pyx" not in layout]
    assert missing == []
    assert all(f"dtree/{folder}/" in layout for folder in folders)
