"""C4.5's fit time against CART's on adult, step by step, and the categories' shapes on
shifted folds.

Times are the best of ``--repeats`` fits in this one process (the ratio is what
compares across machines): CART, C4.5 grown (and collapsed) only, with
subtree replacement, and with subtree raising (its default). With ``--folds``
it also prints the unshuffled 5-fold CV accuracy (``cross_val_score(model, X, y,
cv=5)``: ordered rows make folds whose categories shift) of each category
split shape against scikit-learn's CART on one-hot columns.

    python bench/c45.py [--repeats 3] [--folds mushroom,car_evaluation]
"""
import argparse
import time
import warnings


def best_fit(make, X, y, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        model = make().fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best, model


def fit_times(repeats):
    import dtree
    from dtree.datasets import load_Xy
    X, y = load_Xy("adult")
    cart, _ = best_fit(lambda: dtree.DecisionTreeClassifier(random_state=0), X, y, repeats)
    print(f"adult ({len(X)} rows): CART {cart:.3f} s")
    for label, kw in [("C4.5 grown and collapsed", dict(pruning="none")),
                      ("C4.5 + subtree replacement", dict(subtree_raising=False)),
                      ("C4.5 + subtree raising (default)", {})]:
        t, model = best_fit(lambda: dtree.DecisionTreeClassifier(algorithm="c4.5", **kw), X, y,
                            repeats)
        print(f"  {label:34s} {t:.3f} s  ({t / cart:.2f}x CART, "
              f"{model.get_n_leaves()} leaves)")


def shifted_folds(names):
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier as SkTree

    import dtree
    from dtree.datasets import load_Xy
    models = {
        "CART subsets": lambda: dtree.DecisionTreeClassifier(random_state=0),
        "CART one_vs_rest": lambda: dtree.DecisionTreeClassifier(
            random_state=0, category_splits="one_vs_rest"),
        "C4.5 multiway": lambda: dtree.DecisionTreeClassifier(algorithm="c4.5"),
        "C4.5 one_vs_rest": lambda: dtree.DecisionTreeClassifier(
            algorithm="c4.5", category_splits="one_vs_rest"),
        "ID3": lambda: dtree.DecisionTreeClassifier(algorithm="id3"),
        "sklearn one-hot": lambda: make_pipeline(OneHotEncoder(handle_unknown="ignore"),
                                                 SkTree(random_state=0)),
    }
    print("unshuffled 5-fold CV accuracy: " + " | ".join(models))
    for name in names:
        X, y = load_Xy(name)
        scores = [cross_val_score(make(), X, y, cv=5).mean() for make in models.values()]
        print(f"  {name:24s} " + "  ".join(f"{s:.3f}" for s in scores))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folds", default="", help="data sets for the shifted-fold table")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    fit_times(args.repeats)
    if args.folds:
        shifted_folds([n for n in args.folds.split(",") if n])


if __name__ == "__main__":
    main()
