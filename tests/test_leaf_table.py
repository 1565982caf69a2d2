"""A regression forest pickles its leaf values once (``dtree._model.leaf_table``) and
a tree leaves out the thresholds that are its ranges' midpoints
(``dtree._model.compact``); a forest's model file does the same and stores its
numbers as byte planes (format version 8): every column comes back bit for
bit, the records are smaller, and a damaged record is refused with a
ValueError (a file's with ``ModelFileError``)."""
import copy
import io
import pickle

import numpy as np
import pytest

import dtree
from dtree._model.compact import midpoints
from dtree._model.compact import KEY, TABLE_KEY
from dtree._model.leaf_table import LeafTable, table_codes, table_leaves
from dtree._model.narrow import byte_planes, zigzag
from dtree._model.tree import Tree
from model_files import (arrays, deflated, file_bytes, header_of, plain_arrays,
                         with_header_dict)

COLUMNS = ("value", "impurity", "weighted_n_node_samples", "threshold", "children_left",
           "children_right", "n_node_samples", "feature", "feature_range",
           "missing_go_to_left")


def _data(n=1500, d=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + rng.normal(scale=0.3, size=n)
    return X, y, rng


def _same_trees(a, b):
    assert len(a) == len(b)
    for x, z in zip(a, b):
        assert type(x) is type(z) and x.get_params() == z.get_params()
        for name in COLUMNS:
            u, v = getattr(x.tree_, name), getattr(z.tree_, name)
            assert u.dtype == v.dtype and u.shape == v.shape, name
            assert np.array_equal(u.view(np.uint8), v.view(np.uint8)), name   # bit for bit


def _forests():
    X, y, rng = _data()
    Xn = X.copy()
    Xn[rng.rand(*X.shape) < 0.1] = np.nan
    signed = np.where(rng.rand(len(y)) < 0.5, 0.0, -0.0)     # leaves of 0.0 and of -0.0
    RF, ET = dtree.RandomForestRegressor, dtree.ExtraTreesRegressor
    return {
        "random forest": lambda: RF(n_estimators=5, random_state=0).fit(X, y),
        "extra trees": lambda: ET(n_estimators=5, random_state=0).fit(X, y),
        "missing values": lambda: RF(n_estimators=3, random_state=0).fit(Xn, y),
        "signed zeros": lambda: RF(n_estimators=3, random_state=0).fit(X, signed),
        "targets near 1e300": lambda: RF(n_estimators=3, random_state=0).fit(X, y * 1e300),
        "targets near 1e-300": lambda: RF(n_estimators=3, random_state=0).fit(X, y * 1e-300),
        "absolute error": lambda: RF(n_estimators=3, criterion="absolute_error",
                                     random_state=0).fit(X[:300], y[:300]),
        "depth 3": lambda: RF(n_estimators=4, max_depth=3, random_state=0).fit(X, y),
        "hist": lambda: RF(n_estimators=3, splitter="hist", random_state=0).fit(X, y),
        "weights": lambda: RF(n_estimators=3, random_state=0).fit(
            X, y, sample_weight=rng.rand(len(y))),
    }


def _tree_state(forest, k=0):
    # tree k's pickled state as pickling its forest makes it (the forest offers
    # its table first)
    forest.__getstate__()
    return forest.estimators_[k].tree_.__getstate__()


@pytest.mark.parametrize("name", list(_forests()))
def test_a_regression_forest_comes_back_bit_for_bit_with_its_leaves_in_one_table(name):
    forest = _forests()[name]()
    back = pickle.loads(pickle.dumps(forest))
    assert isinstance(back.estimators_, list)
    _same_trees(forest.estimators_, back.estimators_)
    X = _data()[0]
    np.testing.assert_array_equal(back.predict(X), forest.predict(X))
    # a tree pickled on its own keeps its own leaf values
    alone = pickle.loads(pickle.dumps(forest.estimators_[0]))
    _same_trees(forest.estimators_[:1], [alone])


def test_the_table_makes_a_full_depth_forest_smaller():
    X, y, _ = _data(4000, 8)
    forest = dtree.RandomForestRegressor(n_estimators=8, random_state=0).fit(X, y)
    with_table = len(pickle.dumps(forest))
    without = len(pickle.dumps([forest.estimators_, forest.get_params()]))
    assert with_table < 0.85 * without
    # the trees' leaves really are positions in the table, one array for all
    forest.__getstate__()
    states = [forest.estimators_[k].tree_.__getstate__() for k in range(2)]
    manifest = states[0][KEY][2]
    assert dict((m[0], m[1]) for m in manifest)["value"] == "table"
    assert states[0][TABLE_KEY] is states[1][TABLE_KEY]
    # an offer lasts one pickling: the tree pickled again keeps its own values
    assert TABLE_KEY not in forest.estimators_[0].tree_.__getstate__()


def test_classifiers_and_several_outputs_keep_their_trees_as_a_list():
    X, y, _ = _data()
    classes = dtree.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y > 0)
    outputs = dtree.RandomForestRegressor(n_estimators=3, random_state=0).fit(
        X, np.column_stack([y, -y]))
    for forest in (classes, outputs):
        assert TABLE_KEY not in _tree_state(forest)
        _same_trees(forest.estimators_, pickle.loads(pickle.dumps(forest)).estimators_)


def test_a_forest_pickle_keeps_what_pickle_keeps():
    # the estimators pickle as ever: objects shared stay shared, and a pickle
    # of an unpickled forest is the same bytes
    X, y, _ = _data()
    forest = dtree.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    first = forest.estimators_[0]
    forest.estimators_ = [first, first, forest.estimators_[2]]
    back, alone = pickle.loads(pickle.dumps((forest, first)))
    assert back.estimators_[0] is back.estimators_[1] is alone
    _same_trees(forest.estimators_, back.estimators_)
    again = pickle.loads(pickle.dumps(back))
    assert pickle.dumps(again) == pickle.dumps(back)
    # joblib stores the shared table once too
    joblib = pytest.importorskip("joblib")
    buf = io.BytesIO()
    joblib.dump(back, buf)
    assert len(buf.getvalue()) < 1.2 * len(pickle.dumps(back))


def test_table_codes_are_exact_positions_or_none():
    table = np.unique(np.array([-2.5, -0.0, 0.0, 1.0, 3.0, 7.25]).view(np.int64)).view(np.float64)
    leaves = np.array([3.0, 0.0, -0.0, 7.25, 3.0, -2.5]).reshape(-1, 1, 1)
    codes = table_codes(leaves, table)
    back = table_leaves(codes, table, 6)
    assert np.array_equal(back.view(np.int64), leaves.view(np.int64))      # -0.0 kept
    assert table_codes(np.array([2.0]).reshape(1, 1, 1), table) is None     # not in it
    assert table_codes(np.array([8.0]).reshape(1, 1, 1), table) is None     # past its end
    with pytest.raises(ValueError, match="outside"):
        table_leaves(zigzag(np.array([0, 6])), table, 2)
    with pytest.raises(ValueError, match="outside"):
        table_leaves(zigzag(np.array([-1])), table, 1)
    with pytest.raises(ValueError, match="do not fit"):
        table_leaves(codes, table, 5)
    with pytest.raises(ValueError, match="float64"):
        table_leaves(codes, table.astype(np.float32), 6)


def test_a_tree_whose_leaves_are_in_a_table_needs_the_table():
    X, y, _ = _data()
    forest = dtree.RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    state = _tree_state(forest)
    table = state[TABLE_KEY]
    with pytest.raises(ValueError, match="does not hold"):
        Tree.__new__(Tree).__setstate__({k: v for k, v in state.items() if k != TABLE_KEY})
    with pytest.raises(ValueError, match="does not hold"):
        Tree.__new__(Tree).__setstate__(dict(state, **{TABLE_KEY: table.values}))
    with pytest.raises(ValueError, match="outside"):
        Tree.__new__(Tree).__setstate__(dict(state, **{TABLE_KEY: LeafTable(table.values[:10])}))
    with pytest.raises(ValueError, match="float64"):
        Tree.__new__(Tree).__setstate__(dict(state, **{
            TABLE_KEY: LeafTable(table.values.astype(np.float32))}))
    # the table pickles once, compressed, and comes back bit for bit
    again = pickle.loads(pickle.dumps(table))
    assert np.array_equal(again.values.view(np.int64), table.values.view(np.int64))
    back = Tree.__new__(Tree)
    back.__setstate__(state)
    assert np.array_equal(back.value.view(np.int64),
                          forest.estimators_[0].tree_.value.view(np.int64))


def test_a_thresholds_record_without_its_bits_is_refused():
    X, y, _ = _data()
    tree = dtree.DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    state = tree.__getstate__()
    version, n, manifest, blob = state[KEY]
    hows = dict((m[0], m[1]) for m in manifest)
    assert hows["threshold"] == "midpoints" and hows["threshold_from_range"] == "bits"
    assert version == 3
    # the bits are the record's last entry: dropping them leaves the rest readable
    assert manifest[-1][0] == "threshold_from_range"
    state[KEY] = (version, n, manifest[:-1], blob)
    with pytest.raises(ValueError, match="thresholds and their ranges"):
        Tree.__new__(Tree).__setstate__(state)


def test_thresholds_off_their_ranges_midpoints_are_kept():
    # a depth-limited tree: its split nodes hold many rows, their thresholds lie
    # inside their ranges, so no threshold derives (and no bits are written)
    X, y, _ = _data()
    tree = dtree.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y).tree_
    version, _, manifest, _ = tree.__getstate__()[KEY]
    assert dict((m[0], m[1]) for m in manifest)["threshold"] == "inner" and version == 2
    full = dtree.DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    back = Tree.__new__(Tree)
    back.__setstate__(full.__getstate__())
    assert np.array_equal(back.threshold.view(np.int64), full.threshold.view(np.int64))
    inner = full.children_left >= 0
    pairs = inner & (full.n_node_samples == 2)
    # a pair's threshold is its range's midpoint: the derived ones
    low, high = full.feature_range[pairs].T
    np.testing.assert_array_equal(full.threshold[pairs], low / 2 + high / 2)


# ------------------------------------------------------------------ files
_file, _raw_members, _header, _with_header, _plain = (
    file_bytes, arrays, header_of, with_header_dict, plain_arrays)


def _loads(members):
    buf = io.BytesIO()
    np.savez(buf, **members)
    return dtree.load(io.BytesIO(buf.getvalue()))


def _refused(members, message):
    with pytest.raises(dtree.ModelFileError, match=message):
        _loads(members)


def test_a_forest_file_keeps_leaf_positions_thresholds_from_ranges_and_byte_planes():
    X, y, _ = _data()
    regressor = dtree.RandomForestRegressor(n_estimators=4, random_state=0).fit(X, y)
    classifier = dtree.RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y > 0)
    for forest, table in ((regressor, True), (classifier, False)):
        raw = _file(forest)
        members = _raw_members(raw)
        header = _header(members)
        assert header["format_version"] == 8
        assert ("value_table" in members) == table and ("value_positions" in members) == table
        assert "threshold_from_range" in members and "value_at_leaves" not in members
        planes = header["byte_planes"]
        assert planes["threshold_at_splits"][0] == "<f8"
        assert members["threshold_at_splits"].dtype == np.uint8
        assert "tree_nodes" not in planes       # offsets stay plain
        _same_trees(forest.estimators_, dtree.load(io.BytesIO(raw)).estimators_)
        # and without its planes the file says the same
        _same_trees(forest.estimators_, _loads(_plain(raw)).estimators_)
    # extra trees: no threshold is a midpoint, the leaves still go in the table
    extra = dtree.ExtraTreesRegressor(n_estimators=3, random_state=0).fit(X, y)
    members = _raw_members(_file(extra))
    assert "value_table" in members and "threshold_from_range" not in members
    _same_trees(extra.estimators_, dtree.load(io.BytesIO(_file(extra))).estimators_)


def test_version_8_members_make_a_regression_forest_file_smaller():
    X, y, _ = _data(6000, 8)
    forest = dtree.RandomForestRegressor(n_estimators=6, random_state=0).fit(X, y)
    version_8 = len(_file(forest))
    version_7 = len(deflated(_as_version_7(_plain(_file(forest)))))
    assert version_8 < 0.8 * version_7


def _as_version_7(members):
    # what this release wrote before version 8: the leaf values and every
    # threshold in their own members
    members = dict(members)
    header = _header(members)
    table, codes = members.pop("value_table"), members.pop("value_positions")
    leaf = members["is_leaf"] == 1
    nodes = members["tree_nodes"]
    first = np.concatenate([[0], np.cumsum(leaf)])[nodes]
    values = np.concatenate([table_leaves(codes[a:b], table, b - a)
                             for a, b in zip(first[:-1], first[1:])])
    members["value_at_leaves"] = values
    same = members.pop("threshold_from_range") == 1
    low = members["split_low_at_splits"].astype(np.float32)
    high = members["split_high_at_splits"].astype(np.float32)
    threshold = midpoints(low, high)
    threshold[~same] = members["threshold_at_splits"]
    members["threshold_at_splits"] = threshold
    header["format_version"] = 7
    return _with_header(members, header)


def test_a_version_7_file_still_loads():
    X, y, _ = _data()
    forest = dtree.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    old = _as_version_7(_plain(_file(forest)))
    assert "value_at_leaves" in old and "value_residuals" in old
    _same_trees(forest.estimators_, _loads(old).estimators_)
    # version-8 members in a version-7 file are refused
    header = _header(old)
    _refused(dict(old, value_table=np.zeros(3)), "belong to forest files of format version 8")
    header["byte_planes"] = {}
    _refused(_with_header(old, header), "belong to forest files of format version 8")


def _forest_members():
    X, y, _ = _data()
    forest = dtree.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    return forest, _plain(_file(forest))


def test_hostile_table_and_threshold_members_are_refused():
    forest, members = _forest_members()
    m = dict(members)
    del m["value_table"]
    _refused(m, "come together")
    positions = members["value_positions"].astype(np.int64)
    positions[5] = zigzag(np.array([10 ** 9]))[0]
    _refused(dict(members, value_positions=positions), "outside")
    positions[5] = zigzag(np.array([-(10 ** 9)]))[0]
    _refused(dict(members, value_positions=positions), "outside")
    _refused(dict(members, value_positions=positions[:-1]), "row per leaf")
    _refused(dict(members, value_table=members["value_table"].astype(np.float32)),
             "float64")
    _refused(dict(members, value_table=np.zeros(0)), "non-empty")
    _refused(dict(members, value_at_leaves=np.zeros((int(members["is_leaf"].sum()), 1, 1))),
             "holds no")
    bits = members["threshold_from_range"].copy()
    _refused(dict(members, threshold_from_range=bits[:-1]), "threshold_from_range")
    bits[np.flatnonzero(bits == 0)[0]] = 2
    _refused(dict(members, threshold_from_range=bits), "0 and 1")
    # a node marked whose range is no float32 pair below its threshold
    bits = members["threshold_from_range"].copy()
    marked = np.flatnonzero(bits == 1)[0]
    low = members["split_low_at_splits"].astype(np.float64)
    low[marked] = members["split_high_at_splits"][marked]
    _refused(dict(members, split_low_at_splits=low), "without a float32 range")
    m = dict(members)
    del m["threshold_from_range"]
    _refused(m, "threshold_at_splits")


def test_hostile_byte_planes_are_refused():
    forest, _ = _forest_members()
    raw = _file(forest)
    members = _raw_members(raw)
    header = _header(members)

    def with_planes(change):
        h = copy.deepcopy(header)
        change(h["byte_planes"])
        return _with_header(members, h)

    _refused(with_planes(lambda p: p.__setitem__("nothing", ["<f8", [3]])), "lacks")
    _refused(with_planes(lambda p: p.__setitem__("threshold_at_splits", ["<f16", [3]])),
             "dtype")
    _refused(with_planes(lambda p: p.__setitem__("threshold_at_splits", ["|O", [3]])),
             "dtype")
    _refused(with_planes(lambda p: p["threshold_at_splits"].__setitem__(1, [-1])), "shape")
    _refused(with_planes(lambda p: p["threshold_at_splits"].__setitem__(1, [2 ** 70])),
             "byte planes")
    _refused(with_planes(lambda p: p["threshold_at_splits"].__setitem__(0, "<f4")),
             "byte planes")
    h = dict(header, byte_planes=[1, 2])
    _refused(_with_header(members, h), "must map")
    cut = dict(members, threshold_at_splits=members["threshold_at_splits"][:, :-1])
    _refused(cut, "byte planes")
    # big-endian planes read back as native numbers
    plain = _plain(raw)
    big = {k: v for k, v in plain.items()}
    h = _header(plain)
    h["byte_planes"] = {"threshold_at_splits": [">f8", [int(plain["threshold_at_splits"].shape[0])]]}
    big["threshold_at_splits"] = byte_planes(plain["threshold_at_splits"].astype(">f8"))
    _same_trees(forest.estimators_, _loads(_with_header(big, h)).estimators_)


def test_hostile_members_found_by_review_are_refused():
    forest, members = _forest_members()
    # bits without the thresholds they complete (a whole threshold column instead)
    m = dict(members)
    del m["threshold_at_splits"]
    m["threshold"] = np.full(members["is_leaf"].shape[0], -2.0)
    _refused(m, "needs 'threshold_at_splits'")
    raw = _file(forest)
    parts = _raw_members(raw)
    header = _header(parts)
    for entry in ([["<f8"], [5]], [{"a": 1}, [5]], ["<f8", [1] * 70], ["<f8", []]):
        h = copy.deepcopy(header)
        h["byte_planes"]["value_table"] = entry
        _refused(_with_header(parts, h), "must be")


def test_a_leaf_table_keeps_its_byte_order():
    # a pickle written on a big-endian machine reads back the same numbers here
    values = np.array([-1.5, 0.0, 2.25, 1e300])
    from dtree._model.leaf_table import _unpacked_table
    func, (packed, n, dtype) = LeafTable(values.astype(">f8")).__reduce__()
    assert dtype == ">f8"
    back = func(packed, n, dtype)
    assert back.values.dtype == np.float64
    np.testing.assert_array_equal(back.values, values)
    with pytest.raises(ValueError, match="does not fit"):
        _unpacked_table(packed, n, "<f4")
    with pytest.raises(ValueError, match="does not fit"):
        _unpacked_table(packed, n + 1, dtype)
