"""Competitor and surrogate splits (rpart's definitions), summary(), and routing
missing values by surrogates."""
import io
import math

import numpy as np
import pandas as pd
import pytest

import dtree
import dtree.export
from dtree._deploy.model_file import ModelFileError, from_dict, to_dict
from dtree._model.other_splits import COMPETITOR, SURROGATE
from dtree.datasets import load_Xy

from reference import all_candidates

# rpart 4.1's summary of rpart(Kyphosis ~ Age + Number + Start, data=kyphosis)
# (tests/Examples/rpart-Ex.Rout.save): per split node (by its sample count), the
# primary split and competitors as (feature, threshold, improve), then the
# surrogates as (feature, threshold, agree, adj). rpart's left son is dtree's
# right child here, so its "< t to the left" is our "<= t goes right".
RPART_KYPHOSIS = {
    81: ([("Start", 8.5, 6.762330), ("Number", 5.5, 2.866795), ("Age", 39.5, 2.250212)],
         [("Number", 6.5, 0.802, 0.158, "right")]),
    62: ([("Start", 14.5, 1.0205280), ("Age", 55, 0.6848635), ("Number", 4.5, 0.2975332)],
         [("Number", 3.5, 0.645, 0.241, "right"), ("Age", 16, 0.597, 0.138, "right")]),
    33: ([("Age", 55, 1.2467530), ("Start", 12.5, 0.2887701), ("Number", 3.5, 0.1753247)],
         [("Start", 9.5, 0.758, 0.333, "left"), ("Number", 5.5, 0.697, 0.167, "right")]),
    21: ([("Age", 111, 1.71428600), ("Start", 12.5, 0.79365080),
          ("Number", 3.5, 0.07142857)], []),
}


def _reloaded(model):
    """The model after a trip through its model file."""
    buf = io.BytesIO()
    model.save(buf)
    buf.seek(0)
    return dtree.load(buf)


def _kyphosis(**params):
    X, y = load_Xy("kyphosis")
    # rpart's default control: minsplit=20, minbucket=round(20/3), maxcompete=4,
    # maxsurrogate=5
    clf = dtree.DecisionTreeClassifier(min_samples_split=20, min_samples_leaf=7,
                                       keep_competitors=4, n_surrogates=5,
                                       random_state=0, **params).fit(X, y)
    return clf, X, y


def test_kyphosis_matches_rpart_summary():
    clf, X, _ = _kyphosis()
    tree, other = clf.tree_, clf.tree_.other_splits
    names = list(X.columns)
    inner = np.flatnonzero(tree.children_left >= 0)
    assert sorted(int(tree.n_node_samples[n]) for n in inner) == sorted(RPART_KYPHOSIS)
    w, imp = tree.weighted_n_node_samples, tree.impurity
    for node in inner:
        primary, surrogates = RPART_KYPHOSIS[int(tree.n_node_samples[node])]
        left, right = tree.children_left[node], tree.children_right[node]
        own = (names[tree.feature[node]], tree.threshold[node],
               w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right])
        rows = [own] + [(names[other.feature[k]], other.threshold[k], other.improvement[k])
                        for k in other.rows(node, COMPETITOR)]
        assert [(n, t) for n, t, _ in rows] == [(n, t) for n, t, _ in primary]
        for (_, _, ours), (_, _, theirs) in zip(rows, primary):
            assert float(f"{ours:.7g}") == pytest.approx(theirs, abs=1e-7)
        kept = other.rows(node, SURROGATE)
        assert len(kept) == len(surrogates)
        for k, (name, t, agree, adj, side) in zip(kept, surrogates):
            assert names[other.feature[k]] == name and other.threshold[k] == t
            assert round(other.improvement[k], 3) == agree
            assert round(other.adj[k], 3) == adj
            # which way "<= t" goes relative to the primary's "<= t" side
            assert ("left" if other.goes_left[k] else "right") == side
    text = clf.summary(file=False)
    assert "improve=6.762330" in text and "agree=0.802, adj=0.158" in text
    assert "Age    <= 16     to the right, agree=0.597, adj=0.138, (0 split)" in text


def _random_node_data(seed, n=300, d=4, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, size=(n, d)).astype(float)
    X[rng.random(X.shape) < 0.08] = np.nan
    if regression:
        y = np.nan_to_num(X[:, 0]) + rng.normal(size=n)
    else:
        y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.normal(scale=3, size=n))
             > 11).astype(int)
    w = rng.integers(1, 4, size=n).astype(float)
    return X, y, w


@pytest.mark.parametrize("regression", [False, True])
def test_competitors_equal_a_brute_force_ranking(regression):
    X, y, w = _random_node_data(3, regression=regression)
    cls = dtree.DecisionTreeRegressor if regression else dtree.DecisionTreeClassifier
    model = cls(max_depth=3, min_samples_leaf=5, keep_competitors=3,
                random_state=0).fit(X, y, sample_weight=w)
    tree, other = model.tree_, model.tree_.other_splits
    criterion = "squared_error" if regression else "gini"
    paths = model.decision_path(X).toarray().astype(bool)
    checked = 0
    for node in np.flatnonzero(tree.children_left >= 0):
        rows = paths[:, node]
        Xn, yn, wn = X[rows], y[rows], w[rows]
        parent = tree.weighted_n_node_samples[node] * tree.impurity[node]
        best = {}
        for score, f, t, _ in all_candidates(Xn, yn, wn, criterion, 2, min_samples_leaf=5):
            if f != tree.feature[node]:
                best[f] = min(best.get(f, math.inf), score)
        ranking = sorted(best, key=lambda f: (best[f], f))[:3]
        kept = other.rows(node, COMPETITOR)
        assert [int(other.feature[k]) for k in kept] == ranking
        for k in kept:
            # (kept in the tree's stored units, like its impurities)
            assert tree.user_decrease(other.improvement[k]) == pytest.approx(
                parent - best[other.feature[k]], rel=1e-9, abs=1e-9)
            assert other.count[k] == np.isnan(Xn[:, other.feature[k]]).sum()
        checked += len(kept)
    assert checked > 5


def test_surrogates_equal_a_brute_force_agreement_count():
    X, y, w = _random_node_data(4, n=400)
    X[:, 2] = np.where(np.isnan(X[:, 0]), X[:, 2], X[:, 0] + (X[:, 2] > 9))  # a close proxy
    clf = dtree.DecisionTreeClassifier(max_depth=3, min_samples_leaf=5, n_surrogates=3,
                                       random_state=0).fit(X, y, sample_weight=w)
    tree, other = clf.tree_, clf.tree_.other_splits
    paths = clf.decision_path(X).toarray().astype(bool)
    checked = 0
    for node in np.flatnonzero(tree.children_left >= 0):
        rows = paths[:, node]
        Xn, wn = X[rows], w[rows]
        primary = Xn[:, tree.feature[node]]
        present = ~np.isnan(primary)
        goes = primary <= tree.threshold[node]
        total = wn[present].sum()
        majority = max(wn[present & goes].sum(), wn[present & ~goes].sum()) / total
        best = {}
        for f in range(X.shape[1]):
            if f == tree.feature[node]:
                continue
            x = Xn[:, f]
            both = present & ~np.isnan(x)
            for t in np.unique(x[both])[:-1] + 0.5:
                low = both & (x <= t)
                high = both & (x > t)
                if low.sum() < 2 or high.sum() < 2:
                    continue
                for low_left in (True, False):
                    agree = wn[low & (goes == low_left)].sum() + \
                        wn[high & (goes != low_left)].sum()
                    if agree / total > best.get(f, (majority, None))[0] + 1e-12:
                        best[f] = (agree / total, t, low_left)
        ranking = sorted(best, key=lambda f: (-best[f][0], f))[:3]
        kept = other.rows(node, SURROGATE)
        assert [int(other.feature[k]) for k in kept] == ranking
        for k in kept:
            agree, t, low_left = best[other.feature[k]]
            assert other.improvement[k] == pytest.approx(agree, rel=1e-12)
            assert other.threshold[k] == t and bool(other.goes_left[k]) == low_left
            assert other.adj[k] == pytest.approx((agree - majority) / (1 - majority))
        checked += len(kept)
    assert checked >= 3


def test_missing_values_follow_the_first_present_surrogate_then_the_majority():
    rng = np.random.default_rng(0)
    n = 600
    a = rng.normal(size=n)
    b = a + rng.normal(scale=0.3, size=n)       # agrees with a
    c = -a + rng.normal(scale=0.5, size=n)      # agrees, the other way round
    X = np.c_[a, b, c]
    y = (a > 0.3).astype(int)
    clf = dtree.DecisionTreeClassifier(max_depth=1, handle_missing="surrogate",
                                       random_state=0).fit(X, y)
    tree, other = clf.tree_, clf.tree_.other_splits
    assert tree.feature[0] == 0
    first, second = other.rows(0, SURROGATE)[:2]
    assert [other.feature[first], other.feature[second]] == [1, 2]
    probe = np.array([[np.nan, -5.0, 0.0],      # b decides: low b -> with a's low side
                      [np.nan, 5.0, 0.0],
                      [np.nan, np.nan, 5.0],     # b missing: c decides (high c = low a)
                      [np.nan, np.nan, -5.0],
                      [np.nan, np.nan, np.nan]])  # all missing: the majority side
    leaves = clf.apply(probe)
    left, right = tree.children_left[0], tree.children_right[0]
    assert list(leaves[:4]) == [left, right, left, right]
    heavier = left if tree.n_node_samples[left] > tree.n_node_samples[right] else right
    assert leaves[4] == heavier
    # the plain rule sends every NaN one way
    plain = dtree.DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    assert len(set(plain.apply(probe).tolist())) == 1
    # and the model file keeps the rule
    loaded = _reloaded(clf)
    np.testing.assert_array_equal(loaded.apply(probe), leaves)
    with pytest.raises(ValueError, match="surrogate"):
        dtree.export.to_onnx(clf)


def test_other_splits_follow_snip_and_pruning():
    clf, X, y = _kyphosis()
    snipped = clf.snip([2])
    other = snipped.tree_.other_splits
    assert set(other.node.tolist()) == {0}
    assert len(other.rows(0, SURROGATE)) == 1
    pruned = dtree.DecisionTreeClassifier(min_samples_split=20, min_samples_leaf=7,
                                          keep_competitors=2, ccp_alpha=0.02,
                                          random_state=0).fit(X, y)
    inner = set(np.flatnonzero(pruned.tree_.children_left >= 0).tolist())
    assert set(pruned.tree_.other_splits.node.tolist()) <= inner


def test_categorical_competitors_and_surrogates_round_trip():
    X, y = load_Xy("titanic")
    X = X.drop(columns=["Name"]).iloc[:600]
    y = y.iloc[:600]
    clf = dtree.DecisionTreeClassifier(max_depth=3, keep_competitors=3,
                                       handle_missing="surrogate",
                                       random_state=0).fit(X, y)
    other = clf.tree_.other_splits
    assert (other.category_set >= 0).any()
    text = dtree.export.export_text(clf)
    assert "(competitors:" in text and "(surrogates:" in text
    dot = dtree.export.export_graphviz(clf)
    assert "(competitors:" in dot and "(surrogates:" in dot
    plain = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    assert "(competitors:" not in dtree.export.export_graphviz(plain)
    loaded = _reloaded(clf)
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    assert loaded.summary(file=False) == clf.summary(file=False)


def _hostile(clf, column, change):
    data = to_dict(clf)
    change(data["tree"]["extra"]["other_" + column])
    return lambda: from_dict(data)


@pytest.mark.parametrize("column, change, message", [
    ("node", lambda v: v.__setitem__(0, 10**6), "split node"),
    ("node", lambda v: v.__setitem__(0, 1), "split node"),          # node 1 is a leaf
    ("feature", lambda v: v.__setitem__(0, 2), "node's own"),       # node 0 splits on Start
    ("feature", lambda v: v.__setitem__(0, 7), "out of range"),
    ("kind", lambda v: v.__setitem__(0, 5), "other_kind"),
    ("adj", lambda v: v.__setitem__(2, 1.5), "adjusted"),
    ("improvement", lambda v: v.__setitem__(0, float("nan")), "finite"),
    ("threshold", lambda v: v.__setitem__(0, float("nan")), "threshold"),
    ("category_set", lambda v: v.__setitem__(0, 0), "threshold"),
    ("count", lambda v: v.__setitem__(0, 10**6), "counts more rows"),
    ("goes_left", lambda v: v.__setitem__(0, 2), "goes_left"),
    ("node", lambda v: v.reverse(), "sorted"),
    ("node", lambda v: v.pop(), "shape|length"),
    ("decided_set", lambda v: v.__setitem__(2, 0), "decided set"),   # on a numeric surrogate
])
def test_hostile_other_splits_are_refused(column, change, message):
    clf, _, _ = _kyphosis()
    with pytest.raises(ModelFileError, match=message):
        _hostile(clf, column, change)()


def test_unsupported_settings_are_refused_clearly():
    X, y = np.random.default_rng(0).normal(size=(50, 3)), np.arange(50) % 2
    for params in ({"splitter": "hist", "keep_competitors": 2},
                   {"splitter": "random", "handle_missing": "surrogate"},
                   {"algorithm": "c4.5", "n_surrogates": 1}):
        with pytest.raises(ValueError, match="exact CART search"):
            dtree.DecisionTreeClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="keep_competitors"):
        dtree.DecisionTreeClassifier(keep_competitors=-1).fit(X, y)


def _category_surrogate(x0, c, y, w=None):
    X = pd.DataFrame({"x0": x0, "c": pd.Series(c, dtype=object)})
    clf = dtree.DecisionTreeClassifier(max_depth=1, n_surrogates=2, random_state=0)
    clf.fit(X, y, sample_weight=w)
    other = clf.tree_.other_splits
    assert clf.tree_.feature[0] == 0
    kept = other.rows(0, SURROGATE)
    if not kept.size:
        return None
    k = kept[0]
    cats = clf.categories_[1]
    left = {str(cats[code]) for code in clf.tree_.left_categories_of(other.category_set[k])}
    return left, other.improvement[k]


def test_category_surrogates_follow_rparts_rule():
    # the root splits x0 at 49.5 (rows 0-49 left); category "a" marks the left rows
    x0 = np.arange(100.0)
    y = (x0 >= 50).astype(int)
    c = np.where(x0 < 50, "a", "b")
    c[[10, 60]] = ["b", "a"]                 # two rows the other way: kept
    left, agree = _category_surrogate(x0, c, y)
    assert left == {"a"} and agree == pytest.approx(0.98)
    c = np.where(x0 < 50, "a", "b")
    c[10] = "b"                              # one disagreeing row: rpart refuses it
    assert _category_surrogate(x0, c, y) is None
    # a category split evenly goes to the majority side (here the right: 40 / 60)
    x0 = np.arange(100.0)
    y = (x0 >= 40).astype(int)
    c = np.where(x0 < 40, "a", "b")
    c[[0, 1, 40, 41]] = "t"                  # "t": two rows each way
    c[[2, 3, 42, 43, 44]] = ["b", "b", "a", "a", "a"]
    left, agree = _category_surrogate(x0, c, y)
    assert left == {"a"}
    # agreeing: a on the left (36), b and t on the right (55 + 2): 93 of 100
    assert agree == pytest.approx(0.93)


def test_summary_of_regressors_and_several_outputs():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(200, 3))
    reg = dtree.DecisionTreeRegressor(max_depth=2, keep_competitors=1,
                                      random_state=0).fit(X, X[:, 0] * 3)
    text = reg.summary(file=False)
    # rpart's anova improve: the share of the node's squared error the split removes
    tree = reg.tree_
    left, right = tree.children_left[0], tree.children_right[0]
    w, imp = tree.weighted_n_node_samples, tree.impurity
    share = (w[0] * imp[0] - w[left] * imp[left] - w[right] * imp[right]) / (w[0] * imp[0])
    assert f"improve={share:#.7g}" in text and "mean=" in text
    clf = dtree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(
        X, np.c_[X[:, 0] > 0, X[:, 1] > 0.5])
    text = clf.summary(file=False)
    assert text.count("predicted class=") == 2 * clf.tree_.node_count


def test_random_configurations_fit_save_and_route_alike():
    # the replay must route every node as growth did (it raises otherwise), under
    # any mix of criteria, limits, pruning, weights, categories and missing values
    rng = np.random.default_rng(7)
    for _ in range(40):
        n, d = int(rng.integers(20, 300)), int(rng.integers(1, 4))
        X = pd.DataFrame(rng.normal(size=(n, d)).round(1), columns=[f"x{i}" for i in range(d)])
        if rng.random() < 0.5:
            X["c"] = pd.Series(rng.choice(list("abcdefgh"), size=n), dtype=object)
        for col in X.columns:
            X.loc[rng.random(n) < 0.15, col] = np.nan
        w = rng.integers(0, 4, size=n).astype(float) + (np.arange(n) == 0)
        params = dict(random_state=0, keep_competitors=int(rng.integers(0, 3)),
                      n_surrogates=int(rng.integers(0, 3)),
                      handle_missing=str(rng.choice(["split", "surrogate"])),
                      max_depth=int(rng.integers(1, 7)),
                      min_samples_leaf=int(rng.integers(1, 6)),
                      max_leaf_nodes=[None, 8][int(rng.integers(0, 2))],
                      ccp_alpha=float(rng.choice([0.0, 0.01])))
        if rng.random() < 0.5:
            y = np.nan_to_num(X["x0"].to_numpy()) ** 2 + rng.random(n)
            model = dtree.DecisionTreeRegressor(
                criterion=str(rng.choice(["squared_error", "absolute_error", "poisson"])),
                keep_leaf_targets=True, **params)
        else:
            y = rng.integers(0, 3, size=n)
            model = dtree.DecisionTreeClassifier(
                criterion=str(rng.choice(["gini", "entropy"])), **params)
        model.fit(X, y, sample_weight=w)
        loaded = _reloaded(model)
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        assert loaded.summary(file=False) == model.summary(file=False)


def test_a_category_its_node_never_held_passes_to_the_next_surrogate():
    # rpart leaves such a category undecided: the next surrogate (then the
    # majority side) decides, in predict and in SQL alike
    x0 = np.arange(200.0)
    y = (x0 >= 100).astype(int)
    c = np.where(x0 < 100, "a", "b").astype(object)
    c[[10, 11, 150, 151]] = ["b", "b", "a", "a"]
    x2 = np.where(x0 < 100, -1.0, 1.0)
    x2[[20, 21, 22, 160, 161, 162]] = [1.0, 1.0, 1.0, -1.0, -1.0, -1.0]
    X = pd.DataFrame({"x0": x0, "c": pd.Series(c, dtype=object), "x2": x2})
    X.loc[[0, 1, 2], "x0"] = np.nan            # (missing values seen at fit)
    clf = dtree.DecisionTreeClassifier(max_depth=1, handle_missing="surrogate",
                                       random_state=0).fit(X, y)
    tree, other = clf.tree_, clf.tree_.other_splits
    kept = other.rows(0, SURROGATE)
    assert [X.columns[other.feature[k]] for k in kept] == ["c", "x2"]
    # "z": a category of the data the root's rows never held, so "c" cannot decide
    clf.categories_[1] = np.append(clf.categories_[1], "z")
    probe = pd.DataFrame({"x0": [np.nan] * 4,
                          "c": pd.Series(["a", "b", "z", "z"], dtype=object),
                          "x2": [5.0, -5.0, -5.0, 5.0]})
    left, right = tree.children_left[0], tree.children_right[0]
    assert clf.apply(probe).tolist() == [left, right, left, right]
    import sqlite3
    con = sqlite3.connect(":memory:")
    probe.to_sql("t", con, index=False)
    rows = con.execute(dtree.export.export_sql(clf, table="t")).fetchall()
    assert [r[0] for r in rows] == clf.predict(probe).tolist()


def test_a_decided_set_must_hold_the_codes_sent_left():
    X = pd.DataFrame({"x0": np.arange(100.0),
                      "c": pd.Series(np.where(np.arange(100) < 50, "a", "b"), dtype=object)})
    X.loc[[10, 11, 60, 61], "c"] = ["b", "b", "a", "a"]
    clf = dtree.DecisionTreeClassifier(max_depth=1, n_surrogates=1, random_state=0).fit(
        X, (np.arange(100) >= 50).astype(int))
    data = to_dict(clf)
    extra = data["tree"]["extra"]
    assert extra["other_decided_set"][0] >= 0
    sets = data["tree"]["category_sets"]
    sets[extra["other_decided_set"][0]] = [0] * len(sets[0])     # decides nothing
    with pytest.raises(ModelFileError, match="decided set"):
        from_dict(data)


# ------------------------------------------ rpart's printed reports, as R prints them
def _kyphosis_rpart():
    X, y = load_Xy("kyphosis")
    return dtree.DecisionTreeClassifier(min_samples_split=20, min_samples_leaf=7,
                                        prune_risk="misclassification", keep_competitors=4,
                                        handle_missing="surrogate", random_state=0).fit(X, y)


def test_print_in_rpart_layout_equals_rpart_on_kyphosis():
    """print(rpart(Kyphosis ~ ., kyphosis)): the same nodes under the same numbers,
    n, loss, class and probabilities (rpart writes Start>=8.5 where dtree's rule
    reads Start>8.5: the same rows)."""
    text = dtree.export_text(_kyphosis_rpart(), layout="rpart")
    rows = [line.split() for line in text.splitlines() if ")" in line and "node)" not in line]
    expected = [("1)", "root", "81", "17", "absent", "0.79012346"),
                ("2)", "Start>8.5", "62", "6", "absent", "0.90322581"),
                ("4)", "Start>14.5", "29", "0", "absent", "1.00000000"),
                ("5)", "Start<=14.5", "33", "6", "absent", "0.81818182"),
                ("10)", "Age<=55", "12", "0", "absent", "1.00000000"),
                ("11)", "Age>55", "21", "6", "absent", "0.71428571"),
                ("22)", "Age>111", "14", "2", "absent", "0.85714286"),
                ("23)", "Age<=111", "7", "3", "present", "0.42857143"),
                ("3)", "Start<=8.5", "19", "8", "present", "0.42105263")]
    assert [tuple(r[:5]) + (r[5].lstrip("("),) for r in rows] == expected
    leaves = [r[0] for r in rows if r[-1] == "*"]
    assert leaves == ["4)", "10)", "22)", "23)", "3)"]


def test_summary_and_printcp_report_what_rpart_reports_on_kyphosis():
    model = _kyphosis_rpart()
    text = model.summary(file=False)
    # summary.rpart: "Variable importance / Start Age Number / 64 24 12"
    block = text.split("Variable importance\n")[1].splitlines()
    assert block[0].split() == ["Start", "Age", "Number"]
    assert block[1].split() == ["64", "24", "12"]
    params = {int(line.split()[2].rstrip(":")): line.split("complexity param=")[1]
              for line in text.splitlines()
              if line.startswith("Node number") and "complexity" in line}
    assert params == {1: "0.1764706", 2: "0.01960784", 5: "0.01960784", 11: "0.01960784"}
    report = model.printcp(file=False)
    assert "Classification tree:" in report and "Root node error: 17/81 = 0.2098765" in report
    assert "Variables actually used in tree construction:\n[1] Age Start" in report
    assert "\nn= 81\n" in report and "rel error" in report


def test_snip_takes_rpart_numbers():
    model = _kyphosis_rpart()
    # snip.rpart(fit, toss = 5): node 5's subtree goes; leaves 4, 5 and 3 remain
    snipped = model.snip(5, numbering="rpart")
    assert snipped.get_n_leaves() == 3
    assert snipped.tree_.node_count == 5
    same = model.snip([model.tree_.children_left[model.tree_.children_right[0]]])
    np.testing.assert_array_equal(same.tree_.feature, snipped.tree_.feature)
    with pytest.raises(ValueError, match="no rpart node 6"):
        model.snip(6, numbering="rpart")
    with pytest.raises(ValueError, match="numbering"):
        model.snip(5, numbering="R")
