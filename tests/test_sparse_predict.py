"""Sparse X: fit gives the dense twin's tree, and every reader of a fitted tree
walks CSR rows as stored.

predict, predict_proba, apply, decision_path and score take any scipy sparse
format and give what the same dense X gives, explicit zeros and stored NaN
included; a sparse X too large for the dense layout is refused before any
allocation.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import dtree

FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array]


def _sparse_data(n=400, d=12, seed=0, nan=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.75] = 0.0
    if nan:
        X[rng.random((n, d)) < 0.03] = np.nan
    y = (np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 4]) > 0.1).astype(int)
    return X, y


def _with_explicit_zeros(S):
    # a third of the stored entries set to 0 but kept stored
    S = sp.csr_matrix(S, copy=True)
    S.data[::3] = 0.0
    return S


ESTIMATORS = [
    lambda: dtree.DecisionTreeClassifier(random_state=0),
    lambda: dtree.DecisionTreeRegressor(random_state=0, max_depth=6),
    lambda: dtree.ExtraTreeClassifier(random_state=0),
    lambda: dtree.DecisionTreeRegressor(random_state=0, criterion="absolute_error"),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("make", ESTIMATORS)
def test_sparse_rows_are_read_as_the_dense_rows(fmt, make):
    X, y = _sparse_data()
    est = make().fit(X, y)
    for dense in (X, _with_explicit_zeros(X).toarray()):
        S = fmt(_with_explicit_zeros(X)) if dense is not X else fmt(X)
        np.testing.assert_array_equal(est.apply(S), est.apply(dense))
        np.testing.assert_array_equal(est.predict(S), est.predict(dense))
        assert (est.decision_path(S) != est.decision_path(dense)).nnz == 0
        assert est.score(S, y) == est.score(dense, y)
        if hasattr(est, "predict_proba"):
            np.testing.assert_array_equal(est.predict_proba(S), est.predict_proba(dense))


def test_several_outputs_and_threads():
    X, y = _sparse_data(n=70000, d=5, seed=1)
    Y = np.c_[y, 1 - y, np.nan_to_num(X[:, 1]) > 0]
    est = dtree.DecisionTreeClassifier(random_state=0, max_depth=8, n_jobs=2).fit(X, Y)
    S = sp.csr_matrix(X)
    np.testing.assert_array_equal(est.predict(S), est.predict(X))
    for ours, dense in zip(est.predict_proba(S), est.predict_proba(X)):
        np.testing.assert_array_equal(ours, dense)


def test_a_sparse_matrix_is_not_modified():
    X, y = _sparse_data(seed=2, nan=False)
    est = dtree.DecisionTreeClassifier(random_state=0).fit(X, y)
    S = sp.csr_matrix(X)
    S = sp.csr_matrix((S.data, S.indices, S.indptr), shape=S.shape)
    S.has_sorted_indices = False
    before = (S.data.copy(), S.indices.copy(), S.indptr.copy())
    est.predict(S)
    for a, b in zip(before, (S.data, S.indices, S.indptr)):
        np.testing.assert_array_equal(a, b)


def test_duplicate_entries_are_summed_as_scipy_does():
    X, y = _sparse_data(seed=3, nan=False)
    est = dtree.DecisionTreeRegressor(random_state=0).fit(X, y)
    rows, cols = np.nonzero(X)
    half = X[rows, cols] / 2
    S = sp.coo_matrix((np.r_[half, half], (np.r_[rows, rows], np.r_[cols, cols])),
                      shape=X.shape)
    np.testing.assert_array_equal(est.predict(S), est.predict(S.toarray()))


def test_bad_sparse_input_is_named():
    X, y = _sparse_data(seed=4)
    est = dtree.DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 11 features, but DecisionTreeClassifier "
                                         "is expecting 12"):
        est.predict(sp.csr_matrix(X[:, :11]))
    bad = sp.csr_matrix(np.nan_to_num(X))
    bad.data[5] = np.inf
    with pytest.raises(ValueError, match=f"infinity in column {bad.indices[5]}"):
        est.predict(bad)
    big = sp.csr_matrix(np.nan_to_num(X))
    big.data[0] = 1e300
    with pytest.raises(ValueError, match="too large for float32"):
        est.predict(big)
    strict = dtree.DecisionTreeClassifier(handle_missing="error").fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="contains NaN in column"):
        strict.predict(sp.csr_matrix(X))
    with pytest.raises(TypeError, match="sparse y"):
        dtree.DecisionTreeRegressor().fit(X, sp.csr_matrix(y.reshape(-1, 1)))


def test_categorical_models_and_c45_missing_values_want_dense_rows():
    rng = np.random.default_rng(5)
    X = np.c_[rng.choice(["a", "b", "c"], size=200), rng.random(200)].astype(object)
    y = rng.integers(0, 2, size=200)
    est = dtree.DecisionTreeClassifier(categorical_features=[0]).fit(X, y)
    with pytest.raises(TypeError, match="categorical"):
        est.predict(sp.csr_matrix(np.zeros((3, 2))))
    Xn, yn = _sparse_data(seed=6)
    c45 = dtree.DecisionTreeClassifier(algorithm="c4.5").fit(Xn, yn)
    clean = np.nan_to_num(Xn)
    np.testing.assert_array_equal(c45.predict(sp.csr_matrix(clean)), c45.predict(clean))
    with pytest.raises(TypeError, match="dense X"):
        c45.predict(sp.csr_matrix(Xn))


CRITERIA = [("clf", "gini"), ("clf", "entropy"), ("reg", "squared_error"),
            ("reg", "absolute_error"), ("reg", "poisson"), ("reg", "quantile")]


# (the quantile criteria have no histogram mode)
@pytest.mark.parametrize("kind,criterion,splitter", [
    (kind, criterion, splitter) for kind, criterion in CRITERIA
    for splitter in ("best", "random", "hist")
    if not (splitter == "hist" and criterion in ("absolute_error", "quantile"))])
def test_trees_on_sparse_x_equal_trees_on_the_dense_x(kind, criterion, splitter):
    X, y = _sparse_data(n=300, d=8, seed=7)
    S = _with_explicit_zeros(X)
    dense = S.toarray()
    if kind == "reg":
        # integer targets: sums exact in any order (see test_sparse_fit for others)
        y = np.floor(np.abs(np.nan_to_num(dense[:, 0])) * 8) + y
        make = lambda: dtree.DecisionTreeRegressor(criterion=criterion, splitter=splitter,
                                                   random_state=0)
    else:
        make = lambda: dtree.DecisionTreeClassifier(criterion=criterion, splitter=splitter,
                                                    random_state=0)
    for fmt in (sp.csc_matrix, sp.csr_array, sp.coo_matrix):
        a, b = make().fit(fmt(S), y), make().fit(dense, y)
        for name in ("children_left", "feature", "threshold", "missing_go_to_left",
                     "n_node_samples"):
            np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
        np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


def test_a_sparse_x_too_large_for_the_dense_layout_is_refused_before_allocating():
    from dtree._input.validation import sparse_fit_matrix

    X = sp.csr_matrix((1000, 50), dtype=np.float32)
    with pytest.raises(MemoryError, match=r"shape \(1000, 50\) would be laid out densely"):
        sparse_fit_matrix(X, True, memory_bytes=1000 * 50 * 10)
    assert sparse_fit_matrix(X, True, memory_bytes=2**40).shape == (1000, 50)
    huge = sp.csr_matrix((10**7, 10**6), dtype=np.float32)
    with pytest.raises(MemoryError, match="select fewer columns"):
        # (the sparse splitter does not take the quantile criteria: a dense layout)
        dtree.DecisionTreeRegressor(criterion="absolute_error").fit(huge, np.zeros(10**7))
