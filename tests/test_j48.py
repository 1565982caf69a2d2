"""algorithm="c4.5" against Weka J48's own printed trees (C4.5 release 8 in Java).

``tests/data/j48/<data>.<options>.txt`` are J48's outputs, run by Weka 3.6.14 (the
header of each file says how) on Weka's copies of the data, which dtree ships:
"default" (J48's defaults: pruning with subtree raising), "S" (``-S``: no
subtree raising) and "U" (``-U``: unpruned, still collapsed). Each tree must be
dtree's node for node: every leaf's path, class, cases and errors to J48's two
decimals. The documented conventions:

- J48 prints a leaf for every category its ARFF header declares, empty ones as
  "(0.0)"; dtree knows the categories the data has: J48's empty leaves for
  categories the data never has are left out.
- Where a leaf's classes tie, J48 names the first in the ARFF's declaration,
  dtree the first in ``classes_`` (sorted, as scikit-learn's).
"""
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dtree import DecisionTreeClassifier
from dtree.datasets import load_Xy

J48 = Path(__file__).parent / "data" / "j48"
DATA = {"labor": "labor", "soybean": "soybean", "credit-g": "credit_g",
        "breast-cancer": "breast_cancer_ljubljana"}
OPTIONS = {"default": {}, "S": {"subtree_raising": False}, "U": {"pruning": "none"}}
_LINE = re.compile(r"(.+?) (=|<=|>) (.+?)(: (.+) \(([\d.]+)(/([\d.]+))?\))?$")


def parse_j48(text, known=None):
    """{path: (class, cases, errors)} of J48's printed tree; ``known`` ({attribute:
    categories}): an empty leaf of a category not known is left out."""
    leaves, stack = {}, []
    for line in text.splitlines():
        if line.startswith("#") or not re.match(r"^(\|   )*[^\s|].* (=|<=|>) ", line):
            continue
        depth = line.count("|   ")
        m = _LINE.match(line.replace("|   ", ""))
        name, op, value = m.group(1), m.group(2), m.group(3)
        stack = stack[:depth] + [(name, op, float(value)) if op != "=" else (name, value)]
        if not m.group(4):
            continue
        if float(m.group(6)) == 0 and known is not None and op == "=" and \
                value not in known.get(name, ()):
            continue
        leaves[tuple(stack)] = (m.group(5), float(m.group(6)), float(m.group(8) or 0))
    return leaves


def dtree_leaves(model):
    """{path: (tied classes, cases, errors)} of a C4.5 tree, each cascade read as its k
    branches; a last branch names every category the cascade's links leave to it."""
    tree, names = model.tree_, list(model.feature_names_in_)
    out = {}
    todo = [(0, (), ())]
    while todo:
        node, path, taken_before = todo.pop()
        if tree.children_left[node] == -1:
            w = tree.weighted_n_node_samples[node]
            value = tree.value[node, 0]
            tied = {str(c) for c, v in zip(model.classes_, value) if v >= value.max() * (1 - 1e-9)}
            out[path] = (tied, round(float(w), 2), round(float(w * (1 - value.max())), 2))
            continue
        f = tree.feature[node]
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.categorical_set[node] < 0:
            t = float(tree.threshold[node])
            todo.append((left, path + ((names[f], "<=", t),), ()))
            todo.append((right, path + ((names[f], ">", t),), ()))
            continue
        cats = [str(c) for c in model.categories_[f]]
        taken = tuple(cats[c] for c in tree.left_categories(node))
        todo.append((left, path + ((names[f],) + taken,), ()))
        if tree.children_left[right] != -1 and tree.feature[right] == f and \
                tree.categorical_set[right] >= 0:
            todo.append((right, path, taken_before + taken))      # the cascade goes on
        else:
            rest = tuple(c for c in cats if c not in taken + taken_before)
            todo.append((right, path + ((names[f],) + rest,), ()))
    return out


def _known(model):
    return {n: {str(c) for c in cats} for n, cats in
            zip(model.feature_names_in_, model.categories_) if cats is not None}


def _same_test(j48, ours):
    if j48[0] != ours[0]:
        return False
    if len(j48) == 3:
        # (J48 prints thresholds to a few decimals; dtree keeps float32 values)
        return len(ours) == 3 and j48[1] == ours[1] and abs(j48[2] - ours[2]) < 1e-6 * max(1.0, abs(j48[2]))
    return len(ours) >= 2 and ours[1] != "<=" and ours[1] != ">" and j48[1] in ours[1:]


def unmatched(j48, ours):
    """J48's leaves with no dtree leaf of the same tests, class, cases and errors, and
    dtree's leaves left over (each dtree leaf matches one J48 leaf)."""
    left = dict(ours)
    missing = []
    for path, (label, n, e) in j48.items():
        for p, (tied, m, f) in left.items():
            if (len(p) == len(path) and (m, f) == (n, e) and label in tied
                    and all(any(_same_test(a, b) for b in p) for a in path)):
                del left[p]
                break
        else:
            missing.append((path, (label, n, e)))
    return missing, left


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("name", list(DATA))
def test_c45_grows_j48s_tree(name, options):
    X, y = load_Xy(DATA[name], dtype=str) if name == "breast-cancer" else load_Xy(DATA[name])
    model = DecisionTreeClassifier(algorithm="c4.5", **OPTIONS[options]).fit(X, y)
    expected = parse_j48((J48 / f"{name}.{options}.txt").read_text(), _known(model))
    assert len(expected) >= 2
    missing, extra = unmatched(expected, dtree_leaves(model))
    assert missing == [] and extra == {}


def test_raising_is_what_makes_j48s_labor_tree():
    # J48's labor leaves (10.77/4.77) and (30.96/1.0) come from raising the
    # statutory-holidays subtree over longterm-disability-assistance: the cases
    # of its other branch are redistributed, fractional ones included
    X, y = load_Xy("labor")
    raised = DecisionTreeClassifier(algorithm="c4.5").fit(X, y)
    leaves = dtree_leaves(raised)
    assert sorted((n, e) for _, n, e in leaves.values()) == [
        (10.77, 4.77), (15.27, 2.27), (30.96, 1.0)]
    # the raised tree is no subtree of the grown one: its counts are new
    grown = DecisionTreeClassifier(algorithm="c4.5", pruning="none").fit(X, y)
    assert not {(n, e) for _, n, e in leaves.values()} <= \
        {(n, e) for _, n, e in dtree_leaves(grown).values()}
    assert np.isclose(raised.tree_.weighted_n_node_samples[0], 57.0)


def test_subtree_raising_needs_pessimistic_pruning():
    X, y = load_Xy("labor")
    for pruning in ("none", "reduced_error"):
        with pytest.raises(ValueError, match="subtree_raising=True needs pruning='pessimistic'"):
            DecisionTreeClassifier(algorithm="c4.5", pruning=pruning,
                                   subtree_raising=True).fit(X, y)
    with pytest.raises(ValueError, match="subtree_raising"):
        DecisionTreeClassifier(algorithm="c4.5", subtree_raising="yes").fit(X, y)


def test_a_raised_tree_round_trips_and_predicts_its_own_leaves(tmp_path):
    # soybean's raising fills an empty leaf (stem-cankers = below-soil: J48's
    # rhizoctonia-root-rot (19.0)); model files keep the new statistics
    import dtree
    X, y = load_Xy("soybean")
    model = DecisionTreeClassifier(algorithm="c4.5").fit(X, y)
    grown = DecisionTreeClassifier(algorithm="c4.5", subtree_raising=False).fit(X, y)

    def below_soil(m):
        return sorted((n, e) for p, (_, n, e) in dtree_leaves(m).items()
                      if ("stem-cankers", "below-soil") in p)
    assert (0.0, 0.0) in below_soil(grown) and (19.0, 0.0) in below_soil(model)
    path = tmp_path / "soybean.dtree"
    model.save(path)
    again = dtree.load(path)
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    # rows without missing values reach one leaf, whose training counts hold them
    complete = ~X.isna().any(axis=1).to_numpy()
    leaves = model.apply(X[complete])
    w = np.bincount(leaves, minlength=model.tree_.node_count)
    assert (model.tree_.weighted_n_node_samples[np.unique(leaves)] >=
            w[np.unique(leaves)] - 1e-9).all()


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("name", list(DATA))
def test_leaves_and_depth_count_c45s_nodes(name, options):
    # get_n_leaves is J48's "Number of Leaves" and the k-way size its "Size of the
    # tree", empty leaves included, less one for each empty leaf whose category the
    # data never has (J48 knows it from the ARFF header; dtree only what it saw)
    X, y = load_Xy(DATA[name], dtype=str) if name == "breast-cancer" else load_Xy(DATA[name])
    model = DecisionTreeClassifier(algorithm="c4.5", **OPTIONS[options]).fit(X, y)
    text = (J48 / f"{name}.{options}.txt").read_text()
    leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", text).group(1))
    size = int(re.search(r"Size of the tree\s*:\s*(\d+)", text).group(1))
    known = _known(model)
    empty = [re.match(r"(.+?) = (.+?): .+ \(0\.0\)$", line.replace("|   ", ""))
             for line in text.splitlines() if line.endswith("(0.0)")]
    unseen = sum(1 for m in empty if m.group(2) not in known[m.group(1)])
    assert model.get_n_leaves() == leaves - unseen
    assert model._kway_shape()[2] == size - unseen
    # depth: the deepest printed line's level
    depth = max(line.count("|   ") + 1 for line in text.splitlines()
                if re.match(r"^(\|   )*[^\s|#].* (=|<=|>) ", line))
    assert model.get_depth() == depth
    assert model.tree_.max_depth >= depth


def test_id3_play_tennis_has_the_textbook_depth():
    from dtree.datasets import load
    frame = load("play_tennis")
    model = DecisionTreeClassifier(algorithm="id3").fit(frame.drop(columns="PlayTennis"),
                                                         frame["PlayTennis"])
    assert model.get_depth() == 2 < model.tree_.max_depth
    assert model.get_n_leaves() == model.tree_.n_leaves == 5


def _tree_lines(text, known=None):
    """J48-layout lines as a multiset (siblings' order is the header's in J48, sorted
    in dtree): the class of a two-way tie and of an empty leaf blanked (the leaf
    tests above compare them), empty leaves of categories the data never has left
    out."""
    from collections import Counter
    out = Counter()
    for line in text.splitlines():
        if line.startswith("#") or not re.match(r"^(\|   )*[^\s|].* (=|<=|>|!=) ", line):
            continue
        m = re.match(r"^(.*?): (.+) \(([\d.]+)(/([\d.]+))?\)$", line)
        if m and known is not None and m.group(3) == "0.0":
            test = re.match(r"(.+?) = (.+)$", m.group(1).replace("|   ", ""))
            if test and test.group(2) not in known.get(test.group(1), ()):
                continue
        if m and m.group(5) and abs(float(m.group(3)) - 2 * float(m.group(5))) < 1e-9:
            line = f"{m.group(1)}: ? ({m.group(3)}/{m.group(5)})"
        elif m and m.group(3) == "0.0":   # its parent's class, which may tie (checked above)
            line = f"{m.group(1)}: ? (0.0)"
        out[line] += 1
    return out


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("name", list(DATA))
def test_export_text_prints_j48s_layout(name, options):
    from dtree.export import export_text
    X, y = load_Xy(DATA[name], dtype=str) if name == "breast-cancer" else load_Xy(DATA[name])
    model = DecisionTreeClassifier(algorithm="c4.5", **OPTIONS[options]).fit(X, y)
    ours = export_text(model, layout="j48")
    theirs = (J48 / f"{name}.{options}.txt").read_text()
    assert _tree_lines(ours) == _tree_lines(theirs, _known(model))
    leaves = re.search(r"Number of Leaves  : \t(\d+)", ours).group(1)
    assert int(leaves) == model.get_n_leaves()


def test_j48_layout_refuses_what_j48_cannot_print():
    from dtree import DecisionTreeRegressor
    from dtree.export import export_text
    X, y = load_Xy("labor")
    with pytest.raises(ValueError, match="layout must be"):
        export_text(DecisionTreeClassifier().fit(X, y), layout="weka")
    with pytest.raises(ValueError, match="classifier"):
        export_text(DecisionTreeRegressor().fit(X.select_dtypes("number").fillna(0),
                                                np.arange(len(X))), layout="j48")


def _binary_leaves(model, X, text=None):
    """{(training rows a leaf's tests pass (rows missing a tested value left out),
    cases): (classes, errors)}. Two paths that split the same cases match, however
    they name their categories (J48 names a split by its first category in the
    ARFF header, dtree by its first code)."""
    columns = {n: X[n].to_numpy() for n in model.feature_names_in_}

    def rows(path):
        keep = np.ones(len(X), dtype=bool)
        for name, op, value in path:
            col = columns[name]
            if op in ("<=", ">"):
                x = col.astype(float)
                keep &= (x <= value + 1e-9) if op == "<=" else (x > value + 1e-9)
                continue
            known = ~pd.isna(col)
            inside = np.isin(col.astype(str), list(value)) & known
            keep &= inside if op == "=" else (known & ~inside)
        return frozenset(np.flatnonzero(keep).tolist())

    out = {}
    if text is not None:
        stack = []
        for line in text.splitlines():
            if line.startswith("#") or not re.match(r"^(\|   )*[^\s|].* (=|<=|>|!=) ", line):
                continue
            depth = line.count("|   ")
            m = re.match(r"(.+?) (!=|=|<=|>) (.+?)(: (.+) \(([\d.]+)(/([\d.]+))?\))?$",
                         line.replace("|   ", ""))
            name, op, value = m.group(1), m.group(2), m.group(3)
            test = (name, op, float(value)) if op in ("<=", ">") else (name, op, (value,))
            stack = stack[:depth] + [test]
            if m.group(4) and float(m.group(6)) > 0:
                out[rows(stack), float(m.group(6))] = ({m.group(5)}, float(m.group(8) or 0))
        return out
    tree, names = model.tree_, list(model.feature_names_in_)
    todo = [(0, ())]
    while todo:
        node, path = todo.pop()
        if tree.children_left[node] == -1:
            w = tree.weighted_n_node_samples[node]
            value = tree.value[node, 0]
            if w > 0:
                tied = {str(c) for c, v in zip(model.classes_, value)
                        if v >= value.max() * (1 - 1e-9)}
                out[rows(path), round(float(w), 2)] = (tied,
                                                       round(float(w * (1 - value.max())), 2))
            continue
        f = tree.feature[node]
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.categorical_set[node] < 0:
            t = float(tree.threshold[node])
            todo += [(left, path + ((names[f], "<=", t),)), (right, path + ((names[f], ">", t),))]
        else:
            taken = tuple(str(model.categories_[f][c]) for c in tree.left_categories(node))
            todo += [(left, path + ((names[f], "=", taken),)),
                     (right, path + ((names[f], "!=", taken),))]
    return out


def _j48_extra_errors(n, e, cf):
    """Weka J48's ``Stats.addErrs`` (a reference for the tests): C4.5's rule but
    the deviate from the inverse normal and ``N - e`` at the high end."""
    from statistics import NormalDist
    if n <= 0:
        return 0.0
    if e < 1:
        base = n * (1 - cf ** (1 / n))
        return base if e == 0 else base + e * (_j48_extra_errors(n, 1.0, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) \
        / (1 + z * z / n)
    return r * n - e


def _in_header_order(X, y, name):
    """Categories and classes renamed ("03~norm") so that sorted order, dtree's, is the
    ARFF header's, J48's: ties between categories go the same way."""
    lines = (J48 / "declared_categories.json").read_text().splitlines()
    declared = json.loads("\n".join(line for line in lines if not line.startswith("#")))[name]
    X = X.copy()
    for column, values in declared.items():
        rename = {v: f"{i:02d}~{v}" for i, v in enumerate(values)}
        if column in X.columns:
            X[column] = X[column].map(lambda v: rename.get(v, v))
        else:
            y = y.map(rename)
    return X, y


@pytest.mark.parametrize("options", ["B", "BU", "BS"])
@pytest.mark.parametrize("name", list(DATA))
def test_one_vs_rest_splits_grow_j48s_binary_tree(name, options, monkeypatch):
    # J48 -B: a categorical split sends one category against the rest. Given J48's
    # order of categories and classes (its ARFF header's) and J48's AddErrs
    # constants, the trees are J48's, classes included
    import dtree._fit.c45_pruning as c45_pruning
    from dtree.export import export_text
    X, y = load_Xy(DATA[name], dtype=str) if name == "breast-cancer" else load_Xy(DATA[name])
    kw = {"B": {}, "BU": {"pruning": "none"}, "BS": {"subtree_raising": False}}[options]
    Xh, yh = _in_header_order(X, y, name)
    text = (J48 / f"{name}.{options}.txt").read_text()
    with monkeypatch.context() as m:
        m.setattr(c45_pruning, "extra_errors", _j48_extra_errors)
        model = DecisionTreeClassifier(algorithm="c4.5", category_splits="one_vs_rest",
                                       **kw).fit(Xh, yh)
    ours = re.sub(r"\d\d~", "", export_text(model, layout="j48"))
    reader = DecisionTreeClassifier(algorithm="c4.5", max_depth=1).fit(X, y)
    theirs, mine = _binary_leaves(reader, X, text), _binary_leaves(reader, X, ours)
    assert len(theirs) >= 2 and theirs == mine
    assert model.get_depth() == model.tree_.max_depth     # binary: no k-way reading
    # with C4.5's own AddErrs, unpruned and replacement-only trees are the same; only
    # raising decides differently, at a node or two of credit-g and soybean
    own = DecisionTreeClassifier(algorithm="c4.5", category_splits="one_vs_rest",
                                 **kw).fit(Xh, yh)
    mine = _binary_leaves(reader, X, re.sub(r"\d\d~", "", export_text(own, layout="j48")))
    differing = len(set(theirs) ^ set(mine))
    if options == "B" and name in ("credit-g", "soybean"):
        assert 0 < differing <= 6
    else:
        assert differing == 0


def test_category_splits_a_preset_does_not_grow_are_refused():
    X, y = load_Xy("labor")
    for algorithm, shape in [("cart", "multiway"), ("id3", "subsets"), ("c4.5", "subsets"),
                             ("id3", "one_vs_rest")]:
        with pytest.raises(ValueError, match=f"algorithm='{algorithm}' does not grow "
                                             f"category_splits='{shape}'"):
            DecisionTreeClassifier(algorithm=algorithm, category_splits=shape).fit(X, y)
    with pytest.raises(ValueError, match="category_splits"):
        DecisionTreeClassifier(category_splits="binary").fit(X, y)


@pytest.mark.parametrize("name", list(DATA))
def test_reduced_error_pruning_grows_j48s_tree(name):
    # J48 -R -N 3: one of 3 folds (Weka's stratified fold, the last) held out, the
    # tree grown on the rest, uncollapsed, and pruned k-way node by node on the
    # held-out cases; given J48's order of categories and classes, J48's tree
    from dtree.export import export_text
    X, y = load_Xy(DATA[name], dtype=str) if name == "breast-cancer" else load_Xy(DATA[name])
    Xh, yh = _in_header_order(X, y, name)
    model = DecisionTreeClassifier(algorithm="c4.5", pruning="reduced_error",
                                   validation_fraction=1 / 3).fit(Xh, yh)
    ours = re.sub(r"\d\d~", "", export_text(model, layout="j48"))
    reader = DecisionTreeClassifier(algorithm="c4.5", max_depth=1).fit(X, y)
    theirs = _binary_leaves(reader, X, (J48 / f"{name}.RN3.txt").read_text())
    assert len(theirs) >= 3 and theirs == _binary_leaves(reader, X, ours)
    # two thirds of the cases grew it
    assert model.tree_.weighted_n_node_samples[0] == pytest.approx(len(X) - round(len(X) / 3),
                                                                     abs=1)


def test_j48_folds_need_a_fraction_of_one_over_n():
    X, y = load_Xy("labor")
    for fraction in (0.3, 0.6):
        with pytest.raises(ValueError, match="validation_fraction must be 1/N"):
            DecisionTreeClassifier(algorithm="c4.5", pruning="reduced_error",
                                   validation_fraction=fraction).fit(X, y)
    from dtree._fit.sampling import j48_prune_fold
    # Weka's stratify by hand: its swaps group the classes as 0 2 4 6 8 | 5 3 7 1,
    # dealt round-robin into 3 folds: 0 6 3 | 2 8 7 | 4 5 1; the last fold is held out
    held = j48_prune_fold(np.array([0, 1, 0, 1, 0, 1, 0, 1, 0]), 3)
    assert np.flatnonzero(held).tolist() == [1, 4, 5]


def test_held_out_cases_missing_a_value_are_shared_by_the_training_shares():
    # J48's reduced-error pruning routes a held-out case missing the split's value
    # by the training cases' shares of the branches (not the held-out ones')
    from dtree._fit.c45_pruning import MultiwayView
    from dtree._input.encode import encode_predict_X
    X, y = load_Xy("labor")
    model = DecisionTreeClassifier(algorithm="c4.5", pruning="none").fit(X, y)
    tree = model.tree_
    view = MultiwayView(tree, None, None, None, multiway=True)
    held = np.ascontiguousarray(encode_predict_X(model, X.iloc[:3]), dtype=np.float32)
    held[:, tree.feature[0]] = [np.nan, 1.0, 1.0]       # one missing, two known (left)
    parts = view.split(view.root, np.arange(3), np.ones(3), held, training_shares=True)
    training = np.array([c.total for c in view.root.children])
    shared = [w[r == 0].sum() for r, w in parts]
    np.testing.assert_allclose(shared, training / training.sum())
    # by the held-out cases' own shares, the known two would send it all left
    own = view.split(view.root, np.arange(3), np.ones(3), held)
    assert [w[r == 0].sum() for r, w in own] == [1.0, 0.0]
