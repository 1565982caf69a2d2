"""The prediction kernel: a numeric tree's first levels as a complete tree (``pack_top``)
route every row to the leaf the packed nodes route it to, NaN, infinities, values on
and beside the float32 thresholds, strided rows and trees deeper than the top
included; predict checks X's values while routing it and still refuses what the
full check refuses, with the same messages; the single-row path encodes what needs
encoding."""
import warnings

import numpy as np
import pandas as pd
import pytest

import dtree
from dtree._route import (PACKED_NODE_DTYPE, PARALLEL_ROWS, SLIM_NODE_DTYPE, Router, apply_packed,
                         pack_top)


def _rows(rng, n, d, tree):
    # random rows, then values on, just below and just above thresholds, NaN and inf
    X = rng.normal(size=(n, d)).astype(np.float32)
    inner = np.flatnonzero(tree.children_left >= 0)
    for i in range(n // 2):
        node = inner[rng.randint(inner.size)] if inner.size else 0
        t = np.float32(tree.threshold[node])
        X[i, tree.feature[node]] = rng.choice(
            [t, np.nextafter(t, np.float32(-np.inf)), np.nextafter(t, np.float32(np.inf))])
    X[rng.rand(n, d) < 0.05] = np.nan
    X[rng.rand(n, d) < 0.01] = np.inf
    X[rng.rand(n, d) < 0.01] = -np.inf
    return X


@pytest.mark.parametrize("max_depth", [1, 3, 10, 12, 13, None])
@pytest.mark.parametrize("seed", [0, 1])
# (many rows per exit: the output is looked up by the exit, when the top holds the tree)
@pytest.mark.parametrize("n_rows", [1001, 4 * 4096 + 1])
def test_the_complete_top_routes_as_the_packed_nodes(max_depth, seed, n_rows):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(3000, 6))
    X[rng.rand(*X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) * 3 + np.nan_to_num(X[:, 1]) + rng.normal(size=3000)
    tree = dtree.DecisionTreeRegressor(max_depth=max_depth, random_state=seed).fit(X, y).tree_
    top = pack_top(tree._packed, tree.max_depth, tree.n_features)
    assert top[0].shape[0] == 2 ** min(tree.max_depth, 12)
    Q = _rows(rng, n_rows, 6, tree)         # (not a multiple of a block of rows)
    walked = apply_packed(tree._packed, tree.category_sets, Q)
    router = Router(tree._packed, tree.category_sets, top)
    np.testing.assert_array_equal(router.route(Q), walked)
    # strided rows take the packed nodes; the same leaves
    wide = np.repeat(Q, 2, axis=1)[:, ::2]
    np.testing.assert_array_equal(router.route(wide), walked)
    # a table lookup is the table at those leaves, and non-finite rows are reported
    values, unusual = router.route(Q, 1, np.ascontiguousarray(tree.value[:, 0, 0]),
                                   check_finite=True)
    np.testing.assert_array_equal(values, tree.value[walked, 0, 0])
    assert unusual
    clean = np.nan_to_num(Q, nan=0.5, posinf=2.0, neginf=-2.0)
    assert not router.route(clean, 1, check_finite=True)[1]
    assert router.route(clean[:1], 1, check_finite=True)[1] is False
    one_bad = clean.copy()
    one_bad[-1, -1] = np.inf                 # the last, short block is read too
    assert router.route(one_bad, 1, check_finite=True)[1]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, np.float32(np.nan) * -1])
def test_every_value_of_a_block_is_checked(bad):
    # a tree whose top holds it, rows of 5 values: one non-finite value at each
    # position of 4 blocks of rows is found; the largest and smallest finite ones
    # and subnormals are not reported
    rng = np.random.RandomState(0)
    X = rng.normal(size=(500, 5))
    tree = dtree.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, X[:, 0]).tree_
    router = Router(tree._packed, tree.category_sets,
                    pack_top(tree._packed, tree.max_depth, tree.n_features))
    big = np.finfo(np.float32).max
    clean = rng.choice(np.float32([big, -big, 1e-45, -1e-45, 0, 1]), size=(64, 5))
    clean = np.ascontiguousarray(clean, dtype=np.float32)
    assert not router.route(clean, 1, check_finite=True)[1]
    for at in range(clean.size):
        dirty = clean.copy()
        dirty.flat[at] = bad
        assert router.route(dirty, 1, check_finite=True)[1], at


def test_a_single_leaf_tree_has_an_empty_top():
    tree = dtree.DecisionTreeClassifier().fit(np.zeros((5, 2)), [1] * 5).tree_
    top, exits = pack_top(tree._packed, tree.max_depth, tree.n_features)
    assert top.shape == (1,) and exits.tolist() == [0]
    X = np.array([[np.nan, np.inf], [1.0, 2.0]], dtype=np.float32)
    np.testing.assert_array_equal(Router(tree._packed, tree.category_sets,
                                         (top, exits)).route(X), [0, 0])


def test_a_threshold_between_two_floats_is_rounded_down():
    # x > t for a double t exactly when x > the greatest float32 at most t
    X = np.array([[0.0], [1.0]] * 10)
    tree = dtree.DecisionTreeRegressor(max_depth=1).fit(X, X[:, 0]).tree_
    for t in (0.5, 2.0, 0.1, -0.1, 1e-40, 3.0e38, -3.5e38, 1e300):
        tree.threshold[0] = t
        tree.forget_routing()
        with np.errstate(over="ignore"):       # (float32 has no 1e300: inf)
            nearest = np.float32(t)
            below = np.nextafter(nearest, np.float32(-np.inf)) if float(nearest) > t \
                else nearest
            Q = np.array([[below], [np.nextafter(below, np.float32(np.inf))],
                          [np.nextafter(below, np.float32(-np.inf))]], dtype=np.float32)
        expected = np.where(Q[:, 0].astype(np.float64) <= t, tree.children_left[0],
                            tree.children_right[0])
        np.testing.assert_array_equal(tree.apply(Q), expected, err_msg=str(t))


@pytest.mark.parametrize("Estimator", [dtree.DecisionTreeClassifier,
                                       dtree.DecisionTreeRegressor])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_rows", [1, 40, PARALLEL_ROWS + 5])
def test_predict_refuses_what_the_full_check_refuses(Estimator, dtype, n_rows):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 3))
    est = Estimator(max_depth=4, handle_missing="error", random_state=0).fit(X, X[:, 0] > 0)
    Q = rng.normal(size=(n_rows, 3)).astype(dtype)
    Q[-1, 2] = np.inf
    with pytest.raises(ValueError, match="infinity in column 2"):
        est.predict(Q)
    Q[-1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN in column 2"):
        est.predict(Q)
    if dtype == np.float64:
        Q[-1, 2] = 1e300
        with pytest.raises(ValueError, match="too large for float32"):
            est.predict(Q)
    Q[-1, 2] = 0.25
    assert est.predict(Q).shape == (n_rows,)


def test_nan_where_allowed_is_routed_by_the_learnt_side():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(400, 3))
    X[rng.rand(400) < 0.3, 0] = np.nan
    y = np.where(np.isnan(X[:, 0]), 2, (X[:, 1] > 0).astype(int))
    clf = dtree.DecisionTreeClassifier(random_state=0).fit(X, y)
    Q = X[:50]
    np.testing.assert_array_equal(clf.predict(Q), clf.classes_[np.argmax(
        clf.tree_.value[clf.apply(Q), 0], axis=1)])
    assert (clf.predict(Q)[np.isnan(Q[:, 0])] == 2).all()


@pytest.mark.parametrize("labels", [[0, 1, 2], [-1, 1, 2], [1, 2, 3], ["a", "b", "c"],
                                    [0.0, 1.0, 2.0], [False, True, True]])
def test_predict_returns_the_classes(labels):
    rng = np.random.RandomState(2)
    X = rng.normal(size=(300, 2))
    codes = (X[:, 0] > -0.5).astype(int) + (X[:, 1] > 0.5)
    y = np.asarray(labels)[codes]
    clf = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    pred = clf.predict(X)
    assert pred.dtype == clf.classes_.dtype
    np.testing.assert_array_equal(pred, y)
    np.testing.assert_array_equal(clf.predict(X[:1]), y[:1])


def test_the_single_row_path_still_encodes_categories_and_warns_on_names():
    frame = pd.DataFrame({"a": [10.0, 20.0, 30.0, 10.0, 20.0, 30.0] * 5,
                          "b": np.linspace(0, 1, 30)})
    y = (frame["a"] == 20.0).astype(int)
    clf = dtree.DecisionTreeClassifier(categorical_features=["a"], random_state=0)
    clf.fit(frame, y)
    with pytest.warns(UserWarning, match="feature names"):
        pred = clf.predict(frame.to_numpy()[:6])
    np.testing.assert_array_equal(pred, y[:6])
    plain = dtree.DecisionTreeClassifier(categorical_features=[0], random_state=0)
    plain.fit(frame.to_numpy(), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(plain.predict(frame.to_numpy()[:6]), y[:6])
        np.testing.assert_array_equal(plain.predict(frame.to_numpy()[1:2]), y[1:2])


@pytest.mark.parametrize("max_depth", [4, None])
def test_a_forest_through_its_tops_is_the_mean_of_its_trees(max_depth):
    rng = np.random.RandomState(3)
    X = rng.normal(size=(3000, 5))
    X[rng.rand(*X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=3000) > 0).astype(int)
    forest = dtree.RandomForestClassifier(n_estimators=6, max_depth=max_depth,
                                          random_state=0).fit(X, y)
    proba = forest.predict_proba(X)
    assert forest._layout.tops is not None
    if max_depth is None:
        assert forest._layout.tops[4].all()      # every tree deeper than its top
    expected = np.mean([t.predict_proba(X) for t in forest.estimators_], axis=0)
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(forest.predict_proba(X[::3]), expected[::3], rtol=0,
                               atol=1e-12)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_forest_reads_each_blocks_missing_values_once(n_jobs):
    # a forest checks each block of rows for NaN once for all its trees: rows with
    # NaN scattered over the blocks of several threads' tasks, the rest finite,
    # are routed by each tree's learnt missing side
    rng = np.random.RandomState(5)
    X = rng.normal(size=(4000, 4))
    X[rng.rand(*X.shape) < 0.2] = np.nan
    y = np.where(np.isnan(X[:, 0]), 1, (X[:, 0] > 0.3).astype(int))
    forest = dtree.RandomForestClassifier(n_estimators=5, max_depth=6, random_state=0,
                                          n_jobs=n_jobs).fit(X, y)
    rows = rng.normal(size=(40_000, 4)).astype(np.float32)
    for r in (21, 4099, 9000, 12_345, 16_385, 20_007, 33_333, 39_999):
        rows[r, r % 4] = np.nan
    expected = np.mean([t.predict_proba(rows) for t in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(rows), expected, rtol=0, atol=1e-12)


def test_split_ranges_on_threads_are_the_ranges():
    from dtree._route import split_ranges
    rng = np.random.RandomState(6)
    X = rng.normal(size=(70_000, 4)).astype(np.float32)   # enough chunks for two threads
    X[rng.rand(70_000) < 0.1, 1] = np.nan
    y = (X[:, 0] + np.nan_to_num(X[:, 1]) > 0).astype(int)
    tree = dtree.DecisionTreeClassifier(max_depth=6, splitter="hist").fit(X, y).tree_
    one = split_ranges(tree._packed, tree.category_sets, X, 1)
    two = split_ranges(tree._packed, tree.category_sets, X, 2)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])
    leaves = tree.apply(X)
    for node in (0, tree.children_left[0]):       # the root's and a child's rows
        rows = np.isin(leaves, _descendants(tree, node))
        values = X[rows, tree.feature[node]]
        assert one[0][node] == np.nanmin(values) and one[1][node] == np.nanmax(values)


def _descendants(tree, node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if tree.children_left[n] >= 0:
            stack += [tree.children_left[n], tree.children_right[n]]
    return out


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_a_forests_slim_nodes_route_as_its_trees(order):
    # deep numeric trees are walked below their tops as 16-byte slim nodes (float
    # thresholds rounded down): rows on and beside every tree's thresholds, NaN
    # and huge values reach the leaves each tree's own routing reaches
    rng = np.random.RandomState(4)
    X = rng.normal(size=(2000, 6))
    X[rng.rand(*X.shape) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) * 3 + np.nan_to_num(X[:, 1]) + rng.normal(size=2000)
    forest = dtree.RandomForestRegressor(n_estimators=4, random_state=0).fit(X, y)
    rows = np.vstack([_rows(rng, 800, 6, t.tree_) for t in forest.estimators_])
    rows[np.isinf(rows)] = np.sign(rows[np.isinf(rows)]) * np.float32(3e38)
    if order == "F":
        rows = np.asfortranarray(rows)
    elif order == "strided":
        rows = np.repeat(rows, 2, axis=1)[:, ::2]
    expected = np.mean([t.predict(rows) for t in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict(rows), expected, rtol=0, atol=1e-9)
    assert forest._layout.packed.dtype == SLIM_NODE_DTYPE
    assert forest._layout.tops[4].all()      # every tree goes on below its top
    leaves = forest.apply(rows)
    values = np.stack([t.tree_.value[leaves[:, i], 0, 0]
                       for i, t in enumerate(forest.estimators_)], axis=1)
    np.testing.assert_allclose(forest.predict(rows), values.mean(axis=1), rtol=0, atol=1e-9)


def test_a_forest_with_category_splits_keeps_packed_nodes():
    rng = np.random.RandomState(5)
    X = np.column_stack([rng.randint(0, 6, 500), rng.normal(size=500)]).astype(float)
    y = (X[:, 0] % 2 == 0) ^ (X[:, 1] > 0)
    forest = dtree.RandomForestClassifier(n_estimators=3, random_state=0,
                                          categorical_features=[0]).fit(X, y)
    proba = forest.predict_proba(X)
    assert forest._layout.packed.dtype == PACKED_NODE_DTYPE
    expected = np.mean([t.predict_proba(X) for t in forest.estimators_], axis=0)
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-12)


def test_slim_nodes_refuse_category_splits_and_wide_features():
    from dtree._route import slim_nodes
    rng = np.random.RandomState(2)
    X = np.column_stack([rng.randint(0, 5, 300), rng.normal(size=300)])
    y = (X[:, 0] % 2 == 0) ^ (X[:, 1] > 0)
    tree = dtree.DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    assert (tree.tree_.categorical_set >= 0).any()
    with pytest.raises(ValueError, match="numeric splits"):
        slim_nodes(tree.tree_._packed)
    numeric = dtree.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    slim = slim_nodes(numeric._packed)
    inner = numeric.children_left >= 0
    np.testing.assert_array_equal(slim["left"][inner], numeric.children_left[inner])
    # the float threshold is the greatest float32 at most the double
    t32 = slim["threshold"][inner].astype(np.float64)
    assert (t32 <= numeric.threshold[inner]).all()
    assert (np.nextafter(slim["threshold"][inner], np.float32(np.inf)).astype(np.float64)
            > numeric.threshold[inner]).all()
