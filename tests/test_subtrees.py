"""Subtrees grown on threads (``_grow``'s speculative growth and its replay): the
tree is the one a single thread grows, node for node, ties between features
included, and the cases it does not cover fall back to the serial grower."""
import numpy as np
import pytest

import dtree
from dtree._grow import subtree_tuning
from dtree._openmp import openmp_enabled

pytestmark = pytest.mark.skipif(not openmp_enabled(), reason="a build without OpenMP "
                                "runs one thread: no subtree is grown on another")

N = 16000       # with 10 features, work enough for the plan to give a fit 2 threads
FIELDS = ("children_left", "children_right", "feature", "threshold", "impurity",
          "n_node_samples", "weighted_n_node_samples", "value", "missing_go_to_left",
          "categorical_set")


@pytest.fixture(autouse=True)
def small_subtrees():
    # the thresholds lowered so that fits of this size take the threaded growth
    work, shares = subtree_tuning(work=1000, shares=8)[:2]
    yield
    subtree_tuning(work=work, shares=shares)


def _counts():
    return subtree_tuning()[2:4]


def assert_same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    assert ta.node_count == tb.node_count
    for name in FIELDS:
        x, y = np.asarray(getattr(ta, name)), np.asarray(getattr(tb, name))
        np.testing.assert_array_equal(x, y, err_msg=name)


def _one_and_two_threads(make, X, y, sample_weight=None):
    fits, searched = _counts()
    one = make(n_jobs=1).fit(X, y, sample_weight=sample_weight)
    two = make(n_jobs=2).fit(X, y, sample_weight=sample_weight)
    after = _counts()
    return one, two, after[0] - fits, after[1] - searched


def _data(kind, seed, d=10):
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        X = rng.normal(size=(N, d))
    elif kind == "discrete":            # ties between features at every size of node
        X = rng.integers(0, 3, size=(N, d)).astype(float)
    elif kind == "rounded":
        X = np.round(rng.normal(size=(N, d)), 1)
    else:                               # missing values
        X = rng.normal(size=(N, d))
        X[rng.random((N, d)) < 0.1] = np.nan
    return X.astype(np.float32), rng


@pytest.mark.parametrize("kind", ["continuous", "discrete", "rounded", "missing"])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_equals_one_thread(kind, criterion):
    X, rng = _data(kind, 1)
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int) + (np.nan_to_num(X[:, 1]) > 0.5) + \
        rng.integers(0, 2, N)
    one, two, fits, _ = _one_and_two_threads(
        lambda **kw: dtree.DecisionTreeClassifier(criterion=criterion, random_state=7, **kw),
        X, y)
    assert fits == 1
    assert one.tree_.node_count > 100
    assert_same_tree(one, two)


@pytest.mark.parametrize("kind", ["continuous", "discrete", "rounded", "missing"])
@pytest.mark.parametrize("weights", [None, "whole", "real"])
def test_regressor_equals_one_thread(kind, weights):
    X, rng = _data(kind, 2)
    y = np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=N) * 0.1
    w = None if weights is None else rng.integers(1, 4, N).astype(float)
    if weights == "real":
        w *= 1.1
    one, two, fits, _ = _one_and_two_threads(
        lambda **kw: dtree.DecisionTreeRegressor(random_state=11, **kw), X, y, w)
    assert fits == 1
    assert_same_tree(one, two)


def test_ties_are_settled_as_one_thread_settles_them():
    # discrete features tie at large nodes: the replay must choose (and grow
    # again) where the generator's order differs from the lowest index
    X, rng = _data("discrete", 3)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, N) > 3).astype(int)
    for seed in range(4):
        one, two, fits, searched = _one_and_two_threads(
            lambda **kw: dtree.DecisionTreeClassifier(random_state=seed, **kw), X, y)
        assert fits == 1 and searched > 0
        assert_same_tree(one, two)


def test_equals_scikit_learn_on_ties():
    sklearn_tree = pytest.importorskip("sklearn.tree")
    X, rng = _data("discrete", 4)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, N) > 4).astype(int)
    ours = dtree.DecisionTreeClassifier(random_state=5, n_jobs=2).fit(X, y)
    theirs = sklearn_tree.DecisionTreeClassifier(random_state=5).fit(X, y)
    assert ours.tree_.node_count == theirs.tree_.node_count
    for name in ("children_left", "children_right", "feature", "threshold",
                 "n_node_samples"):
        np.testing.assert_array_equal(getattr(ours.tree_, name), getattr(theirs.tree_, name))


@pytest.mark.parametrize("params", [
    dict(max_depth=6), dict(min_samples_leaf=7), dict(min_impurity_decrease=1e-3),
    dict(min_weight_fraction_leaf=0.01), dict(class_weight="balanced"),
])
def test_stopping_rules_and_class_weights(params):
    X, rng = _data("rounded", 5)
    y = (X[:, 0] + rng.normal(size=N) > 0.3).astype(int) + (X[:, 2] > 1)
    one, two, fits, _ = _one_and_two_threads(
        lambda **kw: dtree.DecisionTreeClassifier(random_state=3, **params, **kw), X, y)
    assert fits == 1
    assert_same_tree(one, two)


def test_several_outputs_poisson_and_categories():
    pd = pytest.importorskip("pandas")
    X, rng = _data("discrete", 6)
    y2 = np.c_[X[:, 0] + rng.normal(size=N), np.round(X[:, 1])]
    cases = [(lambda **kw: dtree.DecisionTreeRegressor(random_state=0, **kw), X, y2),
             (lambda **kw: dtree.DecisionTreeRegressor(criterion="poisson", random_state=1,
                                                       **kw), X, rng.poisson(1 + X[:, 0]))]
    frame = pd.DataFrame(X, columns=[f"c{i}" for i in range(X.shape[1])])
    frame["group"] = pd.Categorical(rng.choice(list("abcdefg"), N))
    yc = (X[:, 0] + frame["group"].isin(["a", "c"]) + rng.integers(0, 2, N) > 2).astype(int)
    cases.append((lambda **kw: dtree.DecisionTreeClassifier(random_state=4, **kw), frame, yc))
    for make, X_, y_ in cases:
        one, two, fits, _ = _one_and_two_threads(make, X_, y_)
        assert fits == 1
        assert_same_tree(one, two)


@pytest.mark.parametrize("make, shape", [
    (lambda **kw: dtree.DecisionTreeClassifier(max_features=5, random_state=0, **kw), (N, 10)),
    (lambda **kw: dtree.DecisionTreeClassifier(random_state=0, **kw), (N, 70)),
    (lambda **kw: dtree.DecisionTreeRegressor(monotonic_cst=[1] + [0] * 9, random_state=0,
                                              **kw), (N, 10)),
    (lambda **kw: dtree.DecisionTreeClassifier(max_leaf_nodes=50, random_state=0, **kw),
     (N, 10)),
])
def test_what_it_does_not_cover_grows_serially(make, shape):
    # features drawn at random, more than a word of features, bounds handed
    # down, best-first growth: the serial grower, and the same tree
    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, size=shape).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, shape[0]) > 2).astype(int)
    one, two, fits, _ = _one_and_two_threads(make, X, y)
    assert fits == 0
    assert_same_tree(one, two)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_extreme_weights(scale):
    # weights scaled to the ends of float64 give the one-thread tree too (ties
    # whose cross-multiplied scores agree without equal terms are left to the
    # replay: such ties need not be transitive)
    for seed in range(3):
        X, rng = _data("continuous", 20 + seed)
        y = (X[:, -1] > 0).astype(int) + rng.integers(0, 2, N)
        w = rng.random(N) * scale
        one, two, fits, _ = _one_and_two_threads(
            lambda **kw: dtree.DecisionTreeClassifier(random_state=1, **kw), X, y, w)
        assert fits == 1
        assert_same_tree(one, two)


def _wrong_predictions():
    return subtree_tuning()[5]


def test_small_regression_nodes_are_grown_once_and_their_draws_predicted():
    # distinct features and targets: a small node splits down to single samples
    # whichever way it goes, so the replay grows it whole and the walk knows its
    # draws beforehand; no task meets a wrong prediction
    X, rng = _data("continuous", 7)
    y = X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(size=N)
    wrong = _wrong_predictions()
    one, two, fits, grown = _one_and_two_threads(
        lambda **kw: dtree.DecisionTreeRegressor(random_state=2, **kw), X, y)
    assert fits == 1 and grown > 100
    assert _wrong_predictions() == wrong
    assert_same_tree(one, two)


@pytest.mark.parametrize("seed", [2, 3])
def test_a_wrong_prediction_leaves_the_rest_to_exact_draws(seed):
    # rounded features tie at every size of node: a tie grown otherwise than its
    # speculative copy changes the draws after it, so the tasks after it are
    # replayed in order (their columns as the speculative growth left them)
    X, rng = _data("rounded", seed)
    y = X[:, 0] * 2 + X[:, 1] ** 2 + rng.normal(size=N) * 0.1
    wrong = _wrong_predictions()
    one, two, fits, _ = _one_and_two_threads(
        lambda **kw: dtree.DecisionTreeRegressor(random_state=11, **kw), X, y)
    assert fits == 1
    assert _wrong_predictions() > wrong
    assert_same_tree(one, two)


def test_regression_with_a_category_column_on_threads():
    # category sets written by the tasks' blocks side by side
    pd = pytest.importorskip("pandas")
    X, rng = _data("continuous", 9)
    frame = pd.DataFrame(X, columns=[f"c{i}" for i in range(X.shape[1])])
    frame["group"] = pd.Categorical(rng.choice(list("abcdefghij"), N))
    y = X[:, 0] + frame["group"].isin(["a", "c", "f"]) * 2.0 + rng.normal(size=N)
    one, two, fits, _ = _one_and_two_threads(
        lambda **kw: dtree.DecisionTreeRegressor(random_state=6, **kw), frame, y)
    assert fits == 1
    assert np.asarray(two.tree_.categorical_set).max() > 0
    assert_same_tree(one, two)


def test_a_top_node_grown_afresh_scans_its_large_nodes_in_its_own_draw_order():
    # four balanced binary columns tie exactly at the top: the walk grows a top
    # node afresh, on both threads, and its large nodes' parallel scans must take
    # the walk's own draw (not the one the splitter drew last)
    import itertools
    rng = np.random.default_rng(0)
    combos = np.repeat(np.array(list(itertools.product([0, 1], repeat=4)), float), 1000,
                       axis=0)
    X = np.c_[combos, rng.normal(size=(len(combos), 6))].astype(np.float32)
    y = combos.sum(axis=1)
    for seed in range(6):
        grown = subtree_tuning()[3]
        one, two, fits, _ = _one_and_two_threads(
            lambda **kw: dtree.DecisionTreeRegressor(random_state=seed, **kw), X, y)
        assert fits == 1 and subtree_tuning()[3] > grown
        assert_same_tree(one, two)


def _exact_ties_at_a_top_node(seed):
    # the right half's binary columns tie exactly (two features, equal sums of
    # integer targets); the left half's rounded ones mispredict the draws
    import itertools
    rng = np.random.default_rng(seed)
    half, q = N // 2, N // 8
    left = np.round(rng.normal(size=(half, 6)), 1)
    y_left = 2 * left[:, 0] + left[:, 1] ** 2 + rng.normal(size=half) * 0.1
    x_left = rng.integers(0, 2, size=(half, 2)).astype(float)
    block = np.round(rng.normal(size=(q, 6)), 1)
    k = np.clip(np.round(2 * block[:, 0]) + 4, 0, 8)
    rows, ys, xs = [], [], []
    for a, b in itertools.product([0, 1], repeat=2):
        rows.append(block if (a, b) != (1, 0) else block[rng.permutation(q)])
        ys.append(10 * (a + b) + k)
        xs.append(np.tile([a, b], (q, 1)))
    side = np.r_[np.zeros(half), np.ones(half)]
    X = np.c_[side, np.r_[x_left, np.vstack(xs)], np.r_[left, np.vstack(rows)]]
    return X.astype(np.float32), np.r_[y_left - 50, np.concatenate(ys) + 50]


def test_a_top_node_grown_afresh_in_one_round_is_grown_afresh_in_the_next():
    # a round's walk, on a predicted draw, grows a top node afresh; a wrong
    # prediction before it sends the walk round again, where the exact draw may
    # keep the node's speculative split: its speculative subtree's columns are
    # gone by then, so it is grown afresh again
    for seed in range(8):
        X, y = _exact_ties_at_a_top_node(seed % 4)
        one, two, fits, _ = _one_and_two_threads(
            lambda **kw: dtree.DecisionTreeRegressor(random_state=seed, **kw), X, y)
        assert fits == 1
        assert_same_tree(one, two)


def test_scores_apart_by_rounding_alone_are_searched_in_order():
    # large targets repeated many times: a node of equal targets keeps an impurity
    # of rounding residue, and its cuts compare nothing but noise, which the
    # serial scan's order decides
    import itertools
    rng = np.random.default_rng(3)
    right = np.arange(N) >= N // 2
    binary = np.zeros((N, 2))
    binary[right] = np.repeat(np.array(list(itertools.product([0, 1], repeat=2)), float),
                              right.sum() // 4, axis=0)
    binary[~right] = rng.integers(0, 2, size=((~right).sum(), 2))
    noise = np.round(rng.normal(size=(N, 6)), 1)
    y = np.where(right, 100 + 10 * binary.sum(axis=1) + noise[:, 0],
                 2 * noise[:, 0] + noise[:, 1] ** 2 + rng.normal(size=N) * 0.1)
    X = np.c_[right, binary, noise].astype(np.float32)
    for seed in range(6):
        one, two, fits, _ = _one_and_two_threads(
            lambda **kw: dtree.DecisionTreeRegressor(random_state=seed, **kw), X, y)
        assert fits == 1
        assert_same_tree(one, two)
