"""Every example in a public docstring runs, as written (doctest), with the
packages the test extras install; none is skipped unless it needs a cluster."""
import doctest
import importlib
import inspect

import pytest

PUBLIC = ["dtree", "dtree.export", "dtree.inspection", "dtree.integrations", "dtree.dask",
          "dtree.datasets"]


def _public_objects():
    seen = set()
    for name in PUBLIC:
        module = importlib.import_module(name)
        members = [getattr(module, n) for n in getattr(module, "__all__", dir(module))
                   if not n.startswith("_")]
        for obj in [module] + members:
            if id(obj) in seen or not (inspect.ismodule(obj) or inspect.isclass(obj)
                                       or inspect.isfunction(obj)):
                continue
            seen.add(id(obj))
            yield obj


def _examples():
    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    tests = {}
    for obj in _public_objects():
        module = inspect.getmodule(obj)
        for test in finder.find(obj, module=module, globs={}):
            if test.examples and test.name.split(".")[-1] != "__init__":
                tests.setdefault(test.name, test)
    return sorted(tests.values(), key=lambda t: t.name)


EXAMPLES = _examples()


def test_the_public_docstrings_hold_examples():
    names = {t.name.rsplit(".", 1)[-1] for t in EXAMPLES}
    assert {"DecisionTreeClassifier", "DecisionTreeRegressor", "export_text", "export_sql",
            "partial_dependence", "to_shap"} <= names, sorted(names)


@pytest.mark.parametrize("test", EXAMPLES, ids=[t.name for t in EXAMPLES])
def test_docstring_examples_run(test):
    pytest.importorskip("matplotlib").use("Agg")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda text: None)
    results = runner.summarize(verbose=False)
    # (examples marked +SKIP need a Dask cluster or an ONNX pipeline: not counted)
    assert results.failed == 0, f"{test.name}: {results.failed} of {results.attempted} failed"
