"""The bench's one- and two-thread table at a million rows, and predict's two figures.

    python bench/one_tree_threads.py [--rows 1000000]

Prints ``dtree.bench_scaling.scaling_table`` (one tree per mode on one and two
threads: the serial fraction, predict's rows per second; peak memory skipped),
then a depth-10 classifier's predict on one row from Python (best of 5 x 20,000
calls) and on every row on one thread (best of 7). Run it with ``PYTHONPATH``
at another build's checkout to compare two builds back to back (issue 36's
before and after: ``results/issue36-scaling.txt``).
"""
import argparse
import time

import dtree
from dtree.bench import _best_time, make_data
from dtree.bench_scaling import scaling_table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    print(dtree.__file__)
    scaling_table(make_data, args.rows, 10, lambda f: _best_time(f, 2), memory=False)
    X, y = make_data("classification", args.rows, 10)
    model = dtree.DecisionTreeClassifier(max_depth=10, n_jobs=1).fit(X, y)
    row = X[:1]
    model.predict(row)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(20_000):
            model.predict(row)
        best = min(best, (time.perf_counter() - start) / 20_000)
    print(f"single row predict: {best * 1e6:.1f} us")
    seconds, _ = _best_time(lambda: model.predict(X), 7)
    print(f"depth-10 predict, {args.rows} rows, one thread: {seconds * 1e3:.1f} ms = "
          f"{args.rows / seconds / 1e6:.1f} M rows/s")


if __name__ == "__main__":
    main()
