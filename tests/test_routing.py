"""The one routing rule: its description (``node_rule``) walked in Python equals the
compiled routing (apply, surrogates), partial dependence's compiled traversal equals
the numpy one it replaced, and a value that is no category code goes right instead of
reading outside the set."""
import numpy as np
import pytest

import dtree
from dtree._model.routing import bitset, codes_in_set, node_rule
from dtree.inspection import partial_dependence


def _walk(tree, row):
    """The leaf ``row`` reaches by the nodes' rules as data: the first test that
    decides it (feature present; a category surrogate's code among those it
    decides) sends it by its result, else the missing side."""
    node = 0
    while tree.children_left[node] >= 0:
        rule = node_rule(tree, node)
        left = rule.missing_left
        for test in rule.tests:
            x = row[test.feature]
            if np.isnan(x) or (test.decided is not None and int(x) not in test.decided):
                continue
            passes = x <= np.float32(test.threshold) if test.codes is None else \
                int(x) in test.codes
            left = passes == test.passes_left
            break
        node = tree.children_left[node] if left else tree.children_right[node]
    return node


def _mixed_data(seed, n=400):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 5)
    X[:, 1] = rng.randint(0, 6, n)
    X[:, 3] = rng.randint(0, 4, n)
    y = ((X[:, 0] + (X[:, 1] % 3 == 0) + X[:, 2] * (X[:, 3] > 1)) > 1.2).astype(int)
    X[rng.rand(n, 5) < 0.15] = np.nan
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", [{}, {"handle_missing": "surrogate"},
                                    {"handle_missing": "surrogate", "n_surrogates": 1}])
def test_the_compiled_routing_is_the_rule_described(seed, params):
    X, y = _mixed_data(seed)
    clf = dtree.DecisionTreeClassifier(categorical_features=[1, 3], max_depth=6,
                                       random_state=seed, **params).fit(X, y)
    tree = clf.tree_
    assert (tree.categorical_set >= 0).any() and np.isnan(X).any()
    if params:
        assert tree.surrogate_missing and len(tree.other_splits) > 0
    Xt, _ = _mixed_data(seed + 10, n=300)
    X32 = Xt.astype(np.float32)
    expected = [_walk(tree, row) for row in X32]
    np.testing.assert_array_equal(clf.apply(Xt), expected)


def test_a_value_that_is_no_category_code_goes_right():
    X = np.c_[np.arange(40) % 4, np.arange(40)].astype(float)
    y = (X[:, 0] == 2).astype(int)
    clf = dtree.DecisionTreeClassifier(categorical_features=[0], max_depth=1).fit(X, y)
    tree = clf.tree_
    assert tree.categorical_set[0] >= 0
    probe = np.array([[5000.0, 0.0], [-3.0, 0.0], [1e30, 0.0], [2.0, 0.0]], dtype=np.float32)
    leaves = tree.apply(probe)
    assert list(leaves[:3]) == [tree.children_right[0]] * 3
    assert leaves[3] == (tree.children_left[0] if 2 in tree.left_categories(0)
                         else tree.children_right[0])


def test_category_sets_in_python_are_one_bit_test():
    for codes in ([], [0], [63, 64], [5, 700, 1023], list(range(0, 1024, 7))):
        assert codes_in_set(bitset(codes)) == sorted(codes)


def _numpy_recursion(tree, grid, targets, values):
    # the traversal the compiled one replaced, as it was written in numpy
    n_nodes = tree.node_count
    weight = np.zeros((n_nodes, grid.shape[0]))
    weight[0] = 1.0
    out = np.zeros((grid.shape[0], values.shape[1]))
    left, right = tree.children_left, tree.children_right
    position = {f: j for j, f in enumerate(targets)}
    n = tree.weighted_n_node_samples
    for node in range(n_nodes):
        w = weight[node]
        if left[node] < 0:
            out += w[:, None] * values[node][None, :]
            continue
        f = int(tree.feature[node])
        if f in position:
            x = grid[:, position[f]]
            missing = np.isnan(x)
            if tree.categorical_set[node] >= 0:
                inside = np.isin(np.where(missing, -1, x).astype(np.int64),
                                 tree.left_categories(node))
            else:
                inside = x <= tree.threshold[node]
            goes_left = np.where(missing, bool(tree.missing_go_to_left[node]), inside)
            weight[left[node]] = w * goes_left
            weight[right[node]] = w * ~goes_left
        else:
            share = n[left[node]] / n[node] if n[node] > 0 else 0.5
            weight[left[node]] = w * share
            weight[right[node]] = w * (1.0 - share)
    return out


@pytest.mark.parametrize("features", [[0], [1], [0, 3], [2, 1]])
def test_partial_dependence_compiled_equals_the_numpy_traversal(features):
    X, y = _mixed_data(4, n=500)
    reg = dtree.DecisionTreeRegressor(categorical_features=[1, 3], max_depth=7,
                                      random_state=0).fit(X, np.nan_to_num(X[:, 0]) * 2 + y)
    out = partial_dependence(reg, X, features, grid_resolution=12)
    axes = [np.asarray(v, dtype=float) if not reg.categorical_features_[f] else
            np.array([np.nan if c is None else reg.categories_[f].tolist().index(c)
                      for c in v], dtype=float)
            for f, v in zip(features, out["grid_values"])]
    grid = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    grid = np.r_[grid, np.full((1, len(features)), np.nan)].astype(np.float32)
    from dtree.inspection import _recursion
    values = reg.tree_.value[:, 0, :]
    np.testing.assert_array_equal(_recursion(reg.tree_, grid, features, values),
                                  _numpy_recursion(reg.tree_, grid, features, values))


def test_a_value_on_the_threshold_goes_left_everywhere():
    # x <= threshold goes left: dense and CSR apply, paths, predict, and C4.5's
    # fractional routing alike (thresholds of integer features are exact halves)
    import scipy.sparse as sp

    rng = np.random.RandomState(3)
    X = rng.randint(1, 8, size=(200, 3)).astype(float)
    y = (X[:, 0] > 3).astype(int)
    for est in (dtree.DecisionTreeClassifier(max_depth=1, random_state=0),
                dtree.DecisionTreeClassifier(max_depth=1, algorithm="c4.5", pruning="none",
                                             categorical_features=None,
                                             threshold_rule="midpoint")):
        tree = est.fit(X, y).tree_
        f, t = tree.feature[0], tree.threshold[0]
        assert t == 3.5
        on = X[:4].copy()
        on[:, f] = t
        left = tree.children_left[0]
        assert (tree.apply(on.astype(np.float32)) == left).all()
        assert (tree.apply(sp.csr_matrix(on.astype(np.float32))) == left).all()
        assert (est.decision_path(on)[:, left].toarray() == 1).all()
        np.testing.assert_array_equal(est.predict_proba(on),
                                      np.repeat(tree.value[left, 0][None, :], 4, axis=0))
