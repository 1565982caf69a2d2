"""The regressors: ``DecisionTreeRegressor`` and ``ExtraTreeRegressor``."""
import math

import numpy as np

from .._input.encode import check_fitted, numeric_target, regressor_data
from .._model.fitted import one_fit
from .._model.units import power_of_two_scale, scaled
from .._plan.constraints import REGRESSOR
from .._plan.registry import DEFAULT_CRITERION, REGRESSION, current_criterion
from .base import BaseDecisionTree
from .params import documented, register, with_defaults


@register
class DecisionTreeRegressor(BaseDecisionTree):
    """Exact CART decision tree regressor.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error", "quantile", "poisson", \
"friedman_mse"}, default="squared_error"
        "squared_error": variance reduction, leaves predict the mean.
        "absolute_error": reduction of the sum of absolute deviations from the
        median, leaves predict the weighted median (scikit-learn's definition:
        where the weight below a target is exactly half, the midpoint).
        "quantile": reduction of the pinball loss of level ``quantile``, leaves
        predict the weighted quantile (defined as the median is);
        ``quantile=0.5`` splits as "absolute_error" (whose loss is twice the
        pinball loss).
        "poisson": reduction of the half Poisson deviance (y >= 0 with a positive
        sum; no split leaves a child whose mean is 0), leaves predict the mean.
        "friedman_mse": deprecated, as in scikit-learn 1.9; the same as
        "squared_error" (a FutureWarning says so).
        The quantile criteria search a categorical feature's subsets along the
        order of the categories' mean targets (m - 1 candidates, not every
        subset), and are not available with ``splitter="hist"``.
    splitter : {"best", "random", "hist"}, default="best"
    max_depth : int or None, default=None
    min_samples_split : int or float, default=2
    min_samples_leaf : int or float, default=1
    min_weight_fraction_leaf : float, default=0.0
    max_features : int, float, {"sqrt", "log2"} or None, default=None
    random_state : int, RandomState, Generator or None, default=None
    max_leaf_nodes : int or None, default=None
    min_impurity_decrease : float, default=0.0
    quantile : float in (0, 1), default=0.5
        The level of ``criterion="quantile"`` (other criteria ignore it).
    ccp_alpha, cp, prune_risk, pruning, cv, cv_rule, validation_fraction, handle_missing
    categorical_features, handle_unknown, n_jobs, max_bins, monotonic_cst, value_tolerance,
    keep_competitors, n_surrogates
        See ``DecisionTreeClassifier``; here ``monotonic_cst`` constrains the
        predicted value, and ``pruning="pessimistic"`` is for classifiers only.
    verbose : int, default=0
        See ``DecisionTreeClassifier``.
    keep_leaf_targets : bool, default=False
        Keep each leaf's training targets (and weights) in ``tree_.leaf_targets``
        and in model files, for ``predict_interval`` (8 bytes per training row
        and output, plus 16).

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    max_features_ : int
    tree_ : Tree
    feature_importances_ : ndarray of shape (n_features,)

    Examples
    --------
    >>> from dtree import DecisionTreeRegressor
    >>> reg = DecisionTreeRegressor().fit([[0.0], [1.0], [2.0]], [1.0, 1.0, 3.0])
    >>> reg.predict([[1.9]]).tolist()
    [3.0]
    """

    _is_classifier = False
    _parameter_constraints = REGRESSOR

    # (kept duplicate, by shape: each estimator spells its parameters out in its
    # signature, as scikit-learn's do: get_params, clone and the docs read it)
    def __init__(self, *, criterion=DEFAULT_CRITERION[REGRESSION], splitter="best",
                 max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, cp=None, prune_risk="impurity",
                 pruning=None, cv=10, cv_rule="1se", validation_fraction=0.1,
                 handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", n_jobs=None, max_bins=255, quantile=0.5,
                 monotonic_cst=None, value_tolerance=0.0, keep_competitors=0,
                 n_surrogates=None, keep_leaf_targets=False, verbose=0):
        criterion = current_criterion(criterion)   # as scikit-learn 1.9 does, at construction
        self._store_params(locals())

    def _training_data(self, choices, X, y, sample_weight):
        return regressor_data(self, choices, X, y, sample_weight)

    @documented("Each sample's leaf value: its mean target (its quantile for the "
                "quantile criteria).",
                "ndarray of shape (n_samples,) or (n_samples, n_outputs)")
    @one_fit
    def predict(self, X):
        check_fitted(self)
        values = self.tree_.value[:, :, 0]
        if self.n_outputs_ == 1:
            return self._at_leaves(X, np.ascontiguousarray(values[:, 0]))
        X = self._validate_X_predict(X)
        return values.take(self.tree_.apply(X, self._n_threads(X.shape[0])), axis=0)

    def _score(self, y, pred, sw):
        # R^2; with several outputs the mean of theirs (scikit-learn's "uniform_average")
        y = numeric_target(y)
        if pred.ndim == 2:
            y = y.reshape(pred.shape)
            return float(np.mean([self._score(y[:, k], pred[:, k], sw)
                                  for k in range(pred.shape[1])]))
        w = np.ones_like(y) if sw is None else sw
        # R^2 is a ratio: compute it in units where neither squares nor sums overflow
        exponent = power_of_two_scale(np.r_[y, pred]) + 1 + math.ceil(math.log2(y.shape[0]))
        y, pred, w = scaled(y, exponent), scaled(pred, exponent), w / w.max()
        residual = np.sum(w * (y - pred) ** 2)
        total = np.sum(w * (y - np.average(y, weights=w)) ** 2)
        if total == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return float(1.0 - residual / total)

    def __sklearn_tags__(self):
        return self._tags("regressor")


@register
@with_defaults(splitter="random", max_features=1.0)
class ExtraTreeRegressor(DecisionTreeRegressor):
    """Extremely randomized tree regressor (scikit-learn's ``ExtraTreeRegressor``).

    A ``DecisionTreeRegressor`` whose defaults are ``splitter="random"`` and
    ``max_features=1.0`` (every feature drawn, one random threshold each, the
    best kept; see ``ExtraTreeClassifier`` for the draw). Every criterion,
    several outputs, weights, missing values and pruning work as for
    ``DecisionTreeRegressor``.

    Examples
    --------
    >>> from dtree import ExtraTreeRegressor
    >>> reg = ExtraTreeRegressor(random_state=0).fit([[0.0], [1.0], [2.0]], [1.0, 1.0, 3.0])
    >>> reg.predict([[0.0], [2.0]]).tolist()
    [1.0, 3.0]
    """
