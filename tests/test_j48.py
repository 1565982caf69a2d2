"""algorithm="c4.5" against Weka J48's own printed trees (C4.5 release 8 in Java).

``tests/data/j48/<data>.<options>.txt`` are J48's outputs, run by Weka 3.6.14 (the
header of each file says how) on Weka's copies of the data, which dtree ships:
"default" (J48's defaults: pruning with subtree raising), "S" (``-S``: no
subtree raising) and "U" (``-U``: unpruned, still collapsed). Each tree must be
dtree's node for node: every leaf's path, class, cases and errors to J48's two
decimals. The documented conventions:

- J48 prints a leaf for every category of a multiway split, empty ones as
  "(0.0)"; dtree stores no empty leaf (those categories join the last branch),
  so empty leaves are left out and dtree's last branch may name several
  categories.
- Where a leaf's classes tie, J48 names the first in the ARFF's declaration,
  dtree the first in ``classes_`` (sorted, as scikit-learn's).
"""
import re
from pathlib import Path

import numpy as np
import pytest

from dtree import DecisionTreeClassifier
from dtree.datasets import load_Xy

J48 = Path(__file__).parent / "data" / "j48"
DATA = {"labor": "labor", "soybean": "soybean", "credit-g": "credit_g",
        "breast-cancer": "breast_cancer_ljubljana"}
OPTIONS = {"default": {}, "S": {"subtree_raising": False}, "U": {"pruning": "none"}}
_LINE = re.compile(r"(.+?) (=|<=|>) (.+?)(: (.+) \(([\d.]+)(/([\d.]+))?\))?$")


def parse_j48(text):
    """{path: (class, cases, errors)} of J48's printed tree, empty leaves left out."""
    leaves, stack = {}, []
    for line in text.splitlines():
        if line.startswith("#") or not re.match(r"^(\|   )*[^\s|].* (=|<=|>) ", line):
            continue
        depth = line.count("|   ")
        m = _LINE.match(line.replace("|   ", ""))
        name, op, value = m.group(1), m.group(2), m.group(3)
        stack = stack[:depth] + [(name, op, float(value)) if op != "=" else (name, value)]
        if m.group(4) and float(m.group(6)) > 0:
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
            counts = tree.value[node, 0] * w
            tied = {str(c) for c, n in zip(model.classes_, counts)
                    if n >= counts.max() * (1 - 1e-9)}
            out[path] = (tied, round(float(w), 2), round(float(w - counts.max()), 2))
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
    expected = parse_j48((J48 / f"{name}.{options}.txt").read_text())
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
    # soybean's raising makes a leaf for a category its branch had no case of: a
    # new category set, kept by model files; predict reads the new statistics
    import dtree
    X, y = load_Xy("soybean")
    model = DecisionTreeClassifier(algorithm="c4.5").fit(X, y)
    grown = DecisionTreeClassifier(algorithm="c4.5", subtree_raising=False).fit(X, y)
    assert model.tree_.category_sets.shape[0] > grown.tree_.category_sets.shape[0]
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
