"""Pruning: cost-complexity (scikit-learn's path, rpart's CP table and CV), C4.5, REP."""
import math

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from helpers import compare_trees, tie_free_data

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, NotFittedError
from dtree._fit.fit import holdout as _holdout, rng as _rng
from dtree._model.tree import Tree
from dtree._fit.c45_pruning import c45_pruned, extra_errors
from dtree.datasets import load, load_Xy

matplotlib.use("Agg")


def is_subtree(pruned, original):
    """Every node of ``pruned`` is the same node of ``original`` (same split, same data)."""
    a, b = pruned.tree_, original.tree_
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if a.n_node_samples[i] != b.n_node_samples[j]:
            return False
        if not np.allclose(a.value[i], b.value[j]):
            return False
        if a.children_left[i] == -1:
            continue
        if b.children_left[j] == -1 or a.feature[i] != b.feature[j] \
                or a.threshold[i] != b.threshold[j]:
            return False
        stack.append((a.children_left[i], b.children_left[j]))
        stack.append((a.children_right[i], b.children_right[j]))
    return True


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, random_state=0)


# ------------------------------------------------ scikit-learn's path
def test_breast_cancer_path_equals_sklearn(cancer):
    X_train, _, y_train, _ = cancer
    ours = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X_train, y_train)
    theirs = SkClassifier(random_state=0).cost_complexity_pruning_path(X_train, y_train)
    assert len(ours.ccp_alphas) == len(theirs.ccp_alphas) == 13
    np.testing.assert_allclose(ours["ccp_alphas"], theirs.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=1e-9, atol=1e-15)
    assert (np.diff(ours.ccp_alphas) >= 0).all()


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_tie_free_path_and_pruned_trees_equal_sklearn(kind):
    if kind == "classifier":
        X, y = tie_free_data(21, 400, 4, n_classes=3)
        w = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
        ours_cls, theirs_cls, crit, k = DecisionTreeClassifier, SkClassifier, "gini", 3
    else:
        X, y = tie_free_data(22, 400, 4, regression=True)
        w = None
        ours_cls, theirs_cls, crit, k = DecisionTreeRegressor, SkRegressor, "squared_error", None
    params = dict(min_samples_leaf=5)
    ours = ours_cls(**params).cost_complexity_pruning_path(X, y, sample_weight=w)
    theirs = theirs_cls(random_state=0, **params).cost_complexity_pruning_path(
        X, y, sample_weight=w)
    # scikit-learn splits some pure nodes (its children's impurity comes from
    # running sums and can exceed DBL_EPSILON); such splits prune at alpha ~ 1e-17
    # and dtree never makes them.
    real = np.r_[True, theirs.ccp_alphas[1:] > 1e-12]
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas[real], rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(ours.impurities, theirs.impurities[real], rtol=1e-8, atol=1e-14)
    for alpha in _between(theirs.ccp_alphas[real]):
        a = ours_cls(ccp_alpha=alpha, **params).fit(X, y, sample_weight=w)
        b = theirs_cls(ccp_alpha=alpha, random_state=0, **params).fit(X, y, sample_weight=w)
        same, stopped = compare_trees(a, b, X, y, w, crit, n_classes=k)
        assert stopped == 0
        np.testing.assert_allclose(a.predict(X), b.predict(X))
        if same:  # a pure node scikit-learn split and dtree did not
            continue
        np.testing.assert_array_equal(a.tree_.children_left, b.tree_.children_left)
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
        np.testing.assert_allclose(a.feature_importances_, b.feature_importances_,
                                   rtol=1e-7, atol=1e-12)


def test_breast_cancer_ccp_alpha_gives_sklearn_tree(cancer):
    X_train, X_test, y_train, _ = cancer
    path = SkClassifier(random_state=0).cost_complexity_pruning_path(X_train, y_train)
    for alpha in _between(path.ccp_alphas):
        ours = DecisionTreeClassifier(ccp_alpha=alpha).fit(X_train, y_train)
        theirs = SkClassifier(ccp_alpha=alpha, random_state=0).fit(X_train, y_train)
        assert ours.get_n_leaves() == theirs.get_n_leaves()
        same, stopped = compare_trees(ours, theirs, X_train, y_train, None, "gini", 2)
        assert stopped == 0


def _between(alphas):
    # Prune between consecutive path alphas: at a path alpha itself the last
    # bit of the two libraries' impurities decides, at a midpoint nothing does.
    alphas = np.unique(alphas)
    return np.sqrt(alphas[1:-1] * alphas[2:])


# ------------------------------------------------------ rpart's tables
def test_kyphosis_cp_table_equals_rpart():
    X, y = load_Xy("kyphosis")
    clf = DecisionTreeClassifier(min_samples_split=20, min_samples_leaf=7,
                                 prune_risk="misclassification", ccp_alpha="cv",
                                 random_state=0).fit(X, y)
    table = clf.cp_table_
    np.testing.assert_allclose(table.CP[:2], [0.17647059, 0.01960784], atol=5e-9)
    by_splits = dict(zip(table.nsplit.tolist(), table.rel_error.tolist()))
    for nsplit, rel in [(0, 1.0), (1, 0.8235294), (4, 0.7647059)]:
        assert by_splits[nsplit] == pytest.approx(rel, abs=5e-8)
    _check_cv_columns(table)


def test_car_test_frame_cp_table_equals_rpart():
    frame = load("car_test_frame")
    reg = DecisionTreeRegressor(min_samples_split=20, min_samples_leaf=7, ccp_alpha="cv",
                                random_state=0).fit(frame[["Weight"]], frame["Mileage"])
    table = reg.cp_table_
    np.testing.assert_allclose(table.CP[:3], [0.59534912, 0.13452819, 0.01282843], atol=5e-9)
    np.testing.assert_allclose(table.rel_error[:4], [1, 0.4046509, 0.2701227, 0.2572943],
                               atol=5e-8)
    np.testing.assert_array_equal(table.nsplit[:4], [0, 1, 2, 3])
    _check_cv_columns(table)


def _check_cv_columns(table):
    assert np.isfinite(table.xerror).all() and (table.xstd > 0).all()
    best = int(np.argmin(table.xerror))
    limit = table.xerror[best] + table.xstd[best]
    assert table.selected == int(np.flatnonzero(table.xerror <= limit)[0])
    assert table.xerror[table.selected] <= limit
    assert (np.diff(table.CP) < 0).all() and (np.diff(table.nsplit) > 0).all()
    text = str(table)
    assert "rel error" in text and "xstd" in text and "<" in text


def test_cv_rule_min_takes_the_best_row_and_is_reproducible(cancer):
    X_train, _, y_train, _ = cancer
    a = DecisionTreeClassifier(ccp_alpha="cv", cv_rule="min", cv=5, random_state=3)
    b = DecisionTreeClassifier(ccp_alpha="cv", cv_rule="min", cv=5, random_state=3)
    a.fit(X_train, y_train)
    b.fit(X_train, y_train)
    assert a.cp_table_.selected == int(np.argmin(a.cp_table_.xerror))
    np.testing.assert_array_equal(a.cp_table_.xerror, b.cp_table_.xerror)
    one_se = DecisionTreeClassifier(ccp_alpha="cv", cv=5, random_state=3).fit(X_train, y_train)
    assert one_se.get_n_leaves() <= a.get_n_leaves()


def test_cv_accepts_a_splitter_or_index_pairs(cancer):
    from sklearn.model_selection import KFold

    X_train, _, y_train, _ = cancer
    splitter = KFold(4, shuffle=True, random_state=0)
    a = DecisionTreeClassifier(random_state=0, ccp_alpha="cv", cv=splitter).fit(X_train, y_train)
    b = DecisionTreeClassifier(random_state=0, ccp_alpha="cv", cv=list(splitter.split(X_train))).fit(
        X_train, y_train)
    np.testing.assert_array_equal(a.cp_table_.xerror, b.cp_table_.xerror)
    assert np.isfinite(a.cp_table_.xerror).all()
    with pytest.raises(ValueError, match="no \\(train, test\\) splits"):
        DecisionTreeClassifier(random_state=0, ccp_alpha="cv", cv=[]).fit(X_train, y_train)


def test_cp_table_frame_and_plot(tmp_path):
    X, y = load_Xy("kyphosis")
    clf = DecisionTreeClassifier(min_samples_leaf=7, ccp_alpha="cv", cv=5,
                                 random_state=0).fit(X, y)
    frame = clf.cp_table_.to_frame()
    assert list(frame.columns) == ["CP", "nsplit", "rel error", "xerror", "xstd"]
    assert clf.cp_table_.to_dict()["nsplit"][0] == 0
    ax = clf.cp_table_.plot()
    out = tmp_path / "cp.png"
    ax.figure.savefig(out)
    assert out.stat().st_size > 1000
    assert ax.get_ylabel() == "X-val relative error"


# --------------------------------------------- subtrees and held-out accuracy
def test_every_pruned_tree_is_a_subtree(cancer):
    X_train, _, y_train, _ = cancer
    full = DecisionTreeClassifier(random_state=0).fit(X_train, y_train)
    path = full.cost_complexity_pruning_path(X_train, y_train)
    leaves = []
    for alpha in path.ccp_alphas:
        pruned = full.prune(alpha)
        assert is_subtree(pruned, full)
        leaves.append(pruned.get_n_leaves())
        assert pruned.feature_importances_.sum() in (0.0, pytest.approx(1.0))
    assert leaves == sorted(leaves, reverse=True) and leaves[-1] == 1
    assert full.get_n_leaves() == leaves[0]  # prune() left the original alone
    pessimistic = DecisionTreeClassifier(random_state=0, pruning="pessimistic").fit(X_train, y_train)
    assert is_subtree(pessimistic, full)


def test_cv_chosen_tree_is_at_least_as_accurate_on_breast_cancer(cancer):
    X_train, X_test, y_train, y_test = cancer
    unpruned = DecisionTreeClassifier(random_state=0).fit(X_train, y_train)
    chosen = DecisionTreeClassifier(ccp_alpha="cv", random_state=0).fit(X_train, y_train)
    assert is_subtree(chosen, unpruned)
    assert chosen.score(X_test, y_test) >= unpruned.score(X_test, y_test)
    assert chosen.get_n_leaves() < unpruned.get_n_leaves()


def test_cv_chosen_tree_is_at_least_as_accurate_on_adult():
    frame = load("adult")
    y = frame.pop("income")
    X = pd.get_dummies(frame, dtype=float)  # categorical support is a later issue
    train, test = slice(0, 32561), slice(32561, None)
    unpruned = DecisionTreeClassifier(random_state=0).fit(X[train], y[train])
    chosen = DecisionTreeClassifier(ccp_alpha="cv", random_state=0).fit(X[train], y[train])
    assert chosen.score(X[test], y[test]) >= unpruned.score(X[test], y[test])
    assert chosen.get_n_leaves() < unpruned.get_n_leaves() / 10


# ---------------------------------------------------------------- C4.5
def test_c45_error_estimate_matches_quinlans_book_and_its_rules():
    # Quinlan (1993), ch. 4, CF = 25%: U(0, 6) = 0.206, U(1, 16) = 0.157
    assert (0 + extra_errors(6, 0, 0.25)) / 6 == pytest.approx(0.206, abs=5e-4)
    assert (1 + extra_errors(16, 1, 0.25)) / 16 == pytest.approx(0.157, abs=5e-4)
    # no error: (1 - U)^N = CF exactly
    assert extra_errors(1, 0, 0.25) == pytest.approx(0.75)
    # between 0 and 1 error, linear
    mid = extra_errors(10, 0.5, 0.25)
    assert mid == pytest.approx((extra_errors(10, 0, 0.25) + extra_errors(10, 1, 0.25)) / 2)
    # the high end: 0.67 (N - e)
    assert extra_errors(4, 3.6, 0.25) == pytest.approx(0.67 * 0.4)
    # the deviate is interpolated in C4.5's table: 0.84 at 20%, 0.6925 at 25%
    z2 = 0.6925 ** 2
    e, n = 3.0, 20.0
    upper = (e + 0.5 + z2 / 2 + math.sqrt(z2 * ((e + 0.5) * (1 - (e + 0.5) / n) + z2 / 4))) \
        / (n + z2)
    assert extra_errors(n, e, 0.25) == pytest.approx(n * upper - e)
    assert extra_errors(0, 0, 0.25) == 0.0


def _hand_tree():
    # Quinlan's example: a node of 16 cases (15 A, 1 B) whose subtree has
    # leaves of 6 A, 9 A and 1 B.
    counts = np.array([[15, 1], [6, 0], [9, 1], [9, 0], [0, 1]], dtype=float)
    w = counts.sum(axis=1)
    return Tree(children_left=np.array([1, -1, 3, -1, -1]),
                children_right=np.array([2, -1, 4, -1, -1]),
                feature=np.array([0, -2, 0, -2, -2]),
                threshold=np.array([0.5, -2.0, 1.5, -2.0, -2.0]),
                value=(counts / w[:, None])[:, None, :], impurity=np.zeros(5),
                n_node_samples=w.astype(np.intp), weighted_n_node_samples=w,
                node_depth=np.array([0, 1, 1, 2, 2]), n_features=1, n_classes=2)


def _c45_pruned(tree, raising=False):
    return c45_pruned(tree, None, None, None, cf=0.25, pruning=True, raising=raising,
                      multiway=False, collapse=False, impurity=None)


def test_pessimistic_pruning_on_quinlans_example():
    tree = _hand_tree()
    # by hand: subtree 6 U(0,6) + 9 U(0,9) + 1 U(0,1) = 1.238 + 1.285 + 0.750
    subtree = sum(extra_errors(n, 0, 0.25) for n in (6, 9, 1))
    assert subtree == pytest.approx(3.273, abs=1e-3)  # Quinlan: 3.273
    as_leaf = 1 + extra_errors(16, 1, 0.25)
    assert as_leaf == pytest.approx(2.507, abs=1e-3)  # Quinlan: 16 x 0.157 = 2.512
    # the (9 A, 1 B) node keeps its split: 1 + AddErrs(10, 1) > 9 U(0,9) + U(0,1) + 0.1
    assert 1 + extra_errors(10, 1, 0.25) > extra_errors(9, 0, 0.25) + 0.75 + 0.1
    pruned = _c45_pruned(tree)
    assert pruned.node_count == 1
    np.testing.assert_array_equal(pruned.value[0], tree.value[0])


def test_pessimistic_pruning_shrinks_a_noisy_tree():
    X, y = tie_free_data(31, 600, 4, n_classes=2)
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    pruned = DecisionTreeClassifier(random_state=0, pruning="pessimistic").fit(X, y)
    looser = DecisionTreeClassifier(random_state=0, pruning="pessimistic", cf=0.5).fit(X, y)
    assert is_subtree(pruned, full) and is_subtree(looser, full)
    assert pruned.get_n_leaves() < looser.get_n_leaves() <= full.get_n_leaves()


# ---------------------------------------------------------- reduced error
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_reduced_error_pruning(kind):
    if kind == "classifier":
        X, y = tie_free_data(41, 800, 4, n_classes=2)
        est = DecisionTreeClassifier
    else:
        X, y = tie_free_data(42, 800, 4, regression=True)
        est = DecisionTreeRegressor
    pruned = est(pruning="reduced_error", validation_fraction=0.25, random_state=0).fit(X, y)
    # the same held-out part: the tree grows on the rest, then loses branches
    codes = y if kind == "classifier" else np.zeros(len(y), dtype=int)
    valid = _holdout(codes, 2 if kind == "classifier" else 0, 0.25, _rng(0))
    assert 0.2 < valid.mean() < 0.3
    grown = est(random_state=0).fit(X[~valid], y[~valid])
    assert is_subtree(pruned, grown)
    assert pruned.get_n_leaves() < grown.get_n_leaves() / 2

    def loss(model):
        pred = model.predict(X[valid])
        return np.mean(pred != y[valid]) if kind == "classifier" else \
            np.mean((pred - y[valid]) ** 2)
    assert loss(pruned) <= loss(grown)
    again = est(pruning="reduced_error", validation_fraction=0.25, random_state=0).fit(X, y)
    np.testing.assert_array_equal(pruned.tree_.threshold, again.tree_.threshold)


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, name", [
    ({"ccp_alpha": -0.1}, "ccp_alpha"),
    ({"ccp_alpha": np.inf}, "ccp_alpha"),
    ({"ccp_alpha": np.nan}, "ccp_alpha"),
    ({"ccp_alpha": "auto"}, "ccp_alpha"),
    ({"ccp_alpha": "cv", "cv": 1}, "cv"),
    ({"ccp_alpha": "cv", "cv": 6}, "smallest class count"),
    ({"ccp_alpha": "cv", "cv_rule": "2se"}, "cv_rule"),
    ({"prune_risk": "entropy"}, "prune_risk"),
    ({"pruning": "c4.5"}, "pruning"),
    ({"pruning": "pessimistic", "cf": 0.0}, "cf"),
    ({"pruning": "pessimistic", "cf": 0.6}, "cf"),
    ({"pruning": "reduced_error", "validation_fraction": 1.0}, "validation_fraction"),
    ({"pruning": "reduced_error", "validation_fraction": 0.0}, "validation_fraction"),
    ({"pruning": "pessimistic", "ccp_alpha": 0.1}, "not both"),
])
def test_bad_pruning_parameters_are_named(params, name):
    X = np.arange(40, dtype=float).reshape(20, 2)
    y = np.r_[np.zeros(15), np.ones(5)]
    with pytest.raises(ValueError, match=name):
        DecisionTreeClassifier(**params).fit(X, y)


def test_cv_larger_than_the_data_and_regressor_checks():
    X = np.arange(10, dtype=float).reshape(5, 2)
    with pytest.raises(ValueError, match="larger than the number of samples"):
        DecisionTreeRegressor(ccp_alpha="cv", cv=10).fit(X, np.arange(5.0))
    with pytest.raises(ValueError, match="for classifiers"):
        DecisionTreeRegressor(pruning="pessimistic").fit(X, np.arange(5.0))


def test_prune_needs_a_fitted_tree_and_a_valid_alpha():
    with pytest.raises(NotFittedError):
        DecisionTreeClassifier().prune(0.1)
    clf = DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1])
    for bad in (-1.0, np.nan, "cv"):
        with pytest.raises(ValueError, match="ccp_alpha"):
            clf.prune(bad)
    assert clf.prune(10.0).get_n_leaves() == 1
    assert isinstance(dtree.DecisionTreeClassifier().get_params()["ccp_alpha"], float)


# ------------------------------------------------------ rpart's cp, in its units
def test_rpart_cp_prunes_and_ends_the_table_as_rpart_does():
    """kyphosis with rpart's control (minsplit 20, minbucket 7, cp 0.01): rpart's
    printcp shows CP 0.176471, 0.019608, 0.010000 for 0, 1 and 4 splits, its
    plotcp labels the rows Inf, 0.059 and 0.014, and prune(fit, cp=0.1) keeps
    one split (2 leaves), where ccp_alpha=0.1 (absolute) keeps none."""
    X, y = load_Xy("kyphosis")
    base = dict(min_samples_split=20, min_samples_leaf=7, prune_risk="misclassification",
                random_state=0)
    clf = DecisionTreeClassifier(ccp_alpha="cv", cp=0.01, **base).fit(X, y)
    table = clf.cp_table_
    np.testing.assert_allclose(table.CP, [0.17647059, 0.01960784, 0.01], atol=5e-9)
    assert table.nsplit.tolist() == [0, 1, 4]
    labels = ["Inf" if np.isinf(v) else f"{v:.2g}" for v in table.plot_cp()]
    assert labels == ["Inf", "0.059", "0.014"]
    full = DecisionTreeClassifier(**base).fit(X, y)
    for cp, leaves in [(0.1, 2), (0.02, 2), (0.019, 5), (0.2, 1)]:
        assert full.prune(cp=cp).get_n_leaves() == leaves
        assert DecisionTreeClassifier(cp=cp, **base).fit(X, y).get_n_leaves() == leaves
    assert DecisionTreeClassifier(ccp_alpha=0.1, **base).fit(X, y).get_n_leaves() == 1
    # cp is ccp_alpha over the root's risk: the same tree either way
    root = full.prune(cp=0.05)
    alpha = 0.05 * (17 / 81)        # 17 of 81 misclassified at the root
    assert root.get_n_leaves() == full.prune(alpha).get_n_leaves()
    with pytest.raises(ValueError, match="either ccp_alpha .* or cp"):
        full.prune(0.1, cp=0.1)
    with pytest.raises(ValueError, match="either ccp_alpha"):
        DecisionTreeClassifier(ccp_alpha=0.1, cp=0.1).fit(X, y)
    with pytest.raises(ValueError, match="cp"):
        DecisionTreeClassifier(cp=-1.0).fit(X, y)


def test_car_test_frame_table_ends_at_cp_as_rpart():
    frame = load("car_test_frame")
    reg = DecisionTreeRegressor(min_samples_split=20, min_samples_leaf=7, ccp_alpha="cv",
                                cp=0.01, random_state=0).fit(frame[["Weight"]],
                                                             frame["Mileage"])
    # rpart(Mileage ~ Weight, car.test.frame): CP 0.595349 0.134528 0.012828 0.010000
    np.testing.assert_allclose(reg.cp_table_.CP, [0.59534912, 0.13452819, 0.01282843, 0.01],
                               atol=5e-9)
    assert reg.cp_table_.nsplit.tolist() == [0, 1, 2, 3]


def test_misclassification_path_alphas_are_never_negative():
    # credit_g: a link whose risks round a hair apart used to give alpha -8.7e-19,
    # which prune() then refused
    X, y = load_Xy("credit_g")
    model = DecisionTreeClassifier(prune_risk="misclassification", random_state=0)
    path = model.cost_complexity_pruning_path(X, y)
    assert (path.ccp_alphas >= 0).all()
    fitted = model.fit(X, y)
    for alpha in path.ccp_alphas[:5]:
        assert fitted.prune(alpha).get_n_leaves() >= 1
    table = DecisionTreeClassifier(prune_risk="misclassification", ccp_alpha="cv", cv=3,
                                   random_state=0).fit(X, y).cp_table_
    assert (table.CP >= 0).all() and not np.signbit(table.CP).any()


def test_verbose_reports_each_fold_and_the_growth(capsys):
    X, y = load_Xy("kyphosis")
    DecisionTreeClassifier(ccp_alpha="cv", cv=4, verbose=1, random_state=0).fit(X, y)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" grown")[0] for line in lines if "fold" in line] == [
        f"[dtree] ccp_alpha='cv': fold {k} of 4" for k in range(1, 5)]
    assert any(line.startswith("[dtree] grew a tree of") for line in lines)
    DecisionTreeClassifier(ccp_alpha="cv", cv=4, random_state=0).fit(X, y)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="verbose"):
        DecisionTreeClassifier(verbose=-1).fit(X, y)
