"""The presets (CART, ID3, C4.5): what they imply where parameters are left at default.

Quinlan's presets choose their own criterion, pruning and categorical columns
unless the user chose otherwise; every reader of those settings asks here.
"""


def algorithm(est):
    """The preset: "cart", "id3" or "c4.5" (a regressor is always "cart")."""
    return getattr(est, "algorithm", "cart")


def criterion(est):
    """The criterion: a preset's applies unless another than the default was chosen."""
    if est.criterion == "gini":
        return {"id3": "entropy", "c4.5": "gain_ratio"}.get(algorithm(est), "gini")
    return est.criterion


def impurity_degree(est):
    """The power of the target's unit in the impurity: squared error 2, poisson and
    the quantile criteria (absolute error, pinball loss) 1.

    (Classifiers' impurities have no unit: their targets are never scaled.)
    """
    return 2 if criterion(est) == "squared_error" else 1


def pruning_method(est):
    """The pruning to apply: the parameter, or the preset's when it is None."""
    if est.pruning == "none":
        return None
    if est.pruning is None and algorithm(est) == "c4.5" and not (
            isinstance(est.ccp_alpha, str) or est.ccp_alpha > 0):
        return "pessimistic"
    return est.pruning


def categorical_spec(est):
    """``categorical_features``, or "auto" where Quinlan's presets imply it."""
    spec = est.categorical_features
    if spec is None and getattr(est, "algorithm", "cart") in ("id3", "c4.5"):
        return "auto"  # the presets split text columns by category
    return spec


def splits_text(est):
    """Whether text columns are taken as categories (for scikit-learn's tags)."""
    spec = categorical_spec(est)
    return isinstance(spec, str) and spec == "auto"

