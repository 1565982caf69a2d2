"""Checks of a model file's parts that ``model_file`` reads, and the error they raise.

The header's outputs, classes, units and categories; the node arrays (structure,
then values as a fit could have produced them: finite, fractions that sum to
one, impurities within the criterion's range, importances that stay finite);
category sets, the competitor and surrogate splits (``other_*`` members),
training ranges and leaf targets.
"""
import math
import sys

import numpy as np

from .._model.other_splits import COLUMNS as OTHER_COLUMNS, SURROGATE, OtherSplits
from .._model.routing import codes_in_set
from .._model.tree import CAT_WORDS, TREE_LEAF, TREE_UNDEFINED, Tree


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


# array name -> (dtype it is stored as, number of dimensions)
ARRAYS = {
    "children_left": (np.int64, 1),
    "children_right": (np.int64, 1),
    "feature": (np.int64, 1),
    "threshold": (np.float64, 1),
    "value": (np.float64, 3),
    "impurity": (np.float64, 1),
    "n_node_samples": (np.int64, 1),
    "weighted_n_node_samples": (np.float64, 1),
    "node_depth": (np.int64, 1),
    "missing_go_to_left": (np.uint8, 1),
    "categorical_set": (np.int64, 1),
}


# ------------------------------------------------------------ header and node arrays
def decode_labels(spec, allow_empty=False):
    # (a categorical column seen only missing at fit has no categories: allow_empty)
    if not isinstance(spec, dict) or spec.get("kind") not in ("str", "bool", "int", "float"):
        raise ModelFileError("classes must be a dict with kind str, bool, int or float")
    values = spec.get("values")
    if not isinstance(values, list) or not (values or allow_empty):
        raise ModelFileError("classes must list at least one label")
    expected = {"str": str, "bool": bool, "int": int, "float": (int, float)}[spec["kind"]]
    for v in values:
        if not isinstance(v, expected) or (spec["kind"] == "int" and isinstance(v, bool)):
            raise ModelFileError(f"class label {v!r} is not of kind {spec['kind']}")
    if spec["kind"] == "float" and not all(math.isfinite(v) for v in values):
        # fit refuses NaN and infinite labels (and a category is never NaN)
        raise ModelFileError("labels must be finite numbers")
    if len(set(values)) != len(values):
        raise ModelFileError("class labels must be distinct")
    if spec["kind"] == "int":
        return _int_labels(values)
    dtype = {"str": None, "bool": bool, "float": np.float64}[spec["kind"]]
    return np.asarray(values, dtype=dtype)


def _int_labels(values):
    """Integer labels in the narrowest of int64, uint64 (labels above 2**63) or object."""
    low, high = min(values), max(values)
    if -2**63 <= low and high < 2**63:
        return np.asarray(values, dtype=np.int64)
    if 0 <= low and high < 2**64:
        return np.asarray(values, dtype=np.uint64)
    return np.asarray(values, dtype=object)


def check_outputs(header, version, value):
    """The number of outputs the header declares (1 unless version 3 says more)."""
    n_outputs = header.get("n_outputs", 1)
    if not isinstance(n_outputs, int) or isinstance(n_outputs, bool) or n_outputs < 1:
        raise ModelFileError("n_outputs must be a positive integer")
    if n_outputs > 1 and version < 3:
        raise ModelFileError(f"several outputs need format version 3; the file says {version}")
    if value.ndim == 3 and value.shape[1] != n_outputs:
        raise ModelFileError(f"value has {value.shape[1]} outputs; the header says {n_outputs}")
    return n_outputs


def check_classes(header, is_classifier, n_outputs):
    """A classifier's classes as a list with one array per output (None for regressors)."""
    spec = header.get("classes")
    if not is_classifier:
        if spec is not None:
            raise ModelFileError("a regressor has no classes")
        return None
    if n_outputs == 1:
        return [decode_labels(spec)]
    if not isinstance(spec, list) or len(spec) != n_outputs:
        raise ModelFileError(f"classes must list one set of labels per output ({n_outputs})")
    return [decode_labels(s) for s in spec]


def check_units(header, is_classifier):
    """(impurity exponent, weight unit): what the stored columns are to be scaled by."""
    exponent = header.get("impurity_exponent", 0)
    unit = header.get("weight_unit", 1.0)
    if not isinstance(exponent, int) or isinstance(exponent, bool) or abs(exponent) > 4300:
        raise ModelFileError("impurity_exponent must be an integer of at most 4300 in size")
    if is_classifier and exponent != 0:
        raise ModelFileError("a classifier's impurities are not rescaled")
    if not isinstance(unit, (int, float)) or isinstance(unit, bool) or \
            not 0 < unit <= sys.float_info.max:   # (compared exactly: an int may exceed it)
        raise ModelFileError("weight_unit must be a finite number > 0")
    return int(exponent), float(unit)


def check_categories(header, n_features):
    # the lists are required: they bound n_features_in by the header's own size
    # before anything of that size is allocated
    mask = header.get("categorical_features")
    cats = header.get("categories")
    if not isinstance(mask, list) or len(mask) != n_features or \
            not all(isinstance(v, bool) for v in mask):
        raise ModelFileError("categorical_features must list one bool per feature")
    if not isinstance(cats, list) or len(cats) != n_features:
        raise ModelFileError("categories must list one entry per feature")
    categories = []
    for is_cat, spec in zip(mask, cats):
        if not is_cat:
            if spec is not None:
                raise ModelFileError("a numeric feature has categories")
            categories.append(None)
            continue
        values = decode_labels(spec, allow_empty=True)
        if values.shape[0] > CAT_WORDS * 64:
            raise ModelFileError("too many categories")
        categories.append(values.astype(object))
    return np.asarray(mask, dtype=bool), categories


def _check_values(arrays, n_classes, is_classifier, inner, left, right, exponent,
                  empty_leaves):
    """Numbers a fitted tree can hold: what predictions and importances read.
    ``empty_leaves``: C4.5's trees may hold leaves without cases (a category its
    split had no case of), and only leaves."""
    for name in ("value", "impurity", "weighted_n_node_samples"):
        if not np.isfinite(arrays[name]).all():
            raise ModelFileError(f"tree array {name!r} has non-finite entries")
    value = arrays["value"]
    if is_classifier:
        if (value < 0).any() or (value > 1).any():
            raise ModelFileError("class fractions in value must lie in [0, 1]")
        if not np.allclose(value.sum(axis=2), 1.0, rtol=0, atol=1e-6):
            raise ModelFileError("the class fractions of a node must sum to 1")
    if (arrays["impurity"] < 0).any():
        raise ModelFileError("impurities must be >= 0")
    if is_classifier:
        # gini is below 1 and entropy (in bits) at most log2 of the classes, for
        # every classification criterion dtree has (gain ratio nodes report entropy)
        bound = max(1.0, math.log2(max(n_classes))) * (1.0 + 1e-9)
        if (arrays["impurity"] > bound).any():
            raise ModelFileError(f"a classifier's impurities lie in [0, {bound:.6g}] "
                                 f"for {max(n_classes)} classes; the file has "
                                 f"{float(arrays['impurity'].max())!r}")
    counts, weights = arrays["n_node_samples"], arrays["weighted_n_node_samples"]
    empty = np.zeros(counts.shape[0], dtype=bool)
    if empty_leaves:
        empty = (counts == 0) & (weights == 0)
        empty[inner] = False
    if (counts[~empty] < 1).any():
        raise ModelFileError("every node holds at least one sample (n_node_samples >= 1)"
                             + ("; only a C4.5 tree's leaves may be empty (0 samples, "
                                "weight 0)" if empty_leaves else ""))
    if (weights[~empty] <= 0).any():
        raise ModelFileError("every node has a positive weighted_n_node_samples")
    # children split their parent: neither holds more than it
    if (counts[left] > counts[inner]).any() or (counts[right] > counts[inner]).any():
        raise ModelFileError("a child has more samples than its parent")
    heavier = (weights[left] > weights[inner] * (1 + 1e-9)) | \
        (weights[right] > weights[inner] * (1 + 1e-9))
    if heavier.any():
        raise ModelFileError("a child weighs more than its parent")
    _check_decreases(arrays, inner, left, right, exponent)


def _check_decreases(arrays, inner, left, right, exponent):
    """No split raises the impurity: the children's impurities, weighted, sum to at
    most their parent's (for every criterion, as the best constant of a side
    does at least as well as the parent's), up to the rounding of a fit.

    The rounding is bounded by the node's impurity and its values (a variance
    computed as E[y^2] - E[y]^2 loses digits to the mean's square); impurities
    are stored scaled by 2**-exponent, values are not: each way the two can relate
    is allowed for, which only widens the bound."""
    w, imp = arrays["weighted_n_node_samples"], arrays["impurity"]
    value = arrays["value"][inner]
    value = value.reshape(inner.shape[0], value.shape[1] * value.shape[2])
    # (tiny values square to zero: the bound only widens)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        # values brought to the impurities' units before they are squared (targets
        # near float64's end square past it): exponent = degree x the targets'
        half, whole = np.abs(np.ldexp(value, -(exponent // 2))), np.abs(np.ldexp(value, -exponent))
        scale = imp[inner] + (half ** 2).sum(axis=1) + whole.sum(axis=1) + \
            (whole ** 2).sum(axis=1)
        decrease = w[inner] * imp[inner] - w[left] * imp[left] - w[right] * imp[right]
        raised = decrease < -1e-6 * w[inner] * scale
    if raised.any():
        node = int(inner[np.flatnonzero(raised)[0]])
        raise ModelFileError(f"the children of node {node} weigh more impurity than it: "
                             "no split a fit makes raises the impurity")


def check_tree(arrays, n_features, n_classes, is_classifier, categories, units,
               empty_leaves=False):
    """The Tree of validated arrays (``n_classes``: per output, 1 for regression)."""
    for name, (dtype, ndim) in ARRAYS.items():
        if arrays[name].ndim != ndim:
            raise ModelFileError(f"tree array {name!r} has {arrays[name].ndim} dimensions, "
                                 f"expected {ndim}")
    n = arrays["children_left"].shape[0]
    if n < 1:
        raise ModelFileError("a tree needs at least one node")
    for name, (dtype, ndim) in ARRAYS.items():
        arr = arrays[name]
        if arr.shape[0] != n:
            raise ModelFileError(f"tree array {name!r} has {arr.shape[0]} rows, "
                                 f"children_left has {n}")
    left, right = arrays["children_left"], arrays["children_right"]
    is_leaf = left == TREE_LEAF
    if not np.array_equal(is_leaf, right == TREE_LEAF):
        raise ModelFileError("a node has exactly one child")
    inner = np.flatnonzero(~is_leaf)
    for child in (left[inner], right[inner]):
        # children point forward: no cycles, and every walk from the root ends
        if ((child <= inner) | (child >= n)).any():
            raise ModelFileError("child index out of range or not after its parent")
    referenced = np.bincount(np.r_[left[inner], right[inner]], minlength=n)
    if referenced[0] != 0 or (referenced[1:] != 1).any():
        raise ModelFileError("every node but the root must have exactly one parent")
    feature = arrays["feature"]
    if ((feature[inner] < 0) | (feature[inner] >= n_features)).any():
        raise ModelFileError(f"split feature out of range [0, {n_features})")
    sets = arrays["category_sets"]
    if sets.ndim != 2 or sets.shape[1] != CAT_WORDS:
        raise ModelFileError(f"category_sets must have {CAT_WORDS} words per row")
    cat_row = arrays["categorical_set"]
    is_cat = cat_row >= 0
    if (cat_row[is_leaf] != -1).any() or (cat_row < -1).any() or \
            (cat_row >= sets.shape[0]).any():
        raise ModelFileError("categorical_set rows out of range or on leaves")
    for node in np.flatnonzero(is_cat):
        check_set(sets[cat_row[node]], categories[feature[node]])
    threshold = arrays["threshold"]
    numeric = inner[~is_cat[inner]]
    # +inf is the split "all numbers | all missing"
    if np.isnan(threshold[numeric]).any() or (threshold[numeric] == -np.inf).any():
        raise ModelFileError("split thresholds must be numbers or +inf")
    value = arrays["value"]
    expected = (n, len(n_classes), max(n_classes))
    if value.shape != expected:
        raise ModelFileError(f"value has shape {value.shape}, expected {expected}")
    for k, count in enumerate(n_classes):
        if (value[:, k, count:] != 0).any():
            raise ModelFileError(f"output {k} has {count} classes; value has fractions "
                                 "beyond them")
    _check_values(arrays, n_classes, is_classifier, inner, left[inner], right[inner],
                  units[0], empty_leaves)
    if (arrays["missing_go_to_left"] > 1).any():
        raise ModelFileError("missing_go_to_left must hold 0 or 1")
    depth = arrays["node_depth"]
    if depth[0] != 0 or (depth[left[inner]] != depth[inner] + 1).any() or \
            (depth[right[inner]] != depth[inner] + 1).any():
        raise ModelFileError("node_depth does not match the tree structure")
    tree = Tree(children_left=left.astype(np.intp), children_right=right.astype(np.intp),
                feature=np.where(is_leaf, TREE_UNDEFINED, feature).astype(np.intp),
                threshold=np.where(is_leaf, float(TREE_UNDEFINED), threshold),
                value=value, impurity=arrays["impurity"], impurity_exponent=units[0],
                n_node_samples=arrays["n_node_samples"].astype(np.intp),
                weighted_n_node_samples=arrays["weighted_n_node_samples"],
                weight_unit=units[1],
                node_depth=depth.astype(np.intp), n_features=n_features,
                n_classes=n_classes if is_classifier else 0,
                missing_go_to_left=arrays["missing_go_to_left"],
                categorical_set=cat_row.astype(np.intp), category_sets=sets)
    # impurities and weights each finite can still multiply past float64: the
    # importances a fit computes from them must stay finite
    with np.errstate(over="ignore", invalid="ignore"):
        importances = tree.compute_feature_importances()
    if not np.isfinite(importances).all():
        raise ModelFileError("the impurities and weights give non-finite feature "
                             "importances: values no fit produces")
    return tree
