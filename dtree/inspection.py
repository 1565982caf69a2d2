"""Partial dependence of a fitted dtree estimator: scikit-learn's ``partial_dependence``
with the exact recursion over the node arrays.

scikit-learn's own ``partial_dependence`` lists the tree classes it can recurse
over, so for a dtree model its ``method="auto"`` falls back to the brute method
(predicting the whole data set once per grid point) and ``"recursion"`` is
refused. ``dtree.inspection.partial_dependence`` takes the same arguments and
returns the same ``Bunch`` (``grid_values``, ``average``, ``individual``); its
recursion (Friedman's weighted traversal: a split on a target feature routes
the grid value, any other split weighs both children by their training
weights) is compiled over the node arrays for the whole grid and routes the
grid values by the rule predict applies (category sets and missing values
included). The result plots with
``PartialDependenceDisplay(pd_results=[...], features=..., feature_names=...,
target_idx=0, deciles={})``.
"""
import numpy as np

from ._estimators.params import PathResult as Bunch   # scikit-learn's Bunch: keys as attributes
from ._model.arguments import int_at_least
from ._route import partial_dependence as partial_dependence_recursion

__all__ = ["partial_dependence"]


def partial_dependence(estimator, X, features, *, percentiles=(0.05, 0.95),
                       grid_resolution=100, custom_values=None, method="auto",
                       kind="average"):
    """Partial dependence of the estimator's prediction on one or two features.

    Parameters
    ----------
    estimator : fitted DecisionTree*/ExtraTree* estimator
    X : array-like or DataFrame of shape (n_samples, n_features)
        The data the grid is taken from (and, for "brute", averaged over).
    features : int, str, or a tuple/list of two of them
        The target feature(s), by index or by name.
    percentiles : tuple of two floats, default=(0.05, 0.95)
        The grid's range for a numeric feature with ``grid_resolution`` or more
        distinct values (scikit-learn's empirical quantiles).
    grid_resolution : int, default=100
    custom_values : dict, optional
        Feature (index or name) -> the grid values to use for it.
    method : {"auto", "recursion", "brute"}, default="auto"
        "auto" is "recursion" for ``kind="average"``, else "brute".
    kind : {"average", "individual", "both"}, default="average"

    Returns
    -------
    Bunch
        ``grid_values`` (one array per target feature: category labels for a
        categorical one), ``average`` of shape ``(n_outputs, *grid_shape)`` and/or
        ``individual`` of shape ``(n_outputs, n_samples, *grid_shape)``. A classifier's
        outputs are its class probabilities (for two classes, the second's).
    """
    if not hasattr(estimator, "tree_"):
        raise ValueError("partial_dependence needs a fitted dtree estimator")
    if kind not in ("average", "individual", "both"):
        raise ValueError(f"kind must be 'average', 'individual' or 'both'; got {kind!r}")
    if method not in ("auto", "recursion", "brute"):
        raise ValueError(f"method must be 'auto', 'recursion' or 'brute'; got {method!r}")
    if method == "auto":
        method = "recursion" if kind == "average" else "brute"
    if method == "recursion" and kind != "average":
        raise ValueError("the 'recursion' method only gives kind='average'; use "
                         "method='brute' for individual curves")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise ValueError("partial_dependence is for single-output trees")
    if getattr(estimator.tree_, "fractional_missing", False):
        raise ValueError("partial_dependence does not follow C4.5's fractional missing "
                         "values (algorithm='c4.5')")
    if not (isinstance(percentiles, (tuple, list)) and len(percentiles) == 2
            and 0 <= percentiles[0] < percentiles[1] <= 1):
        raise ValueError("percentiles must be two increasing numbers in [0, 1]")
    grid_resolution = int_at_least(grid_resolution, "grid_resolution", 2)
    codes = estimator._validate_X_predict(X)
    targets = _feature_indices(estimator, features)
    custom = {_feature_indices(estimator, k)[0]: np.asarray(v)
              for k, v in (custom_values or {}).items()}
    axes = [_axis(estimator, _column(X, codes, estimator, f), f, percentiles,
                  int(grid_resolution), custom) for f in targets]
    grid = _cartesian(axes).astype(np.float32)
    shape = tuple(a.shape[0] for a in axes)
    out = Bunch(grid_values=[_labels(estimator, f, a) for f, a in zip(targets, axes)])
    if method == "recursion":
        values = _output_values(estimator, estimator.tree_.value[:, 0, :])
        out["average"] = _recursion(estimator.tree_, grid, targets, values).T.reshape(
            (values.shape[1],) + shape)
        return out
    individual = _brute(estimator, codes, grid, targets)      # (n_outputs, n, n_grid)
    if kind in ("individual", "both"):
        out["individual"] = individual.reshape(individual.shape[:2] + shape)
    if kind in ("average", "both"):
        out["average"] = individual.mean(axis=1).reshape((individual.shape[0],) + shape)
    return out


def _feature_indices(estimator, features):
    """The target features' column indices (ints, or names of the fitted columns)."""
    items = list(features) if isinstance(features, (list, tuple, np.ndarray)) else [features]
    if not 1 <= len(items) <= 2:
        raise ValueError("features must name one or two features")
    names = getattr(estimator, "feature_names_in_", None)
    out = []
    for item in items:
        if isinstance(item, str):
            if names is None or item not in list(names):
                raise ValueError(f"feature {item!r} is not a column the estimator was "
                                 "fitted on")
            out.append(list(names).index(item))
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not -estimator.n_features_in_ <= item < estimator.n_features_in_:
                raise ValueError(f"feature index {item} is out of range for "
                                 f"{estimator.n_features_in_} features")
            out.append(int(item) % estimator.n_features_in_)
        else:
            raise ValueError(f"a feature is an int or a column name; got {item!r}")
    return out


def _column(X, codes, estimator, f):
    """Feature f as the grid is taken from it: the user's numbers (float64, as
    scikit-learn reads them), or a categorical feature's codes."""
    if estimator.categorical_features_[f]:
        return codes[:, f]
    try:
        column = X.iloc[:, f] if hasattr(X, "iloc") else np.asarray(X)[:, f]
        return np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError, IndexError):
        return codes[:, f].astype(np.float64)


def _axis(estimator, column, f, percentiles, resolution, custom):
    """A feature's grid, as scikit-learn builds it (on category codes for a
    categorical feature)."""
    if f in custom:
        if estimator.categorical_features_[f]:
            return _codes_of(estimator, f, custom[f])
        return custom[f].astype(np.float64)
    uniques = np.unique(column)
    if estimator.categorical_features_[f] or uniques.shape[0] < resolution:
        return uniques.astype(np.float64)
    lo, hi = _mquantiles(column[~np.isnan(column)], percentiles)
    if np.isclose(lo, hi):
        raise ValueError("percentiles are too close to each other, unable to build the "
                         "grid. Please choose percentiles that are further apart.")
    return np.linspace(lo, hi, num=resolution, endpoint=True)


def _mquantiles(values, probs, alphap=0.4, betap=0.4):
    """scipy's ``mquantiles`` (its default plotting positions), which scikit-learn's
    grid uses."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = x.shape[0]
    p = np.asarray(probs, dtype=np.float64)
    m = alphap + p * (1.0 - alphap - betap)
    aleph = n * p + m
    k = np.floor(np.clip(aleph, 1, n - 1)).astype(int)
    gamma = np.clip(aleph - k, 0.0, 1.0)
    return (1.0 - gamma) * x[k - 1] + gamma * x[k]


def _codes_of(estimator, f, labels):
    categories = list(estimator.categories_[f])
    unknown = [v for v in labels if v not in categories]
    if unknown:
        raise ValueError(f"custom_values for feature {f} has categories {unknown!r} "
                         "unseen at fit")
    return np.array([categories.index(v) for v in labels], dtype=np.float64)


def _labels(estimator, f, axis):
    """Grid values as the user sees them: categories by label."""
    if not estimator.categorical_features_[f]:
        return axis
    categories = np.asarray(estimator.categories_[f], dtype=object)
    return np.array([None if np.isnan(c) else categories[int(c)] for c in axis],
                    dtype=object)


def _cartesian(axes):
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def _output_values(estimator, value):
    """Per node, the outputs: a regressor's value; a classifier's class probabilities
    (the second class's alone for two classes, as scikit-learn)."""
    if getattr(estimator, "classes_", None) is None or not estimator.tree_.is_classifier:
        return value[:, :1]
    return value[:, 1:2] if value.shape[1] == 2 else value


def _recursion(tree, grid, targets, values):
    """Friedman's weighted traversal for every grid point at once: (n_grid, n_outputs),
    compiled (``_route.partial_dependence``), a split on a target feature routed by
    the rule predict applies."""
    return partial_dependence_recursion(
        tree._packed, tree.category_sets,
        np.ascontiguousarray(tree.weighted_n_node_samples, dtype=np.float64),
        np.ascontiguousarray(values, dtype=np.float64), np.ascontiguousarray(grid),
        np.asarray(targets, dtype=np.intp))


def _brute(estimator, codes, grid, targets):
    """Predictions of every sample with the target features set to each grid point:
    (n_outputs, n_samples, n_grid)."""
    tree = estimator.tree_
    values = _output_values(estimator, tree.value[:, 0, :])
    out = np.empty((values.shape[1], codes.shape[0], grid.shape[0]))
    X = np.array(codes, dtype=np.float32)
    for g in range(grid.shape[0]):
        X[:, targets] = grid[g]
        out[:, :, g] = values[tree.apply(X)].T
    return out
