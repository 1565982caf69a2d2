"""Scale-free fits: weights and regression targets brought near 1 by a power of two.

The kernels sum weights, squared weights, weighted targets and weighted squared
targets; with weights near 1e300 or targets near 1e308 those sums overflow,
and near 1e-300 they underflow, so the tree would depend on the units. A
power-of-two factor is exact in binary floating point: the scaled computation
gives bit for bit the scaled results, so on extreme data every sum stays finite
and the tree is the one the same data in moderate units gives. Regression
targets are always brought to [0.5, 1) in magnitude, so that the leaf rule
"impurity at most DBL_EPSILON" is relative to the targets' scale (scikit-learn
applies it in the user's units); weights only when they are extreme, and
uniform weights are dropped (the unit-weight tree). The fitted tree is turned back into the user's
units (weights, leaf values, impurities) by the same factors.
"""
import math

import numpy as np


# Weights within 2**+-MODERATE are left as they are: the kernels compare
# weights only relative to each other there, and C4.5's definitions (MINOBJS,
# the threshold penalty) count weights in the user's units.
MODERATE = 32


def power_of_two_scale(values, moderate=None):
    """The exponent e such that ``values * 2**-e`` has its largest magnitude in [0.5, 1).

    Returns 0 (no scaling) for None, an empty or all-zero array, and, when
    ``moderate`` is given, where the largest magnitude is already between
    ``2**-moderate`` and ``2**moderate``.
    """
    if values is None or values.size == 0:
        return 0
    top = float(np.max(np.abs(values)))
    if top == 0.0 or not math.isfinite(top):
        return 0
    exponent = math.frexp(top)[1]
    if moderate is not None and -moderate <= exponent <= moderate:
        return 0
    return exponent


def weight_units(w_min, w_max, always=False):
    """How a fit scales positive weights whose extremes are ``w_min`` and ``w_max``.

    Returns (unit, exponent, uniform). All-equal weights are unit weights in
    units of their value (``uniform``): the builders get no weights at all, so
    the tree is the unit-weight tree at any scale, ties included (a rescaled
    weight would round differently and could break a tie the other way).
    Others are scaled by 2**-exponent (near 1 where they are not moderate
    already; ``always``: the largest always into [0.5, 1), so that weights in
    any power-of-two unit reach the builder as the same numbers — the entropy
    criteria's x ln x depends on the unit), one builder unit weighing ``unit``
    = 2**exponent.
    """
    if w_min == w_max:
        return float(w_max), 0, True
    exponent = power_of_two_scale(np.array([w_max], dtype=np.float64),
                                  moderate=None if always else MODERATE)
    # weights from 2**1023 on would need a unit of 2**1024, past float64: one less
    # exponent leaves the largest scaled weight in [1, 2), as exact
    exponent = min(exponent, 1023)
    return math.ldexp(1.0, exponent), exponent, False


def scaled(values, exponent):
    """``values * 2**-exponent`` (exact where no result is subnormal)."""
    if values is None or exponent == 0:
        return values
    return np.ldexp(values, -exponent)


def unscaled(values, exponent):
    """``values * 2**exponent``: back to the user's units, infinite past float64."""
    if exponent == 0:
        return values
    with np.errstate(over="ignore"):
        return np.ldexp(values, exponent)


def scale_limit(value, exponent):
    """A limit in the user's units (``value``) in units scaled by ``2**-exponent``."""
    if value == 0.0 or exponent == 0:
        return value
    try:
        return math.ldexp(value, -exponent)
    except OverflowError:  # a limit beyond float64 in scaled units: nothing reaches it
        return math.inf


def unscale_tree(tree, weight_unit, target_exponent, degree=2):
    """Put a tree grown on scaled weights and targets back into the user's units.

    ``weight_unit`` is what one unit of the builder's weights weighs for the
    user (a uniform weight, or a power of two); ``degree`` is the power of the
    target's unit in the impurity (2 for squared error, 1 for poisson).
    """
    # the tree keeps the builder's weighted counts and the unit apart, so they
    # stay finite for readers that need ratios (importances, C4.5's pruning)
    tree.weight_unit = tree.weight_unit * weight_unit
    if target_exponent:
        tree.value = unscaled(tree.value, target_exponent)
        # the tree keeps impurities scaled with their factor, so readers that
        # need ratios never see an overflow
        tree.impurity_exponent += degree * target_exponent
    return tree
