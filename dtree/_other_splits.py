"""The other splits of each node: competitors and surrogates (rpart's definitions).

A *competitor* is the best split on another feature at a node (rpart's "primary
splits" after the first): the exact splitter's search on that feature alone,
over the node's training rows, under the tree's criterion, weights and leaf
limits. Its ``improvement`` is the weighted impurity decrease
``w * imp - w_l * imp_l - w_r * imp_r`` (rpart's ``improve`` for the gini
criterion with unit weights).

A *surrogate* is the split on another feature that best agrees with the
primary split over the node's rows whose primary feature is present (rpart's
``surrogatestyle=0``): agreement is the weight sent the primary's way over the
weight the primary splits, so a surrogate feature missing on many rows is
penalised; ``adj`` is the agreement beyond the majority direction's,
``(agree - majority) / (1 - majority)``. A surrogate must send at least two
rows each way and beat the majority direction; ties go to the lower
threshold, then the lower feature index.

``handle_missing="surrogate"`` routes a row whose primary feature is missing
through the first surrogate whose feature is present, else the majority
direction (rpart's ``usesurrogate=2``); ``route`` does that for any X.
"""
import numpy as np

from ._predict import CATEGORY_SET_WORDS as CAT_WORDS
from ._splitter import Splitter

TREE_LEAF = -1      # (as _nodes: the Tree's arrays import this module's routing)

COMPETITOR, SURROGATE = 0, 1
# the columns of an OtherSplits table: name -> dtype (the model file's too)
COLUMNS = {
    "node": np.int64,
    "kind": np.uint8,
    "feature": np.int64,
    "threshold": np.float64,        # NaN for a category set
    "category_set": np.int64,       # row of tree.category_sets, -1 for a threshold
    "decided_set": np.int64,        # a category surrogate: the row of the codes it
                                    # decides (rpart: the categories its node held;
                                    # others pass to the next surrogate); else -1
    "improvement": np.float64,      # competitor: weighted impurity decrease;
                                    # surrogate: agreement (a fraction)
    "adj": np.float64,              # surrogate: adjusted agreement; competitor: 0
    "goes_left": np.uint8,          # competitor: missing values go left;
                                    # surrogate: rows passing the test go left
    "count": np.int64,              # competitor: rows missing the feature;
                                    # surrogate: rows missing the primary it decides
}


class OtherSplits:
    """Competitor and surrogate splits of a tree's nodes, one row each, sorted by
    node, then kind (competitors first), then rank (best first).

    Attributes are the arrays of ``COLUMNS``.
    """

    def __init__(self, **columns):
        for name, dtype in COLUMNS.items():
            setattr(self, name, np.asarray(columns.get(name, ()), dtype=dtype))

    def __len__(self):
        return int(self.node.shape[0])

    def rows(self, node, kind):
        """Row indices of ``node``'s splits of ``kind``, best first."""
        return np.flatnonzero((self.node == node) & (self.kind == kind))

    def renumbered(self, new_id):
        """The rows of nodes that remain internal, their nodes renumbered by ``new_id``
        (-1 for a node that is gone or became a leaf)."""
        keep = new_id[self.node] >= 0
        columns = {name: getattr(self, name)[keep] for name in COLUMNS}
        columns["node"] = new_id[self.node[keep]]
        order = np.lexsort((np.arange(columns["node"].shape[0]), columns["kind"],
                            columns["node"]))
        return OtherSplits(**{name: col[order] for name, col in columns.items()})


# ------------------------------------------------------------------ routing
def passes(tree, values, threshold, category_set):
    """Which present ``values`` pass a test (``x <= threshold``, or the code in the
    set's row of ``tree.category_sets``); NaN never passes."""
    if category_set < 0:
        return values <= threshold
    words = tree.category_sets[category_set]
    codes = np.where(np.isnan(values), 0, values).astype(np.int64)
    inside = (codes >= 0) & (codes < 64 * CAT_WORDS)
    codes = np.clip(codes, 0, 64 * CAT_WORDS - 1)
    bits = (words[codes // 64] >> (codes % 64).astype(np.uint64)) & np.uint64(1)
    return inside & (bits == 1) & ~np.isnan(values)


def goes_left(tree, node, X, rows, use_surrogates):
    """For ``rows`` of X at an internal ``node``: whether each goes left.

    A missing primary value follows the first present surrogate when
    ``use_surrogates`` (and the tree keeps them), else ``missing_go_to_left``.
    """
    values = X[rows, tree.feature[node]]
    left = passes(tree, values, tree.threshold[node], tree.categorical_set[node])
    missing = np.isnan(values)
    if not missing.any():
        return left
    undecided = missing.copy()
    other = tree.other_splits
    if use_surrogates and other is not None:
        for k in other.rows(node, SURROGATE):
            if not undecided.any():
                break
            sv = X[rows[undecided], other.feature[k]]
            present = ~np.isnan(sv)
            if other.decided_set[k] >= 0:
                present &= passes(tree, sv, np.nan, other.decided_set[k])
            test = passes(tree, sv, other.threshold[k], other.category_set[k])
            decided = np.flatnonzero(undecided)[present]
            left[decided] = test[present] == bool(other.goes_left[k])
            undecided[decided] = False
    left[undecided] = bool(tree.missing_go_to_left[node])
    return left


def rows_by_node(tree, X, use_surrogates=False):
    """``{node: row indices of X reaching it}`` for every node, routing as ``route``."""
    out = {}
    stack = [(0, np.arange(X.shape[0]))]
    while stack:
        node, rows = stack.pop()
        out[node] = rows
        if tree.children_left[node] == TREE_LEAF:
            continue
        left = goes_left(tree, node, X, rows, use_surrogates)
        stack.append((tree.children_right[node], rows[~left]))
        stack.append((tree.children_left[node], rows[left]))
    return out


def route(tree, X):
    """Leaf id of each row of a dense float32 X, missing primaries routed by surrogates."""
    leaves = np.empty(X.shape[0], dtype=np.intp)
    for node, rows in rows_by_node(tree, X, use_surrogates=True).items():
        if tree.children_left[node] == TREE_LEAF:
            leaves[rows] = node
    return leaves


def bitset(codes):
    """One row of ``category_sets``: bit c of word c // 64 set for each code."""
    words = np.zeros(CAT_WORDS, dtype=np.uint64)
    for c in codes:
        words[c // 64] |= np.uint64(1) << np.uint64(c % 64)
    return words


# ----------------------------------------------------------------- the pass
def attach(tree, X, y, w, *, setting, n_competitors, n_surrogates, surrogate_missing):
    """Compute and attach (``tree.other_splits``) every split node's competitors and
    surrogates from the rows the tree was grown on (X float32 dense, y as the
    builder's, w > 0) in one replay of the growth (``_other_scan``); with
    ``surrogate_missing``, missing primaries route by surrogates
    (``missing_go_to_left`` becomes the majority direction)."""
    from ._other_scan import replay
    splitter = Splitter(X, y, w, setting["n_classes"], setting["criterion"],
                        setting["min_samples_leaf"], setting["min_weight_leaf"], X.shape[1],
                        0, setting["n_categories"], False, 1, quantile=setting["quantile"],
                        value_tolerance=setting["value_tolerance"], index_order=True)
    found = replay(splitter, tree, n_competitors, n_surrogates)
    if surrogate_missing:
        tree.missing_go_to_left = found["majority_left"]
    records, sets = [], [row for row in tree.category_sets]
    for rec in sorted(found["rows"], key=lambda r: (r["node"], r["kind"])):
        codes, decided = rec.pop("codes"), rec.pop("decided")
        rec["category_set"] = -1 if codes is None else len(sets)
        if codes is not None:
            sets.append(bitset(codes))
        rec["decided_set"] = -1 if decided is None else len(sets)
        if decided is not None:
            sets.append(bitset(decided))
        records.append(rec)
    tree.category_sets = np.asarray(sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    tree.other_splits = OtherSplits(**{
        name: [r[name] for r in records] for name in COLUMNS})
    tree.surrogate_missing = bool(surrogate_missing)
    tree.__dict__.pop("_packed_nodes", None)   # missing_go_to_left may have changed
    return tree
