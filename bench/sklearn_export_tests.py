"""Run scikit-learn's own exporter tests (sklearn/tree/tests/test_export.py) against dtree.

The installed scikit-learn's test file is copied to a temporary folder with the
two tree estimators imported from dtree and ``export_graphviz``, ``export_text``
and ``plot_tree`` from ``dtree`` (the exporters dtree offers under scikit-learn's
names), and run with pytest (``-k EXPR`` selects as pytest does). Where dtree
decides otherwise, the README's "Decisions" say why (tests/test_sklearn_export.py
runs this and holds the list of expected differences).

    python bench/sklearn_export_tests.py            # prints pytest's summary
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sklearn_tree_tests import run_swapped  # noqa: E402  (the runner these scripts share)

SWAP_FROM = """from sklearn.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    export_graphviz,
    export_text,
    plot_tree,
)"""
SWAP_TO = """from dtree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    export_graphviz,
    export_text,
    plot_tree,
)"""


def main(argv=None):
    return run_swapped(pathlib.Path("tree", "tests", "test_export.py"), SWAP_FROM, SWAP_TO,
                       argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
