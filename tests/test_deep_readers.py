"""Readers of a fitted tree are iterative and linear: trees thousands of levels deep."""
import sys

import numpy as np
import pytest

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.export import (export_compact, export_graphviz, export_rules, export_text,
                          plot_tree)


def chain(depth, regressor=False, descending=False):
    """A model whose tree is a chain: node 2k tests x <= k + 0.5, its left child is a leaf.

    Built through ``from_dict`` (what a model file holds), so no fit has to
    grow it.
    """
    base = (DecisionTreeRegressor() if regressor else DecisionTreeClassifier()).fit(
        [[0.0], [1.0]], [0.0, 1.0] if regressor else [0, 1])
    data = base.to_dict()
    n = 2 * depth + 1
    left = np.full(n, -1)
    right = np.full(n, -1)
    feature = np.full(n, -2)
    threshold = np.full(n, -2.0)
    samples = np.ones(n, dtype=np.int64)
    node_depth = np.zeros(n, dtype=np.int64)
    for k in range(depth):
        node = 2 * k
        left[node], right[node] = node + 1, node + 2
        feature[node], threshold[node] = 0, (depth - k - 0.5) if descending else k + 0.5
        samples[node] = depth + 1 - k
        node_depth[node + 1] = node_depth[node + 2] = k + 1
    samples[n - 1] = 1
    # alternate leaf classes so that no two sibling leaves agree
    is_leaf = left == -1
    leaf_class = np.arange(n) // 2 % 2
    if regressor:
        value = [[[float(c)]] for c in leaf_class]
    else:
        value = [[[1.0 - c, float(c)]] if is_leaf[i] else [[0.5, 0.5]]
                 for i, c in enumerate(leaf_class)]
    data["tree"] = {
        "children_left": left.tolist(), "children_right": right.tolist(),
        "feature": feature.tolist(), "threshold": threshold.tolist(), "value": value,
        "impurity": [0.0 if leaf else 0.5 for leaf in is_leaf],
        "n_node_samples": samples.tolist(), "weighted_n_node_samples": samples.tolist(),
        "node_depth": node_depth.tolist(), "missing_go_to_left": [0] * n,
        "categorical_set": [-1] * n, "category_sets": [],
    }
    return dtree.from_dict(data)


@pytest.mark.parametrize("regressor", [False, True])
def test_text_of_a_tree_deeper_than_the_recursion_limit(regressor):
    depth = sys.getrecursionlimit() + 500
    model = chain(depth, regressor)
    assert model.get_depth() == depth
    text = export_text(model, max_depth=10**7)
    lines = text.splitlines()
    assert len(lines) == 3 * depth + 1  # two headings per split, one line per leaf
    assert lines[-1].startswith("|   " * depth + "|--- ")
    assert "truncated" not in text
    short = export_text(model, max_depth=3).splitlines()
    assert short[-1].endswith(f"truncated branch of depth {depth - 3}")


def test_rules_merge_bounds_so_a_deep_chain_stays_small():
    depth = 30_000
    model = chain(depth)
    rules = export_rules(model).splitlines()
    assert len(rules) == depth + 1 == model.get_n_leaves()
    # every rule tests feature_0 at most twice, however deep its leaf
    assert max(r.count("feature_0") for r in rules) <= 2
    assert rules[0] == "if feature_0 <= 0.50 then class = 0 (proba 1.00) [samples 1]"
    assert rules[5] == "if feature_0 > 4.50 and feature_0 <= 5.50 then class = 1 " \
        "(proba 1.00) [samples 1]"
    # rows missing feature_0 follow every right turn (the larger side) to the last leaf
    assert rules[-1].startswith(
        f"if (feature_0 > {depth - 0.5:.2f} or feature_0 is missing) then")
    assert sum(len(r) for r in rules) < 200 * depth  # linear in the number of leaves


def test_rules_merge_category_sets():
    frame_X = np.array([["a"], ["b"], ["c"], ["d"]] * 10, dtype=object)
    y = np.array([0, 1, 2, 3] * 10)
    model = DecisionTreeClassifier(categorical_features=[0]).fit(frame_X, y)
    rules = export_rules(model, show_missing=False).splitlines()
    assert len(rules) == 4
    for rule in rules:
        # one merged condition per feature: a single allowed category
        assert rule.count("feature_0") == 1
        assert " in {" in rule and "not in" not in rule or "not in {" in rule


def test_other_readers_on_a_deep_chain():
    depth = sys.getrecursionlimit() + 500
    model = chain(depth)
    X = np.arange(depth + 1, dtype=float).reshape(-1, 1)
    np.testing.assert_array_equal(model.predict(X), np.arange(depth + 1) % 2)
    assert model.decision_path(X[:3]).shape == (3, 2 * depth + 1)
    assert export_compact(model).count("Leaf(") == depth + 1
    assert export_graphviz(model).count(" -> ") == 2 * depth
    assert model.feature_importances_.tolist() == [1.0]
    pruned = model.prune(0.0)
    assert pruned.tree_.node_count == model.tree_.node_count


def test_plot_tree_places_a_deep_chain():
    import matplotlib

    matplotlib.use("Agg")
    model = chain(sys.getrecursionlimit() + 100)
    boxes = plot_tree(model, max_depth=5)
    # the nodes down to depth 5, and "(...)" for what lies below
    assert len(boxes) > 5 and any("(...)" in box.get_text() for box in boxes)


def test_rules_keep_the_tightest_bound():
    # a hand-made (model file) tree whose deeper tests are looser: x > 9.5, then x > 8.5
    rules = export_rules(chain(10, descending=True), show_missing=False).splitlines()
    assert rules[0].startswith("if feature_0 <= 9.50 then")
    assert rules[3].startswith("if feature_0 > 9.50 and feature_0 <= 6.50 then")
    assert rules[-1].startswith("if feature_0 > 9.50 then")
