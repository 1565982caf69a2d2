"""Run scikit-learn's own tree tests (sklearn/tree/tests/test_tree.py) against dtree.

The installed scikit-learn's test file is copied to a temporary folder with
the four estimators (``DecisionTreeClassifier``, ``DecisionTreeRegressor``,
``ExtraTreeClassifier``, ``ExtraTreeRegressor``) imported from dtree instead,
and run with pytest: every test, sparse input included (``-k EXPR`` selects as
pytest does).

    python bench/sklearn_tree_tests.py            # prints pytest's summary
    python bench/sklearn_tree_tests.py -k "not sparse"
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

SWAP_FROM = """from sklearn.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)"""
SWAP_TO = """from dtree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)"""
# scikit-learn's conftest gives these fixtures (its default seed is 42)
CONFTEST = """import pytest


@pytest.fixture
def global_random_seed():
    return 42


@pytest.fixture
def pyplot():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    yield plt
    plt.close("all")
"""


def run_swapped(relative_path, swap_from, swap_to, argv=None, description=None):
    """Run one of the installed scikit-learn's test files with ``swap_from`` (its
    estimator import) replaced by ``swap_to`` (dtree's), in a temporary folder with
    scikit-learn's ``global_random_seed`` fixture; returns pytest's exit status."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("-k", dest="select", help="pytest's -k expression")
    args = parser.parse_args(argv)
    import sklearn

    source = pathlib.Path(sklearn.__file__).parent / relative_path
    text = source.read_text(encoding="utf-8")
    if swap_from not in text:
        sys.exit(f"{source}: the estimator import has another shape; update SWAP_FROM")
    name = source.stem + "_dtree.py"
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        (folder / name).write_text(text.replace(swap_from, swap_to), encoding="utf-8")
        (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "--no-header", "-rf", name]
        if args.select:
            command += ["-k", args.select]
        print(f"scikit-learn {sklearn.__version__}: {source}", flush=True)
        return subprocess.run(command, cwd=folder).returncode


def main(argv=None):
    return run_swapped(pathlib.Path("tree", "tests", "test_tree.py"), SWAP_FROM, SWAP_TO, argv,
                       __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
