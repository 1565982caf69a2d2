"""Checks of a model file's parts that ``model_file`` reads: category sets, the
competitor and surrogate splits (``other_*`` members), training ranges and leaf
targets; and the error they raise."""
import numpy as np

from .._model.other_splits import COLUMNS as OTHER_COLUMNS, SURROGATE, OtherSplits
from .._model.routing import codes_in_set
from .._model.tree import TREE_LEAF


class ModelFileError(ValueError):
    """A model file (or dict) is corrupt, hostile, or of an unsupported version."""


def check_set(bits, known):
    """A category set of a feature whose categories are ``known`` (None: numeric)."""
    if known is None:
        raise ModelFileError("a category-set split on a numeric feature")
    codes = codes_in_set(bits)
    if codes and codes[-1] >= len(known):
        raise ModelFileError("a category set names codes beyond the categories")


def check_other_splits(arrays, tree, categories):
    """The competitor and surrogate splits of a loaded tree, every value checked."""
    cols = {}
    for name, dtype in OTHER_COLUMNS.items():
        key = f"other_{name}"
        if key not in arrays:
            raise ModelFileError(f"the model lacks the array {key!r}")
        arr = arrays[key]
        if arr.dtype != np.dtype(dtype) or arr.ndim != 1:
            raise ModelFileError(f"{key!r} must be a 1-D {np.dtype(dtype)} array")
        cols[name] = arr
    n = cols["node"].shape[0]
    if any(c.shape[0] != n for c in cols.values()):
        raise ModelFileError("the other_* arrays differ in length")
    if n > 2 * tree.node_count * tree.n_features:
        raise ModelFileError("more competitor and surrogate splits than nodes x features")
    node, kind, feature = cols["node"], cols["kind"], cols["feature"]
    if ((node < 0) | (node >= tree.node_count)).any() or \
            (tree.children_left[np.clip(node, 0, tree.node_count - 1)] == TREE_LEAF).any():
        raise ModelFileError("a competitor or surrogate split is not on a split node")
    if (kind > SURROGATE).any():
        raise ModelFileError("other_kind must hold 0 (competitor) or 1 (surrogate)")
    if n and (np.diff(node * 2 + kind) < 0).any():
        raise ModelFileError("other splits must be sorted by node, then kind")
    if ((feature < 0) | (feature >= tree.n_features)).any() or \
            (feature == tree.feature[node]).any():
        raise ModelFileError("an other split's feature is out of range or the node's own")
    improvement, adj = cols["improvement"], cols["adj"]
    surrogate = kind == SURROGATE
    if not np.isfinite(improvement).all() or (improvement < 0).any() or \
            not np.isfinite(adj).all():
        raise ModelFileError("other splits' improvements must be finite and >= 0")
    if (improvement[surrogate] > 1).any() or (adj[surrogate] <= 0).any() or \
            (adj[surrogate] > 1).any() or (adj[~surrogate] != 0).any():
        raise ModelFileError("a surrogate's agreement must lie in [0, 1] and its "
                             "adjusted agreement in (0, 1]; a competitor's adj is 0")
    if (cols["goes_left"] > 1).any():
        raise ModelFileError("other_goes_left must hold 0 or 1")
    if (cols["count"] < 0).any() or (cols["count"] > tree.n_node_samples[node]).any():
        raise ModelFileError("an other split counts more rows than its node holds")
    sets, threshold, decided = tree.category_sets, cols["threshold"], cols["decided_set"]
    for k in range(n):
        row = decided[k]
        if row != -1:
            if kind[k] != SURROGATE or categories[feature[k]] is None or \
                    not 0 <= row < sets.shape[0] or not 0 <= cols["category_set"][k] < \
                    sets.shape[0] or (sets[cols["category_set"][k]] & ~sets[row]).any():
                raise ModelFileError("a decided set belongs to a category surrogate and "
                                     "holds the codes it sends left")
            check_set(sets[row], categories[feature[k]])
        row, known = cols["category_set"][k], categories[feature[k]]
        if known is None:
            if row != -1 or np.isnan(threshold[k]) or threshold[k] == -np.inf:
                raise ModelFileError("a numeric other split needs a threshold (no set)")
        elif not (0 <= row < sets.shape[0]) or not np.isnan(threshold[k]):
            raise ModelFileError("a categorical other split needs a category set row")
        else:
            check_set(sets[row], known)
    return OtherSplits(**cols)


def _array(arrays, name, dtype, ndim):
    if name not in arrays:
        raise ModelFileError(f"the model lacks the array {name!r}")
    arr = arrays[name]
    if arr.dtype != np.dtype(dtype) or arr.ndim != ndim:
        raise ModelFileError(f"{name!r} must be a {ndim}-D {np.dtype(dtype)} array")
    return arr


def check_ranges(arrays, tree):
    """Each split node's training range of its feature: a (low <= high) pair of finite
    numbers, or NaN for leaves, category splits and nodes no value reached."""
    low = _array(arrays, "split_low", np.float64, 1)
    high = _array(arrays, "split_high", np.float64, 1)
    if low.shape[0] != tree.node_count or high.shape[0] != tree.node_count:
        raise ModelFileError("split_low and split_high need one entry per node")
    unset = np.isnan(low)
    if not np.array_equal(unset, np.isnan(high)) or np.isinf(low).any() or \
            np.isinf(high).any() or (low[~unset] > high[~unset]).any():
        raise ModelFileError("a split's training range must be finite with low <= high")
    if not unset[(tree.children_left == TREE_LEAF) | (tree.categorical_set >= 0)].all():
        raise ModelFileError("leaves and category splits hold no training range")
    return np.c_[low, high]


def check_leaf_targets(arrays, tree):
    """A regressor's leaf targets: every leaf's training rows (as many as its
    n_node_samples), sorted by leaf, finite targets, positive weights."""
    node = _array(arrays, "leaf_node", np.int64, 1)
    y = _array(arrays, "leaf_y", np.float64, 2)
    w = _array(arrays, "leaf_w", np.float64, 1)
    m = node.shape[0]
    if y.shape != (m, tree.n_outputs) or w.shape[0] != m:
        raise ModelFileError(f"leaf_y must have shape ({m}, {tree.n_outputs}) and leaf_w "
                             f"{m} entries, as leaf_node")
    if ((node < 0) | (node >= tree.node_count)).any() or (np.diff(node) < 0).any():
        raise ModelFileError("leaf_node must hold node ids in range, sorted")
    leaves = np.flatnonzero(tree.children_left == TREE_LEAF)
    counts = np.bincount(node, minlength=tree.node_count)
    if counts.sum() != counts[leaves].sum() or \
            not np.array_equal(counts[leaves], tree.n_node_samples[leaves]):
        raise ModelFileError("the leaf targets do not match the leaves' sample counts")
    if not np.isfinite(y).all() or not np.isfinite(w).all() or (w <= 0).any():
        raise ModelFileError("leaf targets must be finite with weights > 0")
    return node, y, w
