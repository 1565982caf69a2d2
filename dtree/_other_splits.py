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
from ._splitter import best_split

TREE_LEAF = -1      # (as _nodes: the Tree's arrays import this module's routing)

COMPETITOR, SURROGATE = 0, 1
# the columns of an OtherSplits table: name -> dtype (the model file's too)
COLUMNS = {
    "node": np.int64,
    "kind": np.uint8,
    "feature": np.int64,
    "threshold": np.float64,        # NaN for a category set
    "category_set": np.int64,       # row of tree.category_sets, -1 for a threshold
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


# ------------------------------------------------------------ competitors
def best_on_feature(X, y, w, f, setting):
    """The best split of the rows (X, y, w) on feature ``f`` alone, or None."""
    return best_split(X[:, [f]], y, w, n_categories=setting["n_categories"][[f]],
                      **{k: v for k, v in setting.items() if k != "n_categories"})


def competitor_rows(tree, node, X, y, w, setting, k):
    """Up to ``k`` best splits on features other than ``node``'s, best first (ties: the
    lower feature index), as dicts of ``COLUMNS``; category sets as code lists."""
    found = []
    total = float(w.sum())
    parent = total * tree.impurity[node]
    for f in range(X.shape[1]):
        if f == tree.feature[node]:
            continue
        rec = best_on_feature(X, y, w, f, setting)
        if rec is None:
            continue
        improvement = parent - (rec["weight_left"] * rec["impurity_left"]
                                + rec["weight_right"] * rec["impurity_right"])
        found.append(dict(kind=COMPETITOR, feature=f,
                          threshold=np.nan if rec["categorical"] else rec["threshold"],
                          codes=rec["left_categories"] if rec["categorical"] else None,
                          improvement=max(improvement, 0.0), adj=0.0,
                          goes_left=int(rec["missing_left"]),
                          count=int(np.isnan(X[:, f]).sum())))
    found.sort(key=lambda r: (-r["improvement"], r["feature"]))
    return found[:k]


# ------------------------------------------------------------- surrogates
def primary_direction(tree, node, X):
    """+1 where the primary split sends a row left, -1 right, 0 where it is missing."""
    values = X[:, tree.feature[node]]
    left = passes(tree, values, tree.threshold[node], tree.categorical_set[node])
    return np.where(np.isnan(values), 0, np.where(left, 1, -1))


def surrogate_on_numeric(x, direction, w):
    """rpart's best agreeing threshold on a numeric feature (``choose_surg``).

    Returns (agreement weight, threshold, rows passing ``x <= t`` go left) or None
    when no threshold sends two rows each way and beats the majority direction.
    """
    keep = (direction != 0) & ~np.isnan(x)
    x, direction, w = x[keep], direction[keep], w[keep]
    order = np.argsort(x, kind="stable")
    x, direction, w = x[order], direction[order], w[order]
    wl_total = float(w[direction > 0].sum())
    wr_total = float(w[direction < 0].sum())
    majority = max(wl_total, wr_total)
    last = np.flatnonzero(np.r_[x[1:] != x[:-1], True])[:-1]   # last row of each value
    if last.size == 0:
        return None
    n_low = last + 1
    valid = (n_low >= 2) & (x.shape[0] - n_low >= 2)
    wl_low = np.cumsum(np.where(direction > 0, w, 0.0))[last]
    wr_low = np.cumsum(np.where(direction < 0, w, 0.0))[last]
    low_left = wl_low + (wr_total - wr_low)      # x <= t goes left
    low_right = wr_low + (wl_total - wl_low)     # x <= t goes right
    best = None
    for agree, low_goes_left in ((low_right, False), (low_left, True)):
        cand = np.where(valid, agree, -np.inf)
        i = int(np.argmax(cand))
        if cand[i] > majority and (best is None or cand[i] > best[0]
                                   or (cand[i] == best[0] and i < best[3])):
            best = (float(cand[i]), _midpoint(x[last[i]], x[last[i] + 1]), low_goes_left, i)
    return None if best is None else best[:3]


def _midpoint(a, b):
    # scikit-learn's threshold between two float32 values: their float64 mean,
    # or the lower value where the mean rounds up to the upper one
    t = (float(a) + float(b)) / 2.0
    return float(a) if t == float(b) else t


def surrogate_on_categories(codes, direction, w):
    """rpart's best agreeing category set: each category to its better side (a tie to
    the majority side). Returns (agreement weight, codes going left, True) or None."""
    keep = (direction != 0) & ~np.isnan(codes)
    codes, direction, w = codes[keep].astype(np.int64), direction[keep], w[keep]
    if codes.size == 0:
        return None
    size = int(codes.max()) + 1
    wl = np.bincount(codes, weights=np.where(direction > 0, w, 0.0), minlength=size)
    wr = np.bincount(codes, weights=np.where(direction < 0, w, 0.0), minlength=size)
    nl = np.bincount(codes[direction > 0], minlength=size)
    nr = np.bincount(codes[direction < 0], minlength=size)
    majority_left = wl.sum() > wr.sum()
    seen = (nl + nr) > 0
    left = seen & ((wl > wr) | ((wl == wr) & majority_left))
    agree = float(np.where(left, wl, wr)[seen].sum())
    agreeing = int(np.where(left, nl, nr)[seen].sum())
    disagreeing = int(np.where(left, nr, nl)[seen].sum())
    if agreeing < 2 or disagreeing < 2 or agree <= max(wl.sum(), wr.sum()):
        return None
    return agree, np.flatnonzero(left).tolist(), True


def surrogate_rows(tree, node, X, w, categorical, s):
    """Up to ``s`` surrogates of ``node``'s split, best agreement first."""
    direction = primary_direction(tree, node, X)
    primary_weight = float(w[direction != 0].sum())
    if primary_weight <= 0:
        return []
    majority = max(float(w[direction > 0].sum()), float(w[direction < 0].sum()))
    majority /= primary_weight
    found = []
    for f in range(X.shape[1]):
        if f == tree.feature[node]:
            continue
        pick = (surrogate_on_categories if categorical[f] else surrogate_on_numeric)(
            X[:, f], direction, w)
        if pick is None:
            continue
        agree = pick[0] / primary_weight
        adj = (agree - majority) / (1.0 - majority)
        if adj <= 1e-10:
            continue
        found.append(dict(kind=SURROGATE, feature=f,
                          threshold=np.nan if categorical[f] else pick[1],
                          codes=pick[1] if categorical[f] else None,
                          improvement=agree, adj=adj, goes_left=int(pick[2]), count=0))
    found.sort(key=lambda r: (-r["improvement"], r["feature"]))
    found = found[:s]
    _count_decided(tree, node, X, direction, found)
    return found


def _count_decided(tree, node, X, direction, found):
    # rows missing the primary that each surrogate, in turn, decides
    undecided = direction == 0
    for rec in found:
        present = undecided & ~np.isnan(X[:, rec["feature"]])
        rec["count"] = int(present.sum())
        undecided &= ~present


def majority_left(tree, node, X, w):
    """rpart's last resort: the side the primary sends more weight (a tie: the side
    with more training weight, as ``missing_go_to_left`` chooses without surrogates)."""
    direction = primary_direction(tree, node, X)
    wl, wr = float(w[direction > 0].sum()), float(w[direction < 0].sum())
    if wl != wr:
        return wl > wr
    return bool(tree.missing_go_to_left[node])


def bitset(codes):
    """One row of ``category_sets``: bit c of word c // 64 set for each code."""
    words = np.zeros(CAT_WORDS, dtype=np.uint64)
    for c in codes:
        words[c // 64] |= np.uint64(1) << np.uint64(c % 64)
    return words


# ----------------------------------------------------------------- the pass
def attach(tree, X, y, w, *, setting, categorical, n_competitors, n_surrogates,
           surrogate_missing):
    """Compute and attach (``tree.other_splits``) every internal node's competitors and
    surrogates from the training rows (X float32 dense, y as the builder's, w > 0);
    with ``surrogate_missing``, missing primaries route by surrogates
    (``missing_go_to_left`` becomes the majority direction)."""
    records, sets = [], [row for row in tree.category_sets]
    for node, rows in sorted(rows_by_node(tree, X).items()):
        if tree.children_left[node] == TREE_LEAF:
            continue
        Xn, yn, wn = X[rows], y[rows], w[rows]
        found = []
        if n_competitors:
            found += competitor_rows(tree, node, Xn, yn, wn, setting, n_competitors)
        if n_surrogates:
            found += surrogate_rows(tree, node, Xn, wn, categorical, n_surrogates)
        if surrogate_missing:
            tree.missing_go_to_left[node] = majority_left(tree, node, Xn, wn)
        for rec in found:
            rec["node"] = node
            codes = rec.pop("codes")
            rec["category_set"] = -1 if codes is None else len(sets)
            if codes is not None:
                sets.append(bitset(codes))
            records.append(rec)
    tree.category_sets = np.asarray(sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    tree.other_splits = OtherSplits(**{
        name: [r[name] for r in records] for name in COLUMNS})
    tree.surrogate_missing = bool(surrogate_missing)
    tree.__dict__.pop("_packed_nodes", None)   # missing_go_to_left may have changed
    return tree
