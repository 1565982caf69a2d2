"""Fitting: a plan and its training data in, a pruned and annotated tree out.

``fit_tree(plan, data)`` is what an estimator's ``fit`` runs once the plan is
made: grow (``_fit.grow``, the builder the plan names), prune (C4.5's
pessimistic, reduced error on a hold-out, cost-complexity at an alpha, or
alpha chosen by cross-validation with rpart's CP table, every fold grown by
the same ``grow``), then record what the tree keeps of its training rows
(each split's range of its feature, a regressor's leaf targets, competitor
and surrogate splits). It returns a ``FitResult``; the estimator installs it
with the data's columns and labels in one step.
"""
import dataclasses
import sys
import time

import numpy as np

from .._input.validation import is_sparse
from .._model.leaves import LeafTargets, feature_ranges
from .._model.tree import TREE_LEAF
from .._model.units import power_of_two_scale, scaled
from .._plan.constraints import is_int
from .._plan.plan import n_surrogates
from .grow import grow
from .c45_pruning import c45_pruned
from .pruning import (PruningSequence, alpha_of_cp, cp_table, cross_validated_losses,
                      fold_ids, prune_ccp, reduced_error_leaves, select_row,
                      single_leaf_loss)
from .sampling import check_fold, folds_of, holdout, j48_prune_fold, rng


@dataclasses.dataclass(frozen=True)
class FitResult:
    """What a fit adds to its data's columns and labels: the estimator's ``tree_``,
    ``max_features_``, ``n_outputs_`` and, where pruning chose them,
    ``ccp_alpha_`` and ``cp_table_``."""

    tree: object
    max_features: int
    n_outputs: int
    ccp_alpha: float = None
    cp_table: object = None


def fit_tree(plan, data):
    """Grow, prune and annotate the tree of ``plan`` on ``data`` (``_input.encode.
    TrainingData``: encoded X, y, weights)."""
    X, y, weights = data.X, data.y, data.weights
    # every tree of this fit (folds and hold-outs too) shares one target scale,
    # so that pruning compares their alphas in the same units
    y_exp = 0 if plan.max_classes else power_of_two_scale(y)
    alpha, table = None, None
    p = plan.params
    X_all = X
    if plan.choices.pruning == "reduced_error" and plan.choices.preset.builder == "c45":
        # J48's -R -N: one of N folds held out (N = 1 / validation_fraction); the
        # k-way tree pruned by it; cuts placed over all the cases, as J48 does
        valid = j48_prune_fold(y, folds_of(p["validation_fraction"]))
        train = ~valid
        w_train = None if weights is None else weights[train]
        w_valid = np.ones(valid.sum()) if weights is None else weights[valid]
        tree = grow(plan, X[train], y[train], w_train, y_exp)
        tree = _quinlan_pruned(plan, tree, X[train], y[train], w_train,
                               held_out=(X[valid], y[valid], w_valid))
        X, y, weights = X[train], y[train], w_train
    elif plan.choices.pruning == "reduced_error":
        valid = holdout(y, plan.strata, p["validation_fraction"], rng(plan.random_state))
        train = ~valid
        tree = grow(plan, X[train], y[train], None if weights is None else weights[train],
                    y_exp)
        w_valid = np.ones(valid.sum()) if weights is None else weights[valid]
        tree = tree.subtree(reduced_error_leaves(tree, X[valid], y[valid], w_valid))
        # the tree records the rows it was grown on
        X, y = X[train], y[train]
        weights = None if weights is None else weights[train]
    else:
        started = time.perf_counter()
        tree = grow(plan, X, y, weights, y_exp, shared_X=data.shared_X,
                    sizes=data.tree_sizes)
        _say(plan, f"grew a tree of {tree.n_leaves} leaves on {X.shape[0]} rows in "
                   f"{time.perf_counter() - started:.2f} s")
        tree = _quinlan_pruned(plan, tree, X, y, weights)
    if isinstance(p["ccp_alpha"], str):
        tree, table = _prune_by_cross_validation(plan, tree, X, y, weights, y_exp)
        alpha = float(table.alpha[table.selected])
    elif p["ccp_alpha"] > 0.0:
        tree = prune_ccp(tree, float(p["ccp_alpha"]), p["prune_risk"])
        alpha = float(p["ccp_alpha"])
    elif p["cp"] is not None:   # (with ccp_alpha="cv", cp ends the CP table above)
        alpha = alpha_of_cp(tree, float(p["cp"]), p["prune_risk"])
        tree = prune_ccp(tree, alpha, p["prune_risk"])
    rule = p["threshold_rule"] or plan.choices.preset.threshold
    if rule == "training_value":
        tree = training_value_thresholds(tree, X_all)
    return FitResult(tree=_annotated(plan, tree, X, y, weights),
                     max_features=plan.max_features(), n_outputs=plan.n_outputs,
                     ccp_alpha=alpha, cp_table=table)


def _quinlan_pruned(plan, tree, X, y, weights, held_out=None):
    """C4.5's steps after growth: its own trees collapse (``algorithm="c4.5"``),
    and ``pruning="pessimistic"`` replaces subtrees by leaves and, with
    ``subtree_raising``, raises their largest branches; or ``held_out`` cases
    prune them, uncollapsed (J48's reduced-error pruning; ``c45_pruning``)."""
    # (J48's reduced-error pruning grows without collapsing)
    collapse = plan.choices.preset.builder == "c45" and held_out is None
    pessimistic = plan.choices.pruning == "pessimistic"
    if not (collapse or pessimistic or held_out is not None) or tree.node_count == 1:
        return tree
    if held_out is not None:
        X_h, y_h, w_h = held_out
        held_out = (np.ascontiguousarray(X_h.toarray() if is_sparse(X_h) else X_h,
                                         dtype=np.float32),
                    np.asarray(y_h).reshape(-1), w_h)
    raising = plan.params["subtree_raising"]
    if raising is None:
        raising = plan.choices.preset.raising
    X = np.ascontiguousarray(X.toarray() if is_sparse(X) else X, dtype=np.float32)
    w = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    gini = plan.choices.criterion.code == 0
    return c45_pruned(tree, X, np.asarray(y).reshape(-1), w / tree.weight_unit,
                      cf=plan.params["cf"], pruning=pessimistic or held_out is not None,
                      raising=bool(raising), held_out=held_out,
                      multiway=plan.choices.multiway, collapse=collapse,
                      impurity=_gini if gini else _entropy_bits)


def _gini(counts):
    total = counts.sum()
    return 1.0 - float(np.sum((counts / total) ** 2)) if total > 0 else 0.0


def _entropy_bits(counts):
    total = counts.sum()
    p = counts[counts > 0] / total if total > 0 else counts[:0]
    return float(-np.sum(p * np.log2(p)))


def training_value_thresholds(tree, X):
    """The tree with each numeric threshold moved down to the largest value of its
    feature in X (all training rows, as C4.5 and J48 take it) at or below it.

    A threshold lies between the largest value a node sends left and the
    smallest it sends right, so every training row is routed as before."""
    numeric = np.flatnonzero((tree.children_left != TREE_LEAF) & (tree.categorical_set < 0)
                             & np.isfinite(tree.threshold))
    threshold = tree.threshold.copy()
    for f in np.unique(tree.feature[numeric]):
        column = X[:, f].toarray().ravel() if is_sparse(X) else X[:, f]
        values = np.unique(column[~np.isnan(column)]).astype(np.float64)
        nodes = numeric[tree.feature[numeric] == f]
        below = np.searchsorted(values, threshold[nodes], side="right") - 1
        # (a cut has a training value at or below it; the guard keeps any other
        # threshold, such as one from a tree grown on other rows, as it is)
        ok = below >= 0
        threshold[nodes[ok]] = values[below[ok]]
    tree.threshold = threshold
    tree.forget_routing()
    return tree


def _annotated(plan, tree, X, y, weights):
    """The tree with what it records of its training rows: each split's range of its
    feature, a regressor's leaf targets if kept, competitors and surrogates if asked.
    Zero-weight rows count nowhere, as in growth."""
    keep_targets = plan.params["keep_leaf_targets"]
    surrogate_missing = plan.params["handle_missing"] == "surrogate"
    # each feature offers one competitor or surrogate at most: bounding the counts by
    # the columns keeps any larger request (2**63 and up) out of the kernel's sizes
    k = min(int(plan.params["keep_competitors"]), X.shape[1])
    s = min(n_surrogates(plan), X.shape[1])
    if tree.feature_range is not None and not (keep_targets or k or s or surrogate_missing):
        # (the exact splitter records the ranges as it grows: nothing to replay, so
        # a forest's tree does not gather its rows again)
        return tree
    if weights is not None and not (weights > 0).all():
        keep = weights > 0
        X, y, weights = X[keep], y[keep], weights[keep]
    # the rows as the fit routed them (a dense X's ranges need no leaves)
    leaves = tree.apply(X) if keep_targets or is_sparse(X) else None
    if tree.feature_range is None:
        tree.feature_range = feature_ranges(tree, X, leaves, plan.n_threads)
    if keep_targets:
        tree.leaf_targets = LeafTargets.from_rows(
            leaves, y, np.ones(X.shape[0]) if weights is None else weights)
    if not (k or s or surrogate_missing):
        return tree
    from .audit import attach
    # replayed in the units the tree was grown in (its weights over its weight
    # unit, its targets over 2**(impurity exponent / degree)): sums that stay
    # finite for targets and weights anywhere in float64
    weights = np.ones(X.shape[0]) if weights is None else weights / tree.weight_unit
    degree = plan.choices.criterion.degree
    if tree.impurity_exponent and degree:
        y = scaled(y, tree.impurity_exponent // degree)
    growth = plan.growth(X.shape[0], float(weights.sum()))
    # every feature, visited by index: each one's best split competes
    search = dict(plan.search(growth, 0), max_features=X.shape[1], n_threads=1,
                  multiway=False, index_order=True, random_split=False)
    return attach(tree, np.ascontiguousarray(X, dtype=np.float32), y, weights,
                  search=search, n_categories=plan.n_categories, n_competitors=k,
                  n_surrogates=s, surrogate_missing=surrogate_missing)


def _say(plan, message):
    """A progress line on standard error, for ``verbose`` fits."""
    if plan.params["verbose"]:
        print(f"[dtree] {message}", file=sys.stderr, flush=True)


def _prune_by_cross_validation(plan, tree, X, y, weights, y_exp):
    """Choose alpha by k-fold cross-validation over the pruning sequence (rpart);
    returns the pruned tree and the CP table."""
    risk, rule = plan.params["prune_risk"], plan.params["cv_rule"]
    table, seq = cp_table(tree, risk, plan.params["cp"])
    # losses in units where neither weights nor squared targets overflow
    w = np.ones(X.shape[0]) if weights is None else weights / weights.max()
    y_scaled = scaled(y, y_exp)  # (y_exp is 0 for classifiers)
    root_loss = single_leaf_loss(y_scaled, w, tree.is_classifier)
    if tree.node_count == 1 or root_loss <= 0:
        table.xerror = np.zeros(len(table))
        table.xstd = np.zeros(len(table))
    else:
        sums = np.zeros(len(table))
        squares = np.zeros(len(table))
        total = 0.0
        splits = _cv_splits(plan, X, y)
        for k, (train, test) in enumerate(splits):
            started = time.perf_counter()
            total += w[test].sum()
            fold_tree = grow(plan, X[train], y[train],
                             None if weights is None else weights[train], y_exp)
            _say(plan, f"ccp_alpha='cv': fold {k + 1} of {len(splits)} grown "
                       f"({fold_tree.n_leaves} leaves) in {time.perf_counter() - started:.2f} s")
            fold_seq = PruningSequence(fold_tree, risk)
            s, q = cross_validated_losses(fold_tree, fold_seq, X[test], y_scaled[test],
                                          w[test], table.scaled_alpha, y_exp)
            sums += s
            squares += q
        table.xerror = sums / root_loss
        table.xstd = np.sqrt(np.maximum(squares - sums ** 2 / total, 0.0)) / root_loss
    table.rule = rule
    table.selected = select_row(table, rule)
    pruned = tree.subtree(seq.leaves_at(table.scaled_alpha[table.selected], tree.node_count))
    return pruned, table


def _cv_splits(plan, X, y):
    """(train, test) index arrays: our folds for an int ``cv``, else the user's."""
    cv = plan.params["cv"]
    if is_int(cv):
        folds = fold_ids(y, plan.strata, cv, rng(plan.random_state))
        return [(np.flatnonzero(folds != k), np.flatnonzero(folds == k))
                for k in range(cv)]
    splits = list(cv.split(X, y)) if hasattr(cv, "split") else list(cv)
    if not splits:
        raise ValueError("cv gave no (train, test) splits")
    return [check_fold(pair, k, X.shape[0]) for k, pair in enumerate(splits)]
