"""Shared test helpers: tie-free data, few-valued data, a node-by-node tree comparison."""
import numpy as np
from hypothesis import strategies as st

from reference import is_tie, split_score


def tie_free_data(seed, n_samples, n_features, n_classes=2, regression=False):
    """Continuous random X (float32 values with no duplicates in any column).

    Consecutive sorted values of a column are at least 1e-5 apart, so no
    tolerance of scikit-learn's (it treats values within 1e-7 as equal) is hit.
    """
    rng = np.random.RandomState(seed)
    while True:
        X = (rng.normal(size=(n_samples, n_features)) * 10).astype(np.float32)
        gaps = np.diff(np.sort(X, axis=0), axis=0)
        if gaps.min() > 1e-5:
            break
    signal = X[:, 0] + 0.5 * X[:, 1] * X[:, min(2, n_features - 1)] / 10
    if regression:
        y = signal + rng.normal(size=n_samples) * 5
    else:
        noisy = signal + rng.normal(size=n_samples) * 8
        edges = np.quantile(noisy, np.linspace(0, 1, n_classes + 1)[1:-1])
        y = np.searchsorted(edges, noisy)
    return X, y


def _goes_left(X, tree, node):
    column = X[:, tree.feature[node]]
    return (column <= tree.threshold[node]) | (
        np.isnan(column) & bool(tree.missing_go_to_left[node]))


def compare_trees(ours, theirs, X, y, sample_weight=None, criterion="gini",
                  n_classes=None, rtol=1e-9):
    """Walk two fitted trees together and compare every node.

    Where the splits differ the two must be tied: equal criterion score on the
    node's training samples, computed by the brute-force reference. If the tied
    splits send the same training samples left (or the same samples with the
    sides swapped, as two features can order them oppositely), the walk goes on
    below; otherwise it stops there.

    Returns
    -------
    (int, int)
        Ties with the same partition of the training samples, and ties where
        the walk had to stop.
    """
    a, b = ours.tree_, theirs.tree_
    X = np.asarray(X, dtype=np.float32)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    ours_paths = ours.decision_path(X).tocsc()
    theirs_paths = theirs.decision_path(X).tocsc()

    def rows(paths, node):
        return frozenset(paths[:, node].nonzero()[0].tolist())

    same, stopped = 0, 0
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        assert a.n_node_samples[i] == b.n_node_samples[j], (i, j)
        np.testing.assert_allclose(a.weighted_n_node_samples[i], b.weighted_n_node_samples[j],
                                   rtol=rtol)
        np.testing.assert_allclose(a.value[i], b.value[j], rtol=1e-7, atol=1e-12)
        np.testing.assert_allclose(a.impurity[i], b.impurity[j], rtol=1e-7, atol=1e-9)
        a_leaf = a.children_left[i] == -1
        b_leaf = b.children_left[j] == -1
        if a_leaf and not b_leaf:
            # scikit-learn takes a child's impurity from its parent's running
            # sums; rounding can leave a pure node with impurity > DBL_EPSILON,
            # and it splits it. dtree sums children afresh and keeps the leaf.
            node_y = np.asarray(y)[sorted(rows(ours_paths, i))]
            assert (node_y == node_y[0]).all(), f"node {i}/{j}: leaf only in dtree"
            same += 1
            continue
        assert a_leaf == b_leaf, f"node {i}/{j}: leaf only in scikit-learn"
        if a_leaf:
            continue
        pairs = [(a.children_left[i], b.children_left[j]),
                 (a.children_right[i], b.children_right[j])]
        if a.feature[i] != b.feature[j] or a.threshold[i] != b.threshold[j]:
            node_rows = sorted(rows(ours_paths, i))
            xs, ys, ws = X[node_rows], np.asarray(y)[node_rows], w[node_rows]
            ours_score = split_score(ys, ws, _goes_left(xs, a, i), criterion, n_classes)
            theirs_score = split_score(ys, ws, _goes_left(xs, b, j), criterion, n_classes)
            assert is_tie(ours_score, theirs_score, ours_score), (
                f"node {i}: dtree split ({a.feature[i]}, {a.threshold[i]}) scores "
                f"{ours_score}, scikit-learn's ({b.feature[j]}, {b.threshold[j]}) {theirs_score}")
            ours_left = rows(ours_paths, a.children_left[i])
            if ours_left == rows(theirs_paths, b.children_left[j]):
                same += 1
            elif ours_left == rows(theirs_paths, b.children_right[j]):
                same += 1
                pairs = [(a.children_left[i], b.children_right[j]),
                         (a.children_right[i], b.children_left[j])]
            else:
                stopped += 1
                continue
        stack.extend(pairs)
    return same, stopped


def matching(candidates, X, feature, threshold, missing_left):
    """The brute-force candidates (``reference.all_candidates``) that are this split.

    Where the node has no missing value the reference lists missing_left=False
    only, while dtree records where a future NaN would go.
    """
    has_missing = np.isnan(X[:, feature]).any()
    return [c for c in candidates if c[1] == feature and c[2] == threshold
            and (c[3] == bool(missing_left) or not has_missing)]


def assert_split_is_optimal(candidates, X, feature, threshold, missing_left, scale=None):
    """The split is a candidate and scores the least of all (up to rounding at
    ``scale``, by default the least score itself)."""
    best = min(c[0] for c in candidates)
    ours = matching(candidates, X, feature, threshold, missing_left)
    assert ours, f"dtree's split ({feature}, {threshold}) is not a valid candidate"
    assert is_tie(ours[0][0], best, best if scale is None else scale), (ours[0], best)


def assert_root_split_is_optimal(found, candidates, X, scale=None):
    """``_splitter.best_split``'s answer is the brute-force optimum (None when no
    candidate exists)."""
    if not candidates:
        assert found is None
        return
    assert found is not None
    assert_split_is_optimal(candidates, X, found["feature"], found["threshold"],
                            found["missing_left"], scale)


def few_valued_features(draw, max_rows, max_levels):
    """A hypothesis draw: float32 X of 2..max_rows rows, 1-3 columns of small
    integers (ties everywhere), every third value of column 0 missing half the time."""
    n = draw(st.integers(2, max_rows))
    d = draw(st.integers(1, 3))
    levels = draw(st.integers(1, max_levels))
    X = np.array(draw(st.lists(st.lists(st.integers(0, levels), min_size=d, max_size=d),
                               min_size=n, max_size=n)), dtype=np.float32)
    if draw(st.booleans()):
        X[::3, 0] = np.nan
    return X


def search_settings(criterion, n_classes, max_features, seed=1, min_samples_leaf=1,
                    **overrides):
    """A splitter's ``SearchSettings`` (as ``FitPlan.search`` makes them) for tests that
    build a splitter directly; ``criterion`` is a kernel code."""
    settings = dict(criterion=criterion, n_classes=n_classes,
                    min_samples_leaf=min_samples_leaf, min_weight_leaf=0.0,
                    max_features=max_features, seed=seed, n_threads=1, quantile=0.5,
                    value_tolerance=0.0, multiway=False, one_vs_rest=False, index_order=False,
                    random_split=False)
    settings.update(overrides)
    return settings
