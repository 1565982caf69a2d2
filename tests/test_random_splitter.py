"""splitter="random" and the extra trees (ExtraTreeClassifier / ExtraTreeRegressor).

One random cut per drawn feature, its threshold uniform between the node's least
and greatest value, the best cut kept: the thresholds' range and distribution,
the choice among the cuts, reproducibility, every criterion and output shape,
and accuracy within noise of scikit-learn's extra trees.
"""
import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import train_test_split
from sklearn.tree import ExtraTreeClassifier as SkExtraClassifier
from sklearn.tree import ExtraTreeRegressor as SkExtraRegressor

import dtree
from dtree import datasets
from dtree._fit.gains import impurity
from reference import split_score


def _node_rows(est, X):
    paths = est.decision_path(X).tocsc()
    return [paths[:, node].nonzero()[0] for node in range(est.tree_.node_count)]


def _skewed(n, d, seed):
    # cubes of uniforms: a sample-uniform threshold would crowd near 0, a
    # range-uniform one does not
    rng = np.random.default_rng(seed)
    return (rng.random((n, d)) ** 3).astype(np.float32)


def test_defaults_are_scikit_learns():
    assert dtree.ExtraTreeClassifier().get_params()["splitter"] == "random"
    assert dtree.ExtraTreeClassifier().get_params()["max_features"] == "sqrt"
    assert dtree.ExtraTreeRegressor().get_params()["max_features"] == 1.0
    assert isinstance(dtree.ExtraTreeRegressor(), dtree.DecisionTreeRegressor)


@pytest.mark.parametrize("est", [dtree.ExtraTreeClassifier(random_state=1),
                                 dtree.ExtraTreeRegressor(random_state=1)])
def test_every_threshold_lies_in_its_nodes_range(est):
    X = _skewed(400, 4, 0)
    X[::9, 2] = np.nan
    y = (X[:, 0] + X[:, 1] > 0.3).astype(int)
    est.fit(X, y)
    tree = est.tree_
    for node, rows in enumerate(_node_rows(est, X)):
        if tree.children_left[node] == -1:
            continue
        values = X[rows, tree.feature[node]]
        values = values[~np.isnan(values)]
        assert values.min() <= tree.threshold[node] < values.max()
        # a threshold routes float32 values exactly: it is a float32 itself
        assert np.float32(tree.threshold[node]) == tree.threshold[node]


def _root_thresholds(make, X, y, seeds):
    return np.array([make(seed).fit(X, y).tree_.threshold[0] for seed in seeds])


def test_thresholds_are_uniform_over_the_range_as_scikit_learns():
    X = _skewed(300, 1, 3)
    y = np.random.default_rng(4).normal(size=300)
    lo, hi = float(X.min()), float(X.max())
    ours = _root_thresholds(lambda s: dtree.ExtraTreeRegressor(max_depth=1, random_state=s),
                            X, y, range(600))
    theirs = _root_thresholds(lambda s: SkExtraRegressor(max_depth=1, random_state=s),
                              X, y, range(600))
    # uniform on [lo, hi] (one feature: every draw is kept) ...
    assert stats.kstest((ours - lo) / (hi - lo), "uniform").pvalue > 0.01
    # ... and distributed as scikit-learn's; the data's own distribution is far
    # from that (most values lie near lo)
    assert stats.ks_2samp(ours, theirs, method="asymp").pvalue > 0.01
    assert stats.ks_2samp(ours, X[:, 0], method="asymp").pvalue < 1e-6


def test_the_best_of_the_drawn_cuts_is_kept():
    # one informative feature among ten, every feature drawn: its random cut
    # beats the noise features' cuts in most draws, as with scikit-learn's (a
    # splitter keeping the first or the last cut would pick it one time in ten)
    rng = np.random.default_rng(5)
    X = rng.random((400, 10)).astype(np.float32)
    y = (X[:, 3] > 0.5).astype(int)
    ours = [dtree.ExtraTreeClassifier(max_features=None, max_depth=1, random_state=s)
            .fit(X, y).tree_.feature[0] for s in range(60)]
    theirs = [SkExtraClassifier(max_features=None, max_depth=1, random_state=s)
              .fit(X, y).tree_.feature[0] for s in range(60)]
    assert np.mean(np.equal(ours, 3)) >= 0.8
    assert abs(np.mean(np.equal(ours, 3)) - np.mean(np.equal(theirs, 3))) <= 0.15
    # and the chosen cut's impurity decrease is the tree's record of it
    est = dtree.ExtraTreeClassifier(max_features=None, max_depth=1, random_state=0).fit(X, y)
    f, t = est.tree_.feature[0], est.tree_.threshold[0]
    children = split_score(y, np.ones(400), X[:, f] <= t, "gini", n_classes=2)
    tree = est.tree_
    recorded = sum(tree.weighted_n_node_samples[c] * tree.impurity[c]
                   for c in (tree.children_left[0], tree.children_right[0]))
    assert recorded == pytest.approx(children, rel=1e-12)


def test_a_fit_is_reproducible_and_the_seed_matters():
    X = _skewed(300, 5, 6)
    y = X @ np.arange(1, 6) + np.random.default_rng(7).normal(size=300)
    a = dtree.ExtraTreeRegressor(random_state=11).fit(X, y)
    b = dtree.ExtraTreeRegressor(random_state=11).fit(X, y)
    c = dtree.ExtraTreeRegressor(random_state=12).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    assert not np.array_equal(a.tree_.threshold, c.tree_.threshold)
    threads = dtree.ExtraTreeRegressor(random_state=11, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, threads.tree_.threshold)


@pytest.mark.parametrize("max_features", [2, 6])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("task", ["regression", "classification"])
def test_every_nodes_statistics_are_its_rows_own(task, weighted, max_features):
    # row mode sums every drawn cut's sides in one pass over the node's rows (a
    # loop per target kind and weighting; 6 of 6 features drawn), or gathers each
    # drawn feature from the rows (2 of 6): each node's weight and impurity are
    # those of the rows that reach it
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 6)).astype(np.float32)
    y = X[:, 0] + rng.normal(size=400)
    if task == "classification":
        y = (y > 0.3).astype(int) + (y > 1.2)
    w = rng.integers(1, 4, size=400).astype(float) if weighted else np.ones(400)
    make = dtree.ExtraTreeRegressor if task == "regression" else dtree.ExtraTreeClassifier
    est = make(random_state=0, max_depth=6, max_features=max_features).fit(
        X, y, sample_weight=w if weighted else None)
    for node, rows in enumerate(_node_rows(est, X)):
        ww, yy = w[rows], y[rows]
        if task == "regression":
            mean = np.average(yy, weights=ww)
            expected = np.average((yy - mean) ** 2, weights=ww)
        else:
            shares = np.bincount(yy, weights=ww, minlength=3) / ww.sum()
            expected = 1.0 - np.sum(shares ** 2)
        assert est.tree_.weighted_n_node_samples[node] == pytest.approx(ww.sum())
        assert est.tree_.impurity[node] == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("criterion", ["squared_error", "friedman_mse", "absolute_error",
                                       "poisson", "quantile"])
def test_every_regression_criterion_fits_its_training_data(criterion):
    X = _skewed(250, 3, 8)
    y = np.random.default_rng(9).poisson(3.0, size=250).astype(float) + X[:, 0]
    with pytest.warns(FutureWarning) if criterion == "friedman_mse" else _no_warning():
        est = dtree.ExtraTreeRegressor(criterion=criterion, random_state=0)
    est.fit(X, y)
    # a full tree: every leaf holds equal targets, so it predicts them
    np.testing.assert_allclose(est.predict(X), y, rtol=1e-12)
    for node, rows in enumerate(_node_rows(est, X)):
        assert est.tree_.impurity[node] == pytest.approx(
            impurity(y[rows], est.criterion), rel=1e-9, abs=1e-12)


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss"])
def test_every_classification_criterion_with_weights_and_missing_values(criterion):
    X = _skewed(300, 3, 10)
    X[::5, 1] = np.nan
    y = np.random.default_rng(11).integers(0, 3, size=300)
    w = np.random.default_rng(12).uniform(0.5, 2.0, size=300)
    est = dtree.ExtraTreeClassifier(criterion=criterion, random_state=0,
                                    min_samples_leaf=3).fit(X, y, sample_weight=w)
    tree = est.tree_
    leaves = tree.children_left == -1
    assert tree.n_node_samples[leaves].min() >= 3
    # where a node held missing values, their side was a coin: both come up
    rows = _node_rows(est, X)
    sides = [tree.missing_go_to_left[node] for node in range(tree.node_count)
             if tree.feature[node] == 1 and tree.children_left[node] != -1
             and np.isnan(X[rows[node], 1]).any()]
    assert 0 < np.mean(sides) < 1
    # each node's counts are its training rows' weights, NaN routed as learnt
    for node in range(tree.node_count):
        counts = np.bincount(y[rows[node]], weights=w[rows[node]], minlength=3)
        np.testing.assert_allclose(tree.value[node, 0] * tree.weighted_n_node_samples[node],
                                   counts, rtol=1e-9)


def test_several_outputs_and_class_weights():
    X = _skewed(200, 4, 13)
    Y = np.c_[X[:, 0] > 0.1, X[:, 1] > 0.2].astype(int)
    est = dtree.ExtraTreeClassifier(random_state=0, class_weight="balanced").fit(X, Y)
    assert est.score(X, Y) == 1.0
    reg = dtree.ExtraTreeRegressor(random_state=0).fit(X, X[:, :2] * 3.0)
    np.testing.assert_allclose(reg.predict(X), X[:, :2] * 3.0, rtol=1e-6)


def test_monotonic_constraints_hold_on_a_grid():
    rng = np.random.default_rng(14)
    X = rng.random((400, 2)).astype(np.float32)
    y = 3 * X[:, 0] + rng.normal(scale=0.5, size=400)
    est = dtree.ExtraTreeRegressor(random_state=0, monotonic_cst=[1, 0]).fit(X, y)
    grid = np.c_[np.linspace(0, 1, 200), np.full(200, 0.5)].astype(np.float32)
    assert np.all(np.diff(est.predict(grid)) >= 0)


def test_categorical_features_are_split_into_two_nonempty_sets():
    rng = np.random.default_rng(15)
    colour = rng.choice(["red", "green", "blue", "grey"], size=300)
    X = np.c_[colour, rng.random(300)].astype(object)
    y = np.isin(colour, ["red", "blue"]).astype(int)
    est = dtree.ExtraTreeClassifier(categorical_features=[0], random_state=0,
                                    max_features=None).fit(X, y)
    assert est.score(X, y) == 1.0
    rows = _node_rows(est, X)
    tree = est.tree_
    for node in range(tree.node_count):
        left = tree.children_left[node]
        if left == -1 or tree.feature[node] != 0:
            continue
        right = tree.children_right[node]
        assert len(rows[left]) > 0 and len(rows[right]) > 0
        assert not set(colour[rows[left]]) & set(colour[rows[right]])


def test_files_and_onnx_keep_the_random_thresholds(tmp_path):
    onnxruntime = pytest.importorskip("onnxruntime")
    X = _skewed(300, 4, 16)
    y = (X[:, 0] + X[:, 2] > 0.2).astype(int)
    est = dtree.ExtraTreeClassifier(random_state=0).fit(X, y)
    path = tmp_path / "extra.json"
    est.save(path)
    loaded = dtree.load(path)
    assert type(loaded) is dtree.ExtraTreeClassifier
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    from dtree.export import to_onnx
    session = onnxruntime.InferenceSession(to_onnx(est).SerializeToString())
    labels = session.run(None, {session.get_inputs()[0].name: X})[0]
    np.testing.assert_array_equal(labels, est.predict(X))


def test_random_splits_refuse_quinlans_presets():
    with pytest.raises(ValueError, match="splitter='random'.*algorithm='c4.5'"):
        dtree.DecisionTreeClassifier(splitter="random", algorithm="c4.5").fit(
            [[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="splitter"):
        dtree.DecisionTreeClassifier(splitter="randomised").fit([[0.0], [1.0]], [0, 1])


def _test_scores(make, X_train, X_test, y_train, y_test, seeds):
    return np.array([make(seed).fit(X_train, y_train).score(X_test, y_test)
                     for seed in seeds])


def test_accuracy_on_shipped_datasets_is_scikit_learns_within_noise():
    frame = datasets.load("adult")
    numeric = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss",
               "hours_per_week"]
    X = frame[numeric].to_numpy(dtype=np.float32)[:12000]
    y = frame["income"].to_numpy()[:12000]
    split = train_test_split(X, y, random_state=0)
    ours = _test_scores(lambda s: dtree.ExtraTreeClassifier(random_state=s, max_depth=8),
                        *split, range(15))
    theirs = _test_scores(lambda s: SkExtraClassifier(random_state=s, max_depth=8),
                          *split, range(15))
    # the means of 15 random trees each: within three standard errors
    noise = np.sqrt(ours.var(ddof=1) / 15 + theirs.var(ddof=1) / 15)
    assert abs(ours.mean() - theirs.mean()) <= 3 * noise + 1e-3

    housing = datasets.load("california_housing").drop(columns=["ocean_proximity"]).dropna()
    target = housing.pop("median_house_value").to_numpy()
    split = train_test_split(housing.to_numpy(dtype=np.float32)[:8000], target[:8000],
                             random_state=0)
    ours = _test_scores(lambda s: dtree.ExtraTreeRegressor(random_state=s, max_depth=10),
                        *split, range(15))
    theirs = _test_scores(lambda s: SkExtraRegressor(random_state=s, max_depth=10),
                          *split, range(15))
    noise = np.sqrt(ours.var(ddof=1) / 15 + theirs.var(ddof=1) / 15)
    assert abs(ours.mean() - theirs.mean()) <= 3 * noise + 1e-3


def test_best_first_growth_pruning_and_exports_take_random_trees():
    X = _skewed(500, 4, 17)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.2).astype(int) ^ (np.random.default_rng(18)
                                                         .random(500) < 0.1)
    limited = dtree.ExtraTreeClassifier(random_state=0, max_leaf_nodes=12).fit(X, y)
    assert limited.get_n_leaves() == 12
    full = dtree.ExtraTreeClassifier(random_state=0).fit(X, y)
    # cost-complexity pruning of a random tree: its pruned trees are subtrees of it
    path = full.cost_complexity_pruning_path(X, y)
    alpha = path.ccp_alphas[len(path.ccp_alphas) // 2]
    pruned = dtree.ExtraTreeClassifier(random_state=0, ccp_alpha=alpha).fit(X, y)
    assert pruned.get_n_leaves() < full.get_n_leaves()
    assert set(pruned.tree_.threshold[pruned.tree_.children_left != -1]) <= set(
        full.tree_.threshold[full.tree_.children_left != -1])
    chosen = dtree.ExtraTreeClassifier(random_state=0, ccp_alpha="cv").fit(X, y)
    assert 1 <= chosen.get_n_leaves() < full.get_n_leaves()
    from dtree.export import export_graphviz, export_text
    text = export_text(limited)
    assert text.count("class:") == 12
    assert export_graphviz(limited).count("->") == 2 * 11


def test_random_regression_trees_run_in_onnx():
    onnxruntime = pytest.importorskip("onnxruntime")
    from dtree.export import to_onnx
    X = _skewed(400, 3, 19)
    y = X @ np.array([3.0, -2.0, 1.0])
    reg = dtree.ExtraTreeRegressor(random_state=0, max_depth=9).fit(X, y)
    session = onnxruntime.InferenceSession(to_onnx(reg).SerializeToString())
    (values,) = session.run(None, {session.get_inputs()[0].name: X})
    np.testing.assert_allclose(values.ravel(), reg.predict(X), rtol=1e-6)


@pytest.mark.parametrize("make, theirs", [
    (dtree.ExtraTreeClassifier, SkExtraClassifier),
    (dtree.ExtraTreeRegressor, SkExtraRegressor)])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("max_features", [2, 3])
def test_the_tree_is_scikit_learns_for_the_same_random_state(make, theirs, seed, max_features):
    """The generator's sequence is scikit-learn's random splitter's: each drawn
    feature's cut is drawn right after the feature (not after the node's whole
    draw), so the same random_state gives scikit-learn's tree node for node;
    with 2 of 6 features drawn (each gathered from the rows) and with 3 (every
    feature's range in one pass over the rows)."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 50, size=(400, 6)).astype(np.float32)   # ties of values
    X[rng.random_sample(X.shape) < 0.05] = np.nan
    y = (X[:, 0] > 20).astype(int) + (np.nan_to_num(X[:, 1]) > 30)
    leaf = 2
    if make is dtree.ExtraTreeRegressor:
        # (continuous values and leaves of 5: two cuts making the same children, a
        # tie that float sums in two orders decide, are then rare; see the README)
        X = X + rng.random_sample(X.shape).astype(np.float32)
        y = y + rng.random_sample(400)
        leaf = 5
    params = dict(random_state=seed, max_features=max_features, min_samples_leaf=leaf)
    ours, sk = make(**params).fit(X, y), theirs(**params).fit(X, y)
    a, b = ours.tree_, sk.tree_
    assert a.node_count == b.node_count
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    split = b.children_left >= 0
    np.testing.assert_array_equal(a.missing_go_to_left[split], b.missing_go_to_left[split])
    # a random cut is kept as the float32 at or below scikit-learn's float64 one
    np.testing.assert_allclose(a.threshold[split], b.threshold[split], rtol=1e-6)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X))


def test_thresholds_are_the_greatest_float32_at_most_the_draw():
    # the bit step that replaced nextafterf: signs, zeros, subnormals, overflow
    from dtree._splitter import _float_at_most
    rng = np.random.default_rng(0)
    t = np.concatenate([rng.normal(size=20000), rng.normal(size=2000) * 1e-41,
                        rng.normal(size=2000) * 1e38,
                        [0.0, -0.0, 1e-46, -1e-46, 3.5e38, -3.5e38, 1.0, -1.0, 0.1, -0.1,
                         1e300, -1e300]])
    with np.errstate(over="ignore"):
        f = t.astype(np.float32)
    want = np.where(f.astype(np.float64) > t, np.nextafter(f, np.float32(-np.inf)), f)
    np.testing.assert_array_equal(_float_at_most(t).view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("make, theirs", [
    (dtree.ExtraTreeClassifier, SkExtraClassifier),
    (dtree.ExtraTreeRegressor, SkExtraRegressor)])
def test_a_large_nodes_predicted_draw_gives_scikit_learns_tree(make, theirs):
    """Nodes of thousands of rows gather the features their draw is predicted to
    take in one pass over the rows (``_gather_predicted``); a constant column and
    a column with missing values make the prediction go wrong (a constant takes
    no cut, a missing value's side takes a draw), which must cost time only:
    the tree is still scikit-learn's, node for node."""
    rng = np.random.RandomState(3)
    X = rng.random_sample((20000, 12)).astype(np.float32)
    X[:, 5] = 0.25                                  # constant everywhere
    X[rng.random_sample(20000) < 0.1, 8] = np.nan   # missing values
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.8).astype(int)
    if make is dtree.ExtraTreeRegressor:
        y = y + rng.random_sample(20000)
    params = dict(random_state=7, max_features=3, max_depth=7, min_samples_leaf=3)
    ours, sk = make(**params).fit(X, y), theirs(**params).fit(X, y)
    a, b = ours.tree_, sk.tree_
    assert a.n_node_samples[0] == 20000 and (a.n_node_samples[a.children_left >= 0] >= 8192).sum() >= 3
    assert a.node_count == b.node_count
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    split = b.children_left >= 0
    np.testing.assert_allclose(a.threshold[split], b.threshold[split], rtol=1e-6)
