"""A fit-time ratio that a noisy shared machine cannot tilt: dtree and
scikit-learn fitted in alternation, one ratio per pair, and the median.

    python bench/paired_ratio.py [--n 100000] [--criterion absolute_error] [--pairs 5]
                                 [--outputs 1]

``dtree.bench``'s synthetic regression data (``--task classification`` for the
classifiers), full depth, one thread. Prints each pair and the median ratio.
"""
import argparse
import statistics

import sklearn.tree

import dtree
from dtree.bench import _best_time, make_data, three_outputs


def timed(fit):
    return _best_time(fit, 1)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100000)
    parser.add_argument("--criterion", default="absolute_error")
    parser.add_argument("--task", default="regression",
                        choices=("regression", "classification"))
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--outputs", type=int, default=1, choices=(1, 3))
    args = parser.parse_args()
    X, y = make_data(args.task, args.n)
    if args.outputs == 3:
        y = three_outputs(y)
    name = "DecisionTreeRegressor" if args.task == "regression" else "DecisionTreeClassifier"
    ours = getattr(dtree, name)(criterion=args.criterion, n_jobs=1)
    theirs = getattr(sklearn.tree, name)(criterion=args.criterion, random_state=0)
    ratios = []
    for pair in range(args.pairs):
        sk = timed(lambda: theirs.fit(X, y))
        dt = timed(lambda: ours.fit(X, y))
        ratios.append(dt / sk)
        print(f"pair {pair + 1}: scikit-learn {sk:7.2f} s  dtree {dt:6.2f} s  "
              f"ratio {dt / sk:.3f}", flush=True)
    print(f"{args.criterion}, N = {args.n}, {args.outputs} output(s): median ratio "
          f"{statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
