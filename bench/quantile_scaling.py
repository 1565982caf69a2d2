"""absolute_error and quantile fits against scikit-learn's absolute_error, one thread.

    python bench/quantile_scaling.py [--sizes 100000,1000000] [--features 10]

Full depth on ``dtree.bench``'s synthetic regression data; prints one row per N
(best of ``--repeat`` fits; scikit-learn once: it is the slow side) and the
ratios. scikit-learn has no quantile criterion: the quantile row is timed
against its absolute_error, the same work.
"""
import argparse

from sklearn.tree import DecisionTreeRegressor as SklearnRegressor

import dtree
from dtree.bench import _best_time as best_of, make_data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    print(f"{'N':>9} {'d':>3} {'sk abs s':>9} {'abs s':>8} {'ratio':>7} {'q0.9 s':>8} "
          f"{'ratio':>7} {'weighted s':>10} {'nodes':>8} {'same nodes':>10}")
    for n in (int(float(v)) for v in args.sizes.split(",")):
        X, y = make_data("regression", n, n_features=args.features)
        sk_t, theirs = best_of(
            lambda: SklearnRegressor(criterion="absolute_error", random_state=0).fit(X, y), 1)
        abs_t, ours = best_of(lambda: dtree.DecisionTreeRegressor(
            criterion="absolute_error", n_jobs=1).fit(X, y), args.repeat)
        q_t, _ = best_of(lambda: dtree.DecisionTreeRegressor(
            criterion="quantile", quantile=0.9, n_jobs=1).fit(X, y), args.repeat)
        w = 0.5 + (X[:, 0] - X[:, 0].min()) / (X[:, 0].max() - X[:, 0].min())
        w_t, _ = best_of(lambda: dtree.DecisionTreeRegressor(
            criterion="absolute_error", n_jobs=1).fit(X, y, sample_weight=w), 1)
        print(f"{n:9d} {args.features:3d} {sk_t:9.2f} {abs_t:8.2f} {abs_t / sk_t:7.3f} "
              f"{q_t:8.2f} {q_t / sk_t:7.3f} {w_t:10.2f} {ours.tree_.node_count:8d} "
              f"{str(ours.tree_.node_count == theirs.tree_.node_count):>10}", flush=True)


if __name__ == "__main__":
    main()
