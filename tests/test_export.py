"""Exporters and pictures read the tree faithfully."""
import re

import matplotlib
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from sklearn.tree import export_text as sk_export_text

from helpers import tie_free_data

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.export import (export_compact, export_graphviz, export_rules, export_text,
                          plot_decision_boundary, plot_roc, plot_tree, roc_auc, roc_curve)

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def cancer_tree():
    X, y = load_breast_cancer(return_X_y=True)
    return DecisionTreeClassifier(max_depth=4).fit(X, y), X, y


def test_export_text_equals_sklearn_on_the_same_tree():
    X, y = tie_free_data(51, 500, 4, n_classes=3)
    ours = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    theirs = SkClassifier(max_depth=4, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
    for kwargs in ({}, {"max_depth": 2}, {"decimals": 4, "show_weights": True},
                   {"feature_names": ["a", "b", "c", "d"]}):
        assert export_text(ours, **kwargs) == sk_export_text(theirs, **kwargs)
    Xr, yr = tie_free_data(52, 500, 3, regression=True)
    ours = DecisionTreeRegressor(max_depth=3, random_state=0).fit(Xr, yr)
    theirs = SkRegressor(max_depth=3, random_state=0).fit(Xr, yr)
    assert export_text(ours) == sk_export_text(theirs)


def test_compact_form_of_a_depth_4_breast_cancer_tree(cancer_tree):
    clf, _, _ = cancer_tree
    text = export_compact(clf)
    lines = text.splitlines()
    assert len(lines) == clf.tree_.node_count
    assert lines[0] == f"Branch(X{clf.tree_.feature[0]} <= {clf.tree_.threshold[0]:.4g})"
    branch = re.compile(r"^( {4})*Branch\(X\d+ <= -?[0-9.e+-]+\)$")
    leaf = re.compile(r"^( {4})*Leaf\(\d\.\d{3}, \d\.\d{3}\)$")
    assert all(branch.match(line) or leaf.match(line) for line in lines)
    depths = [(len(line) - len(line.lstrip())) // 4 for line in lines]
    assert max(depths) == 4 and depths[0] == 0
    # pre-order: a Branch is followed by its left subtree, one level deeper
    for i, line in enumerate(lines[:-1]):
        if line.strip().startswith("Branch"):
            assert depths[i + 1] == depths[i] + 1


def test_graphviz_source_parses(cancer_tree):
    clf, _, _ = cancer_tree
    dot = export_graphviz(clf, feature_names=[f"f{i}" for i in range(30)], filled=True)
    assert dot.startswith("digraph Tree {") and dot.rstrip().endswith("}")
    nodes = re.findall(r'^(\d+) \[label="([^"]*)", fillcolor="#[0-9a-f]{6}"\] ;$', dot, re.M)
    edges = re.findall(r"^(\d+) -> (\d+)", dot, re.M)
    assert len(nodes) == clf.tree_.node_count
    assert len(edges) == clf.tree_.node_count - 1
    tree = clf.tree_
    for parent, child in edges:
        p, c = int(parent), int(child)
        assert c in (tree.children_left[p], tree.children_right[p])
    assert sorted(int(n) for n, _ in nodes) == list(range(tree.node_count))
    root_label = dict(nodes)["0"]
    assert root_label.startswith(f"f{tree.feature[0]} <= ") and "samples = 569" in root_label
    plain = export_graphviz(clf, filled=False, max_depth=1)
    # below max_depth, scikit-learn's "(...)" stands for each cut subtree
    assert "fillcolor" not in plain and len(re.findall(r" -> ", plain)) == 6
    assert plain.count('[label="(...)"]') == 4


def test_rules_cover_every_leaf_once(cancer_tree):
    clf, X, _ = cancer_tree
    rules = export_rules(clf).splitlines()
    assert len(rules) == clf.get_n_leaves()
    assert sum(int(re.search(r"\[samples (\d+)\]", r).group(1)) for r in rules) == len(X)
    assert all(r.startswith("if ") and " then class = " in r for r in rules)


def test_pictures_render(tmp_path, cancer_tree):
    clf, X, y = cancer_tree
    boxes = plot_tree(clf, filled=True, feature_names=[f"f{i}" for i in range(30)])
    assert len(boxes) == clf.tree_.node_count + 2      # and the root's True / False
    # each box holds export_graphviz's lines
    first = export_graphviz(clf, feature_names=[f"f{i}" for i in range(30)]).split(
        "0 [label=\"")[1].split("\"]")[0]
    assert boxes[0].get_text() == first.replace("\\n", "\n")
    for name, ax in [("tree", boxes[0].axes), ("roc", plot_roc(clf, X, y))]:
        out = tmp_path / f"{name}.png"
        ax.figure.savefig(out)
        assert out.stat().st_size > 5000
    two = DecisionTreeClassifier(max_depth=3).fit(X[:, :2], y)
    ax = plot_decision_boundary(two, X[:, :2], y)
    assert len(ax.patches) == two.get_n_leaves()
    ax.figure.savefig(tmp_path / "boundary.png")
    with pytest.raises(ValueError, match="exactly 2 features"):
        plot_decision_boundary(clf, X[:, :2])
    reg = DecisionTreeRegressor(max_depth=3).fit(X[:, :2], X[:, 2])
    assert len(plot_decision_boundary(reg, X[:, :2], X[:, 2]).patches) == reg.get_n_leaves()


def test_roc_auc_matches_sklearn(cancer_tree):
    clf, X, y = cancer_tree
    scores = clf.predict_proba(X)[:, 1]
    assert roc_auc(y, scores) == pytest.approx(roc_auc_score(y, scores))
    rng = np.random.RandomState(0)
    labels, noisy = rng.randint(0, 2, 300), rng.randint(0, 5, 300).astype(float)
    assert roc_auc(labels, noisy) == pytest.approx(roc_auc_score(labels, noisy))
    fpr, tpr, thresholds = roc_curve(labels, noisy)
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1 and np.isinf(thresholds[0])
    with pytest.raises(ValueError, match="both positive and negative"):
        roc_auc(np.ones(5), np.arange(5.0))


def test_exporters_check_their_arguments(cancer_tree):
    clf, _, _ = cancer_tree
    with pytest.raises(ValueError, match="feature_names must contain 30 elements, got 2"):
        export_text(clf, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="class_names"):
        export_graphviz(clf, class_names=["only one"])
    with pytest.raises(ValueError, match="binary classifier"):
        plot_roc(DecisionTreeRegressor().fit([[0.0], [1.0]], [0.0, 1.0]), [[0.0]], [0])


def test_export_text_spacing_is_scikit_learns():
    sk_tree = pytest.importorskip("sklearn.tree")
    from dtree import DecisionTreeClassifier
    from dtree.export import export_text
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    ours = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    for options in (dict(spacing=1), dict(spacing=5, max_depth=1, show_weights=True),
                    dict(spacing=3, decimals=4)):
        assert export_text(ours, **options) == sk_tree.export_text(theirs, **options)
    with pytest.raises(ValueError, match="spacing must be > 0"):
        export_text(ours, spacing=0)



@pytest.mark.parametrize("options", [
    dict(), dict(filled=True), dict(filled=True, rounded=True, node_ids=True, proportion=True),
    dict(label="root", class_names=True, special_characters=True, leaves_parallel=True),
    dict(label="none", impurity=False, rotate=True, precision=1, max_depth=1, filled=True),
    dict(feature_names=["a", "b", "c"], precision=5, max_depth=0),
    dict(rounded=True, fontname="times")])
def test_export_graphviz_is_scikit_learns_byte_for_byte(options):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 0.5)
    w = rng.integers(1, 4, 300).astype(float)
    pairs = [(DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=w),
              SkClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=w))]
    yr = np.round(X[:, 0] * 3 + X[:, 1])
    pairs.append((DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, yr),
                  SkRegressor(max_depth=3, random_state=0).fit(X, yr)))
    Y = np.c_[(X[:, 0] > 0).astype(int), (X[:, 1] > 0).astype(int) * 2]
    pairs.append((DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, Y),
                  SkClassifier(max_depth=2, random_state=0).fit(X, Y)))
    from sklearn.tree import export_graphviz as sk_export_graphviz
    for ours, theirs in pairs:
        kwargs = dict(options)
        if not hasattr(ours, "classes_"):
            kwargs.pop("class_names", None)
        assert export_graphviz(ours, **kwargs) == sk_export_graphviz(theirs, **kwargs)


def test_export_graphviz_writes_files_and_shows_dtree_extras(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.normal(size=300),
                          "c": pd.Categorical(rng.choice(list("pqr"), 300))})
    frame.loc[rng.random(300) < 0.1, "x"] = np.nan
    y = (frame.c.isin(["p", "r"]) ^ (frame.x > 0)).astype(int)
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(frame, y)
    dot = export_graphviz(clf, show_missing=True)
    # the columns' names by default, as export_text shows them
    assert re.search(r"\bc in \{[pqr](, [pqr])*\}", dot) and "missing: " in dot
    assert "x[" not in dot
    path = tmp_path / "tree.dot"
    assert export_graphviz(clf, out_file=str(path)) is None
    assert path.read_text() == export_graphviz(clf)
    with pytest.raises(ValueError, match="label must be"):
        export_graphviz(clf, label="some")
    with pytest.raises(ValueError, match="precision"):
        export_graphviz(clf, precision=-1)


def test_plot_tree_boxes_read_as_scikit_learns():
    import matplotlib.pyplot as plt
    from sklearn.tree import plot_tree as sk_plot_tree
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    ours = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    theirs = SkClassifier(max_depth=3, random_state=0).fit(X, y)
    for options in (dict(), dict(label="root", node_ids=True, proportion=True, precision=2,
                                 class_names=["no", "yes"], max_depth=1),
                    dict(impurity=False, feature_names=["a", "b", "c"], filled=True)):
        mine = sorted(box.get_text() for box in plot_tree(ours, **options))
        fig, ax = plt.subplots()
        reference = sorted(a.get_text() for a in sk_plot_tree(theirs, ax=ax, **options))
        plt.close(fig)
        assert mine == reference
