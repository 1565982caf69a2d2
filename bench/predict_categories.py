"""Predict on text columns: how much of it is encoding (issue 37's figure).

    python bench/predict_categories.py [--copies 10] [--dtype str|category|object]
                                       [--n-jobs N]

Fits a depth-8 classifier on adult (8 text columns of 14, held as ``--dtype``:
pandas' Arrow strings as loaded, pandas categoricals, or Python strings), then
times, best of 5,
predict on adult repeated ``--copies`` times (488,420 rows for 10), the encoding
alone (``encode_predict_X``: every column laid into predict's matrix), the
numbers alone laid into it (``_columns.put_columns`` of the numeric columns, with
the text columns' places left: what a frame of numbers costs too), and the
routing alone (``tree_.apply`` on the encoded matrix); prints the encoding's share
of predict, the categories' own share (the encoding less the numbers' layout),
and the time of predict on one row (a one-row DataFrame, best of 200).
"""
import argparse
import time
import warnings


def best_of(fn, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--dtype", choices=("str", "category", "object"), default="str")
    parser.add_argument("--n-jobs", type=int, default=None,
                        help="the model's n_jobs (default None: predict encodes on one "
                             "thread and routes on every core)")
    args = parser.parse_args(argv)
    import numpy as np
    import pandas as pd

    import dtree
    from dtree._columns import put_columns
    from dtree._plan.machine import n_threads, spare_threads
    from dtree._input.encode import encode_predict_X
    from dtree.datasets import load_Xy

    warnings.simplefilter("ignore")
    X, y = load_Xy("adult")
    if args.dtype != "str":
        text = [c for c in X.columns if X[c].dtype.kind not in "biuf"]
        X = X.astype({c: args.dtype for c in text})
    model = dtree.DecisionTreeClassifier(max_depth=8, random_state=0,
                                         n_jobs=args.n_jobs).fit(X, y)
    big = pd.concat([X] * args.copies, ignore_index=True)
    encoded = encode_predict_X(model, big)
    predict = best_of(lambda: model.predict(big))
    # (as predict encodes: the values are checked while they are routed)
    encode = best_of(lambda: encode_predict_X(model, big, check_values=False))
    # the numbers alone, each text column's place filled from a constant column
    # (a zero stride: no memory read)
    blank = np.broadcast_to(np.float32(0), len(big))
    numbers = [blank if model.categorical_features_[j] else big.iloc[:, j].to_numpy()
               for j in range(big.shape[1])]
    matrix = np.empty((len(big), big.shape[1]), dtype=np.float32)
    # (as predict lays them: the default on the cores other work leaves free)
    threads = spare_threads(n_threads(args.n_jobs), args.n_jobs)
    layout = best_of(lambda: put_columns(numbers, matrix, threads))
    route = best_of(lambda: model.tree_.apply(encoded))
    one = X.iloc[:1]
    one_row = best_of(lambda: model.predict(one), repeat=200)
    print(f"{len(big)} rows ({args.dtype}, n_jobs={args.n_jobs}): predict {predict:.3f} s, encoding {encode:.3f} s, "
          f"routing {route:.3f} s; encoding is {encode / predict:.0%} of predict; numbers laid "
          f"{layout:.3f} s, categories {(encode - layout) / predict:.0%} of predict; one row "
          f"{one_row * 1e6:.0f} us")


if __name__ == "__main__":
    main()
