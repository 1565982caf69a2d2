"""A regressor's split nodes from their children, bit for bit: what pickles and forest
files keep of its means and impurities.

A split node's mean is its children's means weighted by their weights, and its
squared-error impurity their impurities and means pooled (the variance of the
union), both up to rounding: the builder summed the rows in its own order. So a
writer keeps the leaves' numbers and, for each split node, only the difference
between the bits of its number and of what its children give (``residuals``:
mostly 0 or a few units in the last place, which compress to almost nothing);
a reader computes the same predictions, deepest split nodes first, and adds the
differences back (``restored``). The prediction need not be right (another
criterion's impurities give large differences, never wrong numbers), only the
same on every machine: it is computed with numpy's elementwise float64
operations (each rounded as IEEE 754 prescribes, never fused), and only where
every number in it is zero or far inside float64's range, so that no step is
subnormal (flush-to-zero modes differ between processes) or NaN (whose bits
differ between processors).
"""
import numpy as np

# every number of a prediction's steps stays normal with these bounds on its inputs
# (|value| and |impurity| zero or within them; weights within theirs)
_VALUE_EXP, _IMPURITY_EXP, _WEIGHT_EXP = 300, 600, 100


def _moderate(column, exponent):
    magnitude = np.abs(column)
    return bool(np.all((magnitude == 0) | ((magnitude >= 2.0 ** -exponent) &
                                          (magnitude <= 2.0 ** exponent))))


def _scaled_means(means, impurity_exponent):
    # the means in the impurities' units (squared error: impurity_exponent is twice
    # the targets' power-of-two scale; ldexp is exact in the bounds above)
    if impurity_exponent % 2:
        return means
    return np.ldexp(means, -(impurity_exponent // 2))


def _mean_prediction(means, weight, left, right, nodes):
    # (len(nodes), n_outputs): the children's means weighted by their weights
    lo, hi = left[nodes], right[nodes]
    return (weight[lo, None] * means[lo] + weight[hi, None] * means[hi]) / weight[nodes, None]


def _mean_square(means, nodes):
    # the outputs' squared means averaged, added in output order (a reduction's
    # order may change between numpy versions; this one is fixed)
    total = means[nodes, 0] * means[nodes, 0]
    for k in range(1, means.shape[1]):
        total = total + means[nodes, k] * means[nodes, k]
    return total / means.shape[1]


def _impurity_prediction(means, impurity, weight, left, right, nodes):
    # the children's squared errors about the parent's mean, per unit weight
    lo, hi = left[nodes], right[nodes]
    pooled = weight[lo] * (impurity[lo] + _mean_square(means, lo)) + \
        weight[hi] * (impurity[hi] + _mean_square(means, hi))
    return pooled / weight[nodes] - _mean_square(means, nodes)


def _difference(actual, predicted):
    # int64 bits of actual less those of predicted (wrapping: exact both ways)
    return actual.view(np.int64) - predicted.view(np.int64)


def residuals(value, impurity, weight, shape, impurity_exponent):
    """A regressor's split nodes as differences to what their children give.

    Parameters
    ----------
    value : ndarray of shape (n_nodes, n_outputs, 1)
        The nodes' means.
    impurity, weight : ndarray of shape (n_nodes,)
        The builder's impurities and weighted counts (``scaled_impurity``,
        ``scaled_weighted_n_node_samples``).
    shape : (left, right, depth)
        The tree's children and depths; a split node's children after it.
    impurity_exponent : int

    Returns
    -------
    (value_residuals, impurity_residuals)
        int64 arrays of shape (n_splits, n_outputs) and (n_splits,), split nodes
        in node order; either None where its numbers are not all moderate.
    """
    left, right = shape[0], shape[1]
    nodes = np.flatnonzero(left >= 0)
    if value.ndim != 3 or value.shape[2] != 1 or not _moderate(weight, _WEIGHT_EXP):
        return None, None
    means = np.ascontiguousarray(value[:, :, 0], dtype=np.float64)
    out_value = out_impurity = None
    with np.errstate(all="ignore"):
        if _moderate(means, _VALUE_EXP):
            predicted = _mean_prediction(means, weight, left, right, nodes)
            if np.isfinite(predicted).all():
                out_value = _difference(means[nodes], predicted)
        scaled = _scaled_means(means, impurity_exponent)
        if _moderate(scaled, _VALUE_EXP) and _moderate(impurity, _IMPURITY_EXP):
            predicted = _impurity_prediction(scaled, impurity, weight, left, right, nodes)
            if np.isfinite(predicted).all():
                out_impurity = _difference(impurity[nodes], predicted)
    return out_value, out_impurity


def restored(value, impurity, weight, shape, impurity_exponent, value_residuals,
             impurity_residuals):
    """``value`` and ``impurity`` with their split nodes rebuilt from their leaves and
    ``residuals``' differences (None: that column is whole already), in place.

    Raises ValueError when a prediction is not finite (the record was not written
    by ``residuals``)."""
    left, right = shape[0], shape[1]
    nodes = np.flatnonzero(left >= 0)
    for name, diff, width in (("values", value_residuals, value.shape[1]),
                              ("impurities", impurity_residuals, None)):
        if diff is not None and diff.shape != ((nodes.shape[0], width) if width else
                                               (nodes.shape[0],)):
            raise ValueError(f"the split nodes' {name} do not fit the tree")
    means = value[:, :, 0]
    with np.errstate(all="ignore"):
        levels = _deepest_first(nodes, shape[2])
        if value_residuals is not None:
            for at in levels:
                predicted = _mean_prediction(means, weight, left, right, nodes[at])
                means[nodes[at]] = _added(predicted, value_residuals[at])
        if impurity_residuals is not None:
            scaled = _scaled_means(means, impurity_exponent)
            for at in levels:
                predicted = _impurity_prediction(scaled, impurity, weight, left, right,
                                                 nodes[at])
                impurity[nodes[at]] = _added(predicted, impurity_residuals[at])
    return value, impurity


def _deepest_first(nodes, depth):
    # positions in ``nodes`` by depth, deepest first: children are rebuilt before
    # their parent
    depths = depth[nodes]
    order = np.argsort(-depths, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(depths[order])) + 1) if order.size else []


def _added(predicted, difference):
    if not np.isfinite(predicted).all():
        raise ValueError("a split node's number does not rebuild from its children")
    return (predicted.view(np.int64) + difference).view(np.float64)
