"""ExtraTreeClassifier / ExtraTreeRegressor against scikit-learn's, one thread.

    python bench/extra_trees_scaling.py [--sizes 100000,1000000] [--repeat 1]

``dtree.bench``'s synthetic data (10 features), full depth, each library with its
own default ``max_features`` ("sqrt" for the classifier, 1.0 for the regressor);
prints one row per estimator and N with the fit-time ratio.
"""
import argparse

from dtree.bench import extra_trees_table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    for n in (int(float(v)) for v in args.sizes.split(",")):
        extra_trees_table(n, args.repeat, True)


if __name__ == "__main__":
    main()
