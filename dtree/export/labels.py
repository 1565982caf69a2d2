"""What every reader of a fitted tree for people needs: the fitted tree, the names
its text shows, and matplotlib axes (``export`` and ``_drawing``)."""
from .._input.encode import check_fitted
from .._model.other_splits import COMPETITOR, SURROGATE


def _fitted_tree(estimator):
    check_fitted(estimator)
    return estimator.tree_


def _fitted_and_named(estimator, feature_names, class_names):
    """The fitted tree, and the names its text shows for features and classes."""
    return (_fitted_tree(estimator), _names(estimator, feature_names),
            _class_names(estimator, class_names))


def _names(estimator, feature_names):
    n = estimator.n_features_in_
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        return [str(v) for v in names] if names is not None else \
            [f"feature_{i}" for i in range(n)]
    names = [str(v) for v in feature_names]
    if len(names) != n:
        raise ValueError(f"feature_names has {len(names)} entries; the tree has {n} features")
    return names


def _class_names(estimator, class_names):
    """Per output, the names of its classes (None for a regressor).

    ``class_names`` lists one name per class, or with several outputs one
    such list per output.
    """
    if not hasattr(estimator, "classes_"):
        return None
    several = estimator.n_outputs_ > 1
    per_output = estimator.classes_ if several else [estimator.classes_]
    if class_names is None:
        return [[str(c) for c in classes] for classes in per_output]
    given = list(class_names) if several else [class_names]
    if len(given) != len(per_output):
        raise ValueError(f"class_names has {len(given)} lists; the tree has "
                         f"{len(per_output)} outputs")
    out = []
    for names, classes in zip(given, per_output):
        names = [str(c) for c in names]
        if len(names) != len(classes):
            raise ValueError(f"class_names has {len(names)} entries; the tree has "
                             f"{len(classes)} classes")
        out.append(names)
    return out


def _category_names(estimator, tree, node):
    categories = estimator.categories_[tree.feature[node]]
    return "{" + ", ".join(str(categories[c]) for c in tree.left_categories(node)) + "}"


def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _axes(ax, figsize):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def other_split_lines(estimator, tree, node, names, decimals):
    """The kept competitors and surrogates of ``node``, a line each kind (what
    ``export_text`` and the drawings show of them)."""
    other = tree.other_splits
    if other is None:
        return []
    out = []
    for kind, label in ((COMPETITOR, "competitors"), (SURROGATE, "surrogates")):
        parts = []
        for k in other.rows(node, kind):
            f, row = other.feature[k], other.category_set[k]
            if row >= 0:
                cats = estimator.categories_[f]
                test = (f"{names[f]} in {{"
                        + ", ".join(str(cats[c]) for c in tree.left_categories_of(row)) + "}")
            else:
                test = f"{names[f]} <= {other.threshold[k]:.{decimals}f}"
            if kind == COMPETITOR:
                parts.append(f"{test} (improve {other.improvement[k]:.{decimals}f})")
            else:
                side = "left" if other.goes_left[k] else "right"
                parts.append(f"{test} goes {side} (agree {other.improvement[k]:.3f})")
        if parts:
            out.append(f"({label}: " + "; ".join(parts) + ")")
    return out
