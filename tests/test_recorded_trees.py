"""Trees do not change unless a change means them to: fits against recorded node arrays."""
import numpy as np
import pytest

from recorded_trees import COLUMNS, RECORD, configurations

EXACT = {"children_left", "children_right", "feature", "n_node_samples",
         "missing_go_to_left", "categorical_set"}


@pytest.fixture(scope="module")
def recorded():
    with np.load(RECORD) as data:
        return {key: data[key] for key in data.files}


@pytest.mark.parametrize("name, estimator, X, y, w", configurations(),
                         ids=[c[0] for c in configurations()])
def test_tree_equals_the_recorded_one(recorded, name, estimator, X, y, w):
    tree = estimator.fit(X, y, sample_weight=w).tree_
    for column in COLUMNS:
        expected = recorded[f"{name}/{column}"]
        actual = np.asarray(getattr(tree, column))
        if column in EXACT:
            np.testing.assert_array_equal(actual, expected, err_msg=f"{name}: {column}")
        else:  # floats: the last bits may differ between compilers (FMA)
            np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-300,
                                       err_msg=f"{name}: {column}")
