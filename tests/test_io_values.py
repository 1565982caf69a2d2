"""Model files: values checked as well as structure, bounded reads, every save loadable."""
import io
import os

import numpy as np
import pytest

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, ModelFileError
from model_files import members, npy, pack, with_header

X = np.arange(40, dtype=float).reshape(20, 2)


@pytest.fixture(scope="module")
def clf():
    return DecisionTreeClassifier(max_depth=3).fit(X, np.arange(20) % 3)


@pytest.fixture(scope="module")
def reg():
    return DecisionTreeRegressor(max_depth=3).fit(X, np.arange(20.0) ** 2)


def _changed(est, name, change):
    parts = members(est)
    array = np.load(io.BytesIO(parts[f"{name}.npy"])).copy()
    change(array)
    parts[f"{name}.npy"] = npy(array)
    return pack(parts)


def _set(index, value):
    def change(array):
        array[index] = value
    return change


@pytest.mark.parametrize("name, change, message", [
    ("value", _set((1, 0, 0), -1.0), r"\[0, 1\]"),
    ("value", _set((1, 0, 0), 1e308), r"\[0, 1\]"),
    ("value", _set((1, 0, 0), np.inf), "non-finite"),
    ("value", lambda a: a.__setitem__((slice(None), 0, 0), 0.9), "sum to 1"),
    ("weighted_n_node_samples", _set(0, 0.0), "positive weighted"),
    ("weighted_n_node_samples", _set(2, -1.0), "positive weighted"),
    ("weighted_n_node_samples", _set(1, 1e6), "weighs more than its parent"),
    ("weighted_n_node_samples", _set(0, np.nan), "non-finite"),
    ("n_node_samples", _set(1, 0), "at least one sample"),
    ("n_node_samples", _set(1, 10**6), "more samples than its parent"),
    ("impurity", _set(0, -0.5), "impurities must be >= 0"),
    ("impurity", _set(0, np.inf), "non-finite"),
])
def test_classifier_values_are_checked(clf, name, change, message):
    with pytest.raises(ModelFileError, match=message):
        dtree.load(_changed(clf, name, change))


@pytest.mark.parametrize("name, change, message", [
    ("value", _set((1, 0, 0), np.inf), "non-finite"),
    ("value", _set((1, 0, 0), np.nan), "non-finite"),
    ("impurity", _set(1, -1.0), "impurities must be >= 0"),
])
def test_regressor_values_are_checked(reg, name, change, message):
    with pytest.raises(ModelFileError, match=message):
        dtree.load(_changed(reg, name, change))


@pytest.mark.parametrize("change, message", [
    (lambda h: h.update(n_features_in=10**9), "categorical_features must list"),
    (lambda h: h.pop("categorical_features"), "categorical_features must list"),
    (lambda h: h.pop("categories"), "categories must list"),
    (lambda h: h.update(weight_unit=0.0), "weight_unit"),
    (lambda h: h.update(weight_unit="1"), "weight_unit"),
    (lambda h: h.update(impurity_exponent=1.5), "impurity_exponent"),
    (lambda h: h.update(impurity_exponent=10**6), "impurity_exponent"),
    (lambda h: h["params"].update(max_bins="abc"), "'max_bins' parameter"),
    (lambda h: h["params"].update(random_state="abc"), "'random_state' parameter"),
    (lambda h: h["params"].update(cv=-3), "'cv' parameter"),
    (lambda h: h["params"].update(max_depth=0), "'max_depth' parameter"),
])
def test_headers_are_checked_before_allocating(reg, change, message):
    with pytest.raises(ModelFileError, match=message):
        dtree.load(with_header(reg, change))


def test_a_classifier_header_cannot_rescale_impurities(clf):
    with pytest.raises(ModelFileError, match="not rescaled"):
        dtree.load(with_header(clf, lambda h: h.update(impurity_exponent=4)))


def test_special_and_oversized_files_are_refused_unread(clf, tmp_path):
    if os.path.exists("/dev/zero"):
        with pytest.raises(ModelFileError, match="not a regular file"):
            dtree.load("/dev/zero")
    path = tmp_path / "m.dtree"
    clf.save(path)
    size = path.stat().st_size
    assert dtree.load(path, max_bytes=size).tree_.node_count == clf.tree_.node_count
    with pytest.raises(ModelFileError, match="max_bytes"):
        dtree.load(path, max_bytes=size - 1)

    class Endless(io.RawIOBase):  # a stream that never ends, like /dev/zero
        served = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            buffer[:] = b"\0" * len(buffer)
            Endless.served += len(buffer)
            return len(buffer)

    with pytest.raises(ModelFileError, match="max_bytes"):
        dtree.load(Endless(), max_bytes=1 << 20)
    assert Endless.served <= (1 << 20) + 1  # read one byte past the limit, no more


@pytest.mark.parametrize("labels", [
    np.array([2**63, 2**64 - 1], dtype=np.uint64),
    np.array([-(2**63), 2**63 - 1], dtype=np.int64),
    np.array([0, 2**63 + 5], dtype=np.uint64),
])
def test_integer_labels_of_any_width_round_trip(labels, tmp_path):
    y = np.resize(labels, 20)
    model = DecisionTreeClassifier().fit(X, y)
    path = tmp_path / "m.dtree"
    model.save(path)
    loaded = dtree.load(path)
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert dtree.from_dict(model.to_dict()).predict(X).tolist() == model.predict(X).tolist()


def _extreme_models():
    rng = np.random.RandomState(0)
    Xr = rng.rand(60, 3)
    Xm = Xr.copy()
    Xm[rng.rand(60) < 0.2, 1] = np.nan
    yc = rng.randint(0, 3, 60)
    yr = rng.rand(60)
    yield DecisionTreeRegressor().fit(Xr, np.where(yr > 0.5, 1.7e308, -1e308) * yr)
    yield DecisionTreeRegressor().fit(Xr, yr * 1e-300)
    yield DecisionTreeClassifier().fit(Xr, yc, sample_weight=np.full(60, 1e300))
    yield DecisionTreeClassifier().fit(Xr, yc, sample_weight=rng.rand(60) * 1e-300)
    yield DecisionTreeClassifier(class_weight={0: 1e200, 1: 1, 2: 1e-100}).fit(Xr, yc)
    yield DecisionTreeClassifier(algorithm="c4.5").fit(np.round(Xm * 3), yc)
    yield DecisionTreeRegressor(splitter="hist", max_leaf_nodes=7).fit(Xm, yr)
    yield DecisionTreeClassifier(ccp_alpha=0.01).fit(Xm, yc)


@pytest.mark.parametrize("model", list(_extreme_models()))
def test_anything_saved_loads_back_the_same(model, tmp_path):
    path = tmp_path / "m.dtree"
    model.save(path)
    for loaded in (dtree.load(path), dtree.from_dict(model.to_dict())):
        a, b = model.tree_, loaded.tree_
        for name in ("feature", "threshold", "value", "scaled_impurity",
                     "scaled_weighted_n_node_samples", "n_node_samples"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        np.testing.assert_array_equal(a.impurity, b.impurity)
        np.testing.assert_array_equal(a.weighted_n_node_samples, b.weighted_n_node_samples)
        np.testing.assert_array_equal(loaded.feature_importances_, model.feature_importances_)


def test_version_1_files_hold_the_users_units(reg):
    data = reg.to_dict()
    data.update(format_version=1, impurity_exponent=99, weight_unit=5.0)  # ignored in v1
    del data["tree"]["extra"]          # (version 4's training ranges)
    data["tree"]["impurity"] = reg.tree_.impurity.tolist()
    data["tree"]["weighted_n_node_samples"] = reg.tree_.weighted_n_node_samples.tolist()
    old = dtree.from_dict(data)
    assert old.tree_.impurity_exponent == 0 and old.tree_.weight_unit == 1.0
    np.testing.assert_allclose(old.tree_.impurity, reg.tree_.impurity)
    np.testing.assert_array_equal(old.predict(X), reg.predict(X))
    np.testing.assert_allclose(old.feature_importances_, reg.feature_importances_)


def test_only_c45_trees_may_hold_empty_leaves():
    # C4.5's empty branches are leaves with no case and weight 0; nowhere else
    # may a node be empty, and never a split node
    from dtree.datasets import load_Xy
    X_, y_ = load_Xy("soybean")
    c45 = DecisionTreeClassifier(algorithm="c4.5").fit(X_, y_)
    tree = c45.tree_
    empty = np.flatnonzero(tree.weighted_n_node_samples == 0)
    assert empty.size and (tree.children_left[empty] == -1).all()
    dtree.load(pack(members(c45)))                       # loads as saved
    inner = int(np.flatnonzero(tree.children_left >= 0)[-1])

    def emptied(array, node=inner):
        array[node] = 0
    for name in ("n_node_samples", "weighted_n_node_samples"):
        with pytest.raises(ModelFileError):
            dtree.load(_changed(c45, name, emptied))
    parts = members(c45)                                 # a split node with no case
    for name in ("n_node_samples", "weighted_n_node_samples"):
        array = np.load(io.BytesIO(parts[f"{name}.npy"])).copy()
        emptied(array)
        parts[f"{name}.npy"] = npy(array)
    with pytest.raises(ModelFileError, match="only a C4.5 tree's leaves"):
        dtree.load(pack(parts))
    # a leaf made empty in one array only is refused too
    leaf = int(np.flatnonzero((tree.children_left == -1) & (tree.n_node_samples > 0))[0])
    with pytest.raises(ModelFileError, match="at least one sample"):
        dtree.load(_changed(c45, "n_node_samples", _set(leaf, 0)))
    # a CART tree (no fractional rule) holds no empty leaf at all
    cart = DecisionTreeClassifier(max_depth=3).fit(X, np.arange(20) % 3)
    leaf = int(np.flatnonzero(cart.tree_.children_left == -1)[0])
    parts = members(cart)
    for name in ("n_node_samples", "weighted_n_node_samples"):
        array = np.load(io.BytesIO(parts[f"{name}.npy"])).copy()
        array[leaf] = 0
        parts[f"{name}.npy"] = npy(array)
    with pytest.raises(ModelFileError, match="at least one sample"):
        dtree.load(pack(parts))
