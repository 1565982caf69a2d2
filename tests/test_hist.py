"""splitter="hist": binned features, histograms, and agreement with the exact splitter."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree._fit.binning import fit_bins
from dtree._hist_splitter import bin_codes
from helpers import compare_trees
from reference import all_candidates, is_tie, split_score

SHAPE = ("feature", "threshold", "children_left", "children_right", "missing_go_to_left",
         "n_node_samples", "weighted_n_node_samples", "impurity", "value")


def _few_values(seed, n, d=5, levels=60, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)).astype(np.float32) / 4
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) - np.nan_to_num(X[:, 2])
    return X, signal, rng


def _assert_same(a, b):
    for name in SHAPE:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name),
                                      err_msg=name)


@pytest.mark.parametrize("options", [
    dict(),
    dict(min_samples_leaf=7, max_depth=9),
    dict(max_features=2, random_state=3),
    dict(min_impurity_decrease=1e-4),
    dict(max_leaf_nodes=40),
    dict(max_leaf_nodes=300, min_samples_leaf=3, max_depth=12),
    dict(max_leaf_nodes=60, max_features=2, random_state=5),
])
@pytest.mark.parametrize("missing", [0.0, 0.15])
def test_classifier_equals_exact_when_features_have_few_values(options, missing):
    options = {"random_state": 0, **options}   # the same draws: ties go alike
    # more samples than SMALL_NODE, so histograms, subtraction and the switch
    # to sorted samples all take part (best-first: histograms at every node)
    X, signal, rng = _few_values(0, 6000, missing=missing)
    y = (signal + rng.normal(size=len(signal)) * 4 > 7).astype(int) + (X[:, 3] > 12)
    w = rng.integers(1, 4, len(y)).astype(float)
    for weights in (None, w):
        exact = DecisionTreeClassifier(**options).fit(X, y, sample_weight=weights)
        hist = DecisionTreeClassifier(splitter="hist", **options).fit(X, y,
                                                                        sample_weight=weights)
        _assert_same(exact, hist)
        np.testing.assert_array_equal(exact.predict_proba(X), hist.predict_proba(X))


@pytest.mark.parametrize("missing", [0.0, 0.15])
def test_regressor_equals_exact_when_features_have_few_values(missing):
    X, signal, rng = _few_values(1, 6000, missing=missing)
    y = np.round(signal * 3 + rng.normal(size=len(signal)) * 5)  # integer sums are exact
    for options in (dict(random_state=0), dict(min_samples_leaf=4, max_depth=12, random_state=1),
                    dict(max_leaf_nodes=90, random_state=2)):
        exact = DecisionTreeRegressor(**options).fit(X, y)
        hist = DecisionTreeRegressor(splitter="hist", **options).fit(X, y)
        _assert_same(exact, hist)


@pytest.mark.parametrize("criterion", ["entropy", "gain_ratio"])
def test_entropy_differs_from_exact_only_at_ties(criterion):
    # entropy sums differ in the last bits between a running update per sample
    # and a fresh sum per cut, so exactly tied cuts may go either way;
    # compare_trees asserts that every divergence is such a tie
    X, signal, rng = _few_values(2, 5000)
    y = (signal + rng.normal(size=len(signal)) * 4 > 7).astype(int)
    exact = DecisionTreeClassifier(criterion=criterion, max_depth=8).fit(X, y)
    hist = DecisionTreeClassifier(criterion=criterion, max_depth=8,
                                  splitter="hist").fit(X, y)
    same, stopped = compare_trees(hist, exact, X, y, criterion=criterion, n_classes=2)
    assert same + stopped < 0.2 * hist.tree_.node_count


def _binned(X, max_bins):
    """Codes as floats (NaN kept): the histogram splitter's view of X."""
    thresholds = fit_bins(X, max_bins)
    out = np.empty(X.shape, dtype=np.float32)
    for f in range(X.shape[1]):
        out[:, f] = np.searchsorted(thresholds[f], X[:, f], side="left")
    out[np.isnan(X)] = np.nan
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_bins=st.integers(2, 12),
       missing=st.sampled_from([0.0, 0.2]), regression=st.booleans(),
       min_samples_leaf=st.sampled_from([1, 5]), leaves=st.sampled_from([None, 10]))
def test_every_split_is_the_best_histogram_cut(seed, max_bins, missing, regression,
                                               min_samples_leaf, leaves):
    rng = np.random.default_rng(seed)
    n = 1500
    X = rng.normal(size=(n, 3)).astype(np.float32)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2
    if regression:
        y = signal + rng.normal(size=n)
        est, criterion, K = DecisionTreeRegressor, "squared_error", None
    else:
        y = (signal + rng.normal(size=n) > 1).astype(int)
        est, criterion, K = DecisionTreeClassifier, "gini", 2
    w = rng.uniform(0.5, 2.0, n)
    # depth-first to depth 3, or best-first (every node on histograms) to 10 leaves
    model = est(splitter="hist", max_bins=max_bins, max_depth=3 if leaves is None else None,
                max_leaf_nodes=leaves, min_samples_leaf=min_samples_leaf).fit(
        X, y, sample_weight=w)
    tree, binned = model.tree_, _binned(X, max_bins)
    paths = model.decision_path(X).tocsc()
    for node in np.flatnonzero(tree.children_left >= 0):
        rows = paths[:, node].nonzero()[0]
        ys, ws = y[rows], w[rows]
        column = X[rows, tree.feature[node]]
        left = (column <= tree.threshold[node]) | (
            np.isnan(column) & bool(tree.missing_go_to_left[node]))
        ours = split_score(ys, ws, left, criterion, K)
        # brute force over every cut between bins, both sides for missing values
        candidates = all_candidates(binned[rows], ys, ws, criterion, K,
                                    min_samples_leaf=min_samples_leaf)
        best = min(c[0] for c in candidates)
        assert is_tie(ours, best, best) or ours < best, (node, ours, best)
        # and the cut is one between bins: every bin lies on one side
        codes = binned[rows, tree.feature[node]]
        for code in np.unique(codes[~np.isnan(codes)]):
            sides = left[codes == code]
            assert sides.all() or not sides.any()


def test_bins_are_quantiles_with_every_value_its_own_bin_when_few():
    rng = np.random.default_rng(4)
    few = rng.integers(0, 10, 5000).astype(np.float32)
    many = rng.normal(size=5000).astype(np.float32)
    thresholds = fit_bins(np.column_stack([few, many]), 255)
    np.testing.assert_array_equal(thresholds[0], np.arange(9) + 0.5)
    assert len(thresholds[1]) <= 254
    codes, lo, hi = bin_codes(np.column_stack([few, many]), thresholds)
    counts = np.bincount(codes[:, 1], minlength=255)
    assert counts.max() <= 2 * 5000 / 255 + 2  # about equal-frequency bins
    assert (lo[1, codes[:, 1]] <= many).all() and (many <= hi[1, codes[:, 1]]).all()
    np.testing.assert_array_equal(codes[:, 1], np.searchsorted(thresholds[1], many))
    codes_nan, _, _ = bin_codes(np.array([[np.nan, 0.0]], dtype=np.float32), thresholds)
    assert codes_nan[0, 0] == 255


def test_hist_accuracy_close_to_exact_on_continuous_data():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40_000, 8)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=len(X)) > 0).astype(int)
    Xt = rng.normal(size=(20_000, 8)).astype(np.float32)
    yt = (Xt[:, 0] + Xt[:, 1] * Xt[:, 2] + rng.normal(size=len(Xt)) > 0).astype(int)
    for depth in (8, None):
        exact = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=20).fit(X, y)
        hist = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=20,
                                      splitter="hist").fit(X, y)
        assert abs(exact.score(Xt, yt) - hist.score(Xt, yt)) < 0.01


def test_feature_draw_from_a_random_state_object_matches_exact():
    # the seed of the feature draw is taken once per fit, as for the exact splitter
    X, signal, rng = _few_values(7, 3000)
    y = (signal + rng.normal(size=len(signal)) * 4 > 7).astype(int)
    exact = DecisionTreeClassifier(max_features=2,
                                   random_state=np.random.RandomState(0)).fit(X, y)
    hist = DecisionTreeClassifier(max_features=2, splitter="hist",
                                  random_state=np.random.RandomState(0)).fit(X, y)
    _assert_same(exact, hist)


def test_hist_threads_and_refusals():
    X, signal, rng = _few_values(6, 40_000, levels=400)
    y = (signal + rng.normal(size=len(signal)) * 4 > 20).astype(int)
    for options in (dict(random_state=0), dict(max_leaf_nodes=200, random_state=0)):
        one = DecisionTreeClassifier(splitter="hist", n_jobs=1, **options).fit(X, y)
        two = DecisionTreeClassifier(splitter="hist", n_jobs=2, **options).fit(X, y)
        _assert_same(one, two)
    for bad in (dict(max_bins=1), dict(max_bins=256), dict(max_bins=2.5)):
        with pytest.raises(ValueError, match="max_bins"):
            DecisionTreeClassifier(splitter="hist", **bad).fit(X, y)
    whole = np.floor(X)
    with pytest.raises(ValueError, match="algorithm"):
        DecisionTreeClassifier(splitter="hist", algorithm="id3").fit(whole, y)
    # a bin per category: at most 255 of them
    many = np.arange(X.shape[0]) % 300
    with pytest.raises(ValueError, match="column 0 has 300 categories"):
        DecisionTreeClassifier(splitter="hist", categorical_features=[0]).fit(
            np.column_stack([many, X[:, 1]]), y)
    with pytest.raises(ValueError, match="'splitter' parameter of DecisionTreeClassifier must be"):
        DecisionTreeClassifier(splitter="randomised").fit(X, y)


@pytest.mark.parametrize("zeros", [0.5, 0.8, 0.99])
def test_a_heavy_value_is_a_bin_of_its_own(zeros):
    # the zeros of a sparse column, amid values on both sides of 0
    rng = np.random.default_rng(0)
    x = rng.normal(size=20000)
    x[rng.random(20000) < zeros] = 0.0
    t = fit_bins(x[:, None].astype(np.float32), 255)[0]
    i = np.searchsorted(t, 0.0)
    in_bin = x[(x > t[i - 1]) & (x <= t[i])]
    assert np.all(in_bin == 0.0)
    # and the zeros leave every other bin to the other values
    assert np.all(np.diff(t) > 0) and t.shape[0] == min(254, np.unique(x).size - 1)


def test_many_heavy_values_never_make_more_bins_than_allowed():
    rng = np.random.default_rng(1)
    spread = rng.normal(size=4650) * 1e3
    for max_bins in (4, 16, 255):
        # many heavy values; a few heavy values, each just over a bin's share of
        # 16 bins, amid many distinct ones (edges of both kinds compete for room)
        for x in (np.r_[np.repeat(np.arange(600.0), 7), spread[:300]],
                  np.r_[np.repeat([-5.0, 0.0, 5.0], 450), spread]):
            t = fit_bins(x[:, None].astype(np.float32), max_bins)[0]
            assert 0 < t.shape[0] <= max_bins - 1 and np.all(np.diff(t) > 0)


def _thresholds_by_definition(lo, hi, counts, max_bins):
    """The bin rule written with numpy (what ``summary_thresholds`` computes, kept
    here as its reference): heavy runs get edges on both sides, heaviest first,
    the rest cut the light runs' cumulative count into equal parts."""
    n_values = counts.shape[0]
    if n_values <= max_bins:
        last = np.arange(max(n_values - 1, 0))
    else:
        total = counts.sum()
        heavy = np.flatnonzero(counts * max_bins > total)
        heavy = heavy[np.argsort(-counts[heavy], kind="stable")]
        own = np.stack([heavy - 1, heavy], axis=1).ravel()
        own = own[(own >= 0) & (own < n_values - 1)]
        own = own[np.sort(np.unique(own, return_index=True)[1])][:max_bins - 1]
        room = max_bins - 1 - own.shape[0]
        light = counts.copy()
        light[heavy] = 0
        cum = np.cumsum(light)
        rest = np.zeros(0, dtype=np.intp)
        if room > 0 and cum[-1] > 0:
            targets = cum[-1] * np.arange(1, room + 1) / (room + 1)
            rest = np.unique(np.searchsorted(cum, targets, side="left"))
            rest = rest[rest < n_values - 1]
        last = np.union1d(own, rest).astype(np.intp)
    a, b = hi[last].astype(np.float64), lo[last + 1].astype(np.float64)
    t = a / 2.0 + b / 2.0
    bad = (t >= b) | np.isinf(t)
    t[bad] = a[bad]
    return t


@pytest.mark.parametrize("seed", range(3))
def test_bin_thresholds_follow_their_rule(seed):
    from dtree._hist_splitter import sorted_runs, summary_thresholds
    rng = np.random.default_rng(seed)
    for trial in range(300):
        n = int(rng.integers(0, 4000))
        kind = trial % 5
        if kind == 0:
            x = rng.normal(size=n)
        elif kind == 1:             # a few heavy values amid spread ones
            x = np.where(rng.random(n) < 0.6, rng.integers(-2, 3, n), rng.normal(size=n))
        elif kind == 2:
            x = rng.integers(0, int(rng.integers(1, 600)), n)
        elif kind == 3:             # signed zeros, tiny and huge values, NaN
            x = rng.choice([-0.0, 0.0, 1e-45, -1e-45, 3e38, -3e38, np.nan, 1.0], n)
        else:
            x = rng.pareto(1.0, n)
        x = np.sort(x.astype(np.float32))
        distinct, counts = sorted_runs(x)
        known = x[~np.isnan(x)]
        np.testing.assert_array_equal(np.repeat(distinct, counts.astype(int)), known)
        assert np.all(np.diff(distinct) > 0)
        max_bins = int(rng.choice([2, 3, 16, 255]))
        lo = hi = distinct
        if trial % 3 == 2 and distinct.shape[0] > 1:
            # pooled runs (a merged summary's): lo <= hi, perhaps overlapping
            hi = np.maximum(distinct, np.roll(distinct, -1)).astype(np.float32)
        got = summary_thresholds(lo, hi, counts, max_bins)
        want = _thresholds_by_definition(lo, hi, counts, max_bins)
        np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
        assert got.shape[0] <= max_bins - 1
    # the rule's edges: a run of exactly a bin's share is not heavy; equal heavy runs
    # take their edges in run order when room runs out; a light run two cuts land
    # on is cut once
    for counts, max_bins in (([1, 6, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2], 4),
                             ([1, 10, 1, 10, 1, 1], 4),
                             ([10, 50] + [1] * 20, 8)):
        counts = np.asarray(counts, dtype=np.float64)
        runs = np.arange(counts.shape[0], dtype=np.float32)
        got = summary_thresholds(runs, runs, counts, max_bins)
        np.testing.assert_array_equal(got, _thresholds_by_definition(runs, runs, counts,
                                                                     max_bins))
        assert np.all(np.diff(got) > 0)
    with pytest.raises(ValueError, match="runs"):
        summary_thresholds(np.zeros(2, np.float32), np.zeros(3, np.float32), np.ones(2), 4)


def _categorical_frame(n=4000, seed=0):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "a": rng.integers(0, 30, n).astype(float),
        "c": pd.Categorical(rng.choice(list("abcdefghij"), n)),      # 10: every subset
        "d": pd.Categorical(rng.choice([f"x{i}" for i in range(20)], n)),   # 20: ordered
        "b": rng.integers(0, 10, n).astype(float)})
    frame.loc[rng.random(n) < 0.05, "c"] = np.nan
    signal = (frame.a > 12) ^ frame.c.isin(list("abe")) | frame.d.isin(["x1", "x3", "x17"])
    return frame, signal.to_numpy(), rng


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("options", [dict(max_depth=5), dict(min_samples_leaf=10), dict(),
                                     dict(max_features=2), dict(max_leaf_nodes=30)])
def test_categories_split_as_the_exact_splitter(criterion, options):
    frame, signal, rng = _categorical_frame()
    y = np.where(rng.random(len(signal)) < 0.1, ~signal, signal).astype(int)
    exact = DecisionTreeClassifier(criterion=criterion, random_state=0, **options).fit(frame, y)
    hist = DecisionTreeClassifier(criterion=criterion, splitter="hist", random_state=0,
                                  **options).fit(frame, y)
    assert exact.tree_.category_sets.shape[0] > 0
    _assert_same(exact, hist)
    np.testing.assert_array_equal(exact.tree_.category_sets, hist.tree_.category_sets)
    np.testing.assert_array_equal(exact.predict(frame), hist.predict(frame))


def test_categories_for_regression_and_three_classes():
    frame, signal, rng = _categorical_frame(seed=1)
    y = np.round(frame.a.to_numpy() / 3 + 5 * frame.c.isin(list("ab")).to_numpy()
                 + rng.normal(size=len(signal)))
    for options in (dict(max_depth=6), dict(min_samples_leaf=8)):
        exact = DecisionTreeRegressor(random_state=0, **options).fit(frame, y)
        hist = DecisionTreeRegressor(splitter="hist", random_state=0, **options).fit(frame, y)
        _assert_same(exact, hist)
    y3 = rng.integers(0, 3, len(signal)) + 2 * frame.c.isin(list("ab")).to_numpy()
    exact = DecisionTreeClassifier(random_state=0, max_depth=6).fit(frame, y3)
    hist = DecisionTreeClassifier(splitter="hist", random_state=0, max_depth=6).fit(frame, y3)
    _assert_same(exact, hist)


def test_large_nodes_sum_by_blocks_the_same_on_any_number_of_threads():
    # nodes of BLOCKED_ROWS samples or more build histograms, mark sides and
    # partition by row blocks on the threads; the blocks depend on the node only,
    # so weighted regression sums (rounded in their order) give the same tree
    rng = np.random.RandomState(4)
    n = 60_000
    X = rng.rand(n, 5)
    X[rng.rand(n) < 0.1, 2] = np.nan
    y = np.sin(6 * X[:, 0]) + np.nan_to_num(X[:, 2]) + 0.1 * rng.rand(n)
    w = rng.rand(n) * 3 + 0.01
    trees = [DecisionTreeRegressor(splitter="hist", max_depth=12, n_jobs=t,
                                   random_state=0).fit(X, y, sample_weight=w) for t in (1, 2)]
    _assert_same(*trees)
    for name in ("value", "weighted_n_node_samples", "impurity"):
        np.testing.assert_array_equal(getattr(trees[0].tree_, name),
                                      getattr(trees[1].tree_, name), err_msg=name)
    # the blocked sums are the sums: each leaf's value is its rows' weighted mean
    leaves = trees[0].apply(X)
    leaf = np.bincount(leaves).argmax()
    rows = leaves == leaf
    np.testing.assert_allclose(trees[0].tree_.value[leaf, 0, 0],
                               np.average(y[rows], weights=w[rows]), rtol=1e-12)
    assert (trees[0].tree_.n_node_samples[0] == n
            and trees[0].tree_.n_node_samples[1] + trees[0].tree_.n_node_samples[
                trees[0].tree_.children_right[0]] == n)


def test_a_blocked_histogram_is_the_histogram():
    from dtree._hist_splitter import HistSplitter, histogram_layout
    from dtree._plan.registry import criterion_code
    rng = np.random.RandomState(5)
    n = 50_000
    X = rng.rand(n, 3).astype(np.float32)
    X[rng.rand(n) < 0.05, 1] = np.nan
    y = rng.rand(n)
    codes, lo, hi = bin_codes(X, fit_bins(X, 32), 1)
    used, offsets = histogram_layout(hi)
    settings = dict(criterion=criterion_code("squared_error"), n_classes=0, min_samples_leaf=1, min_weight_leaf=0.0,
                    max_features=3, seed=1, quantile=0.5, value_tolerance=0.0,
                    multiway=False, one_vs_rest=False, index_order=False, random_split=False)
    hists = [HistSplitter(codes, lo, hi, y, None, dict(settings, n_threads=t)).histogram()
             for t in (1, 2)]
    np.testing.assert_array_equal(hists[0], hists[1])
    table = hists[0].reshape(-1, 3)      # per bin: sum w, sum w * y, the count
    for f in range(3):
        c = np.where(codes[:, f] == 255, used[f], codes[:, f]).astype(np.intp)
        rows = table[offsets[f]:offsets[f] + used[f] + 1]
        np.testing.assert_array_equal(rows[:, 2], np.bincount(c, minlength=used[f] + 1))
        np.testing.assert_allclose(rows[:, 1], np.bincount(c, weights=y,
                                                           minlength=used[f] + 1), rtol=1e-12)


def test_bins_are_the_same_on_threads_and_skipped_features_get_none():
    # columns summarised side by side (fit_bins' threads) give the serial bins;
    # heavy values, NaN, signed zeros and few distinct values included
    rng = np.random.default_rng(7)
    n = 40000
    X = rng.normal(size=(n, 8)).astype(np.float32)
    X[rng.random(n) < 0.6, 1] = 0.0
    X[::2, 2] = -0.0
    X[rng.random(n) < 0.3, 3] = np.nan
    X[:, 4] = rng.integers(0, 5, n)
    X[:, 5] = np.nan
    serial = fit_bins(X, 64)
    assert serial[5].shape == (0,)
    assert serial[4].tolist() == [0.5, 1.5, 2.5, 3.5]
    for threads in (2, 3, 8):
        threaded = fit_bins(X, 64, n_threads=threads, skip=[6])
        assert threaded[6] is None
        for f in range(8):
            if f != 6:
                assert threaded[f].dtype == np.float64
                np.testing.assert_array_equal(threaded[f], serial[f])


@pytest.mark.parametrize("n_rows", [1, 15, 16, 17, 1000, 70001])
def test_codes_count_the_thresholds_below_each_value(n_rows):
    # bin_codes' interleaved searches (16 rows of a feature at a time, the rest one
    # by one, on threads): a value's code is the number of its feature's thresholds
    # below it (NaN 255), and each bin's least and greatest value are its values'
    rng = np.random.default_rng(n_rows)
    X = rng.normal(size=(n_rows, 4)).astype(np.float32)
    X[rng.random(n_rows) < 0.1, 1] = np.nan
    X[::3, 2] = np.round(X[::3, 2])              # values on the thresholds
    X[::5, 3] = -0.0
    X[::7, 0] = np.inf
    X[::11, 0] = -np.inf
    thresholds = [np.sort(rng.normal(size=k)) for k in (255, 3, 0, 40)]
    thresholds[2] = np.array([-1.0, 0.0, 1.0])
    for threads in (1, 2, 3):
        codes, lo, hi = bin_codes(X, thresholds, threads)
        for f in range(4):
            x = X[:, f]
            expected = np.where(np.isnan(x), 255,
                                np.searchsorted(thresholds[f], x.astype(np.float64), "left"))
            np.testing.assert_array_equal(codes[:, f], expected)
            for c in np.unique(expected[expected < 255]):
                assert lo[f, c] == x[expected == c].min() and hi[f, c] == x[expected == c].max()
            empty = np.setdiff1d(np.arange(255), expected)
            assert (lo[f, empty] == np.inf).all() and (hi[f, empty] == -np.inf).all()


def test_a_sample_of_rows_is_binned_as_those_rows_alone_are():
    # more rows than fit_bins samples: the sampled rows, laid out by feature on the
    # threads (sample_columns), give the bins of those rows as a matrix of their own
    from dtree._hist_splitter import sample_columns

    rng = np.random.default_rng(8)
    X = rng.normal(size=(30000, 5)).astype(np.float32)
    X[rng.random(30000) < 0.2, 2] = np.nan
    rows = np.sort(np.random.default_rng(0).choice(30000, 7000, replace=False))
    for threads in (1, 2, 3):
        np.testing.assert_array_equal(sample_columns(X, rows, threads), X[rows].T)
        sampled = fit_bins(X, 32, sample_rows=7000, n_threads=threads)
        alone = fit_bins(X[rows], 32, sample_rows=7000)
        for f in range(5):
            np.testing.assert_array_equal(sampled[f], alone[f])
    with pytest.raises(ValueError, match="outside"):
        sample_columns(X, np.array([0, 30000]), 1)
    # X by columns (Fortran order) samples the same rows, without a copy of X
    fortran = fit_bins(np.asfortranarray(X), 32, sample_rows=7000, n_threads=2)
    for f in range(5):
        np.testing.assert_array_equal(fortran[f], alone[f])


def test_hist_trees_equal_for_every_thread_count_when_bins_are_summarised_on_threads():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40000, 8)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.3).astype(int)
    trees = [DecisionTreeClassifier(splitter="hist", max_depth=6, random_state=0,
                                    n_jobs=n_jobs).fit(X, y).tree_ for n_jobs in (1, 2, 4)]
    for tree in trees[1:]:
        np.testing.assert_array_equal(tree.threshold, trees[0].threshold)
        np.testing.assert_array_equal(tree.feature, trees[0].feature)
