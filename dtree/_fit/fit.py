"""Fitting: from encoded arrays to a pruned tree.

``fit_tree`` is the pipeline an estimator's ``fit`` runs after encoding: the
growth parameters from the (validated) hyperparameters, the builder the
configuration calls for (exact presorted, histogram, C4.5) on weights and
targets scaled to near 1, then pruning (C4.5's pessimistic, reduced error on a
hold-out, cost-complexity at an alpha, or alpha chosen by cross-validation
with rpart's CP table, every fold grown by the same ``grow``).
"""
import dataclasses
import math

import numpy as np

from .binning import category_thresholds, fit_bins
from .._c45 import grow_c45
from .._criterion import CRITERIA
from .._hist_splitter import HistSplitter, bin_codes
from .monotonic import monotonic_constraints
from .._model.tree import Tree
from .._plan.constraints import (GrowthParams, InvalidParameterError, check_leaf_budget, clamp_to_data,
                                 is_int, n_threads)
from .._plan.presets import algorithm, criterion, impurity_degree, pruning_method
from .pruning import (PruningSequence, cp_table, cross_validated_losses, fold_ids,
                      pessimistic_leaves, prune_ccp, reduced_error_leaves, select_row,
                      single_leaf_loss)
from .._model.units import (power_of_two_scale, scale_limit, scaled, weight_units,
                            unscale_tree)
from .._sparse_splitter import SparseSplitter
from .._splitter import Splitter
from .._input.validation import is_sparse
from .._grow import build_tree
from .._model.leaves import LeafTargets, feature_ranges

_QUANTILE_CRITERIA = ("absolute_error", "quantile")

# Depth limit standing in for "unlimited": deeper than any tree a machine holds.
_NO_DEPTH_LIMIT = 2**31 - 1
_is_int = is_int


# scikit-learn's splitters seed their generator with randint(0, RAND_R_MAX)
RAND_R_MAX = 2**31 - 1


def _draw(random_state, low, high):
    """One integer in [low, high) from what ``random_state`` names (scikit-learn's
    ``check_random_state``: None is numpy's global RandomState; a Generator, which
    scikit-learn refuses, draws with ``integers``)."""
    if random_state is None or random_state is np.random:
        return int(np.random.randint(low, high, dtype=np.int64))
    if _is_int(random_state):
        random_state = np.random.RandomState(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(low, high, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(low, high))
    raise ValueError(f"random_state must be None, an int, a numpy RandomState or "
                     f"Generator; got {random_state!r}")


def draw_seed(random_state):
    """The seed of the splitters' generator, drawn as scikit-learn draws it.

    ``randint(0, RAND_R_MAX)``, so that the same ``random_state`` gives
    scikit-learn's feature draws and leaves a RandomState passed in in the
    state scikit-learn would.
    """
    return _draw(random_state, 0, RAND_R_MAX)


def rng(random_state):
    """The RandomState of hold-outs and folds (kept apart from the splitters' seed)."""
    if isinstance(random_state, np.random.RandomState):
        return random_state
    return np.random.RandomState(_draw(random_state, 1, 2**62) % 2**32)


def holdout(encoded_y, n_classes, fraction, rng):
    """Mask of a held-out part of about ``fraction`` of the samples (per class)."""
    n = encoded_y.shape[0]
    held = np.zeros(n, dtype=bool)
    groups = [np.flatnonzero(encoded_y == k) for k in range(n_classes)] if n_classes \
        else [np.arange(n)]
    for members in groups:
        if members.shape[0] < 2:
            continue
        take = min(max(1, int(round(fraction * members.shape[0]))), members.shape[0] - 1)
        held[rng.choice(members, size=take, replace=False)] = True
    if held.all() or not held.any():
        what = "train on" if held.all() else "validate on"
        raise ValueError(f"validation_fraction={fraction} leaves no samples to {what}")
    return held


def check_fold(pair, k, n_samples):
    """A user's (train, test) pair as integer index arrays within the data."""
    try:
        train, test = pair
    except (TypeError, ValueError):
        raise ValueError(f"cv split {k} is not a (train, test) pair") from None
    out = []
    for part, indices in (("train", train), ("test", test)):
        try:
            indices = np.asarray(indices)
        except (TypeError, ValueError):
            raise ValueError(f"cv split {k}: the {part} indices are not an array") from None
        if indices.dtype == bool and indices.shape == (n_samples,):
            indices = np.flatnonzero(indices)  # a mask
        if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
            raise ValueError(f"cv split {k}: the {part} indices must be a 1-D array of "
                             f"integers; got dtype {indices.dtype}, shape {indices.shape}")
        if indices.size == 0:
            raise ValueError("every cv split needs training and test samples")
        if indices.min() < 0 or indices.max() >= n_samples:
            raise ValueError(f"cv split {k}: {part} indices must lie in [0, {n_samples}); "
                             f"got {indices.min()} to {indices.max()}")
        out.append(indices.astype(np.intp))
    return tuple(out)



def resolve_params(est, n_samples, n_features, total_weight):
    """Turn the (validated) hyperparameters into the grower's numbers (``GrowthParams``).

    Sizes are clamped to what ``n_samples`` allows (see
    ``_params.clamp_to_data``): the tree is the same and no size reaching
    C code can overflow.
    """
    max_depth = _NO_DEPTH_LIMIT if est.max_depth is None else est.max_depth
    max_depth = clamp_to_data(max_depth, n_samples)

    leaf = est.min_samples_leaf
    if _is_int(leaf):
        min_samples_leaf = clamp_to_data(leaf, n_samples)
    else:
        min_samples_leaf = max(1, int(math.ceil(leaf * n_samples)))
    split = est.min_samples_split
    if _is_int(split):
        min_samples_split = clamp_to_data(split, n_samples)
    else:
        min_samples_split = max(2, int(math.ceil(split * n_samples)))
    min_samples_split = clamp_to_data(max(min_samples_split, 2 * min_samples_leaf),
                                      n_samples)
    min_weight_leaf = est.min_weight_fraction_leaf * total_weight

    max_features = est.max_features
    if max_features is None:
        n_draw = n_features
    elif isinstance(max_features, str):
        root = math.sqrt if max_features == "sqrt" else math.log2
        n_draw = max(1, int(root(n_features)))
    elif _is_int(max_features):
        if max_features > n_features:
            raise InvalidParameterError(
                f"max_features must be in [1, n_features={n_features}]; got "
                f"{max_features!r}")
        n_draw = int(max_features)
    else:
        n_draw = max(1, int(max_features * n_features))

    check_leaf_budget(est.max_leaf_nodes)
    # a tree on n samples has at most n leaves
    max_leaf_nodes = -1 if est.max_leaf_nodes is None else \
        max(2, clamp_to_data(est.max_leaf_nodes, n_samples))
    decrease = float(est.min_impurity_decrease)
    return GrowthParams(max_depth=int(max_depth), min_samples_split=int(min_samples_split),
                        min_samples_leaf=int(min_samples_leaf),
                        min_weight_leaf=float(min_weight_leaf),
                        min_impurity_decrease=decrease, max_leaf_nodes=int(max_leaf_nodes),
                        max_features=int(n_draw))


def grow(est, X, encoded_y, weights, n_classes, y_exp=None):
    """An unpruned tree grown with this estimator's growth parameters.

    Weights (and regression targets) are scaled by a power of two to near 1
    for the builders and the tree is put back into the user's units after
    (``_scaling``): the tree does not depend on the units.
    """
    if weights is not None and not (weights > 0).all():
        # A zero-weight sample must not place a threshold: drop it, as
        # scikit-learn does (n_node_samples counts positive weights only).
        keep = weights > 0
        X, encoded_y, weights = X[keep], encoded_y[keep], weights[keep]
    w_unit, w_exp = 1.0, 0
    if weights is not None:
        w_unit, w_exp, uniform = weight_units(weights.min(), weights.max())
        weights = None if uniform else scaled(weights, w_exp)
    if y_exp is None:  # (a fit passes one exponent to all its trees: folds too)
        y_exp = 0 if n_classes else power_of_two_scale(encoded_y)
    encoded_y = scaled(encoded_y, y_exp)
    params = scaled_params(est, X.shape[0], X.shape[1],
                           float(weights.sum()) if weights is not None else float(X.shape[0]),
                           y_exp)
    tree = _grow_scaled(est, X, encoded_y, weights, n_classes, params, w_exp)
    return unscale_tree(tree, w_unit, y_exp, impurity_degree(est))


def scaled_params(est, n_samples, n_features, total_weight, y_exp):
    """``resolve_params`` for weights and targets scaled as a fit scales them (the
    total weight in the builder's units; targets by 2**-y_exp): impurities are
    in (squared) target units, so is ``min_impurity_decrease``."""
    params = resolve_params(est, n_samples, n_features, total_weight)
    return dataclasses.replace(params, min_impurity_decrease=scale_limit(
        params.min_impurity_decrease, impurity_degree(est) * y_exp))


def _most_classes(n_classes):
    # the builders' class count: the most of any output (0 for regression)
    return int(np.max(n_classes))


def _grow_scaled(est, X, encoded_y, weights, n_classes, params, w_exp):
    """The grower for this configuration, on weights and targets scaled near 1."""
    n_draw = params.max_features
    # drawn for every fit, as scikit-learn does: the visiting order decides ties
    seed = draw_seed(est.random_state)
    n_categories = np.array([0 if c is None else max(1, len(c))
                             for c in est.categories_], dtype=np.int32)
    monotonic = monotonic_constraints(est, X.shape[1], _most_classes(n_classes))
    if est.splitter == "hist":
        return _grow_hist(est, X, encoded_y, weights, n_classes, params, seed, monotonic)
    if est.splitter == "random" and algorithm(est) != "cart":
        raise ValueError(f"splitter='random' grows CART trees: algorithm={algorithm(est)!r} "
                         "is not supported with it; use algorithm='cart'")
    if algorithm(est) == "c4.5":
        return _grow_c45(est, X, encoded_y, weights, n_classes, params, n_categories, w_exp)
    multiway = algorithm(est) == "id3"   # (its ties go to the smallest feature index)
    if multiway and params.max_leaf_nodes > 0:
        raise ValueError("algorithm='id3' grows depth-first: max_leaf_nodes is not "
                         "supported with it")
    if is_sparse(X):
        splitter = SparseSplitter(X, encoded_y, weights, _most_classes(n_classes),
                                  CRITERIA[criterion(est)], params.min_samples_leaf,
                                  params.min_weight_leaf, n_draw, seed, monotonic_cst=monotonic,
                                  value_tolerance=float(est.value_tolerance),
                                  random_split=est.splitter == "random",
                                  n_threads=n_threads(getattr(est, "n_jobs", 1)))
    else:
        splitter = Splitter(X, encoded_y, weights, _most_classes(n_classes), CRITERIA[criterion(est)],
                            params.min_samples_leaf, params.min_weight_leaf,
                            n_draw, seed, n_categories, multiway,
                            n_threads(getattr(est, "n_jobs", 1)),
                            quantile=float(getattr(est, "quantile", 0.5)),
                            monotonic_cst=monotonic, value_tolerance=float(est.value_tolerance),
                            index_order=multiway, random_split=est.splitter == "random")
    arrays = build_tree(splitter, **params.limits())
    del splitter  # free the presorted columns before building the Tree object
    est.max_features_ = n_draw
    return Tree.from_builder(arrays, X.shape[1], n_classes,
                             quantile_values=criterion(est) in _QUANTILE_CRITERIA,
                             n_outputs=n_outputs_of(encoded_y), ranges=not is_sparse(X))


def n_outputs_of(encoded_y):
    """Number of outputs of encoded targets (columns of a 2-D y)."""
    return encoded_y.shape[1] if encoded_y.ndim == 2 else 1


def _grow_hist(est, X, encoded_y, weights, n_classes, params, seed, monotonic):
    """The histogram splitter's tree (``_hist``): features binned, then grown."""
    max_bins = est.max_bins
    unsupported = [name for name, used in (
        (f"algorithm={algorithm(est)!r}", algorithm(est) != "cart"),
        # a bin's targets have no running sum that gives a quantile
        (f"criterion={criterion(est)!r}", criterion(est) in _QUANTILE_CRITERIA),
        ("value_tolerance > 0 (its bins decide which values are apart)",
         est.value_tolerance > 0)) if used]
    if unsupported:
        raise ValueError(f"splitter='hist' does not support {', '.join(unsupported)} yet; "
                         "use splitter='best'")
    threads = n_threads(getattr(est, "n_jobs", 1))
    categorical = est.categorical_features_
    thresholds = fit_bins(X, int(max_bins))
    for f in np.flatnonzero(categorical):
        thresholds[f] = category_thresholds(len(est.categories_[f]), _column_name(est, f))
    codes, lo, hi = bin_codes(X, thresholds, threads)
    splitter = HistSplitter(codes, lo, hi, encoded_y, weights, n_classes,
                            CRITERIA[criterion(est)], params.min_samples_leaf,
                            params.min_weight_leaf, params.max_features, seed, threads,
                            monotonic, categorical=categorical)
    arrays = build_tree(splitter, **params.limits())
    est.max_features_ = params.max_features
    return Tree.from_builder(arrays, X.shape[1], n_classes)


def _column_name(est, f):
    names = getattr(est, "feature_names_in_", None)
    return f"column {names[f]!r}" if names is not None else f"column {f}"


def _grow_c45(est, X, encoded_y, weights, n_classes, params, n_codes, w_exp):
    """C4.5's tree: fractional missing values, so its own grower (``_c45``)."""
    if params.max_leaf_nodes > 0 or params.max_features < X.shape[1]:
        raise ValueError("algorithm='c4.5' grows depth-first on every feature: "
                         "max_leaf_nodes and max_features are not supported with it")
    if est.value_tolerance > 0:
        raise ValueError("algorithm='c4.5' cuts between any two different values: "
                         "value_tolerance > 0 is not supported with it")
    if criterion(est) not in ("gain_ratio", "entropy", "log_loss"):
        raise ValueError(f"algorithm='c4.5' splits by gain ratio or information gain; "
                         f"criterion={est.criterion!r} is not supported with it")
    if weights is None:
        weights = np.ones(X.shape[0])
    # C4.5's MINOBJS is 2; scikit-learn's default min_samples_leaf of 1 means "preset"
    min_objs = 2 if est.min_samples_leaf == 1 else params.min_samples_leaf
    # a weight of cases: in the scaled units of the weights
    min_objs = max(scale_limit(float(min_objs), w_exp), params.min_weight_leaf)  # min_weight_fraction_leaf
    arrays = grow_c45(X, encoded_y, weights, n_classes,
                      est.categorical_features_.astype(np.uint8), n_codes,
                      max_depth=params.max_depth,
                      min_samples_split=params.min_samples_split,
                      min_objs=float(min_objs),
                      min_impurity_decrease=params.min_impurity_decrease,
                      use_ratio=criterion(est) == "gain_ratio")
    est.max_features_ = params.max_features
    tree = Tree.from_builder(arrays, X.shape[1], n_classes)
    tree.fractional_missing = True
    return tree


def fit_tree(est, X, encoded_y, weights, n_classes):
    """Grow and prune the tree of ``est`` on encoded data; sets ``tree_`` (and pruning's
    ``ccp_alpha_`` / ``cp_table_``).

    ``n_classes``: 0 for regression, the number of classes, or with several
    outputs (``encoded_y`` of shape (n_samples, n_outputs)) a list of them.
    """
    est.n_outputs_ = n_outputs_of(encoded_y)
    if est.n_outputs_ > 1:
        check_outputs(est)
    # classes stratify hold-outs and folds of one output; several are shuffled
    strata = n_classes if est.n_outputs_ == 1 else 0
    _check_pruning_params(est, encoded_y, weights, strata, n_classes)
    monotonic_constraints(est, X.shape[1], _most_classes(n_classes))   # errors before growth
    for name in ("cp_table_", "ccp_alpha_"):
        est.__dict__.pop(name, None)
    pruning = pruning_method(est)
    # every tree of this fit (folds and hold-outs too) shares one target scale,
    # so that pruning compares their alphas in the same units
    y_exp = 0 if _most_classes(n_classes) else power_of_two_scale(encoded_y)
    grown = None   # the rows the tree was grown on (None: all)
    if pruning == "reduced_error":
        valid = holdout(encoded_y, strata, est.validation_fraction,
                         rng(est.random_state))
        train = grown = ~valid
        tree = grow(est, X[train], encoded_y[train],
                          None if weights is None else weights[train], n_classes, y_exp)
        w_valid = np.ones(valid.sum()) if weights is None else weights[valid]
        tree = tree.subtree(reduced_error_leaves(tree, X[valid], encoded_y[valid],
                                                 w_valid))
    else:
        tree = grow(est, X, encoded_y, weights, n_classes, y_exp)
        if pruning == "pessimistic":
            tree = tree.subtree(pessimistic_leaves(tree, est.cf))
    if isinstance(est.ccp_alpha, str):
        tree = _prune_by_cross_validation(est, tree, X, encoded_y, weights, n_classes,
                                          strata, y_exp)
    elif est.ccp_alpha > 0.0:
        tree = prune_ccp(tree, float(est.ccp_alpha), est.prune_risk)
        est.ccp_alpha_ = float(est.ccp_alpha)
    if grown is not None:
        X, encoded_y = X[grown], encoded_y[grown]
        weights = None if weights is None else weights[grown]
    est.tree_ = _annotated(est, tree, X, encoded_y, weights, n_classes)
    return est


def _annotated(est, tree, X, encoded_y, weights, n_classes):
    """The tree with what it records of its training rows: each split's range of its
    feature, a regressor's leaf targets if kept, competitors and surrogates if asked.
    Zero-weight rows count nowhere, as in growth."""
    if weights is not None and not (weights > 0).all():
        keep = weights > 0
        X, encoded_y, weights = X[keep], encoded_y[keep], weights[keep]
    keep_targets = getattr(est, "keep_leaf_targets", False)
    # the rows as the fit routed them (a dense X's ranges need no leaves)
    leaves = tree.apply(X) if keep_targets or is_sparse(X) else None
    if tree.feature_range is None:     # (the exact splitter records them as it grows)
        tree.feature_range = feature_ranges(tree, X, leaves)
    if keep_targets:
        tree.leaf_targets = LeafTargets.from_rows(
            leaves, encoded_y, np.ones(X.shape[0]) if weights is None else weights)
    return _with_other_splits(est, tree, X, encoded_y, weights, n_classes)


def n_surrogates(est):
    """Surrogates to keep per split: ``n_surrogates``, or rpart's 5 when they route."""
    if est.n_surrogates is not None:
        return int(est.n_surrogates)
    return 5 if est.handle_missing == "surrogate" else 0


def _with_other_splits(est, tree, X, encoded_y, weights, n_classes):
    """The tree with its competitor and surrogate splits attached, if asked for."""
    surrogate_missing = est.handle_missing == "surrogate"
    k, s = int(est.keep_competitors), n_surrogates(est)
    if not (k or s or surrogate_missing):
        return tree
    refused = [what for what, used in (
        (f"splitter={est.splitter!r}", est.splitter != "best"),
        (f"algorithm={algorithm(est)!r}", algorithm(est) != "cart"),
        ("monotonic_cst", est.monotonic_cst is not None),
        ("sparse X", is_sparse(X))) if used]
    if refused:
        asked = ("handle_missing='surrogate'" if surrogate_missing else
                 "keep_competitors" if k else "n_surrogates")
        raise ValueError(f"{asked} needs the exact CART search on dense X: not "
                         f"supported with {', '.join(refused)}")
    from .audit import attach
    if weights is None:
        weights = np.ones(X.shape[0])
    params = resolve_params(est, X.shape[0], X.shape[1], float(weights.sum()))
    n_categories = np.array([0 if c is None else max(1, len(c))
                             for c in est.categories_], dtype=np.int32)
    setting = dict(n_classes=_most_classes(n_classes), criterion=CRITERIA[criterion(est)],
                   min_samples_leaf=params.min_samples_leaf,
                   min_weight_leaf=params.min_weight_leaf,
                   quantile=float(getattr(est, "quantile", 0.5)),
                   value_tolerance=float(est.value_tolerance), n_categories=n_categories)
    return attach(tree, np.ascontiguousarray(X, dtype=np.float32), encoded_y, weights,
                  setting=setting, n_competitors=k, n_surrogates=s,
                  surrogate_missing=surrogate_missing)


def outputs_refusals(est):
    """The parameters of ``est`` that several outputs cannot be combined with."""
    return [what for what, used in (
        ("splitter='hist'", est.splitter == "hist"),
        (f"algorithm={algorithm(est)!r} (Quinlan's trees have one class variable)",
         algorithm(est) != "cart"),
        (f"criterion={criterion(est)!r}", criterion(est) == "gain_ratio"),
        ("pruning='pessimistic' (C4.5's error estimate is for one class variable)",
         est.pruning == "pessimistic")) if used]


def check_outputs(est):
    """What several outputs cannot be combined with: clear errors before any work."""
    refused = outputs_refusals(est)
    if est.categorical_features_.any():
        refused.append("categorical features")
    if refused:
        raise ValueError(f"several outputs (y of shape (n_samples, {est.n_outputs_})) are "
                         f"not supported with {', '.join(refused)} yet; fit one tree per "
                         "output, or use splitter='best' with numeric features")


def _check_pruning_params(est, encoded_y, weights, strata, n_classes):
    """The pruning checks that need the data or several parameters together."""
    alpha = est.ccp_alpha
    if est.pruning == "pessimistic" and _most_classes(n_classes) == 0:
        raise ValueError("pruning='pessimistic' (C4.5) is for classifiers; use "
                         "ccp_alpha or pruning='reduced_error' for regression")
    if est.pruning not in (None, "none") and (isinstance(alpha, str) or alpha > 0):
        raise ValueError("use either ccp_alpha or pruning, not both")
    if criterion(est) not in ("squared_error", "gini", "entropy", "log_loss", "gain_ratio") \
            and (isinstance(alpha, str) or est.pruning == "reduced_error"):
        raise ValueError(f"ccp_alpha='cv' and pruning='reduced_error' score held-out "
                         f"data by squared error: not supported with "
                         f"criterion={criterion(est)!r} yet; use a number for ccp_alpha")
    if isinstance(alpha, str) and _is_int(est.cv):
        n = encoded_y.shape[0] if weights is None else int(np.count_nonzero(weights > 0))
        if est.cv > n:
            raise ValueError(f"cv={est.cv} is larger than the number of samples ({n})")
        if strata > 0:
            present = encoded_y if weights is None else encoded_y[weights > 0]
            counts = np.bincount(present, minlength=strata)
            smallest = counts[counts > 0].min()
            if est.cv > smallest:
                raise ValueError(
                    f"cv={est.cv} is larger than the smallest class count ({smallest}): "
                    "every fold needs every class")


def _prune_by_cross_validation(est, tree, X, encoded_y, weights, n_classes, strata,
                               y_exp):
    """Choose alpha by k-fold cross-validation over the pruning sequence (rpart)."""
    table, seq = cp_table(tree, est.prune_risk)
    # losses in units where neither weights nor squared targets overflow
    w = np.ones(X.shape[0]) if weights is None else weights / weights.max()
    y_scaled = scaled(encoded_y, y_exp)  # (y_exp is 0 for classifiers)
    root_loss = single_leaf_loss(y_scaled, w, tree.is_classifier)
    if tree.node_count == 1 or root_loss <= 0:
        table.xerror = np.zeros(len(table))
        table.xstd = np.zeros(len(table))
    else:
        sums = np.zeros(len(table))
        squares = np.zeros(len(table))
        total = 0.0
        for train, test in _cv_splits(est, X, encoded_y, strata):
            total += w[test].sum()
            fold_tree = grow(est, X[train], encoded_y[train],
                                   None if weights is None else weights[train], n_classes,
                                   y_exp)
            fold_seq = PruningSequence(fold_tree, est.prune_risk)
            s, q = cross_validated_losses(fold_tree, fold_seq, X[test], y_scaled[test],
                                          w[test], table.scaled_alpha, y_exp)
            sums += s
            squares += q
        table.xerror = sums / root_loss
        table.xstd = np.sqrt(np.maximum(squares - sums ** 2 / total, 0.0)) / root_loss
    table.rule = est.cv_rule
    table.selected = select_row(table, est.cv_rule)
    est.cp_table_ = table
    est.ccp_alpha_ = float(table.alpha[table.selected])
    return tree.subtree(seq.leaves_at(table.scaled_alpha[table.selected], tree.node_count))


def _cv_splits(est, X, encoded_y, n_classes):
    """(train, test) index arrays: our folds for an int ``cv``, else the user's."""
    cv = est.cv
    if _is_int(cv):
        folds = fold_ids(encoded_y, n_classes, cv, rng(est.random_state))
        return [(np.flatnonzero(folds != k), np.flatnonzero(folds == k))
                for k in range(cv)]
    splits = list(cv.split(X, encoded_y)) if hasattr(cv, "split") else list(cv)
    if not splits:
        raise ValueError("cv gave no (train, test) splits")
    return [check_fold(pair, k, X.shape[0]) for k, pair in enumerate(splits)]

