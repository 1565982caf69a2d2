"""Honest leaves: predict_interval, leaf_support, outside_training_range."""
import io

import numpy as np
import pytest
from scipy import stats

import dtree
from dtree._deploy.model_file import ModelFileError, from_dict, to_dict
from dtree._model.leaves import normal_quantile, wilson_interval


def test_normal_quantile_and_wilson_match_scipy():
    for q in (0.5, 0.8, 0.975, 0.995, 1e-6):
        assert normal_quantile(q) == pytest.approx(stats.norm.ppf(q), abs=1e-12)
    p, n = np.array([0.0, 0.1, 0.5, 1.0]), np.array([3, 10, 40, 7])
    lower, upper = wilson_interval(p, n, 0.9)
    z = stats.norm.ppf(0.95)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    np.testing.assert_allclose(lower, np.clip(centre - half, 0, 1), rtol=1e-12)
    np.testing.assert_allclose(upper, np.clip(centre + half, 0, 1), rtol=1e-12)


def test_classifier_intervals_cover_the_true_probability_at_their_rate():
    # four groups with known class-1 probabilities, 30 rows each: the tree finds
    # the groups (their probabilities are far apart), each leaf is one group
    rng = np.random.default_rng(12345)
    truth = np.array([0.1, 0.35, 0.65, 0.9])
    covered = total = 0
    for _ in range(300):
        group = np.repeat(np.arange(4), 30)
        y = (rng.random(group.shape[0]) < truth[group]).astype(int)
        clf = dtree.DecisionTreeClassifier(max_depth=2, min_samples_leaf=30,
                                           random_state=0).fit(group[:, None], y)
        if len(set(clf.apply(np.arange(4)[:, None]).tolist())) < 4:
            continue    # two groups alike by chance share a leaf: its truth is a mix
        lower, upper = clf.predict_interval(np.arange(4)[:, None], confidence=0.95)
        hit = (lower[:, 1] <= truth) & (truth <= upper[:, 1])
        covered += int(hit.sum())
        total += 4
    assert total > 600 and 0.93 <= covered / total <= 0.975
    # a leaf of few rows is unsure, whatever its fractions
    assert (upper[:, 1] - lower[:, 1]).min() > 0.1


def test_regressor_intervals_are_the_leaf_target_quantiles():
    rng = np.random.default_rng(3)
    group = np.repeat(np.arange(3), 400)
    y = group * 10 + rng.normal(size=group.shape[0])
    reg = dtree.DecisionTreeRegressor(max_depth=2, min_samples_leaf=300,
                                      keep_leaf_targets=True,
                                      random_state=0).fit(group[:, None], y)
    lower, upper = reg.predict_interval(group[:, None], confidence=0.9)
    for g in range(3):
        mine = y[group == g]
        want = np.quantile(mine, [0.05, 0.95], method="inverted_cdf")
        assert lower[group == g][0] == want[0] and upper[group == g][0] == want[1]
    # new targets fall inside at about the nominal rate
    fresh = group * 10 + rng.normal(size=group.shape[0])
    inside = ((lower <= fresh) & (fresh <= upper)).mean()
    assert 0.86 <= inside <= 0.94
    # weights: a row of weight 3 counts as three
    w = rng.integers(1, 4, size=group.shape[0])
    weighted = dtree.DecisionTreeRegressor(max_depth=2, min_samples_leaf=300,
                                           keep_leaf_targets=True, random_state=0)
    weighted.fit(group[:, None], y, sample_weight=w)
    repeated = dtree.DecisionTreeRegressor(max_depth=2, min_samples_leaf=300,
                                           keep_leaf_targets=True, random_state=0)
    repeated.fit(np.repeat(group, w)[:, None], np.repeat(y, w))
    for a, b in zip(weighted.predict_interval(group[:, None], 0.8),
                    repeated.predict_interval(group[:, None], 0.8)):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="keep_leaf_targets=True"):
        dtree.DecisionTreeRegressor().fit(group[:, None], y).predict_interval(group[:, None])
    with pytest.raises(ValueError, match="confidence"):
        reg.predict_interval(group[:, None], confidence=1.0)


def test_leaf_targets_follow_pruning_snip_and_model_files():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(500, 3))
    y = X[:, 0] + rng.normal(size=500)
    reg = dtree.DecisionTreeRegressor(max_depth=5, keep_leaf_targets=True,
                                      random_state=0).fit(X, y)
    snipped = reg.snip([1])
    targets = snipped.tree_.leaf_targets
    leaves = snipped.apply(X)
    for leaf in np.unique(leaves):
        got = np.sort(targets.y[targets.node == leaf, 0])
        np.testing.assert_array_equal(got, np.sort(y[leaves == leaf]))
    buf = io.BytesIO()
    snipped.save(buf)
    buf.seek(0)
    loaded = dtree.load(buf)
    for a, b in zip(loaded.predict_interval(X), snipped.predict_interval(X)):
        np.testing.assert_array_equal(a, b)


def test_leaf_support_counts_training_rows():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    support = clf.leaf_support(X)
    leaves = clf.apply(X)
    for leaf in np.unique(leaves):
        assert (support[leaves == leaf] == (leaves == leaf).sum()).all()


def test_outside_training_range_is_exact_on_constructed_cases():
    # node 0 splits x0 (range [0, 10]); its children split x1, whose range is
    # [-1, 1] on the left and [-0.5, 1.5] on the right; x2 is never split on
    rng = np.random.default_rng(0)
    x0 = np.r_[np.linspace(0, 4, 50), np.linspace(6, 10, 50)]
    x1 = np.r_[rng.permutation(np.linspace(-1, 1, 50)),
               rng.permutation(np.linspace(-0.5, 1.5, 50))]
    x2 = rng.permutation(np.linspace(0, 1, 100))
    X = np.c_[x0, x1, x2]
    y = np.where(x0 < 5, x1 > 0, 2 + (x1 > 0.5)).astype(int)
    clf = dtree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    tree = clf.tree_
    left, right = tree.children_left[0], tree.children_right[0]
    assert list(tree.feature[[0, left, right]]) == [0, 1, 1]
    ranges = tree.feature_range
    assert tuple(ranges[0]) == (0.0, 10.0)
    assert tuple(ranges[left]) == (-1.0, 1.0) and tuple(ranges[right]) == (-0.5, 1.5)
    probe = np.array([
        [5.0, 0.0, 0.5],        # inside everything on its path
        [-0.1, 0.0, 0.5],       # below the root's range of x0
        [10.5, 0.0, 0.5],       # above it
        [2.0, 1.2, 0.5],        # the left child's x1 range is [-1, 1]
        [8.0, -0.9, 0.5],       # the right child's is [-0.5, 1.5]
        [8.0, 1.2, -7.0],       # x2 far outside, but no split on x2
        [2.0, -0.9, 0.5],       # -0.9: outside the right child's range, not the left's
        [np.nan, 0.0, 0.5],     # missing values never flag
        [0.0, -1.0, 0.5],       # the range's own ends are inside
    ])
    assert clf.outside_training_range(probe).tolist() == \
        [False, True, True, True, True, False, False, False, False]
    assert not clf.outside_training_range(X).any()
    # the ranges are the training rows' at each node (brute force)
    paths = clf.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero(tree.children_left >= 0):
        vals = X[paths[:, node], tree.feature[node]].astype(np.float32)
        assert tuple(ranges[node]) == (vals.min(), vals.max())


def test_outside_training_range_on_sparse_fits_matches_dense():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 5)) * (rng.random((400, 5)) < 0.3)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    dense = dtree.DecisionTreeClassifier(random_state=0).fit(X, y)
    sparse = dtree.DecisionTreeClassifier(random_state=0).fit(sp.csc_matrix(X), y)
    np.testing.assert_array_equal(dense.tree_.feature_range, sparse.tree_.feature_range)
    probe = rng.normal(scale=3, size=(200, 5))
    np.testing.assert_array_equal(dense.outside_training_range(probe),
                                  sparse.outside_training_range(sp.csr_matrix(probe)))


@pytest.mark.parametrize("change, message", [
    (lambda e: e["split_low"].__setitem__(0, 99.0), "low <= high"),
    (lambda e: e["split_low"].__setitem__(0, float("inf")), "finite"),
    (lambda e: e["split_high"].__setitem__(0, float("nan")), "finite"),
    (lambda e: e["split_low"].pop(), "one entry per node"),
])
def test_hostile_ranges_are_refused(change, message):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(100, 2))
    clf = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, X[:, 0] > 0)
    data = to_dict(clf)
    change(data["tree"]["extra"])
    with pytest.raises(ModelFileError, match=message):
        from_dict(data)
    # a leaf holding a range is refused too
    data = to_dict(clf)
    leaf = int(np.flatnonzero(clf.tree_.children_left < 0)[0])
    data["tree"]["extra"]["split_low"][leaf] = 0.0
    data["tree"]["extra"]["split_high"][leaf] = 1.0
    with pytest.raises(ModelFileError, match="leaves"):
        from_dict(data)


@pytest.mark.parametrize("change, message", [
    (lambda e: e["leaf_node"].__setitem__(0, 0), "sample counts"),     # the root
    (lambda e: e["leaf_node"].pop(), "shape"),
    (lambda e: e["leaf_w"].__setitem__(0, 0.0), "weights > 0"),
    (lambda e: e["leaf_y"].__setitem__(0, [float("inf")]), "finite"),
    (lambda e: e["leaf_node"].reverse(), "sorted"),
])
def test_hostile_leaf_targets_are_refused(change, message):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(100, 2))
    reg = dtree.DecisionTreeRegressor(max_depth=3, keep_leaf_targets=True,
                                      random_state=0).fit(X, X[:, 0])
    data = to_dict(reg)
    change(data["tree"]["extra"])
    with pytest.raises(ModelFileError, match=message):
        from_dict(data)


def test_intervals_with_several_outputs():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(300, 2))
    y = np.c_[X[:, 0] > 0, (X[:, 1] > 0).astype(int) + (X[:, 1] > 1)]
    clf = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    lower, upper = clf.predict_interval(X)
    proba = clf.predict_proba(X)
    for lo, hi, p in zip(lower, upper, proba):
        assert lo.shape == p.shape and (lo <= p + 1e-12).all() and (p <= hi + 1e-12).all()
    yr = np.c_[X[:, 0], 2 * X[:, 1]]
    reg = dtree.DecisionTreeRegressor(max_depth=3, keep_leaf_targets=True,
                                      random_state=0).fit(X, yr)
    lower, upper = reg.predict_interval(X, confidence=0.5)
    assert lower.shape == (300, 2) and (lower <= upper).all()
    leaves = reg.apply(X)
    for k in range(2):
        mine = yr[leaves == leaves[0], k]
        assert lower[0, k] == np.quantile(mine, 0.25, method="inverted_cdf")


@pytest.mark.parametrize("params", [
    {}, {"splitter": "random"}, {"max_leaf_nodes": 30}, {"ccp_alpha": 0.002},
    {"pruning": "reduced_error"}, {"criterion": "entropy", "max_features": 2},
])
def test_ranges_recorded_during_growth_equal_a_pass_over_the_training_rows(params):
    from dtree._input.encode import encode_predict_X
    from dtree._model.leaves import feature_ranges
    rng = np.random.default_rng(10)
    X = rng.normal(size=(2000, 4)).round(1)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.normal(size=2000) > 0)
    clf = dtree.DecisionTreeClassifier(random_state=0, **params).fit(X, y)
    tree = clf.tree_
    Xv = encode_predict_X(clf, X)
    if params.get("pruning") == "reduced_error":
        return      # grown on a hold-out's complement: checked by the range bounds below
    np.testing.assert_array_equal(tree.feature_range, feature_ranges(tree, Xv, None))
    inner = (tree.children_left >= 0) & (tree.categorical_set < 0)
    low, high = tree.feature_range[inner].T
    t = tree.threshold[inner]
    # a best split's threshold lies between values of its node (a random cut with
    # missing values may send every number left)
    if params.get("splitter") != "random":
        assert (low <= t).all() and ((t < high) | np.isinf(t)).all()
