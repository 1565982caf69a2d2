"""Run scikit-learn's own forest tests (sklearn/ensemble/tests/test_forest.py) against dtree.

The installed scikit-learn's test file is copied to a temporary folder with
the four forests (``RandomForestClassifier``, ``RandomForestRegressor``,
``ExtraTreesClassifier``, ``ExtraTreesRegressor``) imported from dtree instead
(``RandomTreesEmbedding``, which dtree does not offer, stays scikit-learn's),
and run with pytest (``-k EXPR`` selects as pytest does).

    python bench/sklearn_forest_tests.py            # prints pytest's summary
    python bench/sklearn_forest_tests.py -k "oob"
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sklearn_tree_tests import run_swapped  # noqa: E402  (the runner both scripts share)

SWAP_FROM = """from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    RandomTreesEmbedding,
)"""
SWAP_TO = """from sklearn.ensemble import RandomTreesEmbedding
from dtree import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)"""


def main(argv=None):
    return run_swapped(pathlib.Path("ensemble", "tests", "test_forest.py"), SWAP_FROM, SWAP_TO,
                       argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
