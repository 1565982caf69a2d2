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
included). ``PartialDependenceDisplay.from_estimator`` is scikit-learn's
``PartialDependenceDisplay.from_estimator`` for dtree's trees and forests: the
same arguments and the same display object (scikit-learn's, which it needs),
its numbers computed here: the recursion for regressors and the brute method for
classifiers, as scikit-learn chooses for its own trees, so identical trees give
identical curves, in milliseconds.
"""
import numpy as np

from ._estimators.params import PathResult as Bunch   # scikit-learn's Bunch: keys as attributes
from ._model.arguments import int_at_least
from ._route import partial_dependence as partial_dependence_recursion

__all__ = ["partial_dependence", "PartialDependenceDisplay"]


def partial_dependence(estimator, X, features, *, percentiles=(0.05, 0.95),
                       grid_resolution=100, custom_values=None, method="auto",
                       kind="average", sample_weight=None):
    """Partial dependence of the estimator's prediction on one or two features.

    Parameters
    ----------
    estimator : fitted dtree tree or forest
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
        "auto" chooses as scikit-learn chooses for its own trees and forests:
        "recursion" for a regressor's ``kind="average"`` without weights, else
        "brute". A classifier's recursion is dtree's extra (ask for it).
    kind : {"average", "individual", "both"}, default="average"
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the brute method's average over X (as scikit-learn's).

    Returns
    -------
    Bunch
        ``grid_values`` (one array per target feature: category labels for a
        categorical one), ``average`` of shape ``(n_outputs, *grid_shape)`` and/or
        ``individual`` of shape ``(n_outputs, n_samples, *grid_shape)``. A classifier's
        outputs are its class probabilities (for two classes, the second's).

    Examples
    --------
    >>> from dtree import DecisionTreeRegressor
    >>> from dtree.inspection import partial_dependence
    >>> X = [[1.0], [2.0], [3.0], [4.0]]
    >>> reg = DecisionTreeRegressor(max_depth=1).fit(X, [0.0, 0.0, 1.0, 1.0])
    >>> result = partial_dependence(reg, X, 0)
    >>> result["grid_values"][0].tolist(), result["average"].tolist()
    ([1.0, 2.0, 3.0, 4.0], [[0.0, 0.0, 1.0, 1.0]])
    """
    trees = _trees_of(estimator)
    if kind not in ("average", "individual", "both"):
        raise ValueError(f"kind must be 'average', 'individual' or 'both'; got {kind!r}")
    if method not in ("auto", "recursion", "brute"):
        raise ValueError(f"method must be 'auto', 'recursion' or 'brute'; got {method!r}")
    classifier = getattr(estimator, "classes_", None) is not None
    if method == "auto":
        method = "recursion" if kind == "average" and not classifier \
            and sample_weight is None else "brute"
    if method == "recursion" and kind != "average":
        raise ValueError("the 'recursion' method only gives kind='average'; use "
                         "method='brute' for individual curves")
    if method == "recursion" and sample_weight is not None:
        raise ValueError("the 'recursion' method averages by the training weights; "
                         "sample_weight needs method='brute'")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise ValueError("partial_dependence is for single-output trees")
    if any(getattr(tree, "fractional_missing", False) for tree in trees):
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
        # a forest's: the mean of its trees' (scikit-learn's forests average so)
        total = sum(_recursion(tree, grid, targets,
                               _output_values(estimator, tree.value[:, 0, :]))
                    for tree in trees) / len(trees)
        out["average"] = total.T.reshape((total.shape[1],) + shape)
        return out
    individual = _brute(estimator, trees, codes, grid, targets)   # (n_outputs, n, n_grid)
    if kind in ("individual", "both"):
        out["individual"] = individual.reshape(individual.shape[:2] + shape)
    if kind in ("average", "both"):
        weights = None if sample_weight is None else \
            _weights(sample_weight, individual.shape[1])
        average = np.average(individual, axis=1, weights=weights)
        out["average"] = average.reshape((individual.shape[0],) + shape)
    return out


def _trees_of(estimator):
    """The fitted trees of a tree (itself) or a forest (its estimators')."""
    members = getattr(estimator, "estimators_", None)
    if members is not None and len(members):
        return [member.tree_ for member in members]
    if not hasattr(estimator, "tree_"):
        raise ValueError("partial_dependence needs a fitted dtree estimator")
    return [estimator.tree_]


def _weights(sample_weight, n):
    weights = np.asarray(sample_weight, dtype=np.float64).ravel()
    if weights.shape[0] != n or not np.isfinite(weights).all() or (weights < 0).any() \
            or weights.sum() <= 0:
        raise ValueError(f"sample_weight must hold {n} finite weights >= 0, not all 0")
    return weights


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


def _brute(estimator, trees, codes, grid, targets):
    """Predictions of every sample with the target features set to each grid point:
    (n_outputs, n_samples, n_grid); a forest's, its trees' mean."""
    values = [_output_values(estimator, tree.value[:, 0, :]) for tree in trees]
    out = np.zeros((values[0].shape[1], codes.shape[0], grid.shape[0]))
    X = np.array(codes, dtype=np.float32)
    for g in range(grid.shape[0]):
        X[:, targets] = grid[g]
        for tree, value in zip(trees, values):
            out[:, :, g] += value[tree.apply(X)].T
    if len(trees) > 1:
        out /= len(trees)
    return out


class PartialDependenceDisplay:
    """scikit-learn's partial dependence plots for dtree's trees and forests.

    scikit-learn's own ``PartialDependenceDisplay.from_estimator`` knows only
    its own tree classes, so on a dtree model it falls back to predicting X once
    per grid point. ``from_estimator`` here takes its arguments and returns its
    display (``sklearn.inspection.PartialDependenceDisplay``: ``plot``,
    ``figure_``, ``axes_``, ``lines_``, ``pd_results``), its numbers from
    ``partial_dependence``. scikit-learn and matplotlib are needed.
    """

    @classmethod
    def from_estimator(cls, estimator, X, features, *, sample_weight=None,
                       categorical_features=None, feature_names=None, target=None,
                       response_method="auto", n_cols=3, grid_resolution=100,
                       percentiles=(0.05, 0.95), custom_values=None, method="auto",
                       n_jobs=None, verbose=0, line_kw=None, ice_lines_kw=None,
                       pd_line_kw=None, contour_kw=None, ax=None, kind="average",
                       centered=False, subsample=1000, random_state=None):
        """Partial dependence (and ICE) plots, as scikit-learn's ``from_estimator``.

        Parameters
        ----------
        estimator : fitted dtree tree or forest
        X : array-like or DataFrame of shape (n_samples, n_features)
        features : list of int, str, or pairs of them
            One plot per entry: a feature, or two for a two-way plot.
        sample_weight, feature_names, target, n_cols, grid_resolution, percentiles,
        custom_values, method, line_kw, ice_lines_kw, pd_line_kw, contour_kw, ax, kind,
        centered, subsample, random_state
            As scikit-learn's. ``target``: the class whose probability is
            plotted, for more than two classes. ``method="auto"`` chooses as
            scikit-learn does for its own trees (recursion for regressors).
        categorical_features, response_method, n_jobs, verbose
            Accepted for scikit-learn's signature: the estimator knows its
            categorical columns; the response is a regressor's prediction or a
            classifier's probabilities ("predict_proba"); the computation is
            compiled and needs no workers.

        Returns
        -------
        sklearn.inspection.PartialDependenceDisplay
        """
        from sklearn.inspection import PartialDependenceDisplay as Display

        if response_method not in ("auto", "predict_proba", "predict"):
            raise ValueError("response_method must be 'auto', 'predict_proba' or "
                             f"'predict' for a dtree model; got {response_method!r}")
        names = _all_feature_names(estimator, feature_names)
        entries = [tuple(_feature_indices(estimator, f if isinstance(f, (list, tuple))
                                          else [f])) for f in features]
        target_idx = _target_index(estimator, target)
        results, deciles = [], {}
        codes = estimator._validate_X_predict(X)
        for entry in entries:
            results.append(partial_dependence(
                estimator, X, list(entry), percentiles=percentiles,
                grid_resolution=grid_resolution, custom_values=custom_values,
                method=method, kind=kind, sample_weight=sample_weight))
            for f in entry:
                if f not in deciles and not estimator.categorical_features_[f]:
                    column = _column(X, codes, estimator, f)
                    deciles[f] = _mquantiles(column[~np.isnan(column)],
                                             np.arange(0.1, 1.0, 0.1))
        is_categorical = [tuple(bool(estimator.categorical_features_[f]) for f in entry)
                          for entry in entries]
        display = Display(results, features=entries, feature_names=names,
                          target_idx=target_idx, deciles=deciles, kind=kind,
                          subsample=subsample, random_state=random_state,
                          is_categorical=is_categorical)
        return display.plot(ax=ax, n_cols=n_cols, line_kw=line_kw,
                            ice_lines_kw=ice_lines_kw, pd_line_kw=pd_line_kw,
                            contour_kw=contour_kw, centered=centered)


def _all_feature_names(estimator, feature_names):
    if feature_names is not None:
        names = [str(n) for n in feature_names]
        if len(names) != estimator.n_features_in_:
            raise ValueError(f"feature_names must hold {estimator.n_features_in_} names; "
                             f"got {len(names)}")
        return names
    fitted = getattr(estimator, "feature_names_in_", None)
    return [str(n) for n in fitted] if fitted is not None else \
        [f"x{i}" for i in range(estimator.n_features_in_)]


def _target_index(estimator, target):
    """The output row of the results the plots show: a class's for more than two
    classes (``target`` names it), else the only one."""
    classes = getattr(estimator, "classes_", None)
    if classes is None or len(classes) <= 2:
        return 0
    if target is None:
        raise ValueError("target must name one of the classes for a multiclass estimator")
    matches = np.flatnonzero(np.asarray(classes) == target)
    if not matches.size:
        raise ValueError(f"target {target!r} is not one of the classes {list(classes)}")
    return int(matches[0])
