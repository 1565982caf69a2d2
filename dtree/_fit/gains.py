"""By hand, as the seeds' worked examples do: a node's impurity, and the information
gain of each attribute at the root (as ID3 and C4.5 report it)."""
import numpy as np

from .._criterion import node_impurity_of
from .._plan.registry import CLASSIFICATION, DEFAULT_CRITERION, criterion_code

from .._input import categorical as cat
from .._input import validation as val


def _entropy_bits(weights):
    total = weights.sum()
    p = weights[weights > 0] / total
    return float(-(p * np.log2(p)).sum())


def _entropy_rows(counts):
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = counts / totals
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=1)


def information_gains(X, y, *, categorical_features="auto", sample_weight=None):
    """Information gain (bits) of splitting all of (X, y) by each feature.

    A categorical feature splits into one branch per category (missing values
    form a branch of their own), as in ID3; a numeric feature by its best
    binary threshold (missing values ignored).

    Parameters
    ----------
    X : DataFrame or 2-D array-like
    y : array-like of shape (n_samples,)
    categorical_features : as for the estimators, default="auto"
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    dict
        Feature name (or index) -> gain in bits.
    """
    y = np.asarray(y)
    classes, codes = np.unique(y, return_inverse=True)
    n = codes.shape[0]
    w = np.ones(n) if sample_weight is None else val.check_sample_weight(sample_weight, n)
    names = val.get_feature_names(X)
    n_features = X.shape[1] if hasattr(X, "shape") else len(X[0])
    mask = cat.resolve_mask(categorical_features, X, names, n_features)
    parent = _entropy_bits(np.bincount(codes, weights=w, minlength=len(classes)))
    total = w.sum()
    gains = {}
    for j in range(n_features):
        key = names[j] if names is not None else j
        values = cat.column_values(X, j)
        if mask[j]:
            missing = cat.missing_mask(values)
            labels = np.where(missing, "\0missing", np.asarray(values, dtype=object).astype(str))
            groups = np.unique(labels, return_inverse=True)[1]
            after = 0.0
            for g in range(groups.max() + 1):
                member = groups == g
                counts = np.bincount(codes[member], weights=w[member], minlength=len(classes))
                after += counts.sum() / total * _entropy_bits(counts)
            gains[key] = float(parent - after)
            continue
        x = np.asarray(values, dtype=np.float64)
        known = ~np.isnan(x)
        order = np.argsort(x[known], kind="stable")
        xs, cs, ws = x[known][order], codes[known][order], w[known][order]
        # class counts left of every cut at once: cumulative one-hot weights
        onehot = np.zeros((xs.shape[0], len(classes)))
        onehot[np.arange(xs.shape[0]), cs] = ws
        left = np.cumsum(onehot, axis=0)[:-1][xs[1:] != xs[:-1]]
        best = 0.0
        if left.shape[0]:
            node = onehot.sum(axis=0)
            right = node - left
            after = (_entropy_rows(left) * left.sum(axis=1)
                     + _entropy_rows(right) * right.sum(axis=1)) / node.sum()
            best = max(0.0, float((_entropy_bits(node) - after).max()))
        gains[key] = float(best)
    return gains


def impurity(counts, criterion=DEFAULT_CRITERION[CLASSIFICATION], quantile=0.5):
    """Impurity of one node from its (weighted) class counts.

    Parameters
    ----------
    counts : array-like of shape (n_classes,)
        Weighted class counts; for a regression criterion, the target values.
    criterion : str
        A criterion's name: a classifier's (gini; entropy in bits; the gain
        ratio's node impurity is entropy) or a regressor's (squared error: the
        population variance; poisson: the half Poisson deviance about the mean;
        absolute error: the mean absolute deviation from the median; quantile:
        the mean pinball loss about the ``quantile``).
    quantile : float
        The level of the quantile criterion.

    Returns
    -------
    float
    """
    return node_impurity_of(criterion_code(criterion), counts, quantile)
