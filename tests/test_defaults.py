"""Defaults that work on real tables: text columns are categories, unseen ones missing."""
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.model_selection import cross_val_score

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree._input.categorical import IdentifierColumnWarning
from dtree.datasets import load_Xy


def test_the_defaults_are_auto_and_missing():
    for Estimator in (DecisionTreeClassifier, DecisionTreeRegressor):
        params = Estimator().get_params()
        assert params["categorical_features"] == "auto"
        assert params["handle_unknown"] == "missing"


@pytest.mark.parametrize("name, Estimator, text_columns", [
    ("adult", DecisionTreeClassifier, {"workclass", "education", "native_country"}),
    ("titanic", DecisionTreeClassifier, {"Sex", "Embarked", "Cabin"}),
    ("california_housing", DecisionTreeRegressor, {"ocean_proximity"}),
])
def test_real_tables_fit_with_the_defaults(name, Estimator, text_columns):
    X, y = load_Xy(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentifierColumnWarning)
        model = Estimator(max_depth=6, random_state=0).fit(X, y)
    chosen = {n for n, c in zip(model.feature_names_in_, model.categorical_features_) if c}
    assert text_columns <= chosen
    numeric = [n for n in X.columns if pd.api.types.is_numeric_dtype(X[n])]
    assert not chosen & set(numeric)  # numbers stay numbers
    assert model.score(X, y) > (0.8 if Estimator is DecisionTreeClassifier else 0.6)


def test_numeric_input_builds_the_same_tree_as_before():
    # anything scikit-learn accepts has no text column: "auto" changes nothing
    rng = np.random.RandomState(0)
    X = rng.rand(200, 4)
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    auto = DecisionTreeClassifier(random_state=0).fit(X, y)
    none = DecisionTreeClassifier(random_state=0, categorical_features=None).fit(X, y)
    assert not auto.categorical_features_.any()
    np.testing.assert_array_equal(auto.tree_.feature, none.tree_.feature)
    np.testing.assert_array_equal(auto.tree_.threshold, none.tree_.threshold)
    frame = pd.DataFrame(X, columns=list("abcd"))
    np.testing.assert_array_equal(DecisionTreeClassifier(random_state=0).fit(frame, y).tree_.threshold,
                                  none.tree_.threshold)


def test_c45_cross_validation_on_mushroom_meets_unseen_categories():
    X, y = load_Xy("mushroom")
    scores = cross_val_score(DecisionTreeClassifier(algorithm="c4.5"), X, y, cv=10)
    assert scores.shape == (10,) and scores.mean() > 0.8


def test_unseen_categories_are_missing_by_default():
    X = pd.DataFrame({"c": ["x", "y", "z", "x", "y", "z"]})
    model = DecisionTreeClassifier().fit(X, [0, 1, 1, 0, 1, 1])
    unseen = model.predict_proba(pd.DataFrame({"c": ["w"]}))
    missing = model.predict_proba(pd.DataFrame({"c": [None]}))
    np.testing.assert_array_equal(unseen, missing)


def test_identifier_like_columns_are_warned_about_by_name():
    n = 100
    X = pd.DataFrame({"id": [f"row{i}" for i in range(n)],
                      "colour": ["red", "blue"] * (n // 2),
                      "x": np.arange(n, dtype=float)})
    y = np.arange(n) % 2
    with pytest.warns(IdentifierColumnWarning, match=r"column 0 \('id'\).*100 distinct"):
        DecisionTreeClassifier().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # listing the columns is a deliberate choice: no warning; and few categories none
        DecisionTreeClassifier(categorical_features=["id", "colour"]).fit(X, y)
        DecisionTreeClassifier().fit(X[["colour", "x"]], y)
        # many categories, but far fewer than rows: not an identifier
        many = pd.DataFrame({"city": [f"city{i % 30}" for i in range(300)]})
        DecisionTreeClassifier().fit(many, np.arange(300) % 2)


def _polars_frame():
    rng = np.random.RandomState(0)
    n = 120
    return pl.DataFrame({
        "size": rng.rand(n),
        "count": pl.Series(rng.randint(0, 5, n)).cast(pl.Int64),
        "colour": pl.Series(rng.choice(["red", "green", "blue"], n)),
        "grade": pl.Series(rng.choice(["a", "b"], n)).cast(pl.Categorical),
        "flag": rng.rand(n) > 0.5,
    }).with_columns(pl.when(pl.col("size") < 0.1).then(None).otherwise(pl.col("size"))
                    .alias("size"))


def test_polars_frames_set_names_and_split_text_by_category():
    frame = _polars_frame()
    y = (frame["colour"] == "red").to_numpy().astype(int) ^ (frame["grade"] == "a").to_numpy()
    model = DecisionTreeClassifier(random_state=0).fit(frame, y)
    assert model.feature_names_in_.tolist() == ["size", "count", "colour", "grade", "flag"]
    assert model.categorical_features_.tolist() == [False, False, True, True, False]
    assert model.score(frame, y) == 1.0
    # the same data as pandas gives the same tree
    pandas_frame = pd.DataFrame({c: frame[c].to_list() for c in frame.columns})
    pandas_frame["grade"] = pandas_frame["grade"].astype("category")
    twin = DecisionTreeClassifier(random_state=0).fit(pandas_frame, y)
    np.testing.assert_array_equal(twin.tree_.feature, model.tree_.feature)
    np.testing.assert_array_equal(twin.predict(pandas_frame), model.predict(frame))
    # renamed columns at predict time are caught, as for pandas
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame.rename({"size": "SIZE"}))


@pytest.mark.parametrize("options", [
    dict(categorical_features=["colour", "grade"]), dict(categorical_features=[2, 3]),
    dict(handle_unknown="error"), dict(algorithm="c4.5"), dict(algorithm="id3"),
    dict(ccp_alpha="cv", cv=3), dict(max_leaf_nodes=5), dict(handle_missing="split"),
])
def test_polars_frames_work_with_every_option(options):
    frame = _polars_frame()
    y = (frame["colour"] == "red").to_numpy().astype(int)
    model = DecisionTreeClassifier(random_state=0, **options).fit(frame, y)
    assert model.predict(frame).shape == (frame.shape[0],)
    reg = DecisionTreeRegressor(random_state=0).fit(frame, frame["count"].to_numpy() * 1.0)
    assert reg.feature_names_in_.tolist()[0] == "size"


def test_pyarrow_backed_text_columns_are_categories():
    import pyarrow as pa  # a test extra
    frame = pd.DataFrame({
        "s": pd.Series(["a", "b", "a", "c"] * 5, dtype=pd.ArrowDtype(pa.string())),
        "t": pd.Series(["x", "y"] * 10, dtype="string[pyarrow]"),
        "n": pd.Series(np.arange(20.0), dtype=pd.ArrowDtype(pa.float64())),
    })
    model = DecisionTreeClassifier().fit(frame, np.arange(20) % 2)
    assert model.categorical_features_.tolist() == [True, True, False]


def test_auto_leaves_identifier_columns_out_of_the_tree():
    """titanic with categorical_features="auto": Name, Ticket and Cabin (most rows
    hold a value of their own) no longer make a tree that learns the rows by heart."""
    from dtree.datasets import load_Xy

    X, y = load_Xy("titanic")
    ids = ["Name", "Ticket", "Cabin"]
    train, test = slice(0, 600), slice(600, None)
    with pytest.warns(IdentifierColumnWarning, match=r"'Name'.*leaves it out") as seen:
        model = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X[train], y[train])
    assert sorted(n for n in ids if any(f"'{n}'" in str(w.message) for w in seen)) == \
        sorted(ids)
    names = list(X.columns)
    used = {names[f] for f in model.tree_.feature[model.tree_.feature >= 0]}
    assert not used & set(ids)
    majority = max(np.mean(y[test] == c) for c in np.unique(y))
    accuracy = model.score(X[test], y[test])
    assert accuracy > majority + 0.1
    # (each reads as missing throughout: it never splits; it still takes its turn
    # in the feature draw, so the tree may differ from one grown without it at a tie)
    # at predict, any name (seen or not) is fine: the column is never read
    other = X[test].assign(Name="Somebody, Mr. New")
    np.testing.assert_array_equal(model.predict(other), model.predict(X[test]))
    # listed by the user, it is a category column again
    text = [c for c in names if not pd.api.types.is_numeric_dtype(X[c])]
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentifierColumnWarning)
        listed = DecisionTreeClassifier(max_depth=5, random_state=0,
                                        categorical_features=text).fit(X[train], y[train])
    assert len(listed.categories_[names.index("Name")]) == 600


def test_a_column_of_rare_values_is_left_out_but_a_column_of_many_common_ones_not():
    n = 400
    common = [f"city{i % 40}" for i in range(n)]                 # 40 values, 10 rows each
    # 60% of the rows hold a value of their own, the rest one of 4 common values
    mostly_rare = [f"t{i}" if i < 240 else f"c{i % 4}" for i in range(n)]
    # 40% of them: kept
    partly_rare = [f"t{i}" if i < 160 else f"c{i % 4}" for i in range(n)]
    X = pd.DataFrame({"city": common, "ticket": mostly_rare, "code": partly_rare})
    y = np.arange(n) % 2
    with pytest.warns(IdentifierColumnWarning) as seen:
        model = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert [("'ticket'" in str(w.message)) for w in seen] == [True]
    assert [len(c) for c in model.categories_] == [40, 0, 164]
