"""Growing a histogram tree whose rows live elsewhere, a round trip per batch of nodes.

The rows (bin codes, targets, weights and each row's node) stay where they
are, split into parts (``dtree.dask`` keeps them on the workers of a cluster);
what travels is small: per round, the splits just chosen go out and the summed
histograms of the next level's nodes come back. This module is the grower's
side of that exchange, independent of where the rows are:

- ``grow_levelwise(rows, ...)`` grows the tree. ``rows`` answers one request,
  ``rows.histograms(routes, slots)``: move every row from its node to the
  child its node's split sends it to (``routes``, see ``_hist_splitter.route_rows``),
  then return the histograms, summed over all rows, of the nodes ``slots``
  names (see ``_hist_splitter.node_histograms``).
- ``LocalRows`` answers it from parts held in this process (tests, and a
  reference for the distributed answer).

Each node is split by the histogram splitter's own search
(``HistSplitter.split_histogram``): the same scan, tie rule and limits as
``splitter="hist"``. Children's histograms come the local way: the smaller
child's is built from its rows and the larger one's is its parent's minus it.
The tree is the local grower's, ties and feature draws included: a node whose
best split is the only best over every feature is split as soon as its
histogram is here (so untied trees grow a level per round); any other waits
until the depth-first order reaches it, the draw replayed in that order
(``_Growth``). Best-first growth expands one node per round (``_BestFirstGrowth``).
Nodes are numbered as the local growers number them.
"""
import math

import numpy as np

from .._model.tree import CAT_WORDS
from .._grow import Frontier, leaf_by_size, too_small_decrease
from .._hist_splitter import (HistSplitter, histogram_layout, histogram_totals, impurity_of,
                              node_histograms, route_rows)

KEEP_ROWS = -2      # route_rows: the node is not decided yet, its rows stay

# a round's histograms are asked for in batches of at most this many bytes each
ROUND_BYTES = 64 << 20


class _Node:
    """A node of the tree being grown (driver side)."""

    __slots__ = ("parent", "is_left", "depth", "stats", "weight", "n", "impurity",
                 "lower", "upper", "hist", "second", "split", "children", "decided",
                 "mask", "n_known")

    def __init__(self, parent, is_left, depth, stats, weight, n, impurity, lower, upper):
        self.parent, self.is_left, self.depth = parent, is_left, depth
        self.stats, self.weight, self.n, self.impurity = stats, weight, n, impurity
        self.lower, self.upper = lower, upper
        self.hist = self.second = self.split = None
        self.children = None
        self.decided = False
        self.mask = None        # decided early: its constant features, for the replay
        self.n_known = 0        # constants known from above (set by the cursor)


def grow_levelwise(rows, lo, hi, *, search, n_rows, weighted, params, monotonic=None,
                   categorical=None, report=None):
    """Grow a tree from histograms that ``rows`` sums over the rows it holds.

    Parameters
    ----------
    rows : object with ``histograms(routes, slots)`` (module docstring)
    lo, hi : ndarray (d, 256)
        The bins' smallest and largest training values, over all rows.
    search : dict
        The splitters' settings (``FitPlan.search``: the criterion's code, the
        class count (0 for regression), the leaf limits, the feature draw and
        its seed).
    n_rows : int
        Training rows (with a positive weight).
    weighted : bool
        Whether the rows carry weights (else every weight is 1).
    params : GrowthParams
        Limits in the units the rows' weights and targets are in; depth-first
        only (``max_leaf_nodes`` < 0).
    monotonic, categorical : ndarray (d,) or None
        Per feature its monotonic constraint, and whether its codes are category
        codes (split by sets of categories).
    report : callable or None
        Called as ``report(rounds, nodes)`` after each round (progress).

    Returns
    -------
    dict of ndarray
        The node arrays of the tree (as the growers write them), numbered in
        pre-order.
    """
    d = hi.shape[0]
    criterion, n_classes = search["criterion"], search["n_classes"]
    splitter = HistSplitter(np.empty((0, d), dtype=np.uint8), lo, hi,
                            np.empty(0, dtype=np.int32 if n_classes else np.float64), None,
                            search, monotonic, n_rows=n_rows, weighted=weighted,
                            categorical=categorical)
    kind = _BestFirstGrowth if params.max_leaf_nodes > 0 else _Growth
    growth = kind(rows, splitter, hi, criterion, n_classes, params, monotonic)
    growth.report = report
    growth.run()
    return _node_arrays(growth.nodes, growth.numbering(), splitter.n_stats,
                        monotonic is not None)


class _Growth:
    """One fit's nodes, the depth-first cursor and the requests for the next round.

    Every node is decided (split, or made a leaf) once: early, as soon as its
    histogram is here, when its best split is the only best over all features
    (any visiting order gives it: ``unique_split``); otherwise when the
    depth-first cursor reaches it, with the feature draw in the state the local
    depth-first grower's would have there (``split_histogram``). The cursor
    replays the draw of every node decided early (``replay_draw``), so the
    draw's state stays the local one; it waits at a node whose histogram is
    not here yet.
    """

    def __init__(self, rows, splitter, hi, criterion, n_classes, params, monotonic):
        self.rows, self.sp, self.hi = rows, splitter, hi
        self.criterion, self.n_classes, self.monotonic = criterion, n_classes, monotonic
        self.limits = params.limits()
        # early decisions need every feature visited at every node
        self.early = params.max_features >= hi.shape[0]
        n_bins = int(histogram_layout(hi)[1][hi.shape[0]])
        self.batch = max(1, ROUND_BYTES // (8 * n_bins * (splitter.n_stats + 2)))
        self.nodes = []
        self.routes = {}       # node id -> its rows' way, until the next round
        self.wanted = []       # (child to build, its parent, the sibling it gives or -1)
        self.rounds = 0
        self.report = None     # report(rounds, nodes) after each round, or None

    def run(self):
        self._start()
        self._try_early(0)
        cursor = [0]
        while True:
            self._advance(cursor)
            if not cursor:
                return
            if not self.wanted:
                raise RuntimeError("the level-wise grower waits for a histogram nobody asked for")
            self._round()

    def numbering(self):
        """The nodes in the order the local grower numbers them: pre-order."""
        order, stack = [], [0]
        while stack:
            k = stack.pop()
            order.append(k)
            if self.nodes[k].children is not None:
                stack.extend(reversed(self.nodes[k].children))
        return order

    def _start(self):
        """The root, from the first round's histogram."""
        self.sp.start_fit()
        (hist, second), = self.rows.histograms(None, {0: 0})
        stats, weight, count = histogram_totals(hist, second, self.hi, self.criterion,
                                                self.n_classes)
        root = _Node(-1, False, 0, stats, weight, count,
                     impurity_of(self.criterion, stats, weight), -math.inf, math.inf)
        root.hist, root.second = hist, second
        self.nodes.append(root)
        self.weight_root = weight

    # ------------------------------------------------------------ decisions
    def _grows(self, k):
        node = self.nodes[k]
        return not leaf_by_size(node.n, node.weight, node.depth, node.impurity, **self.limits)

    def _node_args(self, node):
        return (node.hist, node.second, node.stats, node.weight, node.n, node.impurity,
                self.weight_root, node.lower, node.upper)

    def _try_early(self, k):
        """Decide a node now if the order of the features cannot matter."""
        node = self.nodes[k]
        if not self.early or not self._grows(k):
            return
        found, unique = self.sp.unique_split(*self._node_args(node))
        if unique:
            node.mask = self.sp.constant_mask(node.hist)
            self._decide(k, found)

    def _advance(self, cursor):
        """Move the depth-first cursor on as far as the nodes here allow."""
        while cursor:
            k = cursor[-1]
            node = self.nodes[k]
            if not self._grows(k):
                cursor.pop()
                continue
            if node.mask is None and not node.decided:
                if node.hist is None:
                    return          # its histogram comes with the next round
                found, n_constant = self.sp.split_histogram(*self._node_args(node),
                                                            n_known=node.n_known)
                self._decide(k, found)
            else:
                n_constant = self.sp.replay_draw(node.n_known, node.mask)
            cursor.pop()
            if node.children is not None:
                a, b = node.children
                self.nodes[a].n_known = self.nodes[b].n_known = n_constant
                cursor.append(b)
                cursor.append(a)      # the left child first, as the local grower

    def _decide(self, k, found):
        """Split node k by ``found`` (or make it a leaf) and ask for what its children need."""
        node = self.nodes[k]
        node.decided = True
        if found is None or too_small_decrease(found["improvement"],
                                               self.limits["min_impurity_decrease"]):
            self.routes[k] = None
            node.hist = node.second = None
            return
        node.split = found
        a, b = node.children = (len(self.nodes), len(self.nodes) + 1)
        self.nodes.extend(_children(node, k, found, self.monotonic))
        left_grows, right_grows = self._grows(a), self._grows(b)
        # as the local grower: the left child is the smaller one on equal counts
        small, large = (a, b) if self.nodes[a].n <= self.nodes[b].n else (b, a)
        large_grows = right_grows if small == a else left_grows
        small_grows = left_grows if small == a else right_grows
        to_left = a if left_grows else -1
        to_right = b if right_grows else -1
        if large_grows or small_grows:
            self.wanted.append((small, k, large if large_grows else -1))
            # the smaller child's rows are counted even when it is a leaf
            if small == a:
                to_left = a
            else:
                to_right = b
        else:
            node.hist = node.second = None
        self.routes[k] = (found, to_left, to_right)

    # ------------------------------------------------------------ rounds
    def _round(self):
        """Move the rows of the nodes decided since the last round, and bring the
        histograms asked for."""
        n_ids = len(self.nodes)
        feature = np.full(n_ids, KEEP_ROWS, dtype=np.intp)
        last_bin = np.zeros(n_ids, dtype=np.intp)
        missing_left = np.zeros(n_ids, dtype=np.uint8)
        to_left = np.full(n_ids, -1, dtype=np.int32)
        to_right = np.full(n_ids, -1, dtype=np.int32)
        categorical = np.zeros(n_ids, dtype=np.uint8)
        cat_left = np.zeros((n_ids, CAT_WORDS), dtype=np.uint64)
        for k, way in self.routes.items():
            if way is None:
                feature[k] = -1
                continue
            found, to_left[k], to_right[k] = way
            feature[k], last_bin[k] = found["feature"], found["last_bin"]
            missing_left[k], categorical[k] = found["missing_left"], found["categorical"]
            cat_left[k] = found["cat_left"]
        self.routes = {}
        routes = (feature, last_bin, missing_left, to_left, to_right, categorical, cat_left)
        wanted, self.wanted = self.wanted, []
        arrived = []
        for first in range(0, len(wanted), self.batch):
            part = wanted[first:first + self.batch]
            got = self.rows.histograms(routes, {c: s for s, (c, _, _) in enumerate(part)})
            routes = None     # the rows move once per round
            for (child, parent, sibling), (hist, second) in zip(part, got):
                p = self.nodes[parent]
                self._arrive(child, hist, second, arrived)
                if sibling >= 0:
                    self._arrive(sibling, p.hist - hist, p.second - second, arrived)
                p.hist = p.second = None
        self.rounds += 1
        if self.report is not None:
            self.report(self.rounds, len(self.nodes))
        for k in arrived:
            self._try_early(k)

    def _arrive(self, k, hist, second, arrived):
        if self._grows(k):
            self.nodes[k].hist, self.nodes[k].second = hist, second
            arrived.append(k)


class _BestFirstGrowth(_Growth):
    """Best-first growth (``max_leaf_nodes``), as the local best-first grower: a
    node's split is found when the node is added (the left child before the
    right), the frontier expands the node of largest improvement first (its
    heap, ``_grow.Frontier``), and nodes are numbered as they are added. Each
    expansion is one round: its children's histograms."""

    def __init__(self, *args):
        super().__init__(*args)
        self.early = False
        self.frontier = Frontier(min(self.limits["max_leaf_nodes"] + 1, 1024))
        self.pending = {}       # node id -> the split found for it, until it is expanded

    def numbering(self):
        return list(range(len(self.nodes)))

    def run(self):
        self._start()
        self._add(0)
        budget = self.limits["max_leaf_nodes"] - 1
        while len(self.frontier) and budget > 0:
            k, is_leaf = self.frontier.pop()
            if is_leaf:
                continue
            budget -= 1
            self._decide(k, self.pending.pop(k))
            self._round()
            for c in self.nodes[k].children:
                self._add(c)

    def _add(self, k):
        """Find the split of a node just added and put it on the frontier."""
        node = self.nodes[k]
        found = None
        if self._grows(k):
            found, _ = self.sp.split_histogram(*self._node_args(node))
        if found is None or too_small_decrease(found["improvement"],
                                               self.limits["min_impurity_decrease"]):
            node.hist = node.second = None
            self.frontier.push(k, 0.0, True)
            self.routes[k] = None      # its rows leave the growth
            return
        # (its histogram stays until it is expanded: its children subtract from it)
        self.pending[k] = found
        self.frontier.push(k, found["improvement"], False)


def _children(node, k, found, monotonic):
    """The two children of a split node (their bounds by scikit-learn's rule)."""
    left = _Node(k, True, node.depth + 1, found["left_stats"], found["weight_left"],
                 found["n_left"], found["impurity_left"], node.lower, node.upper)
    right = _Node(k, False, node.depth + 1, found["right_stats"], found["weight_right"],
                  node.n - found["n_left"], found["impurity_right"], node.lower, node.upper)
    cst = 0 if monotonic is None else int(monotonic[found["feature"]])
    if cst > 0:
        left.upper = right.lower = found["middle"]
    elif cst < 0:
        left.lower = right.upper = found["middle"]
    return left, right


def _node_arrays(nodes, order, n_stats, bounds):
    """The nodes as ``NodeStore.to_arrays`` gives them, numbered in ``order``."""
    new_id = np.empty(len(nodes), dtype=np.intp)
    new_id[order] = np.arange(len(order))
    n = len(order)
    out = {"children_left": np.full(n, -1, dtype=np.intp),
           "children_right": np.full(n, -1, dtype=np.intp),
           "feature": np.full(n, -2, dtype=np.intp),
           "threshold": np.full(n, -2.0), "impurity": np.empty(n),
           "n_node_samples": np.empty(n, dtype=np.intp),
           "weighted_n_node_samples": np.empty(n), "depth": np.empty(n, dtype=np.intp),
           "missing_go_to_left": np.zeros(n, dtype=np.uint8),
           "categorical_set": np.full(n, -1, dtype=np.intp),
           "stats": np.empty((n, n_stats))}
    sets = []
    if bounds:
        out["lower_bound"] = np.empty(n)
        out["upper_bound"] = np.empty(n)
    for i, k in enumerate(order):
        node = nodes[k]
        out["impurity"][i] = node.impurity
        out["n_node_samples"][i] = node.n
        out["weighted_n_node_samples"][i] = node.weight
        out["depth"][i] = node.depth
        out["stats"][i] = node.stats
        if bounds:
            out["lower_bound"][i] = node.lower
            out["upper_bound"][i] = node.upper
        if node.children is not None:
            out["children_left"][i] = new_id[node.children[0]]
            out["children_right"][i] = new_id[node.children[1]]
            out["feature"][i] = node.split["feature"]
            out["threshold"][i] = node.split["threshold"]
            out["missing_go_to_left"][i] = node.split["missing_left"]
            if node.split["categorical"]:
                out["categorical_set"][i] = len(sets)
                sets.append(node.split["cat_left"])
    out["category_sets"] = np.array(sets, dtype=np.uint64).reshape(len(sets), CAT_WORDS)
    return out


class LocalRows:
    """Rows held in this process, in parts: ``grow_levelwise``'s ``rows``.

    Parameters
    ----------
    parts : list of (codes, y, sample_weight or None)
    hi : ndarray (d, 256)
        The global bins' largest values (the histogram layout).
    criterion, n_classes
        As ``grow_levelwise``'s.
    """

    def __init__(self, parts, hi, criterion, n_classes):
        self.parts = parts
        self.hi, self.criterion, self.n_classes = hi, criterion, n_classes
        self.nodes = [np.zeros(p[0].shape[0], dtype=np.int32) for p in parts]

    def histograms(self, routes, slots):
        if routes is not None:
            for (codes, _, _), node in zip(self.parts, self.nodes):
                route_rows(codes, node, *routes)
        slot = slot_table(slots)
        total = None
        for (codes, y, w), node in zip(self.parts, self.nodes):
            got = node_histograms(codes, y, w, node, slot, self.hi, self.criterion,
                                  self.n_classes, len(slots))
            total = got if total is None else (total[0] + got[0], total[1] + got[1])
        return list(zip(total[0], total[1]))


def slot_table(slots):
    """``{node id: slot}`` as the table ``node_histograms`` reads (-1: no histogram)."""
    slot = np.full(max(slots) + 1 if slots else 0, -1, dtype=np.intp)
    for node, s in slots.items():
        slot[node] = s
    return slot
