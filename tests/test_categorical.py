"""Native categorical features through the estimators."""
import io

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.datasets import load, load_Xy
from dtree.export import export_rules, export_text


def test_auto_detects_text_and_category_columns():
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"] * 5,
                          "size": pd.Categorical(["s", "m", "l", "m"] * 5),
                          "weight": np.arange(20.0)})
    y = (frame["colour"] == "red").astype(int)
    clf = DecisionTreeClassifier(random_state=0, categorical_features="auto").fit(frame, y)
    assert clf.categorical_features_.tolist() == [True, True, False]
    assert clf.categories_[0].tolist() == ["blue", "green", "red"]
    assert clf.categories_[2] is None
    # colour "red" and size in {"s", "l"} are the same rows: a tie, which the
    # visiting order drawn from random_state decides
    root = clf.tree_.feature[0]
    assert (root, clf.tree_.left_categories(0)) in (
        (0, [2]), (0, [0, 1]), (1, [1]), (1, [0, 2]))
    assert clf.score(frame, y) == 1.0
    for spec in ([0, 1], ["colour", "size"], [True, True, False]):
        other = DecisionTreeClassifier(random_state=0, categorical_features=spec).fit(frame, y)
        assert other.categorical_features_.tolist() == [True, True, False]


def test_numpy_object_arrays_and_integer_categories():
    X = np.array([["a", 1.0], ["b", 2.0], ["c", 3.0], ["a", 4.0]] * 5, dtype=object)
    y = np.array([1, 0, 0, 1] * 5)
    clf = DecisionTreeClassifier(categorical_features="auto").fit(X, y)
    assert clf.categorical_features_.tolist() == [True, False]
    assert clf.predict(X).tolist() == y.tolist()
    codes = np.array([[3], [7], [9], [3]] * 5)
    clf = DecisionTreeClassifier(categorical_features=[0]).fit(codes, y)
    assert clf.categories_[0].tolist() == [3, 7, 9]
    assert clf.predict([[3.0], [7]]).tolist() == [1, 0]


def test_a_subset_split_beats_any_threshold():
    # class 1 for categories 0, 3, 5: no single threshold on the codes separates it
    rng = np.random.RandomState(0)
    codes = rng.randint(0, 6, 300)
    y = np.isin(codes, [0, 3, 5]).astype(int)
    clf = DecisionTreeClassifier(categorical_features=[0], max_depth=1).fit(codes[:, None], y)
    assert clf.score(codes[:, None], y) == 1.0
    assert sorted(clf.tree_.left_categories(0)) in ([0, 3, 5], [1, 2, 4])
    ordinal = DecisionTreeClassifier(max_depth=1).fit(codes[:, None], y)
    assert ordinal.score(codes[:, None], y) < 1.0


def test_unknown_categories_follow_handle_unknown():
    X = pd.DataFrame({"c": ["x", "y", "z", "x", "y", "z"]})
    y = [0, 1, 1, 0, 1, 1]
    strict = DecisionTreeClassifier(categorical_features="auto",
                                    handle_unknown="error").fit(X, y)
    with pytest.raises(ValueError, match="category 'w', unseen at fit"):
        strict.predict(pd.DataFrame({"c": ["w"]}))
    lenient = DecisionTreeClassifier().fit(X, y)  # the defaults: "auto", "missing"
    # like a missing value, 'w' follows the larger child: {y, z}
    assert lenient.predict(pd.DataFrame({"c": ["w", None]})).tolist() == [1, 1]


def test_bad_categorical_input_is_named():
    X = pd.DataFrame({"c": [0.5, 1.0, 1.5, 2.0], "d": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match="non-integer value 0.5"):
        DecisionTreeClassifier(categorical_features=["c"]).fit(X, [0, 1, 0, 1])
    many = pd.DataFrame({"c": [f"v{i}" for i in range(1100)]})
    with pytest.raises(ValueError, match="1100 categories; at most 1024"):
        DecisionTreeClassifier(categorical_features=["c"]).fit(many, np.arange(1100) % 2)
    # (under "auto" such a column is an identifier: left out, with a warning)
    with pytest.warns(UserWarning, match="looks like an identifier"):
        DecisionTreeClassifier(categorical_features="auto").fit(many, np.arange(1100) % 2)
    with pytest.raises(ValueError, match="not a column of X"):
        DecisionTreeClassifier(categorical_features=["nope"]).fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="out of range"):
        DecisionTreeClassifier(categorical_features=[5]).fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="categorical_features"):
        DecisionTreeClassifier(categorical_features="all").fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="handle_unknown"):
        DecisionTreeClassifier(categorical_features="auto",
                               handle_unknown="ignore").fit(X, [0, 1, 0, 1])
    text = pd.DataFrame({"c": ["a", None, "b", "a"], "d": [1.0, 2.0, 3.0, 4.0]})
    strict = DecisionTreeClassifier(categorical_features="auto", handle_missing="error")
    with pytest.raises(ValueError, match="NaN"):
        strict.fit(text.assign(d=[1.0, np.nan, 3.0, 4.0]), [0, 1, 0, 1])
    # an all-missing categorical column is allowed and simply never splits
    empty = pd.DataFrame({"c": [None] * 4, "d": [1.0, 2.0, 3.0, 4.0]}).astype({"c": object})
    clf = DecisionTreeClassifier(categorical_features=["c"]).fit(empty, [0, 0, 1, 1])
    assert clf.tree_.feature[0] == 1


def test_mushroom_is_learnt_exactly_with_odor_at_the_root():
    frame = load("mushroom", dtype=str, keep_default_na=False)
    y = frame.pop("class")
    clf = DecisionTreeClassifier(criterion="entropy", categorical_features="auto").fit(frame, y)
    assert frame.columns[clf.tree_.feature[0]] == "odor"
    assert clf.score(frame, y) == 1.0
    assert clf.get_n_leaves() < 15


def test_adult_native_categories_match_one_hot_with_fewer_nodes():
    frame = load("adult")
    y = frame.pop("income")
    train, test = slice(0, 32561), slice(32561, None)
    ours = DecisionTreeClassifier(categorical_features="auto", min_samples_leaf=20)
    ours.fit(frame[train], y[train])
    dummies = pd.get_dummies(frame, dtype=float)
    theirs = SkClassifier(min_samples_leaf=20, random_state=0).fit(dummies[train], y[train])
    assert ours.score(frame[test], y[test]) >= theirs.score(dummies[test], y[test])
    assert ours.tree_.node_count < theirs.tree_.node_count


def test_titanic_and_california_fit_straight_from_the_csv():
    titanic = load("titanic")
    y = titanic.pop("Survived")
    clf = DecisionTreeClassifier(categorical_features="auto", max_depth=4).fit(titanic, y)
    assert clf.categorical_features_[list(titanic.columns).index("Sex")]
    assert clf.predict(titanic).shape == (891,)
    housing = load("california_housing")
    target = housing.pop("median_house_value")
    reg = DecisionTreeRegressor(categorical_features="auto", max_depth=8).fit(housing, target)
    assert reg.score(housing, target) > 0.7


def test_categorical_trees_round_trip_and_export():
    frame = load("car_evaluation")
    y = frame.pop("class")
    clf = DecisionTreeClassifier(categorical_features="auto", min_samples_leaf=3).fit(frame, y)
    buffer = io.BytesIO()
    clf.save(buffer)
    buffer.seek(0)
    back = dtree.load(buffer)
    np.testing.assert_array_equal(back.predict_proba(frame), clf.predict_proba(frame))
    assert [list(c) for c in back.categories_ if c is not None] == \
        [list(c) for c in clf.categories_ if c is not None]
    np.testing.assert_array_equal(dtree.from_dict(clf.to_dict()).predict(frame),
                                  clf.predict(frame))
    text = export_text(clf)
    assert "safety in {" in text or "persons in {" in text
    assert " in {" in export_rules(clf)
    pruned = clf.prune(0.01)
    assert pruned.get_n_leaves() < clf.get_n_leaves()
    np.testing.assert_array_equal(
        DecisionTreeClassifier(categorical_features="auto", min_samples_leaf=3,
                               ccp_alpha=0.01).fit(frame, y).predict(frame),
        pruned.predict(frame))


def _gini(w, y):
    p = np.bincount(y, weights=w, minlength=2) / w.sum()
    return 1.0 - float((p ** 2).sum())


@pytest.mark.parametrize("seed", range(6))
def test_one_vs_rest_root_is_the_best_single_category(seed):
    # category_splits="one_vs_rest": the root sends the one category whose split
    # lowers the weighted gini most (a brute-force reference) against the rest
    rng = np.random.default_rng(seed)
    n = 400
    X = pd.DataFrame({f"c{j}": rng.choice([f"v{i}" for i in range(int(rng.integers(3, 8)))], n)
                      for j in range(3)})
    y = (rng.random(n) < 0.2 + 0.5 * X["c1"].isin(["v0", "v2"])).astype(int)
    w = rng.uniform(0.5, 1.5, n)
    model = DecisionTreeClassifier(category_splits="one_vs_rest", max_depth=1,
                                   random_state=0).fit(X, y, sample_weight=w)
    best = {}
    for j, column in enumerate(X.columns):
        for v in np.unique(X[column]):
            left = (X[column] == v).to_numpy()
            if left.all() or not left.any():
                continue
            children = (w[left].sum() * _gini(w[left], y[left])
                        + w[~left].sum() * _gini(w[~left], y[~left]))
            best[(j, v)] = children
    lowest = min(best.values())
    tree = model.tree_
    chosen = (int(tree.feature[0]), model.categories_[tree.feature[0]][
        tree.left_categories(0)[0]])
    assert len(tree.left_categories(0)) == 1
    assert best[chosen] == pytest.approx(lowest, rel=1e-12)
    # the subsets search can only do as well or better at the root
    subsets = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y, sample_weight=w)
    assert subsets.tree_.impurity[1:].dot(subsets.tree_.weighted_n_node_samples[1:]) <= \
        lowest * (1 + 1e-12)


def test_one_vs_rest_generalises_like_one_hot_on_shifted_mushroom_folds():
    # mushroom's rows are ordered: unshuffled folds hold categories the training
    # folds lack; one category against the rest sends them with the rest, as
    # scikit-learn's CART on one-hot columns does, and scores as it does
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from dtree.datasets import load_Xy
    X, y = load_Xy("mushroom")
    one_hot = cross_val_score(make_pipeline(OneHotEncoder(handle_unknown="ignore"),
                                            SkClassifier(random_state=0)), X, y, cv=5).mean()
    ours = cross_val_score(DecisionTreeClassifier(category_splits="one_vs_rest",
                                                  random_state=0), X, y, cv=5).mean()
    subsets = cross_val_score(DecisionTreeClassifier(random_state=0), X, y, cv=5).mean()
    assert ours >= one_hot - 1e-12 and one_hot >= 0.99
    assert subsets < ours - 0.03


@pytest.mark.parametrize("kind", ["object", "str", "category", "arrow"])
def test_frame_columns_encode_as_the_general_rule_does(kind):
    """Text columns of a DataFrame are encoded by pandas/Arrow lookups at predict;
    the codes equal the general rule's (``encode`` on the values) for every
    storage, missing values, unseen categories and numbers among text included."""
    from dtree._input.categorical import encode, encode_frame_column

    categories = np.asarray(["a", "b", "c", "d"], dtype=object)
    values = ["b", None, "d", "zz", "a", np.nan, "c", "b"] * 3
    if kind == "arrow":
        pa = pytest.importorskip("pyarrow")
        column = pd.Series(values, dtype=pd.ArrowDtype(pa.string()))
    elif kind == "str":
        column = pd.Series(values, dtype="string")
    elif kind == "category":
        column = pd.Series(values, dtype="category")
    else:
        column = pd.Series(values + [7], dtype=object)     # a number among the text
    frame = column.to_frame("c")
    fast = encode_frame_column(frame.iloc[:, 0], categories, "missing", "column 'c'")
    general = encode(column.to_numpy(dtype=object, na_value=None), categories, "missing",
                     "column 'c'")
    np.testing.assert_array_equal(fast, general)
    assert np.isnan(fast[1]) and np.isnan(fast[3]) and fast[0] == 1
    with pytest.raises(ValueError, match="'zz', unseen at fit"):
        encode_frame_column(frame.iloc[:, 0], categories, "error", "column 'c'")


def test_predict_on_text_frames_equals_predict_on_codes():
    X, y = load_Xy("adult")
    X, y = X.iloc[:3000], y.iloc[:3000]
    model = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    as_object = X.astype({c: object for c in X.columns if not
                          pd.api.types.is_numeric_dtype(X[c])})
    np.testing.assert_array_equal(model.predict_proba(X), model.predict_proba(as_object))
    np.testing.assert_array_equal(model.apply(X), model.apply(as_object))
    # a non-finite number still raises, even beside missing categories
    bad = X.astype({"age": float})
    bad.iloc[5, list(X.columns).index("age")] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.predict(bad)
