"""snip and simplify: hand edits of a fitted tree that keep what they promise."""
import numpy as np
import pytest

import dtree


def _fitted(seed=0, n=2000, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    if regression:
        y = np.round(signal * 2)
        return dtree.DecisionTreeRegressor(min_samples_leaf=5, random_state=0).fit(X, y), X
    y = (signal + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 3] > 1.5)
    return dtree.DecisionTreeClassifier(min_samples_leaf=3, random_state=0).fit(X, y), X


def test_snip_turns_the_given_nodes_into_leaves_and_keeps_the_rest():
    clf, X = _fitted()
    tree = clf.tree_
    internal = np.flatnonzero(tree.children_left >= 0)
    cut = [int(internal[3]), int(internal[10]), int(internal[11])]
    snipped = clf.snip(cut)
    assert clf.tree_.node_count == tree.node_count          # the original is unchanged
    paths = clf.decision_path(X).toarray().astype(bool)
    # each row: the value of the first snipped node on its path, else its own leaf's
    want = clf.predict_proba(X)
    for row in range(X.shape[0]):
        on_path = [node for node in np.flatnonzero(paths[row]) if node in cut]
        if on_path:
            want[row] = tree.value[min(on_path), 0]        # pre-order: the shallowest first
    np.testing.assert_allclose(snipped.predict_proba(X), want)
    # what remains: every node but those below a snipped one
    kept = {node for node in range(tree.node_count)
            if not any(_descends(tree, node, c) for c in cut)}
    assert snipped.tree_.node_count == len(kept)
    with pytest.raises(ValueError, match="node ids"):
        clf.snip([tree.node_count])
    with pytest.raises(ValueError, match="node ids"):
        clf.snip([-1])
    assert clf.snip(0).tree_.node_count == 1                # the root: a one-leaf tree


def _descends(tree, node, ancestor):
    """Whether ``node`` lies below ``ancestor``."""
    stack = [tree.children_left[ancestor], tree.children_right[ancestor]] \
        if tree.children_left[ancestor] >= 0 else []
    while stack:
        k = stack.pop()
        if k == node:
            return True
        if tree.children_left[k] >= 0:
            stack += [tree.children_left[k], tree.children_right[k]]
    return False


@pytest.mark.parametrize("regression", [False, True])
def test_simplify_merges_leaves_without_changing_a_prediction(regression):
    model, X = _fitted(seed=1, regression=regression)
    simpler = model.simplify()
    assert simpler.tree_.node_count < model.tree_.node_count
    rng = np.random.default_rng(5)
    probe = np.vstack([X, rng.normal(scale=3, size=(3000, 4))])
    probe[rng.random(probe.shape) < 0.1] = np.nan
    np.testing.assert_array_equal(simpler.predict(probe), model.predict(probe))
    # nothing is left to merge, and merging again changes nothing
    tree = simpler.tree_
    for node in np.flatnonzero(tree.children_left >= 0):
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.children_left[left] < 0 and tree.children_left[right] < 0:
            same = (np.argmax(tree.value[left, 0]) == np.argmax(tree.value[right, 0])
                    if not regression else tree.value[left, 0, 0] == tree.value[right, 0, 0])
            own = (np.argmax(tree.value[node, 0]) == np.argmax(tree.value[left, 0])
                   if not regression else tree.value[node, 0, 0] == tree.value[left, 0, 0])
            assert not (same and own)
    assert simpler.simplify().tree_.node_count == tree.node_count


def test_edited_models_save_and_load(tmp_path):
    clf, X = _fitted(seed=2)
    edited = clf.snip([1]).simplify()
    edited.save(tmp_path / "edited.dtree")
    loaded = dtree.load(tmp_path / "edited.dtree")
    np.testing.assert_array_equal(loaded.predict(X), edited.predict(X))
