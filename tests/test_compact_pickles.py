"""Pickles keep a tree's node columns compact (``dtree._model.compact``): the shape
as one bit per node, split-node-only columns, leaf-only counts, compressed; every
column comes back bit for bit and in its dtype, whatever the tree, and a column
that does not derive exactly is kept whole. A damaged record is refused with a
ValueError, never misread."""
import pickle

import numpy as np
import pytest

import dtree
from dtree._model.compact import KEY, READABLE, compact_columns, expand_columns
from dtree._model.tree import Tree
from dtree._route import preorder_shape, sum_children


def _data(n=400, d=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=n) > 0).astype(int)
    return X, y, rng


def _same_columns(a, b):
    for name, column in vars(a).items():
        if name.startswith("_"):
            continue
        other = vars(b)[name]
        if isinstance(column, np.ndarray):
            assert other.dtype == column.dtype, name
            assert other.shape == column.shape, name
            np.testing.assert_array_equal(other, column, err_msg=name)
        elif name not in ("other_splits", "leaf_targets"):
            assert other == column or (other != other and column != column), name


def _fits():
    X, y, rng = _data()
    yr = X[:, 0] * 3 + rng.normal(size=len(X))
    w = rng.rand(len(X))
    Xn = X.copy()
    Xn[rng.rand(*X.shape) < 0.1] = np.nan
    Xc = np.column_stack([rng.randint(0, 7, len(X)), X[:, :3]])
    Y = np.column_stack([y, (X[:, 1] > 0).astype(int) + (X[:, 2] > 1)])
    C = dtree.DecisionTreeClassifier
    R = dtree.DecisionTreeRegressor
    return {
        "classifier": lambda: C(random_state=0).fit(X, y),
        "regressor": lambda: R(random_state=0).fit(X, yr),
        "real weights": lambda: C(random_state=0).fit(X, y, sample_weight=w),
        "whole weights": lambda: C(random_state=0).fit(X, y, sample_weight=rng.randint(0, 4, len(y))),
        "extreme weights": lambda: C(random_state=0).fit(X, y, sample_weight=w * 1e-300),
        "class weight": lambda: C(class_weight="balanced", random_state=0).fit(X, y),
        "best first": lambda: C(max_leaf_nodes=20, random_state=0).fit(X, y),
        "pruned": lambda: C(ccp_alpha=0.01, random_state=0).fit(X, y),
        "missing": lambda: C(random_state=0).fit(Xn, y),
        "surrogates": lambda: C(handle_missing="surrogate", random_state=0).fit(Xn, y),
        "categories": lambda: C(categorical_features=[0], random_state=0).fit(Xc, y),
        "several outputs": lambda: C(random_state=0).fit(X, Y),
        "entropy": lambda: C(criterion="entropy", max_depth=4, random_state=0).fit(X, y),
        "monotonic": lambda: C(monotonic_cst=[1, 0, 0, 0, 0], random_state=0).fit(X, y),
        "c4.5": lambda: C(algorithm="c4.5").fit(X, y),
        "id3": lambda: C(algorithm="id3").fit(np.round(X), y),
        "hist": lambda: R(splitter="hist", random_state=0).fit(X, yr),
        "extra": lambda: dtree.ExtraTreeRegressor(random_state=0).fit(X, yr),
        "single leaf": lambda: C().fit(X, np.zeros(len(y), dtype=int)),
        "forest": lambda: dtree.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y),
    }


FITS = _fits()


@pytest.mark.parametrize("kind", sorted(FITS))
def test_every_column_comes_back_bit_for_bit(kind):
    model = FITS[kind]()
    again = pickle.loads(pickle.dumps(model))
    for ours, theirs in zip(getattr(model, "estimators_", [model]),
                            getattr(again, "estimators_", [again])):
        _same_columns(ours.tree_, theirs.tree_)
        X, *_ = _data()
        if kind == "categories":
            X = np.column_stack([np.arange(len(X)) % 7, X[:, :3]])
        np.testing.assert_array_equal(theirs.predict(X), ours.predict(X))


def _record(model):
    _, n, manifest, _ = model.tree_.__getstate__()[KEY]
    return n, {name: how for name, how, *_ in manifest}


def test_a_forests_tree_keeps_only_what_its_shape_does_not_say():
    X, y, _ = _data(2000)
    forest = dtree.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    n, hows = _record(forest.estimators_[0])
    # (thresholds at their ranges' midpoints left out: a bit per split node says where)
    assert hows == {"shape": "bits", "feature": "inner", "threshold": "midpoints",
                    "threshold_from_range": "bits",
                    "missing_go_to_left": "inner", "categorical_set": "inner",
                    "feature_range": "inner", "n_node_samples": "leaves",
                    "scaled_weighted_n_node_samples": "leaves", "value": "leaves",
                    "scaled_impurity": "from_counts"}
    # a fifth of the 52 bytes a node took in narrow columns (scikit-learn: 80)
    nodes = sum(t.tree_.node_count for t in forest.estimators_)
    assert len(pickle.dumps(forest)) / nodes < 14     # (a small forest: framing counts)
    # entropy is kept as it is (only Gini is computed again)
    entropy = dtree.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
    assert _record(entropy)[1]["scaled_impurity"] == "all"


def test_what_does_not_derive_is_kept_whole():
    X, y, rng = _data()
    # real weights: class counts are no whole numbers; best first: no pre-order
    weighted = dtree.DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=rng.rand(len(y)))
    assert _record(weighted)[1]["value"] == "all"
    best_first = dtree.DecisionTreeClassifier(max_leaf_nodes=30, random_state=0).fit(X, y)
    left = best_first.tree_.children_left
    if np.array_equal(left[left >= 0], np.flatnonzero(left >= 0) + 1):
        pytest.fail("the best-first tree happens to be in pre-order: pick another")
    hows = _record(best_first)[1]
    assert "shape" not in hows and hows["children_left"] == "all"
    assert hows["n_node_samples"] == "all"


def _bump_root_count(state, leaf):
    state["n_node_samples"][0] += 1                     # the root no longer adds up
    return "n_node_samples"


def _bump_leaf_fraction(state, leaf):
    # a leaf's class fraction one ulp off: its count is still whole and adds up,
    # but no longer divides back to the fraction
    at = np.flatnonzero(leaf)[0]
    state["value"][at, 0, 0] = np.nextafter(state["value"][at, 0, 0], 2.0)
    return "value"


def _bump_leaf_filler(state, leaf):
    state["threshold"][np.flatnonzero(leaf)[1]] = 5.0   # leaves no longer share -2.0
    return "threshold"


@pytest.mark.parametrize("bump", [_bump_root_count, _bump_leaf_fraction, _bump_leaf_filler])
def test_a_column_that_does_not_derive_is_kept_whole(bump):
    X, y, _ = _data()
    tree = dtree.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    plain = {k: (v.copy() if isinstance(v, np.ndarray) else v)
             for k, v in vars(tree).items() if not k.startswith("_")}
    name = bump(plain, tree.children_left < 0)
    before = {n: how for n, how, *_ in compact_columns(dict(vars(tree)))[KEY][2]}
    assert before[name] != "all"
    hows = {n: how for n, how, *_ in compact_columns(dict(plain))[KEY][2]}
    assert hows[name] == "all"
    back = expand_columns(compact_columns(dict(plain)))
    np.testing.assert_array_equal(back[name], plain[name])


def test_an_older_narrow_pickle_still_loads():
    X, y, _ = _data()
    tree = dtree.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    state = {k: v for k, v in vars(tree).items() if not k.startswith("_")}
    for name in ("children_left", "children_right", "feature", "n_node_samples", "node_depth"):
        state[name] = state[name].astype(np.int16)
    back = Tree.__new__(Tree)
    back.__setstate__(state)
    _same_columns(tree, back)


def _damaged(tree, change):
    state = tree.__getstate__()
    version, n, manifest, blob = state[KEY]
    state[KEY] = change(version, n, list(manifest), blob)
    return state


@pytest.mark.parametrize("change, message", [
    (lambda v, n, m, b: (READABLE[-1] + 1, n, m, b), "column format"),
    (lambda v, n, m, b: (v, n, m, b[: len(b) // 2]), "Error -5|incomplete|truncated"),
    (lambda v, n, m, b: (v, n + 3, m, b), "cut short|shape|fit"),
    (lambda v, n, m, b: (v, n, m[1:], b), "does not fit|shape|cut short"),
])
def test_a_damaged_record_is_refused(change, message):
    import zlib
    X, y, _ = _data()
    tree = dtree.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    state = _damaged(tree, change)
    with pytest.raises((ValueError, zlib.error), match=message):
        Tree.__new__(Tree).__setstate__(state)


def _reference_shape(is_leaf):
    # recursive pre-order reading, for comparison
    left, right, depth = [], [], []
    n = len(is_leaf)
    left = [-1] * n
    right = [-1] * n
    depth = [0] * n

    def read(i, d):
        if i >= n:
            raise IndexError
        depth[i] = d
        if is_leaf[i]:
            return i + 1
        left[i] = i + 1
        after = read(i + 1, d + 1)
        right[i] = after
        return read(after, d + 1)

    try:
        end = read(0, 0)
    except IndexError:
        return None
    return None if end != n else (left, right, depth)


def test_preorder_shape_reads_every_small_tree_and_refuses_the_rest():
    for n in range(1, 12):
        for bits in range(2 ** n):
            is_leaf = np.array([(bits >> k) & 1 for k in range(n)], dtype=np.uint8)
            ours = preorder_shape(is_leaf)
            ref = _reference_shape(list(is_leaf))
            if ref is None:
                assert ours is None, is_leaf
            else:
                assert ours is not None, is_leaf
                for a, b in zip(ours, ref):
                    np.testing.assert_array_equal(a, b)
    assert preorder_shape(np.zeros(0, dtype=np.uint8)) is None


def test_sum_children_adds_children_first_and_refuses_a_parent_after_them():
    left, right, _ = preorder_shape(np.array([0, 0, 1, 1, 1], dtype=np.uint8))
    column = np.array([[0.0], [0.0], [1.0], [2.0], [4.0]])
    sum_children(column, left, right)
    np.testing.assert_array_equal(column[:, 0], [7, 3, 1, 2, 4])
    with pytest.raises(ValueError, match="after their parent"):
        sum_children(column, np.array([-1, 0, -1, -1, -1]), np.array([-1, 2, -1, -1, -1]))
