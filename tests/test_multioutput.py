"""Several outputs (a 2-D y): optimal splits, scikit-learn's trees and contract."""
import io
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import (assert_root_split_is_optimal, assert_split_is_optimal, compare_trees,
                     few_valued_features, tie_free_data)
from reference import all_candidates

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree._plan.registry import criterion_code
from dtree._deploy.model_file import ModelFileError
from dtree._splitter import best_split
from dtree.export import export_graphviz, export_rules, export_text

sklearn_tree = pytest.importorskip("sklearn.tree")


@st.composite
def several_outputs(draw, criterion):
    """Few-valued X (ties, missing values), a y of 2-3 outputs, weights."""
    X = few_valued_features(draw, 30, 4)
    n = X.shape[0]
    k = draw(st.integers(2, 3))
    if criterion in ("gini", "entropy"):
        y = np.array(draw(st.lists(st.integers(0, 2), min_size=n * k, max_size=n * k)),
                     dtype=np.int32).reshape(n, k)
    else:   # poisson's targets: non-negative, zeros common (a zero-mean side is refused)
        low = 0 if criterion == "poisson" else -5
        y = np.array(draw(st.lists(st.integers(low, 5), min_size=n * k, max_size=n * k)),
                     dtype=np.float64).reshape(n, k)
        if criterion == "poisson":
            y[0] = 1.0
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n,
                                   max_size=n)))
    return X, y, w, draw(st.integers(1, 3))


CRITERIA_OUT = ["gini", "entropy", "squared_error", "poisson", "absolute_error",
                "quantile:0.3"]


def _estimator(criterion, **params):
    """An estimator for a reference criterion name ("quantile:<tau>" included)."""
    if criterion in ("gini", "entropy"):
        return DecisionTreeClassifier(criterion=criterion, **params)
    if criterion.startswith("quantile:"):
        return DecisionTreeRegressor(criterion="quantile",
                                     quantile=float(criterion.split(":")[1]), **params)
    return DecisionTreeRegressor(criterion=criterion, **params)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), criterion=st.sampled_from(CRITERIA_OUT))
def test_root_split_is_the_least_mean_impurity_over_outputs(data, criterion):
    X, y, w, min_leaf = data.draw(several_outputs(criterion))
    n_classes = 3 if criterion in ("gini", "entropy") else 0
    found = best_split(X, y, w, n_classes=n_classes, criterion=criterion_code(criterion.split(":")[0]),
                       min_samples_leaf=min_leaf,
                       quantile=float(criterion.split(":")[1]) if ":" in criterion else 0.5)
    candidates = all_candidates(X, y, w, criterion, n_classes or None,
                                min_samples_leaf=min_leaf)
    assert_root_split_is_optimal(found, candidates, X)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), criterion=st.sampled_from(CRITERIA_OUT))
def test_every_node_is_split_optimally(data, criterion):
    X, y, w, min_leaf = data.draw(several_outputs(criterion))
    est = _estimator(criterion, min_samples_leaf=min_leaf).fit(X, y, sample_weight=w)
    tree = est.tree_
    paths = est.decision_path(X).tocsc()
    for node in np.flatnonzero(tree.children_left != -1):
        rows = paths[:, node].nonzero()[0]
        candidates = all_candidates(X[rows], y[rows], None if w is None else w[rows],
                                    criterion, 3, min_samples_leaf=min_leaf)
        assert_split_is_optimal(candidates, X[rows], tree.feature[node], tree.threshold[node],
                                tree.missing_go_to_left[node])


def _outputs_data(seed, regression, n=400):
    X, first = tie_free_data(seed, n, 5, n_classes=3, regression=regression)
    rng = np.random.RandomState(seed + 1)
    if regression:
        second = X[:, 2] * 0.3 + rng.normal(size=n)
        third = np.abs(X[:, 3]) + rng.exponential(size=n)
        return X, np.column_stack([first, second, third])
    second = (X[:, 1] + rng.normal(size=n) * 5 > 0).astype(int)
    third = np.digitize(X[:, 3] + rng.normal(size=n) * 5, [-8, -2, 3, 9])
    return X, np.column_stack([first, second, third])


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson",
                                       "absolute_error"])
@pytest.mark.parametrize("params", [{}, {"max_depth": 4}, {"max_leaf_nodes": 12},
                                    {"min_samples_leaf": 5}])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_sklearn_node_by_node(criterion, params, weighted):
    regression = criterion in ("squared_error", "poisson", "absolute_error")
    X, y = _outputs_data(3, regression)
    if criterion == "poisson":
        y = np.abs(y)
    w = np.random.RandomState(7).uniform(0.5, 2.0, X.shape[0]) if weighted else None
    cls_ours = DecisionTreeRegressor if regression else DecisionTreeClassifier
    cls_sk = sklearn_tree.DecisionTreeRegressor if regression \
        else sklearn_tree.DecisionTreeClassifier
    ours = cls_ours(criterion=criterion, **params).fit(X, y, sample_weight=w)
    theirs = cls_sk(criterion=criterion, random_state=0, **params).fit(X, y, sample_weight=w)
    assert ours.tree_.value.shape[1:] == theirs.tree_.value.shape[1:]
    np.testing.assert_array_equal(ours.tree_.n_classes, theirs.tree_.n_classes)
    assert ours.tree_.n_outputs == theirs.tree_.n_outputs == 3
    # every node equal, or where the splits differ a tie (the walk stops below a
    # tie whose sides differ); print the counts for a failing run
    same, stopped = compare_trees(ours, theirs, X, y, sample_weight=w, criterion=criterion,
                                  n_classes=None if regression else 5)
    print(criterion, params, weighted, same, stopped)
    if stopped == 0:
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X))
        if regression:
            assert ours.score(X, y) == pytest.approx(theirs.score(X, y))


def test_tie_free_root_splits_equal_sklearn_exactly():
    X, y = _outputs_data(5, False)
    ours = DecisionTreeClassifier(max_depth=3).fit(X, y)
    theirs = sklearn_tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
    np.testing.assert_allclose(ours.tree_.impurity, theirs.tree_.impurity, rtol=1e-12)


def test_classifier_contract():
    X, y = _outputs_data(1, False, n=200)
    labels = np.column_stack([np.array(["no", "yes", "maybe"])[y[:, 0]], y[:, 1] * 2, y[:, 2]])
    labels = labels.astype(object)
    labels[:, 1:] = labels[:, 1:].astype(int)
    clf = DecisionTreeClassifier(max_depth=5).fit(X, labels)
    assert clf.n_outputs_ == 3
    assert isinstance(clf.classes_, list) and len(clf.classes_) == 3
    np.testing.assert_array_equal(clf.n_classes_, [3, 2, 5])
    assert clf.tree_.value.shape == (clf.tree_.node_count, 3, 5)
    pred = clf.predict(X)
    assert pred.shape == (200, 3)
    proba = clf.predict_proba(X)
    assert [p.shape for p in proba] == [(200, 3), (200, 2), (200, 5)]
    for k, p in enumerate(proba):
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
        np.testing.assert_array_equal(pred[:, k], clf.classes_[k][np.argmax(p, axis=1)])
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(clf.predict_log_proba(X)[2], np.log(proba[2]))
    # score: the fraction of samples with every output right (subset accuracy)
    expected = np.mean(np.all(pred == labels, axis=1))
    assert clf.score(X, labels) == pytest.approx(expected)
    flipped = labels.copy()
    flipped[:10, 1] = np.where(flipped[:10, 1] == 0, 2, 0)
    assert clf.score(X, flipped) < clf.score(X, labels)


def test_multilabel_score_equals_sklearn():
    from sklearn.datasets import make_multilabel_classification

    X, y = make_multilabel_classification(n_samples=300, n_classes=4, random_state=0)
    ours = DecisionTreeClassifier(max_depth=4).fit(X, y)
    theirs = sklearn_tree.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    X_test, y_test = make_multilabel_classification(n_samples=200, n_classes=4,
                                                    random_state=1)
    assert ours.score(X_test, y_test) == pytest.approx(theirs.score(X_test, y_test))


def test_regressor_contract_and_score():
    X, y = _outputs_data(2, True, n=300)
    reg = DecisionTreeRegressor(max_depth=4).fit(X, y)
    theirs = sklearn_tree.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    assert reg.predict(X).shape == (300, 3)
    assert reg.tree_.value.shape == (reg.tree_.node_count, 3, 1)
    np.testing.assert_array_equal(reg.tree_.n_classes, [1, 1, 1])
    # R^2: the mean of the outputs' (scikit-learn's "uniform_average"); on the
    # training rows, where tied splits (issue 20) cannot route differently
    np.testing.assert_allclose(reg.predict(X), theirs.predict(X))
    assert reg.score(X, y) == pytest.approx(theirs.score(X, y), rel=1e-12)
    X2, y2 = _outputs_data(9, True, n=300)
    from sklearn.metrics import r2_score

    assert reg.score(X2, y2) == pytest.approx(r2_score(y2, reg.predict(X2)), rel=1e-12)
    with pytest.raises(ValueError, match="shape"):
        reg.score(X2, y2[:, :2])


def test_a_column_vector_is_one_output_without_warning():
    X, y = _outputs_data(4, True, n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = DecisionTreeRegressor(max_depth=3).fit(X, y[:, :1])
    assert reg.n_outputs_ == 1 and reg.predict(X).shape == (100,)
    one = DecisionTreeRegressor(max_depth=3).fit(X, y[:, 0])
    np.testing.assert_array_equal(reg.predict(X), one.predict(X))


def test_one_output_per_tree_matches_when_outputs_are_copies():
    # every output the same: the mean impurity is that output's, so the same tree
    X, y = _outputs_data(6, False, n=300)
    single = DecisionTreeClassifier(random_state=0, max_depth=5).fit(X, y[:, 0])
    double = DecisionTreeClassifier(random_state=0, max_depth=5).fit(X, np.column_stack([y[:, 0], y[:, 0]]))
    np.testing.assert_array_equal(single.tree_.feature, double.tree_.feature)
    np.testing.assert_array_equal(single.tree_.threshold, double.tree_.threshold)
    np.testing.assert_allclose(single.tree_.impurity, double.tree_.impurity)


def test_class_weight_per_output():
    X, y = _outputs_data(8, False, n=300)
    y = y[:, :2]
    cw = [{0: 2.0, 1: 1.0, 2: 3.0}, {0: 1.0, 1: 4.0}]
    weights = np.array([cw[0][a] * cw[1][b] for a, b in y])
    a = DecisionTreeClassifier(random_state=0, class_weight=cw).fit(X, y)
    b = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_allclose(a.tree_.value, b.tree_.value)
    # "balanced": the product of the outputs' balanced weights, as scikit-learn's
    from sklearn.utils.class_weight import compute_sample_weight

    c = DecisionTreeClassifier(random_state=0, class_weight="balanced").fit(X, y)
    d = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_allclose(c.tree_.weighted_n_node_samples, d.tree_.weighted_n_node_samples)
    np.testing.assert_array_equal(c.tree_.feature, d.tree_.feature)


def test_class_weight_errors_in_sklearn_words():
    X, y = _outputs_data(8, False, n=50)
    with pytest.raises(ValueError, match="number of elements in class_weight should match "
                                         "number of outputs"):
        DecisionTreeClassifier(random_state=0, class_weight=[{0: 1.0}]).fit(X, y)
    with pytest.raises(ValueError, match="should be a list of dicts, or the string"):
        DecisionTreeClassifier(random_state=0, class_weight={0: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="one output: pass a dict"):
        DecisionTreeClassifier(random_state=0, class_weight=[{0: 1.0}, {1: 2.0}]).fit(X, y[:, 0])
    # a list of one dict is that dict for one output
    a = DecisionTreeClassifier(random_state=0, class_weight=[{0: 3.0}]).fit(X, y[:, 0])
    b = DecisionTreeClassifier(random_state=0, class_weight={0: 3.0}).fit(X, y[:, 0])
    np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


@pytest.mark.parametrize("params, words", [
    ({"splitter": "hist"}, "splitter='hist'"),
    ({"algorithm": "c4.5"}, "algorithm='c4.5'"),
    ({"algorithm": "id3"}, "algorithm='id3'"),
    ({"criterion": "gain_ratio"}, "criterion='gain_ratio'"),
    ({"pruning": "pessimistic"}, "pruning='pessimistic'"),
])
def test_refusals_name_the_parameter(params, words):
    X, y = _outputs_data(8, False, n=50)
    with pytest.raises(ValueError, match=f"several outputs .* {words}".replace("(", r"\(")):
        DecisionTreeClassifier(**params).fit(X, y)


def test_refusals_of_categories_and_monotonic_constraints():
    X, y = _outputs_data(8, True, n=50)
    frame = [["a" if v > 0 else "b", v] for v in X[:, 0]]
    with pytest.raises(ValueError, match="categorical features"):
        DecisionTreeRegressor().fit(np.array(frame, dtype=object), y)
    with pytest.raises(ValueError, match="Monotonicity constraints are not supported with "
                                         "multiple outputs"):
        DecisionTreeRegressor(monotonic_cst=[1, 0, 0, 0, 0]).fit(X, y)



@pytest.mark.parametrize("tau", [0.5, 0.2, 0.9])
def test_quantile_leaves_are_each_outputs_weighted_quantile(tau):
    from reference import weighted_quantile

    X, y = _outputs_data(18, True, n=300)
    w = np.random.RandomState(3).choice([0.5, 1.0, 2.0], size=300)
    reg = DecisionTreeRegressor(criterion="quantile", quantile=tau, min_samples_leaf=20)
    reg.fit(X, y, sample_weight=w)
    leaves = reg.apply(X)
    for leaf in np.unique(leaves)[:8]:
        rows = leaves == leaf
        for k in range(3):
            assert reg.tree_.value[leaf, k, 0] == pytest.approx(
                weighted_quantile(y[rows, k], w[rows], tau), rel=1e-12)


def test_cost_complexity_path_equals_sklearn():
    # (min_samples_leaf keeps the small nodes, where splits tie, out of the tree)
    X, y = _outputs_data(10, False, n=300)
    ours = DecisionTreeClassifier(min_samples_leaf=8).cost_complexity_pruning_path(X, y)
    theirs = sklearn_tree.DecisionTreeClassifier(
        min_samples_leaf=8, random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, atol=1e-12)
    np.testing.assert_allclose(ours.impurities, theirs.impurities, atol=1e-12)
    alpha = ours.ccp_alphas[len(ours.ccp_alphas) // 2]
    a = DecisionTreeClassifier(ccp_alpha=alpha, min_samples_leaf=8).fit(X, y)
    b = sklearn_tree.DecisionTreeClassifier(ccp_alpha=alpha, min_samples_leaf=8,
                                            random_state=0).fit(X, y)
    assert a.tree_.node_count == b.tree_.node_count


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_cross_validated_and_reduced_error_pruning(kind):
    X, y = _outputs_data(11, kind == "regressor", n=400)
    cls = DecisionTreeClassifier if kind == "classifier" else DecisionTreeRegressor
    full = cls(random_state=0).fit(X, y)
    cv = cls(ccp_alpha="cv", cv=5, random_state=0).fit(X, y)
    assert 1 <= cv.tree_.node_count < full.tree_.node_count
    table = cv.cp_table_
    assert np.isfinite(table.xerror).all() and table.xerror.min() < 1.0
    held = cls(pruning="reduced_error", random_state=0).fit(X, y)
    assert held.tree_.node_count < full.tree_.node_count
    if kind == "classifier":
        risk = cls(ccp_alpha=0.01, prune_risk="misclassification").fit(X, y)
        assert risk.tree_.node_count < full.tree_.node_count


def test_misclassification_risk_is_the_mean_over_outputs():
    from dtree._fit.pruning import node_risk

    X, y = _outputs_data(12, False, n=200)
    clf = DecisionTreeClassifier(max_depth=2).fit(X, y)
    codes = np.column_stack([np.searchsorted(c, y[:, k]) for k, c in enumerate(clf.classes_)])
    risk = node_risk(clf.tree_, "misclassification")
    wrong = np.mean([np.sum(codes[:, k] != np.bincount(codes[:, k]).argmax())
                     for k in range(3)])
    assert risk[0] == pytest.approx(wrong / 200)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_model_files_round_trip(kind):
    X, y = _outputs_data(13, kind == "regressor", n=200)
    if kind == "classifier":
        y = y.astype(object)
        y[:, 0] = np.array(["a", "b", "c"])[y[:, 0].astype(int)]
        est = DecisionTreeClassifier(max_depth=5, class_weight="balanced").fit(X, y)
    else:
        est = DecisionTreeRegressor(max_depth=5).fit(X, y)
    buf = io.BytesIO()
    est.save(buf)
    buf.seek(0)
    back = dtree.load(buf)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert back.n_outputs_ == 3
    data = est.to_dict()
    assert data["format_version"] == 4 and data["n_outputs"] == 3
    np.testing.assert_array_equal(dtree.from_dict(data).predict(X), est.predict(X))
    if kind == "classifier":
        for a, b in zip(back.predict_proba(X), est.predict_proba(X)):
            np.testing.assert_array_equal(a, b)
        assert [c.tolist() for c in back.classes_] == [c.tolist() for c in est.classes_]


def test_files_are_written_in_the_oldest_version_that_holds_them():
    X, y = _outputs_data(13, True, n=100)
    one = DecisionTreeRegressor().fit(X, y[:, 0])
    assert one.to_dict()["format_version"] == 4      # the splits' training ranges
    one.tree_.feature_range = None                   # as a model read from a version 2 file
    assert one.to_dict()["format_version"] == 2
    several = DecisionTreeRegressor().fit(X, y)
    several.tree_.feature_range = None
    assert several.to_dict()["format_version"] == 3


def _hostile(data, change):
    data = {**data, "tree": dict(data["tree"])}
    change(data)
    return data


def test_hostile_multi_output_files_are_refused():
    X, y = _outputs_data(14, False, n=100)
    good = DecisionTreeClassifier(max_depth=3).fit(X, y).to_dict()
    value = np.asarray(good["tree"]["value"])

    def beyond_classes(d):
        v = value.copy()
        v[:, 1, 2] = 0.5      # output 1 has two classes: a third fraction is invalid
        v[:, 1, 0] = 0.5 - v[:, 1, 1]
        d["tree"]["value"] = v.tolist()

    def fewer_outputs(d):
        d["tree"]["value"] = value[:, :2].tolist()

    cases = {
        "classes per output": lambda d: d.update(classes=d["classes"][:2]),
        "n_outputs": lambda d: d.update(n_outputs=2),
        "version": lambda d: d.update(format_version=2),
        "beyond": beyond_classes,
        "value outputs": fewer_outputs,
        "not positive": lambda d: d.update(n_outputs=0),
    }
    for name, change in cases.items():
        with pytest.raises(ModelFileError):
            dtree.from_dict(_hostile(good, change))


def test_exports_show_every_output():
    X, y = _outputs_data(15, False, n=200)
    clf = DecisionTreeClassifier(max_depth=2).fit(X, y)
    text = export_text(clf, show_weights=True)
    assert "class: [" in text and "weights: [[" in text
    rules = export_rules(clf).splitlines()
    assert all(line.count("class = ") == 3 for line in rules)
    dot = export_graphviz(clf)
    assert "value = [[" in dot
    names = [["x", "y", "z"], ["n", "p"], list("abcde")]
    assert "class: [" in export_text(clf, class_names=names)
    with pytest.raises(ValueError, match="outputs"):
        export_text(clf, class_names=names[:2])
    reg = DecisionTreeRegressor(max_depth=2).fit(X, y.astype(float))
    leaf = [line for line in export_text(reg).splitlines() if "value:" in line][0]
    assert leaf.count(",") == 2
    from dtree.export import plot_decision_boundary

    with pytest.raises(ValueError, match="one output"):
        plot_decision_boundary(clf, X[:, :2])


def test_onnx_several_outputs():
    ort = pytest.importorskip("onnxruntime")
    from dtree.export import to_onnx

    X, y = _outputs_data(16, False, n=300)
    X[::7, 1] = np.nan
    clf = DecisionTreeClassifier(max_depth=6).fit(X, y)
    session = ort.InferenceSession(to_onnx(clf).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    label, *probas = session.run(None, {"X": X.astype(np.float32)})
    np.testing.assert_array_equal(label, clf.predict(X))
    for a, b in zip(probas, clf.predict_proba(X)):
        np.testing.assert_allclose(a, b, atol=1e-7)
    reg = DecisionTreeRegressor(max_depth=6).fit(X, y.astype(float) * 1.5)
    session = ort.InferenceSession(to_onnx(reg).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    out = session.run(None, {"X": X.astype(np.float32)})[0]
    np.testing.assert_allclose(out, reg.predict(X), rtol=1e-6)
    mixed = y.astype(object)
    mixed[:, 0] = np.array(["a", "b", "c"])[y[:, 0]]
    buf = io.BytesIO()
    DecisionTreeClassifier(max_depth=2).fit(X, mixed).save(buf)
    buf.seek(0)
    loaded = dtree.load(buf)    # its classes: text for output 0, int64 for the others
    with pytest.raises(ValueError, match="all be numbers or all be text"):
        to_onnx(loaded)


def test_threads_give_the_same_tree():
    # large enough for the parallel search (PARALLEL_WORK pairs of sample and feature)
    rng = np.random.RandomState(17)
    X = rng.normal(size=(20000, 5))
    y = np.column_stack([X[:, 0] + rng.normal(size=20000), np.round(X[:, 1] * 2)])
    a = DecisionTreeRegressor(random_state=0, n_jobs=1).fit(X, y)
    b = DecisionTreeRegressor(random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
