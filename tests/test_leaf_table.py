"""A regression forest pickles its leaf values once (``dtree._model.leaf_table``) and
a tree leaves out the thresholds that are its ranges' midpoints
(``dtree._model.compact``): every column comes back bit for bit, the records
are smaller, and a damaged record is refused with a ValueError."""
import pickle

import numpy as np
import pytest

import dtree
from dtree._model.compact import KEY
from dtree._model.leaf_table import TreesWithTable, leaf_table, table_codes, table_leaves
from dtree._model.narrow import zigzag
from dtree._model.tree import Tree

COLUMNS = ("value", "impurity", "weighted_n_node_samples", "threshold", "children_left",
           "children_right", "n_node_samples", "feature", "feature_range",
           "missing_go_to_left")


def _data(n=1500, d=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + rng.normal(scale=0.3, size=n)
    return X, y, rng


def _same_trees(a, b):
    assert len(a) == len(b)
    for x, z in zip(a, b):
        assert type(x) is type(z) and x.get_params() == z.get_params()
        for name in COLUMNS:
            u, v = getattr(x.tree_, name), getattr(z.tree_, name)
            assert u.dtype == v.dtype and u.shape == v.shape, name
            assert np.array_equal(u.view(np.uint8), v.view(np.uint8)), name   # bit for bit


def _forests():
    X, y, rng = _data()
    Xn = X.copy()
    Xn[rng.rand(*X.shape) < 0.1] = np.nan
    signed = np.where(rng.rand(len(y)) < 0.5, 0.0, -0.0)     # leaves of 0.0 and of -0.0
    RF, ET = dtree.RandomForestRegressor, dtree.ExtraTreesRegressor
    return {
        "random forest": lambda: RF(n_estimators=5, random_state=0).fit(X, y),
        "extra trees": lambda: ET(n_estimators=5, random_state=0).fit(X, y),
        "missing values": lambda: RF(n_estimators=3, random_state=0).fit(Xn, y),
        "signed zeros": lambda: RF(n_estimators=3, random_state=0).fit(X, signed),
        "targets near 1e300": lambda: RF(n_estimators=3, random_state=0).fit(X, y * 1e300),
        "targets near 1e-300": lambda: RF(n_estimators=3, random_state=0).fit(X, y * 1e-300),
        "absolute error": lambda: RF(n_estimators=3, criterion="absolute_error",
                                     random_state=0).fit(X[:300], y[:300]),
        "depth 3": lambda: RF(n_estimators=4, max_depth=3, random_state=0).fit(X, y),
        "hist": lambda: RF(n_estimators=3, splitter="hist", random_state=0).fit(X, y),
        "weights": lambda: RF(n_estimators=3, random_state=0).fit(
            X, y, sample_weight=rng.rand(len(y))),
    }


@pytest.mark.parametrize("name", list(_forests()))
def test_a_regression_forest_comes_back_bit_for_bit_with_its_leaves_in_one_table(name):
    forest = _forests()[name]()
    state = forest.__getstate__()
    assert isinstance(state["estimators_"], TreesWithTable)
    back = pickle.loads(pickle.dumps(forest))
    assert isinstance(back.estimators_, list)
    _same_trees(forest.estimators_, back.estimators_)
    X = _data()[0]
    np.testing.assert_array_equal(back.predict(X), forest.predict(X))
    # a tree pickled on its own keeps its own leaf values
    alone = pickle.loads(pickle.dumps(forest.estimators_[0]))
    _same_trees(forest.estimators_[:1], [alone])


def test_the_table_makes_a_full_depth_forest_smaller():
    X, y, _ = _data(4000, 8)
    forest = dtree.RandomForestRegressor(n_estimators=8, random_state=0).fit(X, y)
    with_table = len(pickle.dumps(forest))
    without = len(pickle.dumps([forest.estimators_, forest.get_params()]))
    assert with_table < 0.85 * without
    # the trees' leaves really are positions in the table
    tree_state = forest.estimators_[0].tree_._pickled(leaf_table(
        [t.tree_ for t in forest.estimators_]))
    manifest = tree_state[KEY][2]
    assert dict((m[0], m[1]) for m in manifest)["value"] == "table"


def test_classifiers_and_several_outputs_keep_their_trees_as_a_list():
    X, y, _ = _data()
    classes = dtree.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y > 0)
    outputs = dtree.RandomForestRegressor(n_estimators=3, random_state=0).fit(
        X, np.column_stack([y, -y]))
    for forest in (classes, outputs):
        assert isinstance(forest.__getstate__()["estimators_"], list)
        _same_trees(forest.estimators_, pickle.loads(pickle.dumps(forest)).estimators_)


def test_table_codes_are_exact_positions_or_none():
    table = np.unique(np.array([-2.5, -0.0, 0.0, 1.0, 3.0, 7.25]).view(np.int64)).view(np.float64)
    leaves = np.array([3.0, 0.0, -0.0, 7.25, 3.0, -2.5]).reshape(-1, 1, 1)
    codes = table_codes(leaves, table)
    back = table_leaves(codes, table, 6)
    assert np.array_equal(back.view(np.int64), leaves.view(np.int64))      # -0.0 kept
    assert table_codes(np.array([2.0]).reshape(1, 1, 1), table) is None     # not in it
    assert table_codes(np.array([8.0]).reshape(1, 1, 1), table) is None     # past its end
    with pytest.raises(ValueError, match="outside"):
        table_leaves(zigzag(np.array([0, 6])), table, 2)
    with pytest.raises(ValueError, match="outside"):
        table_leaves(zigzag(np.array([-1])), table, 1)
    with pytest.raises(ValueError, match="do not fit"):
        table_leaves(codes, table, 5)
    with pytest.raises(ValueError, match="float64"):
        table_leaves(codes, table.astype(np.float32), 6)


def _forest_and_state():
    X, y, _ = _data()
    forest = dtree.RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    table = leaf_table([t.tree_ for t in forest.estimators_])
    return forest, table, forest.estimators_[0].tree_._pickled(table)


def test_a_tree_whose_leaves_are_in_a_table_needs_the_table():
    forest, table, state = _forest_and_state()
    with pytest.raises(ValueError, match="unpickle the forest"):
        Tree.__new__(Tree).__setstate__(state)
    with pytest.raises(ValueError, match="outside"):
        Tree.__new__(Tree)._unpickle(state, table[:10])
    back = Tree.__new__(Tree)
    back._unpickle(state, table)
    assert np.array_equal(back.value.view(np.int64), forest.estimators_[0].tree_.value.view(np.int64))


def test_a_thresholds_record_without_its_bits_is_refused():
    X, y, _ = _data()
    tree = dtree.DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    state = tree.__getstate__()
    version, n, manifest, blob = state[KEY]
    hows = dict((m[0], m[1]) for m in manifest)
    assert hows["threshold"] == "midpoints" and hows["threshold_from_range"] == "bits"
    assert version == 3
    # the bits are the record's last entry: dropping them leaves the rest readable
    assert manifest[-1][0] == "threshold_from_range"
    state[KEY] = (version, n, manifest[:-1], blob)
    with pytest.raises(ValueError, match="thresholds and their ranges"):
        Tree.__new__(Tree).__setstate__(state)


def test_thresholds_off_their_ranges_midpoints_are_kept():
    # a depth-limited tree: its split nodes hold many rows, their thresholds lie
    # inside their ranges, so no threshold derives (and no bits are written)
    X, y, _ = _data()
    tree = dtree.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y).tree_
    version, _, manifest, _ = tree.__getstate__()[KEY]
    assert dict((m[0], m[1]) for m in manifest)["threshold"] == "inner" and version == 2
    full = dtree.DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    back = Tree.__new__(Tree)
    back.__setstate__(full.__getstate__())
    assert np.array_equal(back.threshold.view(np.int64), full.threshold.view(np.int64))
    inner = full.children_left >= 0
    pairs = inner & (full.n_node_samples == 2)
    # a pair's threshold is its range's midpoint: the derived ones
    low, high = full.feature_range[pairs].T
    np.testing.assert_array_equal(full.threshold[pairs], low / 2 + high / 2)
