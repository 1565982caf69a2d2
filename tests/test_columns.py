"""Predict's matrix from a frame's columns (``dtree._columns``): every numeric dtype
converted as numpy converts it, any stride, blocks of rows of any length; and
predict's unchecked encoding of a DataFrame equals the checked one."""
import numpy as np
import pandas as pd
import pytest

import dtree
from dtree._columns import KINDS, float32_rows, put_columns, readable
from dtree._input.encode import encode_predict_X


def _expected(columns):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.column_stack([c.astype(np.float32) for c in columns])


def _columns(n, rng):
    out = []
    for dtype in KINDS:
        if dtype.kind == "f":
            c = rng.normal(scale=1e3, size=n).astype(dtype)
            c[rng.rand(n) < 0.1] = np.nan
            c[rng.rand(n) < 0.02] = np.inf
            c[rng.rand(n) < 0.02] = -np.inf
            if dtype.itemsize == 8:
                c[rng.rand(n) < 0.02] = 1e300          # beyond float32: infinite
                c[rng.rand(n) < 0.02] = 2.0 ** 24 + 1  # rounds to even
        else:
            info = np.iinfo(dtype)
            c = rng.randint(0, 2 ** 31, size=n).astype(dtype)
            c[rng.rand(n) < 0.05] = info.max
            c[rng.rand(n) < 0.05] = info.min
        out.append(c)
    return out


@pytest.mark.parametrize("n", [0, 1, 63, 4681, 20000])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_every_dtype_lands_as_numpy_converts_it(n, n_threads):
    rng = np.random.RandomState(n)
    columns = _columns(n, rng)
    out = np.full((n, len(columns)), -7.0, dtype=np.float32)
    put_columns(columns, out, n_threads)
    np.testing.assert_array_equal(out.view(np.uint32), _expected(columns).reshape(
        n, len(columns)).view(np.uint32))


def test_strided_and_reversed_columns_and_many_columns():
    rng = np.random.RandomState(1)
    wide = rng.normal(size=(3001, 300))          # a block holds few rows of 300 columns
    columns = [wide[:, j] for j in range(300)]   # each a stride of 300 doubles
    columns[5] = columns[5][::-1]
    out = np.empty((3001, 300), dtype=np.float32)
    put_columns(columns, out)
    np.testing.assert_array_equal(out, _expected(columns))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_codes_are_looked_up_in_their_table(dtype):
    rng = np.random.RandomState(2)
    n = 9001
    table = np.array([np.nan, 4.0, 0.0, 7.0], dtype=np.float32)
    codes = rng.randint(-1, 3, n).astype(dtype)
    numbers = rng.normal(size=n)
    out = np.empty((n, 2), dtype=np.float32)
    put_columns([numbers, (codes, table)], out, 2)
    np.testing.assert_array_equal(out[:, 1], table[codes.astype(np.int64) + 1])
    np.testing.assert_array_equal(out[:, 0], numbers.astype(np.float32))
    for bad in (3, -2):
        wrong = codes.copy()
        wrong[n - 5] = bad                        # in the last block
        with pytest.raises(ValueError, match="outside"):
            put_columns([numbers, (wrong, table)], out)
    # codes must be signed integers, tables float32
    for pair in ((codes.astype(np.float64), table), (codes, table.astype(np.float64))):
        with pytest.raises(ValueError, match="column"):
            put_columns([numbers, pair], out)


def test_what_it_does_not_read_is_refused():
    n = 10
    assert not readable(np.zeros(n, dtype=bool))
    assert not readable(np.zeros(n, dtype=">f8"))
    assert not readable(np.zeros((n, 1)))
    assert not readable(np.zeros(n, dtype=np.float16))
    assert not readable([1.0] * n)
    assert readable(np.zeros(n, dtype=np.int64)) and readable(np.zeros(n, dtype=np.float32))
    out = np.empty((n, 2), dtype=np.float32)
    for bad in ([np.zeros(n)], [np.zeros(n), np.zeros(n - 1)], [np.zeros(n), np.zeros(n, bool)]):
        with pytest.raises(ValueError, match="column"):
            put_columns(bad, out)


def _frame(n=3000, seed=0):
    rng = np.random.RandomState(seed)
    words = np.array(["red", "green", "blue", "a much longer colour name", "ü"], dtype=object)
    text = words[rng.randint(0, 5, n)]
    text[rng.rand(n) < 0.05] = None
    return pd.DataFrame({
        "arrow": pd.array(text, dtype="string[pyarrow]"),
        "objects": pd.Series(text, dtype=object),
        "category": pd.Categorical(text),
        "ints": rng.randint(-5, 5, n),
        "small": rng.randint(0, 100, n).astype(np.int8),
        "floats": np.where(rng.rand(n) < 0.1, np.nan, rng.normal(size=n)),
        "singles": rng.normal(size=n).astype(np.float32),
        "nullable": pd.array(np.where(rng.rand(n) < 0.1, None, rng.randint(0, 9, n)),
                             dtype="Int64"),
        "flags": rng.rand(n) < 0.5,
    }), rng


@pytest.mark.parametrize("n", [3000, 70000])
def test_predicts_unchecked_encoding_equals_the_checked_one(n):
    X, rng = _frame()
    y = (X["ints"] > 0).to_numpy().astype(int) ^ (X["category"] == "red").to_numpy()
    model = dtree.DecisionTreeClassifier(
        categorical_features=["arrow", "objects", "category"], random_state=0).fit(X, y)
    new, _ = _frame(n, seed=1)      # (70000 rows: on the threads)
    fast = encode_predict_X(model, new, check_values=False)
    checked = encode_predict_X(model, new)
    assert fast.dtype == np.float32 and fast.flags.c_contiguous
    np.testing.assert_array_equal(fast, checked)
    np.testing.assert_array_equal(model.apply(new), model.tree_.apply(checked))


def test_an_unseen_category_in_a_category_column_follows_the_general_rule():
    X, rng = _frame()
    X = X[["ints", "floats", "category"]]
    y = (X["category"] == "red").to_numpy().astype(int)
    new, _ = _frame(seed=2)
    new = new[["ints", "floats", "category"]].copy()
    new["category"] = new["category"].cat.add_categories(["mauve"])
    new.loc[7, "category"] = "mauve"
    for rule in ("missing", "error"):
        model = dtree.DecisionTreeClassifier(categorical_features=["category"],
                                             handle_unknown=rule, random_state=0).fit(X, y)
        if rule == "error":
            with pytest.raises(ValueError, match="mauve"):
                model.predict(new)
            continue
        fast = encode_predict_X(model, new, check_values=False)
        assert np.isnan(fast[7, 2])
        np.testing.assert_array_equal(fast, encode_predict_X(model, new))


def test_float64_rows_are_cast_as_numpy_casts_them_without_a_warning():
    # predict's plain float64 rows (a single row's path): numpy's cast, values
    # beyond float32 infinite, NaN and signed zeros kept, any strides
    rng = np.random.RandomState(4)
    X = rng.normal(scale=1e38, size=(50, 7))
    X[::5, 1] = 1e300
    X[::7, 2] = -1e300
    X[3, 3], X[4, 4], X[5, 5], X[6, 6] = np.nan, -0.0, 1e-50, np.inf
    for view in (X, X[:, ::2], X[::3], np.asfortranarray(X), X[:0]):
        with np.errstate(over="ignore", under="ignore"):
            expected = view.astype(np.float32)
        with np.errstate(all="raise"):
            got = float32_rows(view)
        assert got.flags.c_contiguous and got.dtype == np.float32
        np.testing.assert_array_equal(got, expected)
        assert (np.signbit(got) == np.signbit(expected)).all()
    with pytest.raises(ValueError, match="2-D float64 array, its values aligned"):
        float32_rows(X.astype(np.float32))
    clf = dtree.DecisionTreeClassifier(random_state=0).fit(rng.normal(size=(50, 3)),
                                                          rng.randint(0, 2, 50))
    rows = rng.normal(size=(200, 3))
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(clf.predict(rows), clf.predict(rows.astype(np.float32)))
    # values not aligned to 8 bytes (a packed record's field) take numpy's cast
    packed = np.zeros(200, dtype=[("c", "u1"), ("a", "f8", (3,))])
    packed["a"] = rows
    assert not packed["a"].flags.aligned
    with pytest.raises(ValueError, match="aligned"):
        float32_rows(packed["a"])
    np.testing.assert_array_equal(clf.predict(packed["a"]), clf.predict(rows))
