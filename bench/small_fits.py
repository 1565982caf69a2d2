"""Fixed cost of a fit: many fits of a small table, dtree against scikit-learn.

    python bench/small_fits.py [--rows 100] [--fits 1000]

The per-fit overhead (parameter checks, input encoding, scaling, the Tree
object) dominates on small data; this prints the time per fit of each library
in the same process, on the same arrays, and their ratio.
"""
import argparse
import time

import numpy as np


def per_fit(make, X, y, fits, **fit_kwargs):
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(fits):
            make().fit(X, y, **fit_kwargs)
        best = min(best, (time.perf_counter() - start) / fits)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--fits", type=int, default=1000)
    args = parser.parse_args()
    from sklearn.tree import DecisionTreeClassifier as SkClassifier
    from sklearn.tree import DecisionTreeRegressor as SkRegressor

    from dtree import DecisionTreeClassifier, DecisionTreeRegressor

    rng = np.random.RandomState(0)
    X = rng.rand(args.rows, 5).astype(np.float32)
    y_class = rng.randint(0, 3, args.rows)
    y_reg = rng.rand(args.rows) * 1e5
    weights = np.full(args.rows, 3.0)
    print(f"{args.rows} rows x 5 features, best of 3 x {args.fits} fits, microseconds per fit")
    print(f"{'case':34s} {'dtree':>8s} {'sklearn':>8s} {'ratio':>6s}")
    cases = [("classifier", DecisionTreeClassifier, SkClassifier, y_class, {}),
             ("classifier, uniform weights", DecisionTreeClassifier, SkClassifier, y_class,
              {"sample_weight": weights}),
             ("regressor", DecisionTreeRegressor, SkRegressor, y_reg, {})]
    for name, ours, theirs, y, kwargs in cases:
        a = per_fit(lambda: ours(n_jobs=1), X, y, args.fits, **kwargs)
        b = per_fit(theirs, X, y, args.fits, **kwargs)
        print(f"{name:34s} {a * 1e6:8.0f} {b * 1e6:8.0f} {a / b:6.2f}")


if __name__ == "__main__":
    main()
