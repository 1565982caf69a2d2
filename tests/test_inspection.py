"""dtree.inspection.partial_dependence against scikit-learn's on identical trees."""
import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.inspection import partial_dependence as sk_partial_dependence  # noqa: E402
from sklearn.tree import DecisionTreeClassifier as SkClassifier  # noqa: E402
from sklearn.tree import DecisionTreeRegressor as SkRegressor  # noqa: E402

import dtree  # noqa: E402
from dtree.inspection import partial_dependence  # noqa: E402


def _data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, 5, n)            # few values: the grid is the uniques
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + X[:, 3] + rng.normal(scale=0.1, size=n)
    # integer targets: exact sums, so scikit-learn's tree and dtree's are the same
    return X, np.round(4 * y)


@pytest.mark.parametrize("features", [[0], [3], [(0, 1)], [(1, 3)]])
def test_recursion_equals_scikit_learns_on_the_same_tree(features):
    X, y = _data()
    ours = dtree.DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    theirs = SkRegressor(max_depth=6, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    got = partial_dependence(ours, X, features[0], method="recursion")
    want = sk_partial_dependence(theirs, X, features[0], method="recursion")
    for g, w in zip(got["grid_values"], want["grid_values"]):
        np.testing.assert_allclose(g, w)
    np.testing.assert_allclose(got["average"], want["average"], rtol=1e-10)


@pytest.mark.parametrize("kind", ["average", "individual", "both"])
def test_brute_equals_scikit_learns_for_a_classifier(kind):
    X, y = _data(seed=1)
    labels = np.digitize(y, [-4.0, 6.0])       # three classes
    ours = dtree.DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, labels)
    theirs = SkClassifier(max_depth=5, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    got = partial_dependence(ours, X, 1, method="brute", kind=kind, grid_resolution=20)
    want = sk_partial_dependence(theirs, X, [1], method="brute", kind=kind,
                                 grid_resolution=20)
    for key in ("average", "individual"):
        if key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-12)


def test_auto_is_recursion_and_categories_route_by_their_sets():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"x": rng.normal(size=600),
                          "c": pd.Categorical(rng.choice(list("abcd"), 600))})
    frame.loc[rng.random(600) < 0.1, "x"] = np.nan
    y = frame.x.fillna(0).to_numpy() + frame.c.map({"a": 3, "b": 0, "c": 3, "d": -2}).astype(
        float).to_numpy()
    reg = dtree.DecisionTreeRegressor(max_depth=5, random_state=0).fit(frame, y)
    assert reg.tree_.category_sets.shape[0] > 0
    auto = partial_dependence(reg, frame, "c")
    assert list(auto["grid_values"][0]) == ["a", "b", "c", "d"]
    tree = reg.tree_

    def reference(node, code):
        # Friedman's recursion, one grid point, node by node
        if tree.children_left[node] < 0:
            return tree.value[node, 0, 0]
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.feature[node] == 1:
            inside = code in list(tree.left_categories(node))
            return reference(left if inside else right, code)
        share = tree.weighted_n_node_samples[left] / tree.weighted_n_node_samples[node]
        return share * reference(left, code) + (1 - share) * reference(right, code)

    want = [reference(0, code) for code in range(4)]
    np.testing.assert_allclose(auto["average"][0], want, rtol=1e-12)
    # the brute method averages over X instead: a different number, same grid
    brute = partial_dependence(reg, frame, "c", method="brute")
    assert brute["average"].shape == (1, 4)
    with_nan = partial_dependence(reg, frame, "x", method="recursion", grid_resolution=5)
    assert with_nan["average"].shape == (1, 5)


def test_bad_requests_are_refused():
    X, y = _data(n=200)
    reg = dtree.DecisionTreeRegressor(max_depth=3).fit(X, y)
    with pytest.raises(ValueError, match="kind='average'"):
        partial_dependence(reg, X, 0, method="recursion", kind="individual")
    with pytest.raises(ValueError, match="out of range"):
        partial_dependence(reg, X, 9)
    with pytest.raises(ValueError, match="one or two"):
        partial_dependence(reg, X, [0, 1, 2])
    with pytest.raises(ValueError, match="fitted"):
        partial_dependence(dtree.DecisionTreeRegressor(), X, 0)


def test_results_plot_with_scikit_learns_display():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from sklearn.inspection import PartialDependenceDisplay
    X, y = _data(n=300)
    reg = dtree.DecisionTreeRegressor(max_depth=4).fit(X, y)
    result = partial_dependence(reg, X, 0, grid_resolution=15)
    display = PartialDependenceDisplay([result], features=[(0,)],
                                       feature_names=["x0", "x1", "x2", "x3"], target_idx=0,
                                       deciles={0: np.quantile(X[:, 0], np.arange(0.1, 1, 0.1))})
    display.plot()
    line = display.lines_[0, 0]
    np.testing.assert_allclose(line.get_ydata(), result["average"][0])


# ------------------------------------------- scikit-learn's display, dtree's numbers
@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    yield plt
    plt.close("all")


def _curves(display):
    return [np.asarray(r["average"]) for r in display.pd_results]


def test_display_from_estimator_gives_scikit_learns_numbers_on_identical_trees(plt):
    from sklearn.inspection import PartialDependenceDisplay as SkDisplay
    from sklearn.tree import DecisionTreeRegressor as SkRegressor

    from dtree.inspection import PartialDependenceDisplay

    X, y = _data(n=400)
    ours = dtree.DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    theirs = SkRegressor(max_depth=6, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    features = [0, 2, (0, 1)]
    mine = PartialDependenceDisplay.from_estimator(ours, X, features, grid_resolution=20)
    ref = SkDisplay.from_estimator(theirs, X, features, grid_resolution=20)
    assert isinstance(mine, SkDisplay) and mine.axes_.shape == ref.axes_.shape
    for a, b in zip(_curves(mine), _curves(ref)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    for f in (0, 2):
        np.testing.assert_allclose(mine.deciles[f], ref.deciles[f])
    # a classifier: scikit-learn averages predict_proba over X (brute); so does dtree
    labels = (y > np.median(y)).astype(int)
    ours_c = dtree.DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, labels)
    theirs_c = SkClassifier(max_depth=5, random_state=0).fit(X, labels)
    mine = PartialDependenceDisplay.from_estimator(ours_c, X, [1], grid_resolution=15,
                                                   kind="both")
    ref = SkDisplay.from_estimator(theirs_c, X, [1], grid_resolution=15, kind="both")
    np.testing.assert_allclose(mine.pd_results[0]["average"], ref.pd_results[0]["average"],
                               rtol=1e-12)
    np.testing.assert_allclose(mine.pd_results[0]["individual"],
                               ref.pd_results[0]["individual"], rtol=1e-12)


def test_display_draws_forests_categories_and_a_chosen_class(plt):
    pd = pytest.importorskip("pandas")
    from dtree.inspection import PartialDependenceDisplay

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.normal(size=500),
                          "c": pd.Categorical(rng.choice(list("abc"), 500))})
    y = frame.x.to_numpy() + frame.c.map({"a": 2.0, "b": 0.0, "c": -1.0}).astype(float)
    forest = dtree.RandomForestRegressor(n_estimators=5, max_depth=4,
                                         random_state=0).fit(frame, y)
    shown = PartialDependenceDisplay.from_estimator(forest, frame, ["x", "c"])
    # the forest's curve is its trees' mean
    per_tree = [partial_dependence(t, frame, "x", method="recursion")["average"]
                for t in forest.estimators_]
    np.testing.assert_allclose(shown.pd_results[0]["average"], np.mean(per_tree, axis=0),
                               rtol=1e-12)
    assert list(shown.pd_results[1]["grid_values"][0]) == ["a", "b", "c"]
    three = rng.integers(0, 3, 500)
    clf = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(frame, three)
    with pytest.raises(ValueError, match="target must name"):
        PartialDependenceDisplay.from_estimator(clf, frame, ["x"])
    drawn = PartialDependenceDisplay.from_estimator(clf, frame, ["x"], target=2)
    assert drawn.target_idx == 2
