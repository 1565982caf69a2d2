"""The estimator API behaves as a scikit-learn user expects."""
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier

from helpers import search_settings, tie_free_data

from dtree import DecisionTreeClassifier, DecisionTreeRegressor


@pytest.fixture
def data():
    return tie_free_data(11, 300, 4, n_classes=3)


def test_labels_of_any_kind(data):
    X, y = data
    for labels in (np.array(["low", "mid", "high"])[y], y + 10,
                   np.array([True, False, True])[y]):
        clf = DecisionTreeClassifier(max_depth=3).fit(X, labels)
        assert set(clf.predict(X)) <= set(labels)
        assert clf.classes_.tolist() == sorted(set(labels.tolist()))
        assert clf.n_classes_ == len(set(labels.tolist()))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint32",
                                   "uint64", "bool"])
def test_integer_labels_are_counted_into_the_classes_sorting_gives(dtype):
    # (a narrow range is counted, a wide one sorted: both give np.unique's
    # classes, in y's dtype, and codes)
    from dtree._input.encode import encode_labels

    info = np.iinfo(dtype) if dtype != "bool" else None
    rng = np.random.default_rng(5)
    ys = [rng.integers(0, 2, 500).astype(dtype)]
    if info is not None:
        ys += [np.array([info.max, info.max - 3, info.max], dtype=dtype),
               np.array([info.min, info.min + 2, info.min], dtype=dtype),
               np.array([info.min, info.max, info.min], dtype=dtype)]   # as wide as can be
    if info is not None and dtype.startswith("u") and info.max >= 2**63:
        # the other byte order too (a big-endian array is not the native dtype)
        ys += [np.array([info.max, info.max - 3, info.max], dtype=">u8")]
    for y in ys:
        classes, codes = encode_labels(y)
        expected, inverse = np.unique(y, return_inverse=True)
        assert classes.dtype == expected.dtype and classes.tolist() == expected.tolist()
        assert codes.dtype == np.int32 and codes.tolist() == inverse.ravel().tolist()
        clf = DecisionTreeClassifier().fit(np.arange(len(y))[:, None], y)
        assert clf.classes_.tolist() == expected.tolist()
        assert clf.predict(np.arange(len(y))[:, None]).tolist() == y.tolist()


def test_predict_proba_and_log_proba(data):
    X, y = data
    clf = DecisionTreeClassifier(max_depth=4).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[proba.argmax(axis=1)])
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(clf.predict_log_proba(X), np.log(proba))


def test_apply_and_decision_path_are_consistent(data):
    X, y = data
    clf = DecisionTreeClassifier(max_depth=5).fit(X, y)
    leaves = clf.apply(X)
    tree = clf.tree_
    assert (tree.children_left[leaves] == -1).all()
    path = clf.decision_path(X).toarray()
    assert path.shape == (len(X), tree.node_count)
    assert (path[:, 0] == 1).all()
    assert (path[np.arange(len(X)), leaves] == 1).all()
    assert (path.sum(axis=1) == tree.node_depth[leaves] + 1).all()
    # every sample goes through exactly the nodes on its root-to-leaf path
    for i in range(0, len(X), 37):
        node, visited = 0, [0]
        while tree.children_left[node] != -1:
            go_left = X[i, tree.feature[node]] <= tree.threshold[node]
            node = tree.children_left[node] if go_left else tree.children_right[node]
            visited.append(node)
        assert sorted(visited) == np.flatnonzero(path[i]).tolist()


def test_tree_arrays_follow_sklearn_conventions(data):
    X, y = data
    tree = DecisionTreeClassifier(max_depth=4).fit(X, y).tree_
    leaves = tree.children_left == -1
    assert (tree.children_right[leaves] == -1).all()
    assert (tree.feature[leaves] == -2).all() and (tree.threshold[leaves] == -2).all()
    assert tree.value.shape == (tree.node_count, 1, 3)
    assert tree.max_depth == 4 and tree.n_leaves == leaves.sum()
    inner = np.flatnonzero(~leaves)
    # pre-order, left first: a left child directly follows its parent
    assert (tree.children_left[inner] == inner + 1).all()
    np.testing.assert_array_equal(
        tree.n_node_samples[inner],
        tree.n_node_samples[tree.children_left[inner]]
        + tree.n_node_samples[tree.children_right[inner]])


def test_feature_importances(data):
    X, y = data
    clf = DecisionTreeClassifier(max_depth=6).fit(X, y)
    imp = clf.feature_importances_
    assert imp.shape == (4,) and imp.sum() == pytest.approx(1.0) and (imp >= 0).all()
    assert imp.argmax() == 0  # y is mostly driven by column 0
    assert DecisionTreeClassifier().fit(X, np.zeros(len(X))).feature_importances_.sum() == 0


def test_class_weight_balanced_equals_explicit_sample_weights(data):
    X, y = data
    y = np.where(np.arange(len(y)) < 40, 0, 1)
    counts = np.bincount(y)
    weights = (len(y) / (2 * counts))[y]
    a = DecisionTreeClassifier(random_state=0, class_weight="balanced", max_depth=4).fit(X, y)
    b = DecisionTreeClassifier(random_state=0, max_depth=4).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    # the weights' size too, not only their ratios: the node weights sum them
    np.testing.assert_allclose(a.tree_.weighted_n_node_samples,
                               b.tree_.weighted_n_node_samples, rtol=1e-12)
    c = DecisionTreeClassifier(random_state=0, class_weight={0: 5.0}, max_depth=4).fit(X, y)
    d = DecisionTreeClassifier(random_state=0, max_depth=4).fit(X, y, sample_weight=np.where(y == 0, 5.0, 1.0))
    np.testing.assert_array_equal(c.tree_.threshold, d.tree_.threshold)


def test_max_leaf_nodes_limits_the_leaves(data):
    X, y = data
    for n in (2, 5, 17):
        assert DecisionTreeClassifier(max_leaf_nodes=n).fit(X, y).get_n_leaves() == n


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_best_first_expands_the_smaller_node_id_on_equal_improvements(splitter):
    # Two halves that mirror each other with the classes swapped: after the
    # root, both children's best splits have the same improvement to the bit.
    half = np.arange(10.0)
    X = np.column_stack([np.r_[np.zeros(10), np.ones(10)], np.r_[half, half]])
    y = np.r_[(half >= 7).astype(int), (half < 7).astype(int)]
    tree = DecisionTreeClassifier(max_leaf_nodes=3, splitter=splitter).fit(X, y).tree_
    assert tree.feature[0] == 0
    assert tree.children_left[1] != -1 and tree.children_left[2] == -1
    # with room for both, both are split: the tie was real
    full = DecisionTreeClassifier(max_leaf_nodes=4, splitter=splitter).fit(X, y).tree_
    assert full.children_left[1] != -1 and full.children_left[2] != -1


def test_fractional_min_samples(data):
    X, y = data
    clf = DecisionTreeClassifier(min_samples_leaf=0.1).fit(X, y)
    assert clf.tree_.n_node_samples[clf.tree_.children_left == -1].min() >= 30
    clf = DecisionTreeClassifier(min_samples_split=0.5).fit(X, y)
    inner = clf.tree_.children_left != -1
    assert clf.tree_.n_node_samples[inner].min() >= 150


def test_max_features_is_reproducible_and_draws_features(data):
    X, y = data
    a = DecisionTreeClassifier(max_features=1, random_state=3).fit(X, y)
    b = DecisionTreeClassifier(max_features=1, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    assert a.max_features_ == 1
    seen = {tuple(DecisionTreeClassifier(max_features=1, random_state=s).fit(X, y)
                  .tree_.feature[:5]) for s in range(6)}
    assert len(seen) > 1
    assert DecisionTreeClassifier(max_features="sqrt").fit(X, y).max_features_ == 2
    assert DecisionTreeClassifier(max_features="log2").fit(X, y).max_features_ == 2
    assert DecisionTreeClassifier(max_features=0.5).fit(X, y).max_features_ == 2
    gen = DecisionTreeClassifier(max_features=2, random_state=np.random.default_rng(0))
    assert gen.fit(X, y).get_depth() > 0


def test_max_features_skips_constant_features():
    # Three constant columns and one informative one: with max_features=1 the
    # constant columns must not use up the draw.
    rng = np.random.RandomState(0)
    X = np.column_stack([np.ones(100), np.ones(100), rng.rand(100), np.ones(100)])
    y = (X[:, 2] > 0.5).astype(int)
    for seed in range(5):
        clf = DecisionTreeClassifier(max_features=1, random_state=seed).fit(X, y)
        assert clf.tree_.feature[0] == 2 and clf.score(X, y) == 1.0


def test_params_repr_and_set_params():
    clf = DecisionTreeClassifier(max_depth=3, criterion="entropy")
    assert repr(clf) == "DecisionTreeClassifier(criterion='entropy', max_depth=3)"
    params = clf.get_params()
    assert params["max_depth"] == 3 and params["min_samples_leaf"] == 1
    # scikit-learn's parameters, plus dtree's own
    assert set(params) == set(SkClassifier().get_params()) | {
        "cp", "prune_risk", "pruning", "cv", "cv_rule", "cf", "validation_fraction",
        "handle_missing",
        "categorical_features", "handle_unknown", "algorithm", "n_jobs", "max_bins",
        "value_tolerance", "keep_competitors", "n_surrogates", "threshold_rule",
        "subtree_raising", "category_splits", "verbose"}
    assert clf.set_params(max_depth=5) is clf and clf.max_depth == 5
    with pytest.raises(ValueError, match="Invalid parameter 'depth'"):
        clf.set_params(depth=5)
    assert repr(DecisionTreeRegressor()) == "DecisionTreeRegressor()"


def test_dataframe_feature_names(data):
    X, y = data
    frame = pd.DataFrame(X, columns=["w", "x", "y", "z"])
    clf = DecisionTreeClassifier(max_depth=3).fit(frame, y)
    assert clf.feature_names_in_.tolist() == ["w", "x", "y", "z"]
    with pytest.warns(UserWarning, match="fitted with feature names"):
        plain = clf.predict(frame.to_numpy())
    np.testing.assert_array_equal(clf.predict(frame), plain)
    assert clf.n_features_in_ == 4
    refit = clf.fit(X, y)
    assert not hasattr(refit, "feature_names_in_")


def test_input_layouts_give_the_same_tree(data):
    X, y = data
    ref = DecisionTreeClassifier(random_state=0).fit(X, y)
    for variant in (np.asfortranarray(X), X.astype(np.float64), X.tolist(),
                    X[:, ::-1][:, ::-1]):
        other = DecisionTreeClassifier(random_state=0).fit(variant, y)
        np.testing.assert_array_equal(other.tree_.threshold, ref.tree_.threshold)
    readonly = X.copy()
    readonly.flags.writeable = False
    DecisionTreeClassifier(random_state=0).fit(readonly, y)
    ints = np.round(X * 10).astype(np.int64)
    assert DecisionTreeClassifier(random_state=0).fit(ints, y).score(ints, y) >= 0.99


def test_regressor_score_is_r2(data):
    X, _ = data
    y = X[:, 0] * 2.0
    reg = DecisionTreeRegressor(max_depth=3).fit(X, y)
    pred = reg.predict(X)
    r2 = 1 - ((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    assert reg.score(X, y) == pytest.approx(r2)
    assert DecisionTreeRegressor().fit(X, y).score(X, y) == 1.0
    const = np.full(len(X), 3.0)
    assert DecisionTreeRegressor().fit(X, const).score(X, const) == 1.0


def test_pickle_round_trip(data):
    X, y = data
    clf = DecisionTreeClassifier(max_depth=5).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    reg = DecisionTreeRegressor().fit(X, X[:, 1])
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(reg)).predict(X), reg.predict(X))


def test_gain_ratio_and_information_gain_choose_differently():
    # Information gain takes the 6/6 cut of column 1 (x <= 1.5); gain ratio the
    # 2/10 cut (x <= 0.5), whose smaller split information outweighs its gain.
    X = np.array([[2, 3], [3, 0], [2, 3], [0, 1], [3, 1], [3, 3], [2, 3], [0, 1],
                  [1, 1], [3, 0], [3, 2], [0, 3]], dtype=float)
    y = np.array([1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1])
    gain = DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(X, y).tree_
    ratio = DecisionTreeClassifier(criterion="gain_ratio", max_depth=1).fit(X, y).tree_
    assert (gain.feature[0], gain.threshold[0]) == (1, 1.5)
    assert (ratio.feature[0], ratio.threshold[0]) == (1, 0.5)
    log_loss = DecisionTreeClassifier(criterion="log_loss", random_state=0).fit(X, y)
    entropy = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
    np.testing.assert_array_equal(log_loss.tree_.threshold, entropy.tree_.threshold)


def test_min_impurity_decrease_stops_weak_splits(data):
    X, y = data
    full = DecisionTreeClassifier().fit(X, y)
    pruned = DecisionTreeClassifier(min_impurity_decrease=0.01).fit(X, y)
    assert pruned.tree_.node_count < full.tree_.node_count
    tree = pruned.tree_
    w = tree.weighted_n_node_samples
    for node in np.flatnonzero(tree.children_left != -1):
        left, right = tree.children_left[node], tree.children_right[node]
        decrease = (w[node] * tree.impurity[node] - w[left] * tree.impurity[left]
                    - w[right] * tree.impurity[right]) / w[0]
        assert decrease >= 0.01 - 1e-12


def test_node_columns_stop_doubling_at_the_trees_bound():
    """Columns double as the tree grows, but not past the most nodes the tree can have
    (2 leaves - 1): a forest's deep tree would otherwise claim, and zero, up to twice
    its size. Once that bound is full (it is a bound, not a limit) they double again."""
    from dtree._node_store import NodeStore, node_bound
    assert node_bound(20000, 2**30, 1) == 39999
    assert node_bound(20000, 3, 1) == 15
    assert node_bound(20000, 2**30, 5, max_leaf_nodes=100) == 199
    store = NodeStore(2, 4096, max_nodes=5000)
    assert store.grow() and store.capacity == 5000
    assert store.grow() and store.capacity == 10000
    unbounded = NodeStore(2, 4096)
    assert unbounded.grow() and unbounded.capacity == 8192


@pytest.mark.parametrize("max_leaf_nodes", [-1, 40])
def test_node_columns_grow_from_a_small_capacity(max_leaf_nodes):
    # Node columns are allocated for the largest possible tree; starting from
    # room for one node instead makes them grow many times (and, best-first,
    # the pending children statistics with them): the tree must not change.
    from dtree._plan.registry import criterion_code
    from dtree._splitter import Splitter
    from dtree._grow import build_tree

    X, y = tie_free_data(3, 500, 4, n_classes=3)
    y = y.astype(np.int32)

    def grow(capacity):
        splitter = Splitter(X, y, None, search_settings(criterion_code("gini"), 3, 4))
        return build_tree(splitter, max_depth=2**30, min_samples_split=2, min_samples_leaf=1,
                          min_weight_leaf=0.0, min_impurity_decrease=0.0,
                          max_leaf_nodes=max_leaf_nodes, capacity=capacity)

    small, full = grow(1), grow(None)
    # room asked beyond the tree's bound is bounded by the data: no terabyte of
    # columns for a caller's (or a forest's) wild guess
    huge = grow(10 ** 15)
    assert small["feature"].shape[0] > 30
    assert small.keys() == full.keys() == huge.keys()
    for name in full:
        np.testing.assert_array_equal(small[name], full[name], err_msg=name)
        np.testing.assert_array_equal(huge[name], full[name], err_msg=name)


def test_a_forests_trees_take_room_for_the_largest_tree_so_far(monkeypatch):
    from dtree import RandomForestRegressor
    from dtree._fit.grow import TreeSizes
    sizes = TreeSizes()
    assert sizes.room() is None              # the first tree: the grower's default
    sizes.add(1000)
    sizes.add(600)
    assert sizes.room() == 1000 + 1000 // 16 + 64
    # the room changes no tree: the same forest when every tree starts from room
    # for one node
    rng = np.random.default_rng(5)
    X = rng.normal(size=(800, 5))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(size=800)
    forest = RandomForestRegressor(n_estimators=4, random_state=0).fit(X, y)
    monkeypatch.setattr(TreeSizes, "room", lambda self: 1)
    again = RandomForestRegressor(n_estimators=4, random_state=0).fit(X, y)
    for a, b in zip(forest.estimators_, again.estimators_):
        assert a.tree_.node_count > 100
        for name in ("children_left", "feature", "threshold", "value", "impurity"):
            np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


def test_predict_proba_finds_leaves_as_predict_does():
    # predict_proba routes unchecked rows and checks values only where the routing
    # met NaN or infinity (as predict): the same probabilities and the same errors
    rng = np.random.default_rng(2)
    X = rng.normal(size=(600, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=600) > 0).astype(int) + (X[:, 1] > 1)
    clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    expected = clf.tree_.value[clf.apply(X), 0, :]
    np.testing.assert_array_equal(clf.predict_proba(X), expected)
    np.testing.assert_array_equal(clf.predict_proba(X[3:4]), expected[3:4])
    np.testing.assert_array_equal(clf.classes_[np.argmax(clf.predict_proba(X), axis=1)],
                                  clf.predict(X))
    bad = X[:5].copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError) as proba_error:
        clf.predict_proba(bad)
    with pytest.raises(ValueError) as predict_error:
        clf.predict(bad)
    assert str(proba_error.value) == str(predict_error.value)
    # a tree fitted without missing values refuses NaN at predict_proba as at predict
    plain = DecisionTreeClassifier(random_state=0, handle_missing="error").fit(
        np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="NaN"):
        plain.predict_proba(X[:5])
