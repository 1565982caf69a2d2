"""Run scikit-learn's own forest tests (sklearn/ensemble/tests/test_forest.py) against dtree.

The installed scikit-learn's test file is copied to a temporary folder with
the four forests (``RandomForestClassifier``, ``RandomForestRegressor``,
``ExtraTreesClassifier``, ``ExtraTreesRegressor``) imported from dtree instead
(``RandomTreesEmbedding``, which dtree does not offer, stays scikit-learn's),
and run with pytest (``-k EXPR`` selects as pytest does).

    python bench/sklearn_forest_tests.py            # prints pytest's summary
    python bench/sklearn_forest_tests.py -k "oob"
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

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
# scikit-learn's conftest gives this fixture (its default seed is 42)
CONFTEST = """import pytest


@pytest.fixture
def global_random_seed():
    return 42
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="select", help="pytest's -k expression")
    args = parser.parse_args(argv)
    import sklearn

    source = pathlib.Path(sklearn.__file__).parent / "ensemble" / "tests" / "test_forest.py"
    text = source.read_text(encoding="utf-8")
    if SWAP_FROM not in text:
        sys.exit(f"{source}: the estimator import has another shape; update SWAP_FROM")
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        (folder / "test_forest_dtree.py").write_text(text.replace(SWAP_FROM, SWAP_TO),
                                                     encoding="utf-8")
        (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "--no-header", "-rf", "test_forest_dtree.py"]
        if args.select:
            command += ["-k", args.select]
        print(f"scikit-learn {sklearn.__version__}: {source}", flush=True)
        return subprocess.run(command, cwd=folder).returncode


if __name__ == "__main__":
    sys.exit(main())
