"""Checks of a model file's parts that ``_io`` reads: category sets, and the
competitor and surrogate splits (``other_*`` members); and the error they raise."""
import numpy as np

from ._nodes import CAT_WORDS, TREE_LEAF
from ._other_splits import COLUMNS as OTHER_COLUMNS, SURROGATE, OtherSplits


class ModelFileError(ValueError):
    """A model file (or dict) is corrupt, hostile, or of an unsupported version."""


def check_set(bits, known):
    """A category set of a feature whose categories are ``known`` (None: numeric)."""
    if known is None:
        raise ModelFileError("a category-set split on a numeric feature")
    for word in range(CAT_WORDS):
        if bits[word] and word * 64 + int(bits[word]).bit_length() > len(known):
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
    sets, threshold = tree.category_sets, cols["threshold"]
    for k in range(n):
        row, known = cols["category_set"][k], categories[feature[k]]
        if known is None:
            if row != -1 or np.isnan(threshold[k]) or threshold[k] == -np.inf:
                raise ModelFileError("a numeric other split needs a threshold (no set)")
        elif not (0 <= row < sets.shape[0]) or not np.isnan(threshold[k]):
            raise ModelFileError("a categorical other split needs a category set row")
        else:
            check_set(sets[row], known)
    return OtherSplits(**cols)
