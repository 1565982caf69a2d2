"""Predict's text encoding in C (``dtree._text_codes``): the codes of every reader
equal the general rule's, and inconsistent Arrow buffers are refused, not read."""
import numpy as np
import pytest

from dtree._input import categorical as cat
from dtree._columns import put_columns
from dtree._text_codes import ArrowColumn, TextCategories, arrow_codes, object_codes

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

# texts a two-word hash and its checks must tell apart: the empty text, short
# ones, 8/16-byte boundaries, equal first and last eight bytes with another
# middle, multi-byte characters
CATEGORIES = sorted({
    "", "a", "b", "ab", "ba", "abcdefg", "abcdefgh", "abcdefghi", "0123456789abcdef",
    "0123456789abcdefg", "aaaaaaaaXbbbbbbbb", "aaaaaaaaYbbbbbbbb", "aaaaaaaaXXbbbbbbbb",
    "aaaaaaaaYYbbbbbbbb", "Married-civ-spouse", "é", "ée", "日本語のテキスト", "x" * 40,
    "x" * 39 + "y", "y" + "x" * 39,
})
OTHERS = ["c", "abcdefgj", "aaaaaaaaZbbbbbbbb", "aaaaaaaaXYbbbbbbbb", "x" * 41, "日本語",
          "Married-civ-spouse ", " Married-civ-spouse",
          # equal to a category's bytes padded with zeros: only the length differs
          "a\x00", "abcdefg\x00", "\x00"]


def _values(rng, n, with_missing=True):
    pool = CATEGORIES + OTHERS + ([None] if with_missing else [])
    return [pool[i] for i in rng.integers(0, len(pool), n)]


def _general(values):
    # the rule the C readers stand in for
    return cat._encode_values(np.asarray(values, dtype=object), np.asarray(CATEGORIES, dtype=object),
                              "missing", "column 0")


def _same(a, b):
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_array_equal(a[~np.isnan(a)], b[~np.isnan(b)])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_object_reader_gives_the_general_rules_codes(seed):
    rng = np.random.default_rng(seed)
    values = _values(rng, 2000)
    # equal texts as distinct objects too, and values of other kinds
    values += ["".join(list(v)) for v in values[:200] if v is not None]
    values += [np.nan, 3, 2.5, np.str_("ab")]
    expected = _general(values)
    got = cat.encode(values, np.asarray(CATEGORIES, dtype=object), "missing", "column 0")
    _same(got, expected)
    assert np.isfinite(got).sum() > 1000       # most were categories


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_object_reader_on_threads_gives_the_general_rules_codes(n_threads):
    # blocks of OBJECT_BLOCK values on the threads; texts beyond ASCII ("é",
    # "日本語のテキスト") are left by the blocks for the dictionary, in every block
    rng = np.random.default_rng(7)
    values = _values(rng, 70000)
    values[16383:16386] = ["é", "日本語", "ée"]      # across a block's edge
    values += [3, np.nan, np.str_("ab")]
    column = pd.Series(np.array(values, dtype=object))
    got = cat.encode_frame_column(column, np.asarray(CATEGORIES, dtype=object), "missing",
                                  "column 0", n_threads)
    _same(got, _general(values))
    table = TextCategories(CATEGORIES)
    out = np.empty(len(values), dtype=np.float32)
    object_codes(table, np.array(values, dtype=object), out, n_threads)
    assert out[16383] == CATEGORIES.index("é") and out[16385] == CATEGORIES.index("ée")
    assert out[16384] == -1 and (out[-3:] == -1).all()


@pytest.mark.parametrize("n_threads", [1, 2])
def test_an_empty_object_slot_is_missing_as_numpy_reads_it(n_threads):
    # an object array's NULL slots (numpy reads them as None): missing, in any block
    table = TextCategories(CATEGORIES)
    values = np.ndarray((40000,), object, buffer=bytearray(8 * 40000))
    values[::3] = "a"
    out = np.empty(len(values), dtype=np.float32)
    object_codes(table, values, out, n_threads)
    assert (out[::3] == CATEGORIES.index("a")).all()
    rest = np.ones(len(values), dtype=bool)
    rest[::3] = False
    assert np.isnan(out[rest]).all()


def test_object_reader_marks_none_missing_and_the_rest_unmatched():
    table = TextCategories(CATEGORIES)
    values = np.array(["a", None, "c", 1.0, np.nan, "a"], dtype=object)
    out = np.empty(len(values), dtype=np.float32)
    object_codes(table, values, out)
    assert out[0] == out[5] == CATEGORIES.index("a")
    assert np.isnan(out[1])
    assert (out[[2, 3, 4]] == -1).all()


@pytest.mark.parametrize("arrow_type", ["string", "large_string"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_arrow_reader_gives_the_general_rules_codes(arrow_type, n_threads):
    rng = np.random.default_rng(3)
    # chunks longer than a block of the threads (ARROW_BLOCK), and short ones
    values = _values(rng, 90000)
    cuts = [0, 700, 1400, 80000, 90000]
    chunks = [pa.array(values[a:b], type=getattr(pa, arrow_type)())
              for a, b in zip(cuts, cuts[1:])]
    # a slice: its offset into the buffers is not 0
    sliced = pa.chunked_array(chunks).slice(5)
    frame = pd.DataFrame({"t": pd.Series(pd.arrays.ArrowExtensionArray(sliced))})
    got = cat.encode_frame_column(frame.iloc[:, 0], np.asarray(CATEGORIES, dtype=object),
                                  "missing", "column 0", n_threads)
    _same(got, _general(values[5:]))


def test_texts_that_differ_only_in_their_length_are_told_apart():
    # "t" followed by 0-7 zero bytes: the same zero-padded words, so where two of
    # them meet in a slot (some pairs do in a table of one category) only their
    # lengths differ
    for c in range(1, 128):
        texts = [(chr(c) + "\x00" * k).encode() for k in range(8)]
        data = np.frombuffer(b"".join(texts) + bytes(8), dtype=np.uint8)
        offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int32)
        out = np.empty(len(texts), dtype=np.float32)
        strings = np.array([t.decode() for t in texts], dtype=object)
        for k in range(8):
            table = TextCategories([texts[k].decode()])
            expected = [0.0 if i == k else -1.0 for i in range(8)]
            assert arrow_codes(table, offsets, data, None, 0, len(texts), out)
            assert out.tolist() == expected, (c, k)
            # (Python's ASCII strings are read in place by the same table)
            object_codes(table, strings, out)
            assert out.tolist() == expected, (c, k)


def test_a_bad_offset_in_any_threads_block_is_refused():
    table = TextCategories(CATEGORIES)
    n = 100000
    data = np.frombuffer(b"ab" * n, dtype=np.uint8)
    offsets = np.arange(0, 2 * n + 1, 2, dtype=np.int64)
    offsets[70001] = 10 ** 9                  # in the third block of 32768
    out = np.empty(n, dtype=np.float32)
    for threads in (1, 2):
        assert not arrow_codes(table, offsets, data, None, 0, n, out, threads)
    offsets[70001] = 140002
    assert arrow_codes(table, offsets, data, None, 0, n, out, 2)
    assert (out == CATEGORIES.index("ab")).all()


def test_arrow_text_at_the_end_of_an_exact_buffer():
    # the last texts end where the data ends: no read past it (the padded copy)
    table = TextCategories(CATEGORIES)
    texts = [b"abcdefghi", b"ab", b"a", b""]
    data = np.frombuffer(b"".join(texts), dtype=np.uint8).copy()
    offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int32)
    out = np.empty(len(texts), dtype=np.float32)
    assert arrow_codes(table, offsets, data, None, 0, len(texts), out)
    assert out.tolist() == [CATEGORIES.index(t.decode()) for t in texts]


@pytest.mark.parametrize("offsets, length", [
    ([0, 3, 100], 2),       # past the data
    ([0, 3, 2], 2),         # decreasing
    ([-4, 3, 5], 2),        # negative
    ([0, 3], 2),            # too few offsets
])
def test_inconsistent_arrow_buffers_are_refused(offsets, length):
    table = TextCategories(CATEGORIES)
    data = np.frombuffer(b"abcdefgh", dtype=np.uint8)
    out = np.empty(length, dtype=np.float32)
    assert not arrow_codes(table, np.asarray(offsets, dtype=np.int64), data, None, 0, length,
                           out)


def test_a_validity_bitmap_too_short_is_refused():
    table = TextCategories(CATEGORIES)
    data = np.frombuffer(b"a" * 20, dtype=np.uint8)
    offsets = np.arange(21, dtype=np.int32)
    out = np.empty(20, dtype=np.float32)
    assert not arrow_codes(table, offsets, data, np.ones(1, dtype=np.uint8), 0, 20, out)


def test_category_columns_and_object_columns_read_alike():
    rng = np.random.default_rng(4)
    values = _values(rng, 1500)
    expected = _general(values)
    categories = np.asarray(CATEGORIES, dtype=object)
    as_object = pd.DataFrame({"t": pd.Series(values, dtype=object)})
    as_category = pd.DataFrame({"t": pd.Series(values, dtype="category")})
    for frame in (as_object, as_category):
        _same(cat.encode_frame_column(frame.iloc[:, 0], categories, "missing", "column 0"),
              expected)


def test_unknown_text_still_refused_when_asked():
    frame = pd.DataFrame({"t": pd.Series(["a", "b", "nope"], dtype=object)})
    with pytest.raises(ValueError, match="'nope', unseen at fit"):
        cat.encode_frame_column(frame.iloc[:, 0], np.asarray(CATEGORIES, dtype=object),
                                "error", "column 't'")


def test_predictions_on_text_equal_those_on_codes():
    # a model's predict through the C readers equals its predict on the codes
    import dtree

    rng = np.random.default_rng(5)
    values = _values(rng, 4000, with_missing=False)
    y = np.array([len(v) % 3 for v in values])
    frame = pd.DataFrame({"t": pd.Series(values, dtype="str"), "x": rng.normal(size=4000)})
    model = dtree.DecisionTreeClassifier(random_state=0, categorical_features=["t"]).fit(frame, y)
    codes = cat._encode_values(np.asarray(values, dtype=object), model.categories_[0],
                               "missing", "t")
    matrix = np.column_stack([codes, frame["x"].to_numpy()]).astype(np.float32)
    leaves = model.tree_.apply(matrix)
    np.testing.assert_array_equal(model.apply(frame), leaves)
    assert len(np.unique(leaves)) > 3


def test_a_fitted_columns_table_is_built_once_and_goes_with_its_categories():
    import gc
    categories = np.array(["a", "bb", "ccc"], dtype=object)
    table = cat.text_table(categories)
    assert cat.text_table(categories) is table
    # another array of the same texts gets its own table (identity, not equality)
    same = categories.copy()
    assert cat.text_table(same) is not table
    key = id(categories)
    del categories, table
    gc.collect()
    assert key not in cat._TABLES
    # categories not all text, or none: no table
    assert cat.text_table(np.array(["a", 1], dtype=object)) is None
    assert cat.text_table(np.array([], dtype=object)) is None
    assert cat.text_table(["a", "b"]) is not None       # (a list: built, not kept)


def _chunk(values, large):
    arr = pa.array(values, type=pa.large_string() if large else pa.string())
    validity, offsets, data = arr.buffers()
    return (np.frombuffer(offsets, dtype=np.int64 if large else np.int32),
            np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8),
            None if validity is None else np.frombuffer(validity, dtype=np.uint8), 0, len(arr))


def _raw(values):
    # the raw reader's codes: NaN for a null, -1 for text that is no category
    return np.array([np.nan if v is None else CATEGORIES.index(v) if v in CATEGORIES else -1
                     for v in values], dtype=np.float32)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_arrow_columns_are_laid_into_the_rows_with_their_verdicts(n_threads):
    # text columns of several chunks (blocks of rows straddle them), beside numbers,
    # each with its count of unmatched values; a column whose offsets point past its
    # data is reported, whichever block meets it
    rng = np.random.default_rng(5)
    n = 9000
    columns, expected = [], []
    for k in range(3):
        values = _values(rng, n)
        cuts = [0, 1, 700, 5000, n] if k != 1 else [0, n]
        chunks = [_chunk(values[a:b], large=k % 2 == 0) for a, b in zip(cuts, cuts[1:])]
        columns.append(ArrowColumn(TextCategories(CATEGORIES), chunks))
        expected.append(_raw(values))
    numbers = rng.normal(size=n)
    columns.insert(1, numbers)
    expected.insert(1, numbers.astype(np.float32))
    bad = np.arange(0, 2 * n + 1, 2, dtype=np.int64)
    bad[7001] = 10 ** 9
    columns.append(ArrowColumn(TextCategories(CATEGORIES),
                               [(bad, np.frombuffer(b"ab" * n, np.uint8), None, 0, n)]))
    out = np.full((n, 5), -7.0, dtype=np.float32)
    status = put_columns(columns, out, n_threads)
    for j in (0, 2, 3):
        _same(out[:, j], expected[j])
        assert status[j] == (expected[j] == -1).sum() > 0
    np.testing.assert_array_equal(out[:, 1], expected[1])
    assert status[1] == 0 and status[4] == -1


def test_an_arrow_column_of_another_length_is_refused():
    column = ArrowColumn(TextCategories(CATEGORIES), [_chunk(["a", "b"], large=False)])
    with pytest.raises(ValueError, match="as many rows"):
        put_columns([column], np.empty((3, 1), dtype=np.float32))


def test_a_category_is_found_in_the_slot_its_hash_names():
    # the table's multiplier is chosen so: a known text costs one comparison
    assert TextCategories(CATEGORIES).one_probe
    assert TextCategories(["x%d" % i for i in range(40)]).one_probe
    # long texts alike in their first KEY_BYTES bytes: their ends are hashed too
    assert TextCategories(["https://example.org/some/long/path/%d" % i
                           for i in range(40)]).one_probe
    # alike in their first 24 bytes and their last 8: every byte between is hashed
    assert TextCategories(["https://shop.example.com/item/%04d/index.html" % i
                           for i in range(40)]).one_probe


def test_many_small_chunks_and_empty_ones_are_read_in_order():
    # a column in thousands of chunks (some empty): each block finds its first
    # chunk by a search, and every row its code
    rng = np.random.default_rng(6)
    values = _values(rng, 6000)
    cuts = np.sort(np.concatenate([[0, 6000], rng.integers(0, 6000, 3000)]))
    chunks = [_chunk(values[a:b], large=k % 3 == 0) for k, (a, b) in
              enumerate(zip(cuts, cuts[1:]))]
    column = ArrowColumn(TextCategories(CATEGORIES), chunks)
    assert column.n_rows == 6000
    _same(column.codes(), _raw(values))
    out = np.empty((6000, 2), dtype=np.float32)
    put_columns([np.zeros(6000), column], out)
    _same(out[:, 1], _raw(values))


def test_many_categories_are_found_in_a_table_of_bounded_size():
    # thousands of categories: no one-probe table is sought (its size would grow
    # with their square); every text is still found, every other refused
    texts = ["category %d" % i for i in range(5000)]
    table = TextCategories(texts)
    values = np.array(texts + ["category %d" % i for i in range(5000, 6000)], dtype=object)
    out = np.empty(len(values), dtype=np.float32)
    object_codes(table, values, out)
    np.testing.assert_array_equal(out[:5000], np.arange(5000))
    assert (out[5000:] == -1).all()


def test_an_unknown_category_is_named_in_the_first_column_that_holds_one():
    # an Arrow column before an object column, both with a category unseen at fit:
    # predict names the first, as apply does
    import dtree

    train = pd.DataFrame({"a": pd.Series(["x", "y"] * 20, dtype="str"),
                          "b": pd.Series(["p", "q"] * 20, dtype=object)})
    model = dtree.DecisionTreeClassifier(categorical_features=["a", "b"],
                                         handle_unknown="error").fit(train, np.arange(40) % 2)
    test = pd.DataFrame({"a": pd.Series(["NEW_A"], dtype="str"),
                         "b": pd.Series(["NEW_B"], dtype=object)})
    for method in (model.apply, model.predict, model.predict_proba):
        with pytest.raises(ValueError, match="'NEW_A', unseen at fit"):
            method(test)
