"""A regressor's split nodes kept as residuals (``dtree._model.pooled``): pickles and
forest files keep its leaves' means and impurities and, for each split node, the
difference in bits to what its children give; every number comes back bit for bit,
whatever the criterion, weights and target scale, and only moderate numbers are
kept so (every step of the prediction a normal float64, the same on any machine).
A damaged record or hostile file is refused."""
import io
import json
import pickle
import zipfile

import numpy as np
import pytest

import dtree
from dtree._model.compact import KEY, unzigzag, zigzag
from dtree._model.pooled import residuals, restored
from dtree._model.tree import Tree
from dtree._route import preorder_shape
from model_files import plain_arrays


def _data(n=600, d=4, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + rng.normal(scale=0.3, size=n)
    return X, y, rng


def _same_tree(a, b):
    for name in ("value", "scaled_impurity", "scaled_weighted_n_node_samples", "threshold",
                 "children_left", "children_right", "n_node_samples", "feature"):
        x, z = getattr(a, name), getattr(b, name)
        assert x.dtype == z.dtype and x.shape == z.shape, name
        assert np.array_equal(x.view(np.uint8), z.view(np.uint8)), name   # bit for bit


def _fits():
    X, y, rng = _data()
    R = dtree.DecisionTreeRegressor
    Y = np.column_stack([y, X[:, 2] - y, np.abs(y)])
    return {
        "squared error": lambda: R(random_state=0).fit(X, y),
        "depth 4": lambda: R(max_depth=4, random_state=0).fit(X, y),
        "absolute error": lambda: R(criterion="absolute_error", random_state=0).fit(X, y),
        "poisson": lambda: R(criterion="poisson", random_state=0).fit(X, np.abs(y) + 0.1),
        "weights": lambda: R(random_state=0).fit(X, y, sample_weight=rng.rand(len(y))),
        "tiny weights": lambda: R(random_state=0).fit(X, y,
                                                      sample_weight=rng.rand(len(y)) * 1e-300),
        "huge targets": lambda: R(random_state=0).fit(X, y * 1e300),
        "tiny targets": lambda: R(random_state=0).fit(X, y * 1e-300),
        "scaled targets": lambda: R(random_state=0).fit(X, y * 3e9),
        "several outputs": lambda: R(random_state=0).fit(X, Y),
        "hist": lambda: R(splitter="hist", random_state=0).fit(X, y),
        "single leaf": lambda: R().fit(X, np.ones(len(y))),
        "monotonic": lambda: R(monotonic_cst=[1, 0, 0, 0], random_state=0).fit(X, y),
        "quantile": lambda: R(criterion="quantile", quantile=0.8, random_state=0).fit(X, y),
        "best first": lambda: R(max_leaf_nodes=40, random_state=0).fit(X, y),
        "pruned": lambda: R(ccp_alpha=0.05, random_state=0).fit(X, y),
        "leaf targets": lambda: R(keep_leaf_targets=True, random_state=0).fit(X, y),
        "forest": lambda: dtree.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y),
        "extra trees": lambda: dtree.ExtraTreesRegressor(n_estimators=3, random_state=0).fit(X, y),
    }


FITS = _fits()


def _trees(model):
    return [t.tree_ for t in getattr(model, "estimators_", [model])]


@pytest.mark.parametrize("kind", sorted(FITS))
def test_pickles_and_files_give_every_number_back(kind):
    model = FITS[kind]()
    for again in (pickle.loads(pickle.dumps(model)), _file_round_trip(model)):
        for ours, theirs in zip(_trees(model), _trees(again)):
            _same_tree(ours, theirs)


def _file_round_trip(model):
    buf = io.BytesIO()
    model.save(buf)
    return dtree.load(io.BytesIO(buf.getvalue()))


def _hows(tree):
    _, _, manifest, _ = tree.__getstate__()[KEY]
    return {name: how for name, how, *_ in manifest}


def test_a_regressors_split_nodes_are_residuals_of_a_few_ulps():
    X, y, _ = _data(3000)
    tree = dtree.DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    hows = _hows(tree)
    assert hows["value"] == hows["scaled_impurity"] == "children"
    assert hows["value_residuals"] == hows["impurity_residuals"] == "residuals"
    leaf = tree.children_left < 0
    shape = (tree.children_left, tree.children_right, tree.node_depth)
    value_diff, impurity_diff = residuals(tree.value, tree.scaled_impurity,
                                          tree.scaled_weighted_n_node_samples, shape,
                                          tree.impurity_exponent)
    assert value_diff.shape == ((~leaf).sum(), 1)
    # the children's weighted means and pooled squared errors are the parent's
    # numbers up to rounding: most differences are 0, none large
    assert (value_diff == 0).mean() > 0.5 and np.abs(value_diff).max() < 2 ** 12
    assert (impurity_diff == 0).mean() > 0.5
    assert np.median(np.abs(impurity_diff)) < 16
    # and so a regression forest's pickle is far smaller than its columns' 80 bytes
    forest = dtree.RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    nodes = sum(t.tree_.node_count for t in forest.estimators_)
    assert len(pickle.dumps(forest)) / nodes < 12


def test_numbers_near_float64s_ends_are_kept_whole():
    X, y, _ = _data()
    for scale in (1e300, 1e-300):
        tree = dtree.DecisionTreeRegressor(random_state=0).fit(X, y * scale).tree_
        assert _hows(tree)["value"] == "all", scale
    # the bounds themselves: a subnormal mean, a huge one, a weightless parent
    left, right, depth = preorder_shape(np.array([0, 1, 1], dtype=np.uint8))
    shape = (left, right, depth)
    weight = np.array([2.0, 1.0, 1.0])
    impurity = np.array([0.25, 0.0, 0.0])
    for low, high, ok in ((1.0, 2.0, True), (1e-310, 2e-310, False), (1e100, 2e100, False),
                          (0.0, 2.0, True), (-3.0, 5.0, True)):
        value = np.array([(low + high) / 2, low, high]).reshape(3, 1, 1)
        got = residuals(value, impurity, weight, shape, 0)[0]
        assert (got is not None) == ok, (low, high)
    assert residuals(value, impurity, np.array([0.0, 1.0, 1.0]), shape, 0) == (None, None)
    assert residuals(value, impurity, np.array([2.0, 1e-310, 2.0]), shape, 0) == (None, None)


def test_restored_rebuilds_children_first_in_any_tree():
    rng = np.random.RandomState(3)
    for n_leaves in (1, 2, 3, 17, 200):
        # a random pre-order tree, numbers at its leaves, split nodes from them
        bits = _random_tree(rng, n_leaves)
        left, right, depth = preorder_shape(bits)
        n = bits.shape[0]
        weight = np.zeros(n)
        weight[bits == 1] = rng.randint(1, 9, (bits == 1).sum())
        value = np.zeros((n, 2, 1))
        value[bits == 1] = rng.normal(size=((bits == 1).sum(), 2, 1))
        impurity = np.where(bits == 1, rng.rand(n), 0.0)
        for i in range(n - 1, -1, -1):
            if left[i] >= 0:
                weight[i] = weight[left[i]] + weight[right[i]]
                value[i] = (value[left[i]] * weight[left[i]] + value[right[i]] *
                            weight[right[i]]) / weight[i] * (1 + 1e-15 * rng.randn())
                impurity[i] = rng.rand()
        shape = (left, right, depth)
        value_diff, impurity_diff = residuals(value, impurity, weight, shape, 0)
        v, imp = value.copy(), impurity.copy()
        v[bits == 0] = 99.0
        imp[bits == 0] = -7.0
        restored(v, imp, weight, shape, 0, value_diff, impurity_diff)
        assert np.array_equal(v, value) and np.array_equal(imp, impurity)


def _random_tree(rng, n_leaves):
    # pre-order leaf flags of a random binary tree with n_leaves leaves
    if n_leaves == 1:
        return np.array([1], dtype=np.uint8)
    k = rng.randint(1, n_leaves)
    return np.concatenate([[0], _random_tree(rng, k), _random_tree(rng, n_leaves - k)]
                          ).astype(np.uint8)


def test_zigzag_keeps_every_int64():
    values = np.array([0, -1, 1, -2, 2, 2 ** 62, -2 ** 63, 2 ** 63 - 1, -5], dtype=np.int64)
    np.testing.assert_array_equal(zigzag(values)[:5], [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(unzigzag(zigzag(values)), values)


def test_an_earlier_pickle_format_still_loads():
    """Format 1 laid each array's bytes in order and kept every split node's numbers."""
    import zlib
    from dtree._model import compact
    X, y, _ = _data()
    tree = dtree.DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    state = tree.__getstate__()
    version, n, manifest, blob = state[KEY]
    kept = compact._unpacked(manifest, zlib.decompress(blob))
    kept.pop("value_residuals"), kept.pop("impurity_residuals")
    kept["value"] = ("all", tree.value)
    kept["scaled_impurity"] = ("all", tree.scaled_impurity)
    chunks, old_manifest = [], []
    for name, entry in kept.items():
        data = np.ascontiguousarray(entry[1])
        filler = np.asarray(entry[2]).tolist() if len(entry) > 2 else None
        old_manifest.append((name, entry[0], data.dtype.str, data.dtype.str, data.shape,
                             filler))
        chunks.append(data.tobytes())
    state[KEY] = (1, n, old_manifest, zlib.compress(b"".join(chunks)))
    back = Tree.__new__(Tree)
    back.__setstate__(state)
    _same_tree(tree, back)


def _damaged(change):
    X, y, _ = _data()
    tree = dtree.DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    state = tree.__getstate__()
    version, n, manifest, blob = state[KEY]
    state[KEY] = (version, n, change(list(manifest)), blob)
    return state


def _without(name):
    return lambda manifest: [m for m in manifest if m[0] != name]


def _short(name):
    # the residuals one row short: the rows after them are then misread, so the
    # record is refused one way or another
    return lambda manifest: [m[:4] + ((m[4][0] - 1,) + tuple(m[4][1:]),) + m[5:]
                             if m[0] == name else m for m in manifest]


@pytest.mark.parametrize("change, message", [
    (_without("value_residuals"), "residuals come together"),
    (_without("impurity_residuals"), "residuals come together"),
    (_short("value_residuals"), "do not fit|cut short"),
    (_short("impurity_residuals"), "do not fit|cut short"),
])
def test_a_damaged_residual_record_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        Tree.__new__(Tree).__setstate__(_damaged(change))


# ------------------------------------------------------------------ files
def _members(raw):
    # (byte planes put back: tests edit the numbers themselves)
    return plain_arrays(raw)


def _rezip(members):
    buf = io.BytesIO()
    np.savez(buf, **members)
    return buf.getvalue()


def _header(members):
    return json.loads(members["header"].tobytes())


def _with_header(members, change):
    header = _header(members)
    change(header)
    return dict(members, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))


def _forest_members(cls=dtree.RandomForestRegressor, **fit):
    X, y, _ = _data()
    forest = cls(n_estimators=3, random_state=0).fit(X, y, **fit)
    buf = io.BytesIO()
    forest.save(buf)
    return forest, _members(buf.getvalue())


def test_a_regression_forests_file_keeps_residuals():
    forest, members = _forest_members()
    # (version 8: its leaf values in a table, see test_leaf_table)
    assert _header(members)["format_version"] == 8
    assert {"value_positions", "value_residuals", "impurity_at_leaves",
            "impurity_residuals"} <= set(members)
    assert "value" not in members and "impurity" not in members
    # a classifier's file holds none: a depth-limited one (no threshold derives
    # from its range) stays in version 6
    X, y, _ = _data()
    clf = dtree.RandomForestClassifier(n_estimators=2, max_depth=3,
                                       random_state=0).fit(X, y > 0)
    buf = io.BytesIO()
    clf.save(buf)
    assert _header(_members(buf.getvalue()))["format_version"] == 6
    # and a regression forest with numbers near float64's end keeps them whole
    X, y, _ = _data()
    huge = dtree.RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y * 1e300)
    buf = io.BytesIO()
    huge.save(buf)
    kept = _members(buf.getvalue())
    assert "value" in kept and "value_residuals" not in kept
    _same_tree(huge.estimators_[1].tree_, dtree.load(io.BytesIO(buf.getvalue()))
               .estimators_[1].tree_)


def _refused(members, message):
    with pytest.raises(dtree.ModelFileError, match=message):
        dtree.load(io.BytesIO(_rezip(members)))


def test_hostile_residual_members_are_refused():
    forest, members = _forest_members()
    # the file as written loads
    _same_tree(forest.estimators_[2].tree_,
               dtree.load(io.BytesIO(_rezip(members))).estimators_[2].tree_)
    m = dict(members)
    del m["value_residuals"]
    _refused(m, "come together")
    m = dict(members, impurity_residuals=members["impurity_residuals"][:-1])
    _refused(m, "row per split node")
    m = dict(members, value_residuals=members["value_residuals"].astype(np.float64))
    _refused(m, "int64")
    _refused(_with_header(members, lambda h: h.__setitem__("format_version", 6)),
             "residual members belong")
    _refused(_with_header(members, lambda h: h["trees"][1].__setitem__(
        "impurity_exponent", "2")), "impurity_exponent")
    m = dict(members, value=np.zeros(members["is_leaf"].shape[0]))
    _refused(m, "whole column too")
    # residuals that rebuild numbers the tree checks refuse
    diff = members["value_residuals"].astype(np.int64)
    diff[0] = zigzag(np.array([2 ** 62]))[0]
    _refused(dict(members, value_residuals=diff), "tree 0")


def test_a_file_of_tiny_numbers_loads_where_floating_point_errors_raise():
    X, y, _ = _data()
    forest = dtree.RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y * 1e-200)
    buf = io.BytesIO()
    forest.save(buf)
    with np.errstate(all="raise"):
        again = dtree.load(io.BytesIO(buf.getvalue()))
    _same_tree(forest.estimators_[0].tree_, again.estimators_[0].tree_)
