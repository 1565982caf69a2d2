"""Fits of three outputs against scikit-learn's, one thread, full depth.

    python bench/multioutput_scaling.py [--sizes 100000,1000000] [--criteria sq,gini,abs]

``dtree.bench``'s synthetic data with ``dtree.bench.three_outputs`` (the target
and two noisy variants of it; classes: a tenth flipped, and a three-class
output); one row per criterion and N (dtree best of ``--repeat`` fits,
scikit-learn once: it is the slow side), with both node counts.
"""
import argparse

import sklearn.tree

import dtree
from dtree.bench import _best_time as best_of, make_data, three_outputs

CRITERIA = {   # name -> (task, criterion)
    "sq": ("regression", "squared_error"),
    "gini": ("classification", "gini"),
    "abs": ("regression", "absolute_error"),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--criteria", default="sq,gini,abs")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"{'criterion':>15} {'N':>9} {'sk s':>8} {'dtree s':>8} {'ratio':>7} "
          f"{'nodes':>8} {'sk nodes':>8}")
    for name in args.criteria.split(","):
        task, criterion = CRITERIA[name]
        ours_cls = dtree.DecisionTreeRegressor if task == "regression" \
            else dtree.DecisionTreeClassifier
        sk_cls = sklearn.tree.DecisionTreeRegressor if task == "regression" \
            else sklearn.tree.DecisionTreeClassifier
        for n in (int(float(v)) for v in args.sizes.split(",")):
            X, y = make_data(task, n)
            Y = three_outputs(y)
            ours_t, ours = best_of(
                lambda: ours_cls(criterion=criterion, n_jobs=1).fit(X, Y), args.repeat)
            sk_t, theirs = best_of(
                lambda: sk_cls(criterion=criterion, random_state=0).fit(X, Y), 1)
            print(f"{criterion:>15} {n:9d} {sk_t:8.2f} {ours_t:8.2f} {ours_t / sk_t:7.3f} "
                  f"{ours.tree_.node_count:8d} {theirs.tree_.node_count:8d}", flush=True)


if __name__ == "__main__":
    main()
