"""Monotonic constraints (``monotonic_cst``): checking them, and clipping node values.

The growth side lives in the kernels: a constrained feature's split is made only
if the children's values keep the order and the node's bounds (``_criterion``'s
``monotonic_ok``), and the children's bounds meet at the middle of their values
(``_grow``'s ``bound_children``). As in scikit-learn, a classifier is
constrained on the fraction of its negative class with the signs flipped, which
constrains the positive class's probability as the user asked.
"""
import numpy as np

from .._plan.presets import algorithm


def monotonic_constraints(est, n_features, n_classes):
    """The kernels' constraints (int8 per feature) from ``est.monotonic_cst``, or None.

    Raises ``ValueError`` in scikit-learn's words and order for a wrong length,
    values other than -1, 0 and 1, and multiclass targets; and where dtree has
    no order to constrain (a categorical feature, Quinlan's presets).
    """
    if est.monotonic_cst is None:
        return None
    if getattr(est, "n_outputs_", 1) > 1:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    cst = np.asarray(est.monotonic_cst)
    if cst.ndim != 1 or cst.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {cst.shape[0] if cst.ndim else cst.shape} "
                         f"but the input data X has {n_features} features.")
    if not np.isin(cst, (-1, 0, 1)).all():
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but "
                         f"got {np.unique(cst)}")
    cst = cst.astype(np.int8)
    if n_classes > 2:
        raise ValueError("Monotonicity constraints are not supported with multiclass "
                         "classification")
    categorical = np.flatnonzero(est.categorical_features_ & (cst != 0))
    if categorical.size:
        raise ValueError(f"monotonic_cst constrains categorical feature(s) "
                         f"{categorical.tolist()}: a set of categories has no order; "
                         "give them 0")
    if algorithm(est) != "cart":
        raise ValueError(f"algorithm={algorithm(est)!r} does not support monotonic_cst; "
                         "use algorithm='cart'")
    if n_classes > 0:
        cst = -cst   # the kernels constrain class 0's fraction
    return cst


def clip_values(value, lower, upper, n_classes):
    """Clip each node's value into its bounds, in place (scikit-learn's rule).

    ``value`` has shape (node_count, 1, max(n_classes, 1)); for a classifier the
    class-0 fraction is clipped and class 1 gets the rest, as scikit-learn does
    for every node of a constrained binary tree.
    """
    first = value[:, 0, 0]
    np.copyto(first, np.where(first < lower, lower, np.where(first > upper, upper, first)))
    if n_classes == 2:
        value[:, 0, 1] = 1.0 - value[:, 0, 0]
    return value
