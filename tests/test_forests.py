"""The forests: scikit-learn's RandomForest and ExtraTrees, tree for tree.

For the same ``random_state`` every tree of a dtree forest is scikit-learn's
(seeds, bootstraps, feature draws and, for ExtraTrees, threshold draws all
in scikit-learn's order), so predictions, out-of-bag estimates and
importances agree; plus the API around them and dtree's own additions
(text columns, missing values, sparse X, threads).
"""
import pickle

import numpy as np
import pytest
import sklearn.datasets as skd
import sklearn.ensemble as ske

import dtree
from dtree import datasets
from model_files import arrays, file_bytes

FORESTS = ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor"]


def _data(name):
    if name == "california":
        X, y = datasets.load_Xy("california_housing")
        X = X.select_dtypes("number")   # (ocean_proximity is text: scikit-learn's cannot)
        rows = np.random.RandomState(0).choice(X.shape[0], 2000, replace=False)
        return X.to_numpy(np.float64)[rows], np.asarray(y, dtype=np.float64)[rows]
    loader = {"iris": skd.load_iris, "breast_cancer": skd.load_breast_cancer,
              "digits": skd.load_digits, "wine": skd.load_wine,
              "diabetes": skd.load_diabetes}[name]
    return loader(return_X_y=True)


def assert_same_trees(ours, theirs):
    assert len(ours.estimators_) == len(theirs.estimators_)
    for i, (a, b) in enumerate(zip(ours.estimators_, theirs.estimators_)):
        ta, tb = a.tree_, b.tree_
        assert a.random_state == b.random_state, i
        assert ta.node_count == tb.node_count, f"tree {i}"
        np.testing.assert_array_equal(ta.children_left, tb.children_left)
        np.testing.assert_array_equal(ta.children_right, tb.children_right)
        np.testing.assert_array_equal(ta.feature, tb.feature)
        split = tb.children_left >= 0
        # (dtree stores a random cut as the float32 at or below scikit-learn's
        # float64 threshold: the same routing of every float32 value)
        np.testing.assert_allclose(ta.threshold[split], tb.threshold[split], rtol=1e-6)
        np.testing.assert_array_equal(ta.n_node_samples, tb.n_node_samples)
        np.testing.assert_allclose(ta.weighted_n_node_samples, tb.weighted_n_node_samples)
        np.testing.assert_allclose(ta.value, tb.value, rtol=1e-9, atol=1e-12)


def _is_pure(tree, node):
    return bool(np.all(np.count_nonzero(tree.value[node], axis=-1) == 1))


def assert_same_trees_but_pure_splits(ours, theirs):
    """The trees equal scikit-learn's, in pre-order (the order both grow in), up to
    the first pure node scikit-learn splits: with fractional weights it derives a
    child's class weights by subtraction, and the rounding left can make a pure
    node's impurity exceed DBL_EPSILON; dtree's pure node is a leaf (README: "A
    pure node is a leaf"), or to a tie of features cutting the same rows, which the
    rounding of fractional sums decides. From there the draws of the two generators
    part."""
    for i, (a, b) in enumerate(zip(ours.estimators_, theirs.estimators_)):
        ta, tb = a.tree_, b.tree_
        stack = [(0, 0)]
        while stack:
            p, q = stack.pop()
            leaf_a, leaf_b = ta.children_left[p] < 0, tb.children_left[q] < 0
            assert ta.n_node_samples[p] == tb.n_node_samples[q], f"tree {i}"
            if leaf_a and not leaf_b and _is_pure(tb, q):
                break    # scikit-learn's rounding split a pure node: draws part here
            assert leaf_a == leaf_b, f"tree {i} node {p}"
            if leaf_a:
                continue
            sides_a = sorted(ta.n_node_samples[[ta.children_left[p], ta.children_right[p]]])
            sides_b = sorted(tb.n_node_samples[[tb.children_left[q], tb.children_right[q]]])
            if ta.feature[p] != tb.feature[q] and sides_a == sides_b:
                break    # a tie of two features cutting the same rows, which the
                #          rounding of fractional sums decides (README)
            assert ta.feature[p] == tb.feature[q], f"tree {i} node {p}"
            assert ta.threshold[p] == pytest.approx(tb.threshold[q], rel=1e-6)
            stack += [(ta.children_right[p], tb.children_right[q]),
                      (ta.children_left[p], tb.children_left[q])]


CLASSIFIER_SETTINGS = [
    dict(n_estimators=8),
    dict(n_estimators=6, max_depth=4, criterion="entropy", oob_score=True, bootstrap=True),
    dict(n_estimators=5, max_samples=0.5, bootstrap=True, min_samples_leaf=0.01,
         max_features=3),
    # (integer class weights keep the sums exact; fractional ones: see below)
    dict(n_estimators=5, class_weight={0: 2, 1: 3}, bootstrap=True, min_samples_split=5),
    dict(n_estimators=5, max_leaf_nodes=12, bootstrap=True),
]
REGRESSOR_SETTINGS = [
    dict(n_estimators=6),
    dict(n_estimators=5, max_depth=5, oob_score=True, bootstrap=True, max_features=0.5),
    dict(n_estimators=4, max_samples=300, bootstrap=True, min_samples_leaf=3,
         criterion="poisson"),
    dict(n_estimators=4, max_leaf_nodes=20, min_weight_fraction_leaf=0.01, bootstrap=True),
]


@pytest.mark.parametrize("kind", ["RandomForest", "ExtraTrees"])
@pytest.mark.parametrize("dataset", ["iris", "breast_cancer", "digits", "wine"])
@pytest.mark.parametrize("setting", range(len(CLASSIFIER_SETTINGS)))
def test_classifier_forest_is_scikit_learns(kind, dataset, setting):
    X, y = _data(dataset)
    params = dict(CLASSIFIER_SETTINGS[setting], random_state=setting + 7)
    ours = getattr(dtree, kind + "Classifier")(**params).fit(X, y)
    theirs = getattr(ske, kind + "Classifier")(**params).fit(X, y)
    assert_same_trees(ours, theirs)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                               atol=1e-12)
    np.testing.assert_array_equal(ours.apply(X), theirs.apply(X))
    if params.get("oob_score"):
        assert ours.oob_score_ == pytest.approx(theirs.oob_score_)
        np.testing.assert_allclose(ours.oob_decision_function_,
                                   theirs.oob_decision_function_, atol=1e-12)


@pytest.mark.parametrize("kind", ["RandomForest", "ExtraTrees"])
@pytest.mark.parametrize("class_weight", ["balanced", "balanced_subsample"])
def test_fractional_class_weights_are_scikit_learns(kind, class_weight):
    """Each tree's weights are scikit-learn's to the bit (its root's class weights);
    the trees are too, up to the pure nodes scikit-learn splits on rounding, after
    which its draws and dtree's part (README: "A pure node is a leaf")."""
    X, y = _data("wine")
    y = np.where(np.arange(y.shape[0]) % 7 == 0, 0, y)   # unbalanced classes
    params = dict(n_estimators=6, random_state=5, class_weight=class_weight,
                  bootstrap=True, max_depth=3)
    ours = getattr(dtree, kind + "Classifier")(**params).fit(X, y)
    theirs = getattr(ske, kind + "Classifier")(**params).fit(X, y)
    for a, b in zip(ours.estimators_, theirs.estimators_):
        assert a.tree_.weighted_n_node_samples[0] == b.tree_.weighted_n_node_samples[0]
        np.testing.assert_allclose(a.tree_.value[0], b.tree_.value[0], rtol=1e-12)
    assert_same_trees_but_pure_splits(ours, theirs)
    agree = np.mean(ours.predict(X) == theirs.predict(X))
    assert agree > 0.95


@pytest.mark.parametrize("kind", ["RandomForest", "ExtraTrees"])
@pytest.mark.parametrize("dataset", ["diabetes", "california"])
@pytest.mark.parametrize("setting", range(len(REGRESSOR_SETTINGS)))
def test_regressor_forest_is_scikit_learns(kind, dataset, setting):
    X, y = _data(dataset)
    params = dict(REGRESSOR_SETTINGS[setting], random_state=setting + 3)
    ours = getattr(dtree, kind + "Regressor")(**params).fit(X, y)
    theirs = getattr(ske, kind + "Regressor")(**params).fit(X, y)
    assert_same_trees(ours, theirs)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-9)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                               rtol=1e-7, atol=1e-12)
    if params.get("oob_score"):
        assert ours.oob_score_ == pytest.approx(theirs.oob_score_, rel=1e-9)
        np.testing.assert_allclose(ours.oob_prediction_, theirs.oob_prediction_, rtol=1e-9)


@pytest.mark.parametrize("kind", ["RandomForestClassifier", "ExtraTreesClassifier"])
def test_sample_weights_draw_the_bootstrap_as_scikit_learn(kind):
    X, y = _data("breast_cancer")
    w = np.random.RandomState(1).randint(0, 4, size=y.shape[0]).astype(float)
    params = dict(n_estimators=5, random_state=11, bootstrap=True, max_depth=6)
    ours = getattr(dtree, kind)(**params).fit(X, y, sample_weight=w)
    theirs = getattr(ske, kind)(**params).fit(X, y, sample_weight=w)
    assert_same_trees(ours, theirs)
    for a, b in zip(ours.estimators_samples_, theirs.estimators_samples_):
        np.testing.assert_array_equal(a, b)


def test_weights_without_bootstrap_weight_every_tree():
    X, y = _data("wine")
    w = np.random.RandomState(2).randint(1, 5, size=y.shape[0]).astype(float)
    params = dict(n_estimators=4, random_state=5, class_weight={0: 2.0, 2: 0.5})
    ours = dtree.ExtraTreesClassifier(**params).fit(X, y, sample_weight=w)
    theirs = ske.ExtraTreesClassifier(**params).fit(X, y, sample_weight=w)
    assert_same_trees(ours, theirs)


def test_missing_values_give_scikit_learns_forest():
    X, y = _data("breast_cancer")
    X = X.copy()
    X[np.random.RandomState(0).random_sample(X.shape) < 0.1] = np.nan
    params = dict(n_estimators=5, random_state=0, max_depth=6)
    for kind in ("RandomForestClassifier", "ExtraTreesClassifier"):
        ours = getattr(dtree, kind)(**params).fit(X, y)
        theirs = getattr(ske, kind)(**params).fit(X, y)
        assert_same_trees(ours, theirs)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X),
                                   atol=1e-12)


def test_several_outputs_give_scikit_learns_forest():
    X, y = _data("diabetes")
    Y = np.c_[y, np.sqrt(y)]
    params = dict(n_estimators=4, random_state=2, max_depth=5, oob_score=True)
    ours = dtree.RandomForestRegressor(**params).fit(X, Y)
    theirs = ske.RandomForestRegressor(**params).fit(X, Y)
    assert_same_trees(ours, theirs)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-9)
    assert ours.oob_score_ == pytest.approx(theirs.oob_score_, rel=1e-9)
    Xc, yc = _data("iris")
    Yc = np.c_[yc, yc % 2]
    ours = dtree.RandomForestClassifier(n_estimators=4, random_state=2).fit(Xc, Yc)
    theirs = ske.RandomForestClassifier(n_estimators=4, random_state=2).fit(Xc, Yc)
    assert_same_trees(ours, theirs)
    np.testing.assert_array_equal(ours.predict(Xc), theirs.predict(Xc))
    for p, q in zip(ours.predict_proba(Xc), theirs.predict_proba(Xc)):
        np.testing.assert_allclose(p, q, atol=1e-12)


def test_warm_start_adds_the_trees_a_single_fit_grows():
    X, y = _data("wine")
    grown = dtree.RandomForestClassifier(n_estimators=3, warm_start=True, random_state=4)
    grown.fit(X, y)
    first = grown.estimators_[:]
    grown.set_params(n_estimators=7).fit(X, y)
    assert grown.estimators_[:3] == first
    whole = dtree.RandomForestClassifier(n_estimators=7, random_state=4).fit(X, y)
    assert_same_trees(grown, whole)
    with pytest.warns(UserWarning, match="does not fit new trees"):
        grown.fit(X, y)
    with pytest.raises(ValueError, match="must be larger or equal to len"):
        grown.set_params(n_estimators=2).fit(X, y)


@pytest.mark.parametrize("n_jobs", [1, 2, -1])
def test_threads_do_not_change_the_forest(n_jobs):
    X, y = _data("digits")
    ours = dtree.RandomForestClassifier(n_estimators=6, random_state=3, n_jobs=n_jobs)
    theirs = ske.RandomForestClassifier(n_estimators=6, random_state=3)
    assert_same_trees(ours.fit(X, y), theirs.fit(X, y))


@pytest.mark.parametrize("tree_seconds, pooled", [(float("inf"), False), (0.0, True)])
def test_the_default_threads_trees_only_when_one_tree_pays_for_them(monkeypatch,
                                                                     tree_seconds, pooled):
    # with the default n_jobs the second tree is timed on one thread: quicker than
    # TREE_SECONDS, the rest grow one after another (no pool); the same forest either
    # way, and an explicit n_jobs always threads its trees
    from dtree._forest import base

    pools = []

    class Pool(base.concurrent.futures.ThreadPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(base, "TREE_SECONDS", tree_seconds)
    monkeypatch.setattr(base, "n_threads", lambda n_jobs: 2)
    monkeypatch.setattr(base.concurrent.futures, "ThreadPoolExecutor", Pool)
    X, y = _data("iris")
    forest = dtree.RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert bool(pools) == pooled
    one = dtree.RandomForestClassifier(n_estimators=5, random_state=0, n_jobs=1).fit(X, y)
    assert_same_trees(forest, one)
    pools.clear()
    dtree.RandomForestClassifier(n_estimators=5, random_state=0, n_jobs=2).fit(X, y)
    assert pools


def test_trees_are_fitted_on_class_codes_as_scikit_learns():
    X, y = _data("iris")
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    forest = dtree.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(forest.classes_, ["setosa", "versicolor", "virginica"])
    assert forest.n_classes_ == 3
    np.testing.assert_array_equal(forest.estimators_[0].classes_, [0.0, 1.0, 2.0])
    assert isinstance(forest.estimator_, dtree.DecisionTreeClassifier)
    assert len(forest) == 3 and forest[1] is forest.estimators_[1]


def test_text_columns_and_frames():
    pd = pytest.importorskip("pandas")
    frame = datasets.load("adult").head(3000)
    y = frame.pop("income")
    forest = dtree.RandomForestClassifier(n_estimators=5, random_state=0, max_depth=8)
    forest.fit(frame, y)
    assert forest.categorical_features_.sum() >= 5
    assert list(forest.feature_names_in_) == list(frame.columns)
    accuracy = forest.score(frame, y)
    assert accuracy > 0.8
    # each tree reads the same frames
    assert set(forest.estimators_[0].predict(frame)) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="feature names"):
        forest.predict(frame[frame.columns[::-1]])


def test_sparse_X_gives_the_dense_forest():
    sparse = pytest.importorskip("scipy.sparse")
    X, y = _data("digits")
    dense = dtree.ExtraTreesClassifier(n_estimators=4, random_state=1).fit(X, y)
    csc = dtree.ExtraTreesClassifier(n_estimators=4, random_state=1).fit(
        sparse.csc_matrix(X), y)
    assert_same_trees(csc, dense)
    np.testing.assert_allclose(csc.predict_proba(sparse.csr_matrix(X)), dense.predict_proba(X))


def test_hist_forests_bin_once_for_every_tree():
    """splitter="hist": X is binned once for the forest, so every tree's cuts fall
    between the bins of all the rows (a tree binning its own bootstrap would cut
    inside them)."""
    from dtree._fit.binning import fit_bins
    from dtree._hist_splitter import bin_codes
    rng = np.random.RandomState(0)
    X = rng.rand(3000, 3).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + 0.3 * rng.rand(3000) > 1.15).astype(int)
    forest = dtree.RandomForestClassifier(n_estimators=8, splitter="hist", max_bins=6,
                                          random_state=0).fit(X, y)
    codes = bin_codes(X, fit_bins(X, 6))[0]
    n_cuts = 0
    for tree in forest.estimators_:
        t = tree.tree_
        for node in np.flatnonzero(t.children_left >= 0):
            f, cut = t.feature[node], t.threshold[node]
            assert not set(codes[X[:, f] <= cut, f]) & set(codes[X[:, f] > cut, f])
            n_cuts += 1
    assert n_cuts > 8 * 4
    assert forest.score(X, y) > 0.85


def _sql_rows(query, X, engine):
    """The query's rows over a table t(id, feature_0, ...) holding X (NaN as NULL),
    in id order."""
    names = [f"feature_{j}" for j in range(X.shape[1])]
    rows = [(i, *[None if np.isnan(v) else float(v) for v in row]) for i, row in enumerate(X)]
    if engine == "sqlite":
        import sqlite3
        con = sqlite3.connect(":memory:")
        con.execute(f"CREATE TABLE t (id INTEGER, {', '.join(n + ' REAL' for n in names)})")
    else:
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.execute(f"CREATE TABLE t (id INTEGER, {', '.join(n + ' DOUBLE' for n in names)})")
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (len(names) + 1))})", rows)
    return con.execute(query + " ORDER BY id").fetchall()


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_sql_of_a_forest_is_its_predict(engine):
    """export_sql of a forest: each tree's leaf, then the mean of the leaves' values
    in tree order, so the query returns predict_proba and predict exactly (ties
    between classes to the first, as np.argmax)."""
    from dtree.export import export_sql
    rng = np.random.RandomState(3)
    X = rng.rand(300, 3)
    X[rng.rand(300) < 0.1, 1] = np.nan
    y = np.where(X[:, 0] + 0.4 * rng.rand(300) > 0.7, "b",
                 np.where(np.nan_to_num(X[:, 1]) > 0.5, "a", "c"))
    clf = dtree.ExtraTreesClassifier(n_estimators=2, max_depth=6, random_state=0).fit(X, y)
    rows = _sql_rows(export_sql(clf, keep_columns=["id"], dialect=engine), X, engine)
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(np.array([r[2:] for r in rows], dtype=float), proba)
    np.testing.assert_array_equal(np.array([r[1] for r in rows]), clf.predict(X))
    assert (np.sort(proba, axis=1)[:, -1] == np.sort(proba, axis=1)[:, -2]).any()  # ties met
    reg = dtree.RandomForestRegressor(n_estimators=3, max_depth=7, random_state=0).fit(
        X, X[:, 0] * 1e3 + rng.rand(300))
    rows = _sql_rows(export_sql(reg, keep_columns=["id"], dialect=engine), X, engine)
    np.testing.assert_array_equal(np.array([r[1] for r in rows]), reg.predict(X))
    with pytest.raises(dtree.NotFittedError, match="not fitted"):
        export_sql(dtree.RandomForestRegressor())


def test_pickle_keeps_predictions():
    X, y = _data("diabetes")
    forest = dtree.RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(again.predict(X), forest.predict(X))
    tree = again.estimators_[0].tree_
    # node columns travel compact (``_model.compact``) and come back as
    # scikit-learn's 8-byte ints
    for name in ("children_left", "feature", "n_node_samples", "node_depth"):
        assert getattr(tree, name).dtype == np.intp, name
    np.testing.assert_array_equal(tree.children_left, forest.estimators_[0].tree_.children_left)
    # (only what the trees' shapes do not say, compressed: a third of scikit-learn's
    # pickle at most, a regressor's leaf means and impurities being incompressible)
    theirs = ske.RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    assert len(pickle.dumps(forest)) <= 0.33 * len(pickle.dumps(theirs))


@pytest.mark.parametrize("weighted", [False, True])
def test_pickled_trees_come_back_exactly(weighted):
    """Every node column survives the narrow pickle bit for bit and in its own dtype:
    whole bootstrap counts, fractional weighted counts (no narrowing), a split's
    float32 range, NaN ranges at leaves."""
    X, y = _data("breast_cancer")
    weights = np.random.RandomState(0).rand(len(y)) if weighted else None
    # (with bootstrap=True the weights would be the draws' probabilities, the
    # trees' weights whole counts again)
    forest = dtree.RandomForestClassifier(n_estimators=3, random_state=0,
                                          bootstrap=not weighted).fit(
        X, y, sample_weight=weights)
    if weighted:
        w = forest.estimators_[0].tree_.scaled_weighted_n_node_samples
        assert not np.array_equal(w.astype(np.float32), w)     # (float32 would round)
    for ours, again in zip(forest.estimators_, pickle.loads(pickle.dumps(forest)).estimators_):
        a, b = vars(ours.tree_), vars(again.tree_)
        for name, column in a.items():
            if isinstance(column, np.ndarray) and not name.startswith("_"):
                assert b[name].dtype == column.dtype, name
                np.testing.assert_array_equal(b[name], column, err_msg=name)
        assert np.isnan(b["feature_range"]).any()


def test_oob_callable_and_warnings():
    X, y = _data("iris")
    seen = {}

    def scorer(y_true, y_pred):
        seen["shape"] = y_true.shape
        return 0.25

    forest = dtree.RandomForestClassifier(n_estimators=4, oob_score=scorer, random_state=0)
    with pytest.warns(UserWarning, match="do not have OOB scores"):
        forest.fit(X, y)
    assert forest.oob_score_ == 0.25 and seen["shape"] == (150, 1)


@pytest.mark.parametrize("params, message", [
    (dict(bootstrap=False, max_samples=10), "`max_sample` cannot be set"),
    (dict(bootstrap=False, oob_score=True), "Out of bag estimation only available"),
    (dict(n_estimators=0), "'n_estimators' parameter"),
    (dict(ccp_alpha="cv"), "'ccp_alpha' parameter"),
    (dict(max_samples=0.0), "'max_samples' parameter"),
    (dict(class_weight="balanced_sub"), "'class_weight' parameter"),
    (dict(random_state=np.random.default_rng(0)), "'random_state' parameter"),
    (dict(criterion="squared_error"), "'criterion' parameter"),
    # sizes no machine holds, refused before anything is drawn
    (dict(n_estimators=2**64), "n_estimators=18446744073709551616 trees need"),
    (dict(max_samples=2**40), "draws more than 2147483647 rows"),
    (dict(max_samples=1e300), "draws more than 2147483647 rows"),
])
def test_bad_parameters_are_refused(params, message):
    X, y = _data("iris")
    with pytest.raises(ValueError, match=message):
        dtree.RandomForestClassifier(**params).fit(X, y)


def test_unfitted_and_bad_targets():
    forest = dtree.ExtraTreesRegressor()
    with pytest.raises(dtree.NotFittedError):
        forest.predict([[0.0]])
    with pytest.raises(dtree.NotFittedError):
        forest.feature_importances_
    with pytest.raises(ValueError, match="strictly positive"):
        dtree.RandomForestRegressor(criterion="poisson").fit(np.zeros((3, 2)), [0, 0, 0])
    Y = np.c_[np.arange(6) % 3, np.arange(6) % 2]
    with pytest.raises(ValueError, match="multiclass-multioutput"):
        dtree.RandomForestClassifier(oob_score=True).fit(np.arange(12.).reshape(6, 2), Y)


@pytest.mark.parametrize("name", FORESTS)
def test_parameters_and_defaults_are_scikit_learns(name):
    ours, theirs = getattr(dtree, name)(), getattr(ske, name)()
    mine = ours.get_params()
    for key, value in theirs.get_params().items():
        assert key in mine, key
        assert mine[key] == value, key


def test_decision_path_and_samples():
    X, y = _data("iris")
    ours = dtree.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    theirs = ske.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    a, ptr_a = ours.decision_path(X)
    b, ptr_b = theirs.decision_path(X)
    np.testing.assert_array_equal(ptr_a, ptr_b)
    assert (a != b).nnz == 0
    for p, q in zip(ours.estimators_samples_, theirs.estimators_samples_):
        np.testing.assert_array_equal(p, q)


# ------------------------------------------------------------------ model files
_forest_file, _members = file_bytes, arrays


def _header_change(change):
    """An edit of a forest file's members applying ``change`` to its JSON header."""
    def apply(m):
        import json
        h = json.loads(m["header"].tobytes())
        change(h)
        m["header"] = np.frombuffer(json.dumps(h).encode(), dtype=np.uint8)
    return apply


def _rezip(members):
    import io
    buf = io.BytesIO()
    np.savez(buf, **members)
    return buf.getvalue()


@pytest.mark.parametrize("name", FORESTS)
def test_model_files_and_dicts_keep_the_forest(name):
    import io
    import json
    X, y = _data("iris" if name.endswith("Classifier") else "diabetes")
    if name.endswith("Classifier"):
        y = np.array(["setosa", "versicolor", "virginica"])[y]
    forest = getattr(dtree, name)(n_estimators=4, random_state=0, max_depth=5).fit(X, y)
    loaded = dtree.load(io.BytesIO(_forest_file(forest)))
    again = dtree.from_dict(json.loads(json.dumps(forest.to_dict())))
    for other in (loaded, again):
        assert type(other) is type(forest) and len(other) == 4
        np.testing.assert_array_equal(other.predict(X), forest.predict(X))
        np.testing.assert_array_equal(other.apply(X), forest.apply(X))
        np.testing.assert_allclose(other.feature_importances_, forest.feature_importances_)
        assert other.get_params() == forest.get_params()
        for a, b in zip(other.estimators_samples_, forest.estimators_samples_):
            np.testing.assert_array_equal(a, b)


def test_hostile_forest_files_are_refused():
    import io
    X, y = _data("iris")
    # (best-first trees are no pre-order: their files keep every column whole;
    # the compact members' own refusals: test_hostile_compact_members_are_refused)
    forest = dtree.RandomForestClassifier(n_estimators=3, max_leaf_nodes=12,
                                          random_state=0).fit(X, y)
    members = _members(_forest_file(forest))
    assert "is_leaf" not in members
    n = members["children_left"].shape[0]

    def refused(change, message):
        m = {k: v.copy() for k, v in members.items()}
        change(m)
        with pytest.raises(dtree.ModelFileError, match=message):
            dtree.load(io.BytesIO(_rezip(m)))

    def offsets(values):
        return lambda m: m.__setitem__("tree_nodes", np.array(values, dtype=np.int64))
    refused(offsets([0, 5, 3, n]), "rise from 0")             # not increasing
    refused(offsets([0, 5, n]), "n_trees \\+ 1")               # one tree short
    refused(offsets([1, 5, 9, n]), "rise from 0")
    refused(offsets([0, 5, 9, n + 1]), "rise from 0")          # past the arrays
    refused(lambda m: m.__setitem__("tree_sets", np.zeros(4, dtype=np.int32)), "int64")
    # a tree's own checks still run, naming the tree
    first = int(members["tree_nodes"][1])

    def bad_child(m):
        m["children_left"] = m["children_left"].astype(np.int64)
        m["children_left"][first] = 10 ** 6
    refused(bad_child, "tree 1")
    # narrow columns are read back only from their narrow forms, then checked as ever
    assert members["children_left"].dtype.itemsize < 8        # (kept narrow)
    refused(lambda m: m.__setitem__("children_left", m["children_left"].astype(np.uint16)),
            "dtype")
    refused(lambda m: m.__setitem__("threshold", m["threshold"].astype(np.float32)), "dtype")
    refused(lambda m: m.__setitem__("n_node_samples",
                                    m["n_node_samples"].astype(np.float32)), "dtype")

    def bad_feature(m):
        m["feature"] = m["feature"].astype(np.int8)
        m["feature"][0] = 100
    refused(bad_feature, "tree 0")

    header = _header_change
    refused(header(lambda h: h.__setitem__("tree_estimator", "ExtraTreeClassifier")),
            "trees are DecisionTreeClassifiers")
    refused(header(lambda h: h.__setitem__("format_version", 4)), "must be 5")
    refused(header(lambda h: h.__setitem__("tree_classes", {"kind": "int", "values": [0, 1, 5]})),
            "class codes|classes")
    refused(header(lambda h: h.__setitem__("n_samples", -3)), "positive integers")
    refused(header(lambda h: h.__setitem__("n_samples", 2 ** 40)), "at most 2147483647")
    refused(header(lambda h: h.__setitem__("n_samples_bootstrap", 2 ** 31)),
            "at most 2147483647")
    refused(header(lambda h: h["trees"][0]["params"].__setitem__("max_depth", -1)),
            "tree 0")
    # a tree's file does not take a forest's members
    tree_file = io.BytesIO()
    forest.estimators_[0].save(tree_file)
    tree_members = _members(tree_file.getvalue())
    tree_members["tree_nodes"] = members["tree_nodes"]
    with pytest.raises(dtree.ModelFileError, match="forest's members"):
        dtree.load(io.BytesIO(_rezip(tree_members)))


def test_hostile_compact_members_are_refused():
    """A forest file's compact members (``_deploy/compact_members.py``) are checked
    before the columns are put back, and the columns put back pass every tree check."""
    import io
    X, y = _data("iris")
    forest = dtree.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    members = _members(_forest_file(forest))
    assert {"is_leaf", "class_counts_at_leaves", "feature_at_splits"} <= set(members)
    assert "children_left" not in members and "impurity" not in members

    def refused(change, message):
        m = {k: v.copy() for k, v in members.items()}
        change(m)
        with pytest.raises(dtree.ModelFileError, match=message):
            dtree.load(io.BytesIO(_rezip(m)))

    def edit(name, change, dtype=None):
        def apply(m):
            m[name] = m[name].astype(dtype or m[name].dtype)
            change(m[name])
        return apply

    header = _header_change
    refused(edit("is_leaf", lambda a: a.__setitem__(-1, 0)), "is no tree in pre-order")
    refused(edit("is_leaf", lambda a: a.__setitem__(0, 1)), "is no tree in pre-order")
    refused(edit("is_leaf", lambda a: a.__setitem__(3, 2)), "0 and 1")
    refused(lambda m: m.__setitem__("is_leaf", m["is_leaf"][:-1]), "tree_nodes")
    refused(lambda m: m.__setitem__("feature_at_splits", m["feature_at_splits"][:-1]),
            "feature_at_splits.*rows")
    refused(lambda m: m.__setitem__("children_left", np.zeros(3, dtype=np.int64)),
            "holds no 'children_left'")
    refused(lambda m: m.__setitem__("feature", np.zeros(len(m["is_leaf"]), dtype=np.int64)),
            "whole column too")
    refused(lambda m: m.pop("class_counts_at_leaves"), "derived from class counts")
    refused(header(lambda h: h.__setitem__("derived", "impurity")), "list of 'impurity'")
    refused(lambda m: m.__setitem__("impurity", np.zeros(len(m["is_leaf"]))),
            "holds 'impurity'")
    refused(lambda m: m.__setitem__("class_counts_at_leaves",
                                    m["class_counts_at_leaves"].astype(np.uint16)),
            "class_counts_at_leaves")
    # put back, the columns meet every tree check: counts that do not match the
    # weights give fractions that do not add up, huge counts give no numbers
    refused(edit("class_counts_at_leaves", lambda a: a.__setitem__((0, 0, 0), a[0, 0, 0] + 1)),
            "tree 0")
    refused(edit("n_node_samples_at_leaves", lambda a: a.__setitem__(0, -5), np.int32),
            "tree 0")
    # (sums past int64 come back negative, and are refused so)
    refused(edit("n_node_samples_at_leaves", lambda a: a.__setitem__(slice(0, 4), 2 ** 62),
                 np.int64), "tree 0")
    refused(edit("weighted_n_node_samples_at_leaves", lambda a: a.__setitem__(1, -3)),
            "tree 0")
    refused(edit("feature_at_splits", lambda a: a.__setitem__(0, 99), np.int32), "tree 0")
    # and the file as written loads
    np.testing.assert_array_equal(dtree.load(io.BytesIO(_rezip(members))).predict_proba(X),
                                  forest.predict_proba(X))


def test_a_forests_file_is_deflated_and_its_inflated_size_bounded():
    """A forest's file (format 6) deflates its members, and ``load`` counts their
    inflated sizes against ``max_bytes``; a format-5 file (stored members) still
    loads, a deflated member in any other file is refused."""
    import io
    import json
    import zipfile
    X, y = _data("breast_cancer")
    # (depth 4: no threshold at its range's midpoint, so format 6, not 8)
    forest = dtree.RandomForestClassifier(n_estimators=5, max_depth=4,
                                          random_state=0).fit(X, y)
    raw = _forest_file(forest)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        infos = archive.infolist()
    assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in infos)
    inflated = sum(info.file_size for info in infos)
    assert len(raw) < 0.6 * inflated
    members = _members(raw)
    header = json.loads(members["header"].tobytes())
    assert header["format_version"] == 6
    loaded = dtree.load(io.BytesIO(raw))
    np.testing.assert_array_equal(loaded.predict_proba(X), forest.predict_proba(X))
    # the file fits max_bytes, its members inflated do not
    assert len(raw) < inflated - 1
    with pytest.raises(dtree.ModelFileError, match="inflate to"):
        dtree.load(io.BytesIO(raw), max_bytes=inflated - 1)
    dtree.load(io.BytesIO(raw), max_bytes=inflated)
    # format 5 has no compact members
    header["format_version"] = 5
    compact = dict(members, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    with pytest.raises(dtree.ModelFileError, match="belong to forest files of format version 6"):
        dtree.load(io.BytesIO(_rezip(compact)))
    # format 5: whole members stored (best-first trees keep them whole)
    plain = dtree.RandomForestClassifier(n_estimators=5, max_leaf_nodes=30,
                                         random_state=0).fit(X, y)
    members = _members(_forest_file(plain))
    assert "is_leaf" not in members
    header = json.loads(members["header"].tobytes())
    header["format_version"] = 5
    old = dict(members, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    np.testing.assert_array_equal(dtree.load(io.BytesIO(_rezip(old))).predict_proba(X),
                                  plain.predict_proba(X))
    # ... but not deflated: only a format-6 forest file deflates
    deflated = io.BytesIO()
    with zipfile.ZipFile(deflated, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in old.items():
            buf = io.BytesIO()
            np.save(buf, array, allow_pickle=False)
            archive.writestr(f"{name}.npy", buf.getvalue())
    with pytest.raises(dtree.ModelFileError, match="compressed"):
        dtree.load(io.BytesIO(deflated.getvalue()))
    # another compression method is refused whatever the version
    bz = io.BytesIO()
    with zipfile.ZipFile(bz, "w", compression=zipfile.ZIP_BZIP2) as archive:
        with zipfile.ZipFile(io.BytesIO(raw)) as source:
            for info in source.infolist():
                archive.writestr(info.filename, source.read(info))
    with pytest.raises(dtree.ModelFileError, match="another method than deflate"):
        dtree.load(io.BytesIO(bz.getvalue()))


def test_the_guide_forest_example_runs(tmp_path, monkeypatch):
    """The forest block of the user guide (docs/guide/forests.md, once the
    README's), on its own (it saves a model file: run in a temporary folder)."""
    import pathlib
    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "guide" / "forests.md"
    text = page.read_text(encoding="utf-8")
    section = text.split("# Forests", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/guide/forests.md", "exec"), {})
    assert isinstance(dtree.load("adult-forest.dtree"), dtree.RandomForestClassifier)


def test_fuzzed_forests_pass_every_oracle():
    """400 random forests (random data, parameters valid and hostile, readers) in a
    subprocess: a crash is a finding, not a lost suite (tests/forest_fuzz.py; run
    it longer with --cases)."""
    import pathlib
    import subprocess
    import sys
    script = pathlib.Path(__file__).with_name("forest_fuzz.py")
    done = subprocess.run([sys.executable, str(script), "--cases", "400", "--seed", "7"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "400 cases, 0 findings" in done.stdout


def test_fuzzed_forest_files_load_or_are_refused():
    """300 forest files (compact members, deflated) mutated at random, in a
    subprocess: each loads or raises ModelFileError, nothing else
    (tests/forest_file_fuzz.py; run it longer with --cases)."""
    import pathlib
    import subprocess
    import sys
    script = pathlib.Path(__file__).with_name("forest_file_fuzz.py")
    done = subprocess.run([sys.executable, str(script), "--cases", "300", "--seed", "7"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "300 cases, 0 findings" in done.stdout


@pytest.mark.parametrize("kind", ["RandomForestClassifier", "ExtraTreesRegressor"])
def test_shap_values_are_those_of_scikit_learns_forest(kind):
    shap = pytest.importorskip("shap")
    from dtree.integrations import to_shap
    X, y = _data("breast_cancer" if kind.endswith("Classifier") else "diabetes")
    params = dict(n_estimators=4, random_state=1, max_depth=4)
    ours = getattr(dtree, kind)(**params).fit(X, y)
    theirs = getattr(ske, kind)(**params).fit(X, y)
    explainer = shap.TreeExplainer(to_shap(ours))
    values = explainer.shap_values(X[:25])
    np.testing.assert_allclose(values, shap.TreeExplainer(theirs).shap_values(X[:25]),
                               atol=1e-7)
    if kind.endswith("Regressor"):   # additivity: the forest's mean prediction
        np.testing.assert_allclose(values.sum(axis=1) + explainer.expected_value,
                                   ours.predict(X[:25]), rtol=1e-9)


@pytest.mark.parametrize("kind", FORESTS)
def test_onnx_graph_predicts_as_the_forest(kind):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from dtree.export import to_onnx
    clf = kind.endswith("Classifier")
    X, y = _data("wine" if clf else "diabetes")
    X = np.asarray(X, dtype=np.float32).copy()
    X[::11, 2] = np.nan                         # missing values take their learnt side
    if clf:
        y = np.array(["barolo", "grignolino", "barbera"])[y]
    forest = getattr(dtree, kind)(n_estimators=6, random_state=3).fit(X, y)
    session = ort.InferenceSession(to_onnx(forest).SerializeToString())
    out = session.run(None, {"X": X})
    if clf:
        label, proba = out
        np.testing.assert_allclose(proba, forest.predict_proba(X), atol=1e-6)
        clear = np.sort(proba, axis=1)[:, -1] - np.sort(proba, axis=1)[:, -2] > 1e-5
        np.testing.assert_array_equal(label[clear], forest.predict(X)[clear])
    else:
        np.testing.assert_allclose(out[0][:, 0], forest.predict(X), rtol=1e-5)


def test_verbose_one_reports_progress_by_tenths(capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] > 0).astype(int)
    dtree.RandomForestClassifier(n_estimators=20, verbose=1, n_jobs=2,
                                 random_state=0).fit(X, y)
    lines = capsys.readouterr().err.splitlines()
    assert [int(line.split()[2]) for line in lines] == list(range(2, 21, 2))
    assert lines[-1].startswith("[dtree] built 20 of 20 trees in ")


def test_a_surrogate_forest_comes_back_from_its_file():
    """Competitor and surrogate splits are members of their own length: the file
    says where each tree's start (``tree_others``), and refuses offsets that do
    not cut them."""
    import io
    from model_files import plain_arrays, deflated
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=300) > 0).astype(int)
    forest = dtree.RandomForestClassifier(n_estimators=3, random_state=0,
                                          handle_missing="surrogate").fit(X, y)
    raw = file_bytes(forest)
    back = dtree.load(io.BytesIO(raw))
    np.testing.assert_array_equal(back.predict_proba(X), forest.predict_proba(X))
    for a, b in zip(forest.estimators_, back.estimators_):
        for name in ("node", "feature", "threshold", "kind"):
            np.testing.assert_array_equal(getattr(a.tree_.other_splits, name),
                                          getattr(b.tree_.other_splits, name))
    members = plain_arrays(raw)
    offsets = members["tree_others"]
    assert offsets[-1] == members["other_node"].shape[0] and offsets.shape == (4,)
    for bad, message in ((offsets[::-1].copy(), "rise from 0"), (offsets[:-1], "offsets"),
                         (offsets.astype(np.int32), "int64")):
        with pytest.raises(dtree.ModelFileError, match=message):
            dtree.load(io.BytesIO(deflated(dict(members, tree_others=bad))))
    without = {k: v for k, v in members.items() if not k.startswith("other_")}
    with pytest.raises(dtree.ModelFileError):
        dtree.load(io.BytesIO(deflated(without)))


def test_balanced_class_weights_with_a_class_weighing_nothing():
    # every row of class 1 weighs 0: its "balanced" weight is infinite, and its rows
    # must stay at 0 (scikit-learn fails: "probabilities contain NaN")
    X = np.array([[0.1], [0.5], [0.9], [0.3]])
    y = np.array([1, 0, 0, 0])
    sw = np.array([0.0, 0.0, 0.6, 1.2])
    for class_weight in ("balanced", "balanced_subsample"):
        forest = dtree.RandomForestClassifier(n_estimators=3, random_state=0,
                                              class_weight=class_weight)
        forest.fit(X, y, sample_weight=sw)
        np.testing.assert_array_equal(forest.predict_proba(X), [[1.0, 0.0]] * 4)
        for tree in forest.estimators_:
            assert np.isfinite(tree.tree_.weighted_n_node_samples).all()


def test_max_samples_beyond_memory_is_refused(monkeypatch):
    # a fraction of a large total sample weight: drawing it would exhaust memory
    from dtree._forest import draws
    monkeypatch.setattr(draws, "physical_memory", lambda: 10**9)
    X = np.arange(10, dtype=float).reshape(5, 2)
    y = np.array([0, 1, 0, 1, 0])
    forest = dtree.RandomForestClassifier(n_estimators=2, max_samples=0.5, random_state=0)
    with pytest.raises(ValueError, match="max_samples=0.5 draws 250000000 rows per tree.*memory"):
        forest.fit(X, y, sample_weight=np.full(5, 1e8))
    forest.fit(X, y, sample_weight=np.full(5, 10.0))      # 25 rows: fine
    assert len(forest.estimators_) == 2
