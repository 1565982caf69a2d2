"""Model files: round trips, and every kind of bad file refused without harm."""
import io
import json
import pickle
import zipfile

import joblib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, ModelFileError
from dtree.datasets import load
from model_files import members, npy, pack, with_header


@pytest.fixture(scope="module")
def models():
    frame = load("california_housing").drop(columns=["ocean_proximity"]).dropna()
    y_reg = frame.pop("median_house_value").to_numpy()
    reg = DecisionTreeRegressor(max_depth=12).fit(frame, y_reg)
    titanic = load("titanic")
    X = titanic[["Pclass", "SibSp", "Parch", "Fare"]]
    y = np.where(titanic["Survived"] == 1, "survived", "died")
    clf = DecisionTreeClassifier(min_samples_leaf=3, class_weight="balanced").fit(X, y)
    return [(clf, X), (reg, frame)]


def _same(a, b, X):
    if hasattr(a, "predict_proba"):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.apply(X), b.apply(X))
    np.testing.assert_array_equal(a.feature_importances_, b.feature_importances_)


def test_save_load_round_trip(models, tmp_path):
    for est, X in models:
        path = tmp_path / "model.dtree"
        est.save(path)
        back = dtree.load(path)
        assert type(back) is type(est)
        _same(est, back, X)
        assert back.get_params() == est.get_params()
        assert list(back.feature_names_in_) == list(est.feature_names_in_)
        buffer = io.BytesIO()
        est.save(buffer)
        buffer.seek(0)
        _same(est, dtree.load(buffer), X)


def test_dict_round_trip_is_json(models):
    for est, X in models:
        data = json.loads(json.dumps(est.to_dict()))
        # version 4: every fit records its splits' training ranges
        assert data["format"] == "dtree-model" and data["format_version"] == 4
        assert data["dtree_version"] == dtree.__version__
        _same(est, dtree.from_dict(data), X)


def test_labels_of_each_kind_survive(tmp_path):
    X = np.arange(12, dtype=float).reshape(6, 2)
    for labels in (np.array([True, False] * 3), np.array([3, 1, 2] * 2),
                   np.array([1.0, 2.0] * 3), np.array(["a", "b", "c"] * 2)):
        est = DecisionTreeClassifier().fit(X, labels)
        back = dtree.from_dict(est.to_dict())
        assert back.classes_.dtype.kind == est.classes_.dtype.kind
        np.testing.assert_array_equal(back.predict(X), est.predict(X))


def test_pickle_and_joblib_mmap(models, tmp_path):
    for est, X in models:
        _same(est, pickle.loads(pickle.dumps(est)), X)
        path = tmp_path / "model.joblib"
        joblib.dump(est, path)
        _same(est, joblib.load(path, mmap_mode="r"), X)


def test_identical_fits_pickle_to_identical_bytes():
    rng = np.random.RandomState(0)
    X, y = rng.rand(200, 4), rng.randint(0, 3, 200)
    a = DecisionTreeClassifier(max_features=2, random_state=1).fit(X, y)
    b = DecisionTreeClassifier(max_features=2, random_state=1).fit(X, y)
    a.predict(X)  # a cached traversal layout must not leak into the bytes
    assert pickle.dumps(a) == pickle.dumps(b)


_members, _pack, _npy = members, pack, npy


def _with_array(est, name, array):
    members = _members(est)
    members[f"{name}.npy"] = _npy(array)
    return _pack(members)


_with_header = with_header


@pytest.fixture(scope="module")
def small():
    X = np.arange(40, dtype=float).reshape(20, 2)
    return DecisionTreeClassifier(max_depth=3).fit(X, np.arange(20) % 3)


def test_hostile_files_are_refused(small, tmp_path):
    tree = small.tree_
    cases = {
        "bad archive": io.BytesIO(b"PK\x03\x04 not really a zip"),
        "not a zip": io.BytesIO(b"\x80\x04\x95 pickle bytes"),
        "empty": io.BytesIO(b""),
        "truncated": io.BytesIO(_pack(_members(small)).getvalue()[:300]),
        "child out of range": _with_array(small, "children_left",
                                          np.where(tree.children_left > 0, 999,
                                                   tree.children_left).astype(np.int64)),
        "cycle": _with_array(small, "children_right",
                             np.where(tree.children_right > 0, 0,
                                      tree.children_right).astype(np.int64)),
        "negative size": _with_array(small, "n_node_samples",
                                     -np.ones(tree.node_count, dtype=np.int64)),
        "wrong dtype": _with_array(small, "threshold", tree.threshold.astype(np.float32)),
        "complex dtype": _with_array(small, "threshold", tree.threshold.astype(np.complex128)),
        "feature out of range": _with_array(small, "feature",
                                            np.where(tree.feature >= 0, 7,
                                                     tree.feature).astype(np.int64)),
        "nan threshold": _with_array(small, "threshold",
                                     np.where(tree.feature >= 0, np.nan, tree.threshold)),
        "short array": _with_array(small, "impurity", tree.impurity[:2]),
        "value shape": _with_array(small, "value", tree.value[:, :, :2].copy()),
        "bad magic": _with_header(small, lambda h: h.update(format="pickle")),
        "newer version": _with_header(small, lambda h: h.update(format_version=99)),
        "unknown estimator": _with_header(small, lambda h: h.update(estimator="os.system")),
        "unknown param": _with_header(small, lambda h: h["params"].update(evil=1)),
        "bad classes": _with_header(small, lambda h: h.update(classes={"kind": "code"})),
        "feature count": _with_header(small, lambda h: h.update(n_features_in=1)),
    }
    for name, file in cases.items():
        with pytest.raises(ModelFileError):
            dtree.load(file)
    # a member claiming a huge shape is refused before anything is allocated
    members = _members(small)
    raw = members["threshold.npy"]
    members["threshold.npy"] = raw.replace(
        f"({small.tree_.node_count},)".encode(), b"(10000000000,)".ljust(
            len(f"({small.tree_.node_count},)"), b" ")[:len(f"({small.tree_.node_count},)")])
    with pytest.raises(ModelFileError):
        dtree.load(_pack(members))
    # compressed members and pickled members are refused too
    with pytest.raises(ModelFileError, match="compressed"):
        dtree.load(_pack(_members(small), compression=zipfile.ZIP_DEFLATED))
    members = _members(small)
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    members["impurity.npy"] = buffer.getvalue()
    with pytest.raises(ModelFileError, match="dtype"):
        dtree.load(_pack(members))


def test_file_errors_name_the_problem(small, tmp_path):
    with pytest.raises(FileNotFoundError):
        dtree.load(tmp_path / "missing.dtree")
    with pytest.raises(OSError, match="cannot write the model"):
        small.save(tmp_path / "no" / "such" / "dir" / "m.dtree")
    with pytest.raises(dtree.NotFittedError):
        DecisionTreeClassifier().save(tmp_path / "m.dtree")
    with pytest.raises(ModelFileError):
        dtree.from_dict({"format": "dtree-model"})
    with pytest.raises(ModelFileError):
        dtree.from_dict([1, 2, 3])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_files_load_cleanly_or_raise_the_documented_error(data):
    X = np.arange(40, dtype=float).reshape(20, 2)
    est = DecisionTreeClassifier(max_depth=3).fit(X, np.arange(20) % 3)
    buffer = io.BytesIO()
    est.save(buffer)
    raw = bytearray(buffer.getvalue())
    for _ in range(data.draw(st.integers(1, 8))):
        kind = data.draw(st.sampled_from(["flip", "truncate", "insert"]))
        position = data.draw(st.integers(0, len(raw) - 1))
        if kind == "flip":
            raw[position] ^= 1 << data.draw(st.integers(0, 7))
        elif kind == "truncate":
            del raw[position:]
            if not raw:
                break
        else:
            raw[position:position] = bytes(data.draw(st.binary(min_size=1, max_size=8)))
    try:
        loaded = dtree.load(io.BytesIO(bytes(raw)))
    except ModelFileError:
        return
    pred = loaded.predict_proba(X)
    assert pred.shape == (20, loaded.n_classes_) and np.isfinite(pred).all()


def test_a_categorical_column_seen_only_missing_saves_and_loads():
    # it has no categories at all (found by the fuzz run): the file must still load
    X = np.array([[np.nan, 1.0], [np.nan, 2.0], [np.nan, 3.0]])
    est = DecisionTreeClassifier(categorical_features=[0]).fit(X, [0, 1, 1])
    buffer = io.BytesIO()
    est.save(buffer)
    buffer.seek(0)
    loaded = dtree.load(buffer)
    assert loaded.categories_[0].shape == (0,)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
