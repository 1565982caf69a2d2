"""What readers call a fitted estimator's features and classes (text exports, SQL)."""
from .._input.encode import check_fitted
from .arguments import list_of_names


def fitted_tree(estimator):
    """The fitted ``Tree`` of an estimator (NotFittedError before ``fit``; a
    ``TypeError`` for what is no estimator, such as a ``Tree`` itself)."""
    if not hasattr(estimator, "fit"):
        raise TypeError(f"{type(estimator).__name__} is not an estimator instance: pass "
                        "the fitted estimator (its tree_ is read from it)")
    check_fitted(estimator)
    return estimator.tree_


def fitted_and_named(estimator, feature_names, class_names):
    """The fitted tree, and the names its text shows for features and classes."""
    return (fitted_tree(estimator), feature_names_of(estimator, feature_names),
            class_names_of(estimator, class_names))


def feature_names_of(estimator, feature_names):
    """The names text shows for the features: ``feature_names``, the fitted ones,
    or ``feature_<i>``."""
    n = estimator.n_features_in_
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        return [str(v) for v in names] if names is not None else \
            [f"feature_{i}" for i in range(n)]
    names = [str(v) for v in list_of_names(feature_names, "feature_names")]
    if len(names) != n:
        raise ValueError(f"feature_names must contain {n} elements, got {len(names)}")
    return names


def class_names_of(estimator, class_names):
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
    given = list_of_names(class_names, "class_names")
    given = [list_of_names(names, "class_names") for names in given] if several \
        else [given]
    if len(given) != len(per_output):
        raise ValueError(f"class_names has {len(given)} lists; the tree has "
                         f"{len(per_output)} outputs")
    out = []
    for names, classes in zip(given, per_output):
        names = [str(c) for c in names]
        if len(names) != len(classes):
            raise ValueError("When `class_names` is an array, it should contain as many "
                             "items as `decision_tree.classes_`. Got "
                             f"{len(names)} while the tree was fitted with "
                             f"{len(classes)} classes.")
        out.append(names)
    return out
