"""The sparse splitter (``_sparse``): a sparse X is grown from its non-zeros alone,
and gives the tree the dense splitter grows on the same X, whichever way its
nodes find their entries (listed segments, or unlisted nodes filtering columns).

Node for node (bit for bit) wherever the sums are exact: unit or integer weights
with integer targets (and class counts). With real-valued targets the zero block's
sums round differently from the dense scan's one-sample steps, which can only
reorder exact ties (several features making the same partition): the trees then
still hold the same samples in the same leaves.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import dtree
from dtree import _sparse_splitter as _sparse
from dtree._plan.plan import choose
from helpers import search_settings
from dtree._sparse_splitter import SparseSplitter, sorted_entries


@pytest.fixture(autouse=True, params=["auto", "never", "early"])
def listing(request, monkeypatch):
    """Every test under each listing policy: the default; every node unlisted (each
    drawn feature filtered from its whole column); the root unlisted and its
    children listed from their rows. The trees must not depend on it."""
    monkeypatch.setattr(_sparse, "LISTING", request.param)
    return request.param


def _data(n=300, d=10, seed=0, nan=0.0, density=0.3):
    """Rounded values (many ties), negatives and positives, an empty column, a
    column stored only as explicit zeros, and a column of one value."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)
    X[rng.random((n, d)) > density] = 0.0
    X[:, 2] = 0.0                           # empty
    X[:, 3] = np.where(rng.random(n) < 0.5, 2.5, 0.0)   # one non-zero value
    if nan:
        X[rng.random((n, d)) < nan] = np.nan
    y_class = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 5]) > 0.1).astype(int)
               + (rng.random(n) < 0.2))
    y_int = np.floor(4 * np.abs(np.nan_to_num(X[:, 1]))) + rng.integers(0, 5, n)
    return X, y_class, y_int


def _stored(X, column_of_zeros=4):
    """X as COO with a third of its non-zeros, and all of one column, stored as
    explicit zeros; and its dense twin."""
    n = X.shape[0]
    dense = X.copy()
    dense[:, column_of_zeros] = 0.0
    S = sp.coo_matrix(dense)
    S.data[::3] = 0.0
    dense = S.toarray()
    stored = sp.coo_matrix((np.r_[S.data, np.zeros(n)],
                            (np.r_[S.row, np.arange(n)], np.r_[S.col, np.full(n, column_of_zeros)])),
                           shape=X.shape)
    return stored, dense


def _assert_same_tree(a, b):
    for name in ("children_left", "children_right", "feature", "threshold",
                 "missing_go_to_left", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name),
                                      err_msg=name)
    np.testing.assert_array_equal(a.tree_.weighted_n_node_samples,
                                  b.tree_.weighted_n_node_samples)
    np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
    # (the dense random splitter sums a node's children in its samples' order, the
    # sparse one in its entries': poisson's y ln y sums can part in the last bit)
    np.testing.assert_allclose(a.tree_.impurity, b.tree_.impurity, rtol=1e-13, atol=1e-300)


CASES = [
    ("clf", dict(criterion="gini")),
    ("clf", dict(criterion="entropy")),
    ("clf", dict(criterion="log_loss", max_features=4, random_state=3)),
    ("clf", dict(criterion="gini", max_leaf_nodes=12)),
    ("clf", dict(criterion="entropy", min_samples_leaf=7, max_depth=5)),
    ("clf", dict(criterion="gini", min_weight_fraction_leaf=0.05)),
    ("clf", dict(criterion="gini", value_tolerance=0.15)),
    ("reg", dict(criterion="squared_error")),
    ("reg", dict(criterion="squared_error", max_features=3, random_state=5)),
    ("reg", dict(criterion="squared_error", max_leaf_nodes=20, min_samples_leaf=3)),
    ("reg", dict(criterion="poisson")),
    ("reg", dict(criterion="poisson", max_depth=4)),
    ("clf", dict(splitter="random", criterion="entropy")),
    ("clf", dict(splitter="random", max_features=3, random_state=4, min_samples_leaf=2)),
    ("reg", dict(splitter="random")),
    ("reg", dict(splitter="random", max_leaf_nodes=25)),
    ("reg", dict(splitter="random", criterion="poisson", min_samples_leaf=2)),
    ("reg", dict(criterion="absolute_error")),    # laid out densely: the same tree too
    ("reg", dict(criterion="quantile", quantile=0.3, max_depth=5)),
]


@pytest.mark.parametrize("nan", [0.0, 0.05])
@pytest.mark.parametrize("kind,params", CASES)
def test_sparse_x_grows_the_dense_tree_node_for_node(kind, params, nan):
    X, y_class, y_int = _data(seed=11, nan=nan)
    S, dense = _stored(X)
    Est = dtree.DecisionTreeClassifier if kind == "clf" else dtree.DecisionTreeRegressor
    y = y_class if kind == "clf" else y_int
    params = dict(params, random_state=params.get("random_state", 0))
    ref = Est(**params).fit(dense, y)
    assert ref.tree_.node_count > 7
    for fmt in (sp.csc_matrix, sp.csr_matrix, sp.coo_array):
        _assert_same_tree(Est(**params).fit(fmt(S), y), ref)


@pytest.mark.parametrize("kind", ["clf", "reg"])
def test_integer_sample_weights_give_the_dense_tree(kind):
    X, y_class, y_int = _data(seed=12, nan=0.04)
    w = np.random.default_rng(1).integers(1, 5, X.shape[0]).astype(float)
    Est = dtree.DecisionTreeClassifier if kind == "clf" else dtree.DecisionTreeRegressor
    y = y_class if kind == "clf" else y_int
    _assert_same_tree(Est(random_state=0).fit(sp.csc_matrix(X), y, sample_weight=w),
                      Est(random_state=0).fit(X, y, sample_weight=w))


def test_several_outputs_give_the_dense_tree():
    X, y_class, y_int = _data(seed=13, nan=0.03)
    Y = np.c_[y_class, y_int % 3]
    _assert_same_tree(dtree.DecisionTreeClassifier(random_state=0).fit(sp.csr_matrix(X), Y),
                      dtree.DecisionTreeClassifier(random_state=0).fit(X, Y))
    Y = np.c_[y_int, y_int % 7, y_class]
    for criterion in ("squared_error", "poisson"):
        reg = lambda: dtree.DecisionTreeRegressor(criterion=criterion, random_state=0)
        _assert_same_tree(reg().fit(sp.csc_matrix(X), Y), reg().fit(X, Y))


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_monotonic_constraints_give_the_dense_tree(splitter):
    X, y_class, y_int = _data(seed=14)
    cst = [1, -1] + [0] * (X.shape[1] - 2)
    for Est, y in ((dtree.DecisionTreeClassifier, y_class > 0),
                   (dtree.DecisionTreeRegressor, y_int)):
        make = lambda: Est(monotonic_cst=cst, random_state=0, max_depth=6, splitter=splitter)
        _assert_same_tree(make().fit(sp.csc_matrix(X), y), make().fit(X, y))


@pytest.mark.parametrize("Est", [dtree.ExtraTreeClassifier, dtree.ExtraTreeRegressor])
def test_extra_trees_on_sparse_x_are_the_dense_ones(Est):
    X, y_class, y_int = _data(seed=17, nan=0.03)
    S, dense = _stored(X)
    y = y_class if Est is dtree.ExtraTreeClassifier else y_int
    for seed in range(3):
        _assert_same_tree(Est(random_state=seed).fit(S, y), Est(random_state=seed).fit(dense, y))


@pytest.mark.parametrize("criterion,splitter", [
    ("squared_error", "best"), ("poisson", "best"), ("squared_error", "random")])
def test_real_targets_give_the_same_leaves(criterion, splitter):
    # exact ties may pick another feature making the same partition: the samples
    # still share the same leaves, so the fitted values agree
    X, _, y_int = _data(seed=15, nan=0.02)
    y = y_int + np.random.default_rng(2).random(X.shape[0])
    make = lambda: dtree.DecisionTreeRegressor(criterion=criterion, splitter=splitter,
                                               random_state=0)
    a, b = make().fit(sp.csc_matrix(X), y), make().fit(X, y)
    assert a.tree_.node_count == b.tree_.node_count
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-12)
    np.testing.assert_array_equal(np.sort(a.tree_.n_node_samples), np.sort(b.tree_.n_node_samples))


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_a_wide_sparse_x_is_never_laid_out_densely(splitter):
    # 40,000 x 200,000: 8e9 cells, far beyond the dense layout's memory guard
    rng = np.random.default_rng(3)
    n, d, nnz = 40_000, 200_000, 60_000
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, d, nnz)
    S = sp.csc_matrix((rng.random(nnz) + 0.1, (rows, cols)), shape=(n, d), dtype=np.float32)
    y = np.zeros(n, dtype=int)
    y[rows[cols % 7 == 0]] = 1
    est = dtree.DecisionTreeClassifier(random_state=0, max_depth=4, splitter=splitter).fit(S, y)
    assert est.tree_.node_count > 3
    assert est.score(S, y) >= (y == 0).mean()
    np.testing.assert_array_equal(est.predict(S[:50]), est.predict(S[:50].toarray()))


def test_which_configurations_use_the_sparse_splitter():
    def sparse_splitter_fits(est):
        return choose(est).sparse

    assert sparse_splitter_fits(dtree.DecisionTreeClassifier())
    assert sparse_splitter_fits(dtree.DecisionTreeRegressor(criterion="poisson"))
    assert sparse_splitter_fits(dtree.ExtraTreeClassifier())
    assert not sparse_splitter_fits(dtree.DecisionTreeRegressor(criterion="absolute_error"))
    assert not sparse_splitter_fits(dtree.DecisionTreeClassifier(splitter="hist"))
    assert not sparse_splitter_fits(dtree.DecisionTreeClassifier(algorithm="c4.5"))
    assert not sparse_splitter_fits(dtree.DecisionTreeClassifier(categorical_features=[0]))


def test_entries_are_sorted_by_value_with_nan_last_and_stored_zeros_dropped():
    X = sp.csc_matrix(np.array([[0.0, -1.0], [3.0, np.nan], [-2.0, 0.0], [3.0, -5.0]],
                               dtype=np.float32))
    X.data[X.data == -5.0] = 0.0             # stored, but zero
    vals, ids, col_start = sorted_entries(X)
    np.testing.assert_array_equal(col_start, [0, 3, 5])
    np.testing.assert_array_equal(vals[:3], [-2.0, 3.0, 3.0])
    np.testing.assert_array_equal(ids[:3], [2, 1, 3])          # equal values by row
    assert vals[3] == -1.0 and np.isnan(vals[4])
    np.testing.assert_array_equal(ids[3:], [0, 1])


def test_the_splitter_refuses_the_quantile_criteria():
    with pytest.raises(ValueError, match="quantile"):
        SparseSplitter(sp.csc_matrix(np.ones((3, 1), dtype=np.float32)), np.zeros(3), None,
                       search_settings(5, 0, 1, seed=0))


def test_missing_values_in_sparse_x_follow_handle_missing():
    X, y_class, _ = _data(seed=16, nan=0.05)
    S = sp.csc_matrix(X)
    with pytest.raises(ValueError, match="NaN"):
        dtree.DecisionTreeClassifier(handle_missing="error").fit(S, y_class)
    inf = S.copy()
    inf.data[0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        dtree.DecisionTreeClassifier().fit(inf, y_class)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n_rows", [40, 600, 20_000])   # insertion, 8-bit, 11-bit passes
def test_each_column_is_sorted_as_a_stable_sort_would(n_rows, threads):
    rng = np.random.default_rng(n_rows)
    A = np.round(rng.normal(size=(n_rows, 12)), 1).astype(np.float32)
    A[rng.random(A.shape) < 0.5] = 0.0
    A[rng.random(A.shape) < 0.05] = np.nan
    A[:, -2:] = 0.0                                   # trailing empty columns
    vals, ids, col_start = sorted_entries(sp.csc_matrix(A), threads)
    for f in range(A.shape[1]):
        rows = np.flatnonzero(A[:, f] != 0)
        expected = rows[np.argsort(np.nan_to_num(A[rows, f], nan=np.inf), kind="stable")]
        np.testing.assert_array_equal(ids[col_start[f]:col_start[f + 1]], expected)
        np.testing.assert_array_equal(vals[col_start[f]:col_start[f + 1]], A[expected, f])


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_threads_do_not_change_the_tree(splitter):
    # wide enough that the scans and partitions go parallel (PARALLEL_ENTRIES)
    rng = np.random.default_rng(21)
    n, d, nnz = 4000, 400, 120_000
    S = sp.csc_matrix((np.round(rng.normal(size=nnz), 1) + 0.05,
                       (rng.integers(0, n, nnz), rng.integers(0, d, nnz))), shape=(n, d))
    y = rng.integers(0, 3, n)
    make = lambda jobs: dtree.DecisionTreeClassifier(splitter=splitter, random_state=0,
                                                     n_jobs=jobs, max_depth=12)
    _assert_same_tree(make(2).fit(S, y), make(1).fit(S, y))
