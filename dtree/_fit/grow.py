"""Growing one tree: the builder a plan names, on weights and targets scaled near 1.

``grow(plan, X, y, weights, y_exp)`` drops zero-weight rows (they place no
threshold, as in scikit-learn), scales the weights and the regression targets
by powers of two (``_model.units``: the tree does not depend on the units),
runs the plan's builder (the exact presorted splitter on dense X, the same
search on a sparse X's non-zeros, the histogram splitter, or C4.5's grower)
and returns the ``Tree`` in the user's units.
"""
import dataclasses
import threading

import numpy as np

from .._c45 import grow_c45
from .._grow import build_tree
from .._hist_splitter import HistSplitter, bin_codes
from .._model.tree import Tree, TREE_LEAF
from .._model.units import power_of_two_scale, scale_limit, scaled, unscale_tree, weight_units
from .._sparse_splitter import SparseSplitter
from .._splitter import Splitter
from .binning import category_thresholds, fit_bins
from .sampling import draw_seed


def grow(plan, X, y, weights, y_exp=None, shared_X=None, sizes=None):
    """An unpruned tree grown by the plan's builder on (X, y, weights).

    ``y_exp``: the targets' power-of-two scale, shared by every tree of a fit
    (folds and hold-outs too); None: this data's own. ``shared_X``: X
    prepared once for a forest's trees: its columns sorted, or laid out by feature
    for the random splitter (``_splitter.ColumnOrder``; the exact splitter on dense
    X), or binned (``BinnedX``; the histogram splitter). ``sizes``: a forest's
    ``TreeSizes``, which gives the tree room for its nodes up front.
    """
    # fractional sizes (min_samples_leaf=0.01) count every row, zero-weight ones
    # too, as scikit-learn counts them: a forest's bootstrap is such weights
    n_rows = X.shape[0]
    keep = None
    if weights is not None and not (weights > 0).all():
        # A zero-weight sample must not place a threshold: drop it, as
        # scikit-learn does (n_node_samples counts positive weights only).
        keep = weights > 0
    presorted = by_feature = binned = None
    if shared_X is not None and plan.builder == "exact":
        if shared_X.sorted:
            presorted = shared_X.rows(keep)
        elif keep is None:
            by_feature = shared_X.by_feature
    elif shared_X is not None and plan.builder == "hist":
        binned = shared_X.rows(keep)
    if keep is not None:
        # (the presorted and histogram splitters read their rows from the shared X;
        # taking by position is several times faster than a boolean mask: a forest
        # does it for every tree)
        kept = np.flatnonzero(keep)
        X = None if presorted is not None or binned is not None else X[kept]
        y, weights = y.take(kept, axis=0), weights.take(kept)
        del kept, keep
    w_unit, w_exp = 1.0, 0
    if weights is not None:
        # x ln x of weighted counts depends on their unit: one unit for every
        # weighting, except for C4.5's grower, which counts weights in the user's
        # units (MINOBJS, the threshold penalty), as C4.5 does
        always = plan.choices.criterion.log_counts and plan.builder != "c45"
        w_unit, w_exp, uniform = weight_units(weights.min(), weights.max(), always)
        weights = None if uniform else scaled(weights, w_exp)
    if y_exp is None:
        y_exp = 0 if plan.max_classes else power_of_two_scale(y)
    y = scaled(y, y_exp)
    degree = plan.choices.criterion.degree
    growth = scaled_growth(plan, n_rows, float(weights.sum()) if weights is not None
                           else float(y.shape[0]), degree * y_exp)
    # drawn for every tree, as scikit-learn does: the visiting order decides ties
    seed = draw_seed(plan.random_state)
    builder = _BUILDERS[plan.builder]
    room = None if sizes is None else sizes.room()
    if presorted is not None or by_feature is not None:
        tree = _grow_exact(plan, X, y, weights, growth, seed, w_exp, presorted, by_feature,
                           room)
    elif binned is not None:
        tree = _grow_hist(plan, X, y, weights, growth, seed, w_exp, binned, room)
    else:
        tree = builder(plan, X, y, weights, growth, seed, w_exp)
    if sizes is not None:
        sizes.add(tree.node_count)
    return unscale_tree(tree, w_unit, y_exp, degree)


class TreeSizes:
    """The node counts of a forest's trees so far. A forest's trees are about the
    same size, so a tree takes room for the largest so far and a little more up
    front (``room``): its node columns are then not grown by doubling, each
    doubling a copy and fresh pages. The room changes no tree, only when memory
    is taken."""

    def __init__(self):
        self._largest = 0
        self._lock = threading.Lock()

    def room(self):
        """Nodes to allocate for the next tree (None: the grower's default)."""
        with self._lock:
            return None if self._largest == 0 else self._largest + self._largest // 16 + 64

    def add(self, node_count):
        """Record a grown tree's node count."""
        with self._lock:
            self._largest = max(self._largest, int(node_count))


def scaled_growth(plan, n_samples, total_weight, impurity_exp):
    """``plan.growth`` with the impurity decrease in impurities scaled by
    ``2**-impurity_exp`` (targets scaled for the builders: impurities are in
    their units, squared for squared error)."""
    growth = plan.growth(n_samples, total_weight)
    if impurity_exp == 0 or growth.min_impurity_decrease == 0.0:
        return growth
    return dataclasses.replace(growth, min_impurity_decrease=scale_limit(
        growth.min_impurity_decrease, impurity_exp))


def _grow_exact(plan, X, y, weights, growth, seed, w_exp, presorted=None, by_feature=None,
                room=None):
    """The presorted splitter's tree (dense X; ``presorted``: its columns sorted
    already, ``by_feature``: laid out by feature already), or the sparse
    splitter's (sparse X); ``room``: nodes to allocate up front."""
    search = plan.search(growth, seed)
    if plan.builder == "sparse":
        splitter = SparseSplitter(X, y, weights, search, plan.monotonic)
    else:
        splitter = Splitter(X, y, weights, search, plan.n_categories, plan.monotonic,
                            presorted=presorted, by_feature=by_feature)
    arrays = build_tree(splitter, capacity=room, **growth.limits())
    del splitter  # free the presorted columns before building the Tree object
    return tree_from_arrays(plan, arrays, ranges=plan.builder != "sparse")


def _grow_hist(plan, X, y, weights, growth, seed, w_exp, binned=None, room=None):
    """The histogram splitter's tree (``_hist_splitter``): features binned (or
    ``binned``: a ``BinnedX``'s rows), then grown (``room``: nodes to allocate
    up front)."""
    codes, lo, hi = BinnedX(plan, X).rows() if binned is None else binned
    splitter = HistSplitter(codes, lo, hi, y, weights, plan.search(growth, seed),
                            plan.monotonic, categorical=plan.categorical)
    return tree_from_arrays(plan, build_tree(splitter, capacity=room, **growth.limits()))


class BinnedX:
    """X binned as the plan's histogram splitter bins it (``max_bins`` bins per
    numeric feature, a bin per category), once for the trees of a forest: each
    tree takes the codes of its rows (``rows``). A bin's least and greatest value
    are X's, so a tree grown on some of the rows places its thresholds between
    the values of all of them, as LightGBM's bins are the whole data's."""

    def __init__(self, plan, X):
        categorical = np.flatnonzero(plan.categorical)
        thresholds = fit_bins(X, int(plan.params["max_bins"]), n_threads=plan.n_threads,
                              skip=categorical)
        for f in categorical:
            thresholds[f] = category_thresholds(int(plan.n_categories[f]),
                                                plan.column_label(f))
        self.codes, self.lo, self.hi = bin_codes(X, thresholds, plan.n_threads)

    def rows(self, keep=None):
        """(codes, lo, hi) of the rows where ``keep`` is True (all for None)."""
        return (self.codes if keep is None else self.codes[keep]), self.lo, self.hi


def _grow_c45(plan, X, y, weights, growth, seed, w_exp):
    """C4.5's tree: fractional missing values, so its own grower (``_c45``)."""
    if weights is None:
        weights = np.ones(X.shape[0])
    # C4.5's MINOBJS is 2; scikit-learn's default min_samples_leaf of 1 means "preset"
    leaf = plan.params["min_samples_leaf"]
    min_objs = 2 if leaf == 1 else growth.min_samples_leaf
    # a weight of cases, in the scaled units of the weights; min_weight_fraction_leaf
    # raises it
    min_objs = max(scale_limit(float(min_objs), w_exp), growth.min_weight_leaf)
    arrays = grow_c45(X, y, weights, plan.n_classes, plan.categorical.astype(np.uint8),
                      plan.n_categories, max_depth=growth.max_depth,
                      min_samples_split=growth.min_samples_split, min_objs=float(min_objs),
                      min_impurity_decrease=growth.min_impurity_decrease,
                      use_ratio=plan.choices.criterion.split_information,
                      one_vs_rest=plan.choices.category_splits == "one_vs_rest")
    with np.errstate(invalid="ignore"):
        tree = tree_from_arrays(plan, arrays)
    tree.fractional_missing = True
    # C4.5's empty branches (categories without cases at their split) predict their
    # split node's classes; nodes come in pre-order, so a parent's value is set first
    empty = np.flatnonzero(tree.scaled_weighted_n_node_samples <= 0)
    if empty.size:
        parent = tree._parents
        for node in empty.tolist():
            tree.value[node] = tree.value[parent[node]]
    return tree


_BUILDERS = {"exact": _grow_exact, "sparse": _grow_exact, "hist": _grow_hist,
             "c45": _grow_c45}


def tree_from_arrays(plan, arrays, ranges=False):
    """A ``Tree`` from a builder's node arrays: raw node statistics become ``value``
    (class fractions, mean targets, or the quantile criteria's values as they
    are), clipped into the monotonic constraints' bounds.

    ``ranges``: the builder recorded each split's range of its feature
    (``split_low``, ``split_high``; the exact splitter on dense X does).
    """
    n_classes = plan.n_classes
    weights = arrays["weighted_n_node_samples"]
    # (popped: the raw statistics are freed once the values are made from them)
    stats = arrays.pop("stats").reshape(weights.shape[0], plan.n_outputs, -1)
    if plan.choices.criterion.value == "weighted_quantile":
        value = stats[:, :, :1].copy()
    else:
        # weighted class counts -> fractions (scikit-learn >= 1.4 layout), sums of
        # targets -> means; a node of zero weight keeps its raw statistics
        raw = stats if plan.max_classes > 0 else stats[:, :, :1]
        value = raw.copy()
        np.divide(raw, weights[:, None, None], out=value, where=weights[:, None, None] > 0)
    del stats
    if "lower_bound" in arrays:   # monotonic constraints
        value = clip_values(value, arrays["lower_bound"], arrays["upper_bound"], n_classes)
    feature_range = None
    if ranges:
        feature_range = np.empty((weights.shape[0], 2))
        feature_range[:, 0] = arrays.pop("split_low")
        feature_range[:, 1] = arrays.pop("split_high")
        feature_range[(arrays["children_left"] == TREE_LEAF)
                      | (arrays["categorical_set"] >= 0)] = np.nan
    return Tree(children_left=arrays["children_left"],
                children_right=arrays["children_right"], feature=arrays["feature"],
                threshold=arrays["threshold"], value=value,
                # a variance computed as E[y^2] - E[y]^2 can round below zero
                impurity=np.maximum(arrays["impurity"], 0.0, out=arrays["impurity"]),
                n_node_samples=arrays["n_node_samples"],
                weighted_n_node_samples=weights, node_depth=arrays["depth"],
                n_features=plan.n_features, n_classes=n_classes,
                missing_go_to_left=arrays["missing_go_to_left"],
                categorical_set=arrays["categorical_set"],
                category_sets=arrays["category_sets"], feature_range=feature_range)


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
