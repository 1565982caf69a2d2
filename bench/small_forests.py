"""A forest's cost per tree on small data: dtree's forests against scikit-learn's.

    python bench/small_forests.py [--rows 1000 10000] [--trees 100]

On small tables a forest's time is mostly each tree's fixed cost (its bootstrap,
its seed's generator, its sorted columns, the Tree object). Prints, for each size
and forest, the best of 3 fits on one thread of each library in the same process
(``dtree.bench.make_data``, 10 features) and their ratio, and dtree's fit with the
default ``n_jobs`` against its one-thread fit (the default must never be slower).
"""
import argparse
import time


def best_fit(make, X, y, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        make().fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--trees", type=int, default=100)
    args = parser.parse_args()
    import sklearn.ensemble as ske

    import dtree
    from dtree.bench import make_data

    print(f"{args.trees} trees, 10 features, one thread, best of 3 fits")
    for n in args.rows:
        for name in ("RandomForestClassifier", "RandomForestRegressor",
                     "ExtraTreesClassifier"):
            task = "classification" if name.endswith("Classifier") else "regression"
            X, y = make_data(task, n, 10)
            ours = best_fit(lambda: getattr(dtree, name)(
                n_estimators=args.trees, random_state=0, n_jobs=1), X, y)
            theirs = best_fit(lambda: getattr(ske, name)(
                n_estimators=args.trees, random_state=0, n_jobs=1), X, y)
            default = best_fit(lambda: getattr(dtree, name)(
                n_estimators=args.trees, random_state=0), X, y)
            print(f"n={n:7d} {name:24s} dtree {ours * 1e3:8.1f} ms  scikit-learn "
                  f"{theirs * 1e3:8.1f} ms  ratio {ours / theirs:.3f}  dtree default "
                  f"n_jobs {default * 1e3:8.1f} ms ({default / ours:.2f} of one thread)")


if __name__ == "__main__":
    main()
