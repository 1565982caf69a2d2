"""Trust at the edges (issue 33): what an independent probe campaign found, each at its
cause. Inconsistent sparse arrays, special files, frames of other libraries, the missing
side in textual exports, malformed and implausible model files, the command line,
weights and parameters at float64's ends, category columns under value_tolerance,
and predict while another thread refits."""
import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

import dtree
from dtree.export import export_rules, export_text

X = np.random.RandomState(0).rand(60, 4)
Y = (X[:, 0] > 0.5).astype(int)


def _broken_sparse():
    """(name, matrix) pairs whose arrays were edited into an inconsistent state."""
    out = []
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        m = fmt(X)
        m.indices[0] = 99
        out.append((f"{fmt.__name__} index out of range", m))
        m = fmt(X)
        m.indices[1] = -1
        out.append((f"{fmt.__name__} negative index", m))
        m = fmt(X)
        m.indptr[-1] = 10**6
        out.append((f"{fmt.__name__} indptr past the data", m))
    m = sp.coo_matrix(X)
    m.col[0] = 7
    out.append(("coo bad column", m))
    m = sp.coo_matrix(X)
    m.row[0] = -3
    out.append(("coo negative row", m))
    return out


@pytest.mark.parametrize("name, matrix",
                         [pytest.param(n, m, id=n) for n, m in _broken_sparse()])
def test_inconsistent_sparse_arrays_are_refused_at_fit_and_predict(name, matrix):
    with pytest.raises(ValueError, match="inconsistent arrays"):
        dtree.DecisionTreeClassifier().fit(matrix, Y)
    fitted = dtree.DecisionTreeClassifier(random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="inconsistent arrays"):
        fitted.predict(matrix)
    with pytest.raises(ValueError, match="inconsistent arrays"):
        fitted.tree_.apply(matrix)


def test_a_hostile_sparse_x_cannot_crash_the_process():
    # what the probes did, in a process of its own: a crash would end it
    code = ("import numpy as np, scipy.sparse as sp, dtree\n"
            "X = sp.csr_matrix(np.random.rand(500, 20)); X.indices[::7] = 10**6\n"
            "try:\n    dtree.DecisionTreeClassifier().fit(X, np.arange(500) % 2)\n"
            "except ValueError:\n    print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "refused", out.stderr[-500:]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "model.dtree"
    os.mkfifo(fifo)
    code = ("import sys, dtree\ntry:\n    dtree.load(sys.argv[1])\n"
            "except dtree.ModelFileError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True,
                         text=True, timeout=60)
    assert "not a regular file" in out.stdout, out.stderr[-500:]
    for args in (["predict", str(fifo), str(fifo)], ["show", str(fifo)],
                 ["fit", str(fifo), "--target", "y", "-o", str(tmp_path / "m")]):
        out = subprocess.run([sys.executable, "-m", "dtree", *args], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode != 0 and "not a regular file" in out.stderr, (args, out.stderr)


def test_a_pyarrow_table_keeps_its_column_names():
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"a": X[:, 0], "b": X[:, 1], "c": ["x", "y"] * 30})
    clf = dtree.DecisionTreeClassifier(random_state=0).fit(table, Y)
    assert list(clf.feature_names_in_) == ["a", "b", "c"]
    assert clf.categorical_features_.tolist() == [False, False, True]
    assert clf.score(table, Y) == 1.0
    with pytest.raises(ValueError, match="feature names should match"):
        clf.predict(table.select(["c", "b", "a"]))


def test_a_pandas_series_as_x_is_refused_by_name():
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="pandas Series"):
        dtree.DecisionTreeClassifier().fit(pd.Series(X[:, 0]), Y)


def _with_missing():
    rng = np.random.RandomState(1)
    Xm = rng.rand(200, 2)
    Xm[rng.rand(200) < 0.2, 0] = np.nan
    ym = (np.nan_to_num(Xm[:, 0], nan=0.9) > 0.5).astype(int)
    return Xm, ym


def test_textual_exports_say_where_missing_values_go():
    Xm, ym = _with_missing()
    clf = dtree.DecisionTreeClassifier(max_depth=1, random_state=0).fit(Xm, ym)
    right = "left" if clf.tree_.missing_go_to_left[0] else "right"
    assert right == "right"
    text = export_text(clf, show_missing=True)
    assert ">  0.50 (or missing)" in text and "<= 0.50\n" in text
    assert "missing" not in export_text(clf)          # scikit-learn's layout by default
    rules = export_rules(clf).splitlines()
    assert rules[1].startswith("if (feature_0 > 0.50 or feature_0 is missing) then")
    assert "missing" not in rules[0]
    # the rule copied into Python classifies NaN rows as predict does
    assert clf.predict([[np.nan, 0.0]])[0] == 1
    surrogate = dtree.DecisionTreeClassifier(max_depth=1, handle_missing="surrogate").fit(
        Xm, ym)
    assert export_rules(surrogate).startswith("# rows missing a tested feature: surrogate")


def test_export_rules_refuses_a_bad_decimals():
    clf = dtree.DecisionTreeClassifier().fit(X, Y)
    with pytest.raises(ValueError, match="decimals must be an int >= 0"):
        export_rules(clf, decimals=-3)


def _model_bytes(clf):
    buf = io.BytesIO()
    clf.save(buf)
    return buf.getvalue()


def _replace_member(raw, name, data):
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, data if info.filename == name else src.read(info))
    return out.getvalue()


def _npy(array, header_patch=None):
    buf = io.BytesIO()
    np.save(buf, array)
    raw = buf.getvalue()
    if header_patch:
        raw = raw.replace(*header_patch)
    return raw


@pytest.mark.parametrize("name, data", [
    ("children_left.npy", _npy(np.int64(0))),                                  # 0-d
    ("children_left.npy", _npy(np.zeros(3, np.int64),
                               (b"'shape': (3,)", b"'shape': (True,)"))),    # bool shape
    ("header.npy", _npy(np.frombuffer(b"[" * 100000 + b"]" * 100000, np.uint8))),
])
def test_malformed_model_files_raise_the_model_file_error(name, data):
    clf = dtree.DecisionTreeClassifier(random_state=0).fit(X, Y)
    raw = _replace_member(_model_bytes(clf), name, data)
    with pytest.raises(dtree.ModelFileError):
        dtree.load(io.BytesIO(raw))


def test_a_model_file_opened_in_text_mode_is_refused_clearly(tmp_path):
    clf = dtree.DecisionTreeClassifier(random_state=0).fit(X, Y)
    path = tmp_path / "m.dtree"
    clf.save(path)
    with open(path, encoding="utf-8") as fh, pytest.raises(dtree.ModelFileError,
                                                           match="binary mode"):
        dtree.load(fh)


def test_eval_of_a_several_output_model_says_what_it_needs(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=list("abcd"))
    reg = dtree.DecisionTreeRegressor(max_depth=2).fit(frame, np.c_[X[:, 0], X[:, 1]])
    model, data = tmp_path / "m.dtree", tmp_path / "d.csv"
    reg.save(model)
    frame.assign(y=X[:, 0]).to_csv(data, index=False)
    out = subprocess.run([sys.executable, "-m", "dtree", "eval", str(model), str(data),
                          "--target", "y"], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "predicts 2 outputs" in out.stderr
    assert "Traceback" not in out.stderr


# ---------------------------------------------------------------- weights and parameters
def test_complex_and_zero_dimensional_weights_are_refused_by_name():
    with pytest.raises(TypeError, match="sample_weight must be real"):
        dtree.DecisionTreeClassifier().fit(X, Y, sample_weight=np.ones(60) * (1 + 1j))
    with pytest.raises(TypeError, match="sample_weight: Input should have at least 1"):
        dtree.DecisionTreeClassifier().fit(X, Y, sample_weight=np.array(2.0))


@pytest.mark.parametrize("Est", [dtree.DecisionTreeClassifier, dtree.DecisionTreeRegressor])
def test_weights_up_to_float64s_largest_give_the_moderate_tree(Est):
    w = np.random.RandomState(1).rand(60) + 0.5
    w[3] = 1.75                                   # the largest: 1.75 * 2**1023 below
    moderate = Est(random_state=0).fit(X, Y, sample_weight=w)
    huge = Est(random_state=0).fit(X, Y, sample_weight=w * 2.0**1023)
    np.testing.assert_array_equal(huge.tree_.feature, moderate.tree_.feature)
    np.testing.assert_array_equal(huge.tree_.threshold, moderate.tree_.threshold)
    np.testing.assert_allclose(huge.feature_importances_, moderate.feature_importances_)


def test_competitor_and_surrogate_counts_beyond_int64_mean_all_there_are():
    big = dtree.DecisionTreeClassifier(max_depth=2, keep_competitors=2**64,
                                       n_surrogates=2**63).fit(X, Y)
    every = dtree.DecisionTreeClassifier(max_depth=2, keep_competitors=4,
                                         n_surrogates=4).fit(X, Y)
    assert big.summary(file=io.StringIO()) == every.summary(file=io.StringIO())


def test_numbers_beyond_float64_are_refused_by_parameter_name():
    clf = dtree.DecisionTreeClassifier().fit(X, Y)
    with pytest.raises(ValueError, match="ccp_alpha must be a finite float"):
        clf.prune(2**1100)
    for name in ("ccp_alpha", "min_impurity_decrease", "value_tolerance"):
        with pytest.raises(ValueError, match=f"'{name}' parameter"):
            dtree.DecisionTreeClassifier(**{name: 2**1100}).fit(X, Y)


def test_a_confidence_that_rounds_to_one_is_named():
    reg = dtree.DecisionTreeRegressor(max_depth=2, keep_leaf_targets=True).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="confidence=0.9999999999999999 is too close to 1"):
        reg.predict_interval(X, confidence=0.9999999999999999)
    lower, upper = reg.predict_interval(X, confidence=0.999999999999999)
    assert (lower <= upper).all()


def test_a_dask_client_given_as_an_address_is_refused_by_name():
    dask_trees = pytest.importorskip("dtree.dask")
    est = dask_trees.DaskDecisionTreeClassifier(client="tcp://127.0.0.1:8786")
    with pytest.raises(TypeError, match="client must be a distributed.Client"):
        est.fit(None, None)


def test_unsavable_category_labels_name_their_column():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": X[:, 0], "when": [b"a", b"b", b"c"] * 20})
    for Est in (dtree.DecisionTreeClassifier, dtree.DecisionTreeRegressor):
        model = Est(categorical_features=["when"]).fit(frame, Y)
        with pytest.raises(TypeError, match="categories of column 1 \\('when'\\)"):
            model.save(io.BytesIO())


# ---------------------------------------------------------------- category columns
@pytest.mark.parametrize("criterion", ["absolute_error", "quantile", "squared_error"])
@pytest.mark.parametrize("splitter", ["best", "random"])
def test_value_tolerance_leaves_category_columns_alone(criterion, splitter):
    # codes 0..5 lie within a tolerance of 5: a category column is still split, and
    # its rows partitioned, by its codes' equality alone
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(6)
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abcdef"), 150)),
                          "x": rng.rand(150)})
    y = rng.rand(150) * 1e-3 + 1.0 + (frame["c"].cat.codes.to_numpy() % 2)
    fits = [dtree.DecisionTreeRegressor(criterion=criterion, splitter=splitter,
                                        value_tolerance=tol, random_state=0,
                                        categorical_features=["c"]).fit(frame[["c"]], y)
            for tol in (0.0, 5.0)]
    np.testing.assert_array_equal(fits[1].predict(frame[["c"]]), fits[0].predict(frame[["c"]]))
    with_x = dtree.DecisionTreeRegressor(criterion=criterion, splitter=splitter,
                                         value_tolerance=5.0, random_state=0,
                                         categorical_features=["c"]).fit(frame, y)
    pred = with_x.predict(frame)
    assert y.min() <= pred.min() and pred.max() <= y.max()


# ---------------------------------------------------------------- implausible model files
@pytest.mark.parametrize("Est", [dtree.DecisionTreeClassifier, dtree.DecisionTreeRegressor])
def test_model_values_no_fit_produces_are_refused(Est):
    from dtree._deploy.model_file import from_dict, to_dict

    data = to_dict(Est(max_depth=3, random_state=0).fit(X, Y))
    data["tree"]["impurity"][0] = 1e308
    with pytest.raises(dtree.ModelFileError, match="impurit"):
        from_dict(data)


@pytest.mark.parametrize("Est", [dtree.DecisionTreeClassifier, dtree.DecisionTreeRegressor])
def test_a_split_that_raises_the_impurity_is_refused(Est):
    # a child's impurity edited upwards: every value finite and in range, but the
    # importances would turn negative; a fit's own rounding is allowed
    from dtree._deploy.model_file import from_dict, to_dict

    model = Est(max_depth=3, random_state=0).fit(X, Y)
    data = to_dict(model)
    from_dict(data)
    tree = data["tree"]
    for child in (tree["children_left"][0], tree["children_right"][0]):
        tree["impurity"][child] = 1.02 * tree["impurity"][0]   # (a gini below 1)
    with pytest.raises(dtree.ModelFileError, match="children of node 0"):
        from_dict(data)


def test_impossible_units_and_category_rows_are_refused():
    from dtree._deploy.model_file import from_dict, to_dict

    data = to_dict(dtree.DecisionTreeRegressor(max_depth=2).fit(X, Y))
    data["weight_unit"] = 10 ** 400          # beyond float64: no OverflowError
    with pytest.raises(dtree.ModelFileError, match="weight_unit"):
        from_dict(data)
    data = to_dict(dtree.DecisionTreeRegressor(max_depth=2).fit(X, Y))
    data["tree"]["category_sets"] = 7
    with pytest.raises(dtree.ModelFileError, match="category_sets"):
        from_dict(data)


def test_a_nan_class_label_is_refused():
    from dtree._deploy.model_file import from_dict, to_dict

    data = to_dict(dtree.DecisionTreeClassifier(max_depth=2).fit(X, Y.astype(float)))
    data["classes"]["values"][0] = float("nan")
    with pytest.raises(dtree.ModelFileError, match="labels must be finite"):
        from_dict(data)


# ---------------------------------------------------------------- threads
def test_predict_while_another_thread_refits_sees_one_model():
    import threading

    rng = np.random.RandomState(3)
    Xb = rng.rand(60, 4)
    yb = np.where(Xb[:, 1] > 0.5, "x", "y")
    est = dtree.DecisionTreeClassifier(random_state=0).fit(X, Y)
    answers = (dtree.DecisionTreeClassifier(random_state=0).fit(X, Y).predict(X),
               dtree.DecisionTreeClassifier(random_state=0).fit(Xb, yb).predict(X))
    stop, seen = threading.Event(), []

    def refit():
        flip = False
        while not stop.is_set():
            est.fit(Xb, yb) if flip else est.fit(X, Y)
            flip = not flip

    worker = threading.Thread(target=refit)
    worker.start()
    try:
        for _ in range(1500):
            try:
                got = est.predict(X)
            except Exception as exc:       # noqa: BLE001 - any error is the finding
                seen.append(repr(exc))
                continue
            if not any(got.dtype == a.dtype and (got == a).all() for a in answers):
                seen.append("a mix of two models")
    finally:
        stop.set()
        worker.join()
    assert seen == []


# ---------------------------------------------------------------- entropy's units
def _integer_problem(seed):
    rng = np.random.RandomState(seed)
    n, d = rng.randint(20, 300), rng.randint(1, 5)
    X_int = rng.randint(0, 6, (n, d)).astype(float)
    y = rng.randint(0, rng.randint(2, 4), n)
    return rng, X_int, y


def _shape(tree):
    return tree.node_count, tree.feature.tolist(), tree.threshold.tolist()


@pytest.mark.parametrize("criterion, splitter", [("entropy", "best"), ("log_loss", "best"),
                                                 ("gain_ratio", "best"), ("entropy", "hist"),
                                                 ("entropy", "random")])
def test_entropy_trees_do_not_depend_on_the_weights_unit(criterion, splitter):
    for seed in range(12):
        rng, X_int, y = _integer_problem(seed)
        w = rng.rand(y.shape[0]) + 0.1
        trees = [_shape(dtree.DecisionTreeClassifier(criterion=criterion, splitter=splitter,
                                                     random_state=0)
                        .fit(X_int, y, sample_weight=w * 2.0**k).tree_)
                 for k in (0, -7, 3, 40)]
        assert trees[1:] == trees[:1] * 3, seed


def test_entropy_with_integer_weights_equals_scikit_learn():
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    for seed in range(40):
        rng, X_int, y = _integer_problem(seed)
        w = rng.randint(1, 5, y.shape[0]).astype(float)
        for criterion in ("entropy", "log_loss"):
            ours = dtree.DecisionTreeClassifier(criterion=criterion, random_state=seed)
            theirs = SklearnTree(criterion=criterion, random_state=seed)
            assert _shape(ours.fit(X_int, y, sample_weight=w).tree_) == \
                _shape(theirs.fit(X_int, y, sample_weight=w).tree_), (seed, criterion)


def test_c45_counts_weights_in_the_users_units_as_documented():
    _, X_int, y = _integer_problem(0)
    w = np.random.RandomState(1).randint(1, 4, y.shape[0]) * 2.0**-40
    c45 = dtree.DecisionTreeClassifier(algorithm="c4.5")
    assert c45.fit(X_int, y, sample_weight=w).tree_.node_count == 1  # all under MINOBJS
    assert c45.fit(X_int, y, sample_weight=w / w.mean()).tree_.node_count > 1


# ---------------------------------------------------------------- resources
def test_thousands_of_classes_claim_memory_as_the_tree_grows():
    # 8671 classes on 20,000 rows: a node's statistics are 68 KiB, and the tree's
    # bound (39,999 nodes) would claim 2.6 GiB before growth; under a 2.4 GB
    # address-space limit the fit must succeed with the few nodes it grows
    script = (
        "import resource, numpy as np, dtree\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2_400_000_000, 2_400_000_000))\n"
        "rng = np.random.RandomState(0)\n"
        "X, y = rng.rand(20000, 5), rng.randint(0, 10000, 20000)\n"
        "m = dtree.DecisionTreeClassifier(min_samples_split=5000, n_jobs=1).fit(X, y)\n"
        "print(m.tree_.node_count, m.n_classes_)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=240, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert out.returncode == 0, out.stderr[-2000:]
    nodes, classes = map(int, out.stdout.split())
    assert classes > 8000 and 1 < nodes < 200


def test_pandas_na_in_an_object_array_is_missing():
    # an arrow-backed frame's to_numpy() holds pandas.NA for missing text; it is a
    # missing value like None and NaN, not an error nor a category
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    text = rng.choice(["a", "b", "c", None], 80)
    flags = rng.choice([True, False, None], 80)
    frame = pd.DataFrame({"t": pd.array(text, dtype="string[pyarrow]"),
                          "x": rng.normal(size=80),
                          # a numeric column: False is 0, not missing
                          "b": pd.array(flags, dtype="boolean")})
    y = (text == "a") | (frame["x"].to_numpy() > 1) | (flags == False)  # noqa: E712
    clf = dtree.DecisionTreeClassifier(random_state=0).fit(frame, y)
    assert clf.score(frame, y) == 1.0
    values = frame.to_numpy()
    assert any(v is pd.NA for v in values[:, 0])
    np.testing.assert_array_equal(clf.predict(values), clf.predict(frame))


def test_loading_a_small_model_file_claims_memory_for_its_bytes_only(tmp_path):
    # load(max_bytes=2**31 by default) must not ask for max_bytes of memory before
    # reading: under an address-space limit 1 GiB above what is in use, a small
    # model file loads, from a path and from a file object
    path = tmp_path / "m.dtree"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    dtree.DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] > 0).save(path)
    script = (
        "import resource, sys, dtree\n"
        "def used():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmSize:'):\n"
        "            return int(line.split()[1]) * 1024\n"
        "limit = used() + (1 << 30)\n"
        "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
        "a = dtree.load(sys.argv[1])\n"
        "with open(sys.argv[1], 'rb') as fh:\n"
        "    b = dtree.load(fh)\n"
        "print(a.tree_.node_count == b.tree_.node_count)\n")
    if not os.path.exists("/proc/self/status"):
        pytest.skip("reads the address space's size from Linux's /proc")
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize("call", ["sql_keep", "text_names", "summary_names", "class_names"])
@pytest.mark.parametrize("bad", [0.95, 4294967297, "name"])
def test_lists_of_names_refuse_a_scalar_or_one_string_by_name(call, bad):
    from dtree.export import export_sql
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    m = dtree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, X[:, 0] > 0)
    run, parameter = {
        "sql_keep": (lambda: export_sql(m, keep_columns=bad), "keep_columns"),
        "text_names": (lambda: export_text(m, feature_names=bad), "feature_names"),
        "summary_names": (lambda: m.summary(feature_names=bad), "feature_names"),
        "class_names": (lambda: export_rules(m, class_names=bad), "class_names"),
    }[call]
    with pytest.raises(TypeError, match=parameter):
        run()
    # sequences of any kind still work
    assert "a" in export_text(m, feature_names=np.array(["a", "b"]))


def _small_models():
    rng = np.random.default_rng(1)
    Xs = rng.normal(size=(40, 2))
    clf = dtree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(Xs, Xs[:, 0] > 0)
    reg = dtree.DecisionTreeRegressor(max_depth=2, random_state=0).fit(Xs, Xs[:, 0])
    return Xs, clf, reg


@pytest.mark.parametrize("case", [
    "graphviz_names", "sql_prefix_number", "sql_prefix_nul", "sql_dialect_list",
    "text_decimals_bool", "grid_resolution_text", "grid_resolution_list",
    "weight_huge_int", "x_huge_int", "x_scalar"])
def test_method_arguments_are_refused_by_name(case):
    from dtree.export import export_graphviz, export_sql
    from dtree.inspection import partial_dependence
    Xs, clf, reg = _small_models()
    run, pattern = {
        "graphviz_names": (lambda: export_graphviz(clf, feature_names=2), "feature_names"),
        "sql_prefix_number": (lambda: export_sql(clf, proba_prefix=-np.inf), "proba_prefix"),
        "sql_prefix_nul": (lambda: export_sql(clf, proba_prefix="\x00"), "proba_prefix"),
        "sql_dialect_list": (lambda: export_sql(clf, dialect=[1]), "dialect"),
        "text_decimals_bool": (lambda: export_text(reg, decimals=False), "decimals"),
        "grid_resolution_text": (lambda: partial_dependence(reg, Xs, [0],
                                                            grid_resolution="auto"),
                                 "grid_resolution"),
        "grid_resolution_list": (lambda: partial_dependence(reg, Xs, [0],
                                                            grid_resolution=[1, 2]),
                                 "grid_resolution"),
        "weight_huge_int": (lambda: dtree.DecisionTreeRegressor().fit(
            Xs, Xs[:, 0], sample_weight=10 ** 400), "sample_weight"),
        "x_huge_int": (lambda: reg.predict([[10 ** 400, 1]]), "X"),
        "x_scalar": (lambda: reg.predict(5), "2-D"),
    }[case]
    with pytest.raises((ValueError, TypeError), match=pattern):
        run()


def test_a_huge_precision_draws_every_digit():
    from dtree.export import export_graphviz
    _, _, reg = _small_models()
    assert export_graphviz(reg, precision=np.uint64(2 ** 64 - 1)) == \
        export_graphviz(reg, precision=64)


def test_a_row_without_columns_and_x_without_features_are_refused():
    # a 1-D row with category columns gets scikit-learn's reshape advice, not
    # "X has None features"; sparse X without columns is refused like dense
    rows = np.array([["a", 1], ["b", 2], ["a", 3]], dtype=object)
    model = dtree.DecisionTreeClassifier().fit(rows, [0, 1, 0])
    with pytest.raises(ValueError, match="reshape"):
        model.predict(rows[0])
    for make in (sp.csr_matrix, sp.lil_matrix, sp.coo_matrix):
        for kw in ({}, {"max_features": "log2"}):
            with pytest.raises(ValueError, match="0 feature"):
                dtree.DecisionTreeClassifier(**kw).fit(make((4, 0)), [0, 1, 0, 1])


def test_a_huge_decimals_writes_every_digit():
    _, clf, _ = _small_models()
    assert export_text(clf, decimals=np.uint64(2 ** 64 - 1)) == export_text(clf, decimals=340)
    assert export_rules(clf, decimals=10 ** 30) == export_rules(clf, decimals=340)


def test_competitors_of_targets_near_float64s_end_are_finite_and_ranked_alike():
    # the audit replays the growth in the tree's scaled units: targets near 1e300
    # give the competitors (and their improve, as a ratio in summary) of the same
    # targets times 2**-990, and the model file saves and loads
    from dtree._deploy.model_file import from_dict, to_dict
    rng = np.random.default_rng(2)
    Xc = rng.normal(size=(60, 4))
    y = Xc[:, 0] + 0.5 * Xc[:, 1] + rng.normal(size=60)
    fits = [dtree.DecisionTreeRegressor(max_depth=3, keep_competitors=2, random_state=0)
            .fit(Xc, np.ldexp(y, k)) for k in (0, 990)]
    small, huge = (f.tree_.other_splits for f in fits)
    np.testing.assert_array_equal(small.feature, huge.feature)
    assert np.isfinite(huge.improvement).all() and (huge.improvement > 0).any()
    assert from_dict(to_dict(fits[1])).tree_.node_count == fits[1].tree_.node_count
    lines = [[line for line in f.summary().splitlines() if "improve=" in line] for f in fits]
    assert lines[0] == lines[1] and lines[0]


def test_numpy_scalars_as_labels_in_an_object_array_save():
    labels = np.array([np.int64(1), np.int64(2), np.int64(1), np.int64(2)], dtype=object)
    model = dtree.DecisionTreeClassifier().fit(X[:4], labels)
    again = dtree.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.predict(X[:4]).tolist() == model.predict(X[:4]).tolist() == [1, 2, 1, 2]


@pytest.mark.parametrize("dtype", ["datetime64[ns]", "timestamp[ns][pyarrow]",
                                   "duration[ns][pyarrow]"])
def test_time_columns_are_refused_by_name_whatever_holds_them(dtype):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    times = pd.Series(pd.to_timedelta(np.arange(6), "s")) if "duration" in dtype else \
        pd.Series(pd.to_datetime(np.arange(6) * 10 ** 9))
    frame = pd.DataFrame({"when": times.astype(dtype), "x": np.arange(6.0)})
    with pytest.raises(ValueError, match="'when'"):
        dtree.DecisionTreeRegressor().fit(frame, np.arange(6.0))


def test_more_arguments_at_their_ends_are_named_or_accepted():
    from dtree.export import export_sql
    Xs, clf, reg = _small_models()
    with pytest.raises(ValueError, match="confidence"):
        reg.predict_interval(Xs, confidence=10 ** 400)
    with pytest.raises(ValueError, match="spacing"):
        export_text(reg, spacing=2 ** 31)
    assert export_sql(reg, keep_columns=None) == export_sql(reg)
    with pytest.raises(MemoryError, match="max_leaf_nodes"):
        from dtree._plan.plan import check_leaf_budget
        check_leaf_budget(10 ** 400)


def test_score_with_weights_near_float64s_end_is_the_unweighted_ratio():
    Xs, clf, reg = _small_models()
    y = Xs[:, 0] > 0.5
    for model, target in ((clf, y), (reg, Xs[:, 0])):
        np.testing.assert_allclose(model.score(Xs, target, sample_weight=np.full(40, 1e308)),
                                   model.score(Xs, target), rtol=1e-12)


def test_a_ccp_alpha_past_float64_in_a_model_file_is_refused():
    from dtree._deploy.model_file import from_dict, to_dict
    data = to_dict(dtree.DecisionTreeRegressor(ccp_alpha=0.01).fit(X, Y))
    for bad in (10 ** 400, float("nan"), -1.0):
        data["ccp_alpha"] = bad
        with pytest.raises(dtree.ModelFileError, match="ccp_alpha"):
            from_dict(data)


def test_a_0d_tree_array_in_a_model_dict_is_refused():
    from dtree._deploy.model_file import from_dict, to_dict
    data = to_dict(dtree.DecisionTreeClassifier(max_depth=2).fit(X, Y))
    data["tree"]["children_left"] = 3
    with pytest.raises(dtree.ModelFileError, match="children_left"):
        from_dict(data)
