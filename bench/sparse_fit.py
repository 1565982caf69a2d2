"""Fit on a sparse, text-like matrix: dtree's sparse splitter against scikit-learn's.

    python bench/sparse_fit.py [--rows 100000] [--cols 10000]
                               [--density 0.001,0.01] [--repeat 1]

``dtree.bench.text_like`` (CSC, float32, Zipf column popularity, a label from a
noisy score over every column), one thread, three trees each: every feature at
depth 10, ``max_features="sqrt"`` at depth 20, and ExtraTreeClassifier at depth 20.
Prints fit times, the ratio, node counts and the peak memory traced during the
first fit (``dtree.bench.sparse_table``; ``python -m dtree.bench`` runs a small
one, ``--full`` these shapes).
"""
import argparse

from dtree.bench import sparse_table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cols", type=int, default=10_000)
    parser.add_argument("--density", default="0.001,0.01",
                        help="comma-separated densities")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    shapes = [(args.rows, args.cols, float(d)) for d in args.density.split(",")]
    sparse_table(shapes, args.repeat, True)


if __name__ == "__main__":
    main()
