"""Leaf-wise (best-first) trees: dtree exact and hist against LightGBM, same leaves.

    python bench/leafwise.py [--n 1000000] [--leaves 31,255,4095] [--repeat 3]

One thread each, on the synthetic data of ``python -m dtree.bench``; LightGBM
grows one round with learning rate 1 and no regularisation, as in the peer
tables. Prints best-of-``repeat`` fit times, hist / LightGBM, and held-out
accuracy (or R^2).
"""
import argparse
import time

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.bench import _lightgbm, make_data


def best_fit(make, X, y, repeat):
    best, model = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        model = make().fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best, model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=lambda s: int(float(s)), default=1_000_000)
    parser.add_argument("--leaves", default="31,255,4095")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    leaves = [int(v) for v in args.leaves.split(",")]
    print(f"{'task':<15}{'leaves':>7}{'exact s':>9}{'hist s':>9}{'LightGBM s':>11}"
          f"{'hist/LGBM':>10}   score exact / hist / LightGBM")
    for task, est in (("classification", DecisionTreeClassifier),
                      ("regression", DecisionTreeRegressor)):
        X, y = make_data(task, args.n)
        X_test, y_test = make_data(task, max(args.n // 5, 1000), seed=1)
        for n_leaves in leaves:
            t_exact, exact = best_fit(lambda: est(max_leaf_nodes=n_leaves, n_jobs=1),
                                      X, y, args.repeat)
            t_hist, hist = best_fit(
                lambda: est(max_leaf_nodes=n_leaves, n_jobs=1, splitter="hist"),
                X, y, args.repeat)
            t_lgbm, lgbm = best_fit(lambda: _lightgbm(task, None, n_leaves, 1), X, y,
                                    args.repeat)
            print(f"{task:<15}{n_leaves:>7}{t_exact:>9.3f}{t_hist:>9.3f}{t_lgbm:>11.3f}"
                  f"{t_hist / t_lgbm:>10.2f}   {exact.score(X_test, y_test):.4f} / "
                  f"{hist.score(X_test, y_test):.4f} / {lgbm.score(X_test, y_test):.4f}",
                  flush=True)


if __name__ == "__main__":
    main()
