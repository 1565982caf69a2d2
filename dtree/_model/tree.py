"""The fitted tree as flat node arrays, and everything that reads them.

``Tree`` mirrors scikit-learn's ``tree_`` attribute: parallel arrays indexed by
node id, leaves marked by ``children_left == children_right == -1``. Predict,
apply, decision paths and feature importances read these arrays through the
compiled routing rule (``_route``); pruning, the exports, model files, SQL and
ONNX read them too, and never a builder.
"""
import numpy as np

from .._input.validation import SparseRows, check_sparse_X, is_sparse
from .._route import (CATEGORY_SET_WORDS, Router, apply_csr, apply_surrogates,
                      decision_paths, pack_nodes, pack_top, predict_fractional)
from .compact import compact_columns, expand_columns
from .leaf_table import OFFERED
from .narrow import narrow_ints, narrow_reals, widened
from .routing import codes_in_set, surrogate_table
from .units import unscaled

TREE_LEAF = -1
TREE_UNDEFINED = -2
CAT_WORDS = CATEGORY_SET_WORDS  # 64-bit words of a category set: codes 0..1023


# what traversal derives from the node arrays: rebuilt on first use, never pickled
_DERIVED = ("_packed_nodes", "_prepared_router", "_parent_nodes", "_surrogate_table",
            "_node_argmax", "_node_ids")
# node columns a pickle keeps in as few bytes as hold them exactly (``narrow``)
_INT_COLUMNS = ("children_left", "children_right", "feature", "n_node_samples",
                "node_depth", "categorical_set")
_REAL_COLUMNS = ("feature_range", "scaled_weighted_n_node_samples")


class Tree:
    """Flat arrays of a fitted binary decision tree.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    children_left, children_right : ndarray of shape (node_count,), intp
        Child ids; -1 for leaves.
    feature : ndarray of shape (node_count,), intp
        Split feature; -2 for leaves.
    threshold : ndarray of shape (node_count,), float64
        Split threshold (``x <= threshold`` goes left); -2.0 for leaves.
    categorical_set : ndarray of shape (node_count,), intp
        For a split on a categorical feature, the row of ``category_sets``
        holding the codes that go left; -1 for numeric splits and leaves
        (whose ``threshold`` is then NaN).
    category_sets : ndarray of shape (n_sets, 16), uint64
        Bitsets of category codes (bit c of word c // 64).
    missing_go_to_left : ndarray of shape (node_count,), uint8
        1 where a missing value (NaN) goes left: learnt where the node saw
        missing values at fit, otherwise the child with more samples.
    fractional_missing : bool
        C4.5 trees: ``predict`` sends a missing value down both children,
        weighted by their training weights, and mixes the leaves reached
        (``apply`` and ``decision_path`` follow ``missing_go_to_left``).
    other_splits : OtherSplits or None
        Competitor and surrogate splits of the split nodes (``keep_competitors``,
        ``n_surrogates``): see ``dtree._model.other_splits``.
    surrogate_missing : bool
        ``handle_missing="surrogate"``: a missing value follows the node's first
        present surrogate, then ``missing_go_to_left`` (the majority side).
    feature_range : ndarray of shape (node_count, 2) or None
        Min and max of each numeric split node's feature over the training rows
        it split (NaN for leaves and category splits).
    leaf_targets : LeafTargets or None
        A regressor's training targets by leaf (``keep_leaf_targets=True``).
    value : ndarray of shape (node_count, n_outputs, max_n_classes)
        Weighted class fractions of each output (classification; an output
        with fewer classes than the most has zeros after its own), or each
        output's mean target (regression, ``max_n_classes`` 1).
    impurity : ndarray of shape (node_count,)
        In the units of the target (squared, for regression).
    scaled_impurity : ndarray of shape (node_count,)
        ``impurity * 2**-impurity_exponent``: what the builder computed on
        targets scaled near 1 (see ``_model.units``). Always finite; ``impurity``
        is infinite only where the true value exceeds float64 (targets near
        1e308).
    impurity_exponent : int
        0 unless the targets were rescaled.
    n_node_samples : ndarray of shape (node_count,), intp
    weighted_n_node_samples : ndarray of shape (node_count,)
        ``scaled_weighted_n_node_samples * weight_unit``: the builder's weighted
        counts (always finite) times what one of its units weighs for the user
        (1, a uniform sample weight, or a power of two for extreme weights).
    node_depth : ndarray of shape (node_count,), intp
    max_depth : int
    n_leaves : int
    n_features : int
    n_classes : ndarray of shape (n_outputs,)
        Number of classes of each output (1 for regression), as scikit-learn.
    n_outputs : int
        Number of outputs (columns of y).
    max_n_classes : int
    """

    def __init__(self, *, children_left, children_right, feature, threshold, value,
                 impurity, n_node_samples, weighted_n_node_samples, node_depth,
                 n_features, n_classes, missing_go_to_left=None, categorical_set=None,
                 category_sets=None, fractional_missing=False, impurity_exponent=0,
                 weight_unit=1.0, other_splits=None, surrogate_missing=False,
                 feature_range=None, leaf_targets=None):
        # how missing values route: C4.5's fractional cases, or surrogates
        # (competitor and surrogate splits: ``_model.other_splits``)
        self.fractional_missing = bool(fractional_missing)
        self.other_splits, self.surrogate_missing = other_splits, bool(surrogate_missing)
        # honest leaves (``_model.leaves``): split nodes' training ranges, leaf targets
        self.feature_range, self.leaf_targets = feature_range, leaf_targets
        # the node arrays, scikit-learn's; impurities and weighted counts as the
        # builder computed them, their units beside (``_model.units``)
        self.children_left, self.children_right = children_left, children_right
        self.feature, self.threshold, self.value = feature, threshold, value
        self.scaled_impurity, self.impurity_exponent = impurity, int(impurity_exponent)
        self.scaled_weighted_n_node_samples = weighted_n_node_samples
        self.weight_unit = float(weight_unit)
        self.n_node_samples, self.node_depth = n_node_samples, node_depth
        if missing_go_to_left is None:
            missing_go_to_left = np.zeros(children_left.shape[0], dtype=np.uint8)
        self.missing_go_to_left = np.asarray(missing_go_to_left, dtype=np.uint8)
        if categorical_set is None:
            categorical_set = np.full(children_left.shape[0], -1, dtype=np.intp)
        self.categorical_set = np.asarray(categorical_set, dtype=np.intp)
        if category_sets is None:
            category_sets = np.zeros((0, CAT_WORDS), dtype=np.uint64)
        self.category_sets = np.asarray(category_sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
        self.n_features = int(n_features)
        self.n_outputs = int(value.shape[1])
        counts = np.atleast_1d(np.asarray(n_classes, dtype=np.intp))
        self.is_classifier = bool(counts.max() > 0)
        if counts.shape[0] != self.n_outputs:   # one count for every output
            counts = np.repeat(counts[:1], self.n_outputs)
        # scikit-learn reports 1 "class" for a regression tree
        self.n_classes = np.maximum(counts, 1)
        self.max_n_classes = int(self.n_classes.max())

    @property
    def impurity(self):
        return unscaled(self.scaled_impurity, self.impurity_exponent)

    @property
    def weighted_n_node_samples(self):
        if self.weight_unit == 1.0:
            return self.scaled_weighted_n_node_samples
        with np.errstate(over="ignore"):
            return self.scaled_weighted_n_node_samples * self.weight_unit

    def subtree(self, leaves):
        """Copy of the tree in which the nodes marked in ``leaves`` become leaves.

        Parameters
        ----------
        leaves : ndarray of bool, shape (node_count,)
            Nodes to turn into leaves (their descendants are dropped).

        Returns
        -------
        Tree
            Compact arrays, nodes renumbered in pre-order (left first), like
            scikit-learn's pruned trees.
        """
        leaves = np.asarray(leaves, dtype=bool) | (self.children_left == TREE_LEAF)
        order = []
        stack = [0]
        while stack:
            node = stack.pop()
            order.append(node)
            if not leaves[node]:
                stack.append(self.children_right[node])
                stack.append(self.children_left[node])
        order = np.asarray(order, dtype=np.intp)
        new_id = np.full(self.node_count, TREE_LEAF, dtype=np.intp)
        new_id[order] = np.arange(order.shape[0])
        is_leaf = leaves[order]
        left = np.where(is_leaf, TREE_LEAF, new_id[self.children_left[order]])
        right = np.where(is_leaf, TREE_LEAF, new_id[self.children_right[order]])
        n_classes = self.n_classes if self.is_classifier else 0
        return Tree(children_left=left, children_right=right,
                    feature=np.where(is_leaf, TREE_UNDEFINED, self.feature[order]),
                    threshold=np.where(is_leaf, float(TREE_UNDEFINED), self.threshold[order]),
                    value=self.value[order], impurity=self.scaled_impurity[order],
                    impurity_exponent=self.impurity_exponent,
                    n_node_samples=self.n_node_samples[order],
                    weighted_n_node_samples=self.scaled_weighted_n_node_samples[order],
                    weight_unit=self.weight_unit,
                    node_depth=self.node_depth[order], n_features=self.n_features,
                    n_classes=n_classes,
                    missing_go_to_left=np.where(is_leaf, 0, self.missing_go_to_left[order]),
                    categorical_set=np.where(is_leaf, -1, self.categorical_set[order]),
                    category_sets=self.category_sets,
                    fractional_missing=self.fractional_missing,
                    other_splits=(None if self.other_splits is None else
                                  self.other_splits.renumbered(
                                      np.where(leaves, TREE_LEAF, new_id))),
                    surrogate_missing=self.surrogate_missing,
                    feature_range=(None if self.feature_range is None else
                                   np.where(is_leaf[:, None], np.nan,
                                            self.feature_range[order])),
                    leaf_targets=(None if self.leaf_targets is None else
                                  self.leaf_targets.regrouped(self, leaves, new_id)))

    @property
    def node_count(self):
        return int(self.children_left.shape[0])

    @property
    def capacity(self):
        """Nodes the arrays hold: the node count (scikit-learn trims to it too)."""
        return self.node_count

    @property
    def max_depth(self):
        return int(self.node_depth.max()) if self.node_count else 0

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.children_left == TREE_LEAF))

    @property
    def _packed(self):
        # Traversal reads one 32-byte record per level instead of six arrays.
        packed = self.__dict__.get("_packed_nodes")
        if packed is None:
            packed = pack_nodes(self.children_left, self.children_right, self.feature,
                                self.threshold, self.missing_go_to_left,
                                self.categorical_set)
            self.__dict__["_packed_nodes"] = packed
        return packed

    @property
    def _router(self):
        # the compiled traversal, prepared once: the packed nodes and, for a
        # numeric tree, its first levels as a complete tree (``pack_top``), which
        # rows step through without loading children
        router = self.__dict__.get("_prepared_router")
        if router is None:
            top = None if self.category_sets.size else pack_top(
                self._packed, self.max_depth, self.n_features)
            router = Router(self._packed, self.category_sets, top)
            self.__dict__["_prepared_router"] = router
        return router

    @property
    def _surrogates(self):
        # the surrogates laid out for the compiled routing of missing values
        table = self.__dict__.get("_surrogate_table")
        if table is None:
            table = surrogate_table(self)
            self.__dict__["_surrogate_table"] = table
        return table

    def forget_routing(self):
        """Drop what traversal and predict derived from the node arrays (the packed
        nodes and their router, parents, surrogates, each node's most probable
        class): call it after changing the arrays in place."""
        for name in _DERIVED:
            self.__dict__.pop(name, None)

    @property
    def _parents(self):
        # each node's parent (-1 at the root): decision paths are read leaf up
        parents = self.__dict__.get("_parent_nodes")
        if parents is None:
            parents = np.full(self.node_count, -1, dtype=np.intp)
            inner = np.flatnonzero(self.children_left != TREE_LEAF)
            parents[self.children_left[inner]] = inner
            parents[self.children_right[inner]] = inner
            self.__dict__["_parent_nodes"] = parents
        return parents

    def __getstate__(self):
        state = self.__dict__.copy()
        for name in _DERIVED:
            state.pop(name, None)     # derived: rebuilt on first use
        # a forest's table of leaf values, offered for this one pickling: the
        # state refers to it (a pickler stores the shared LeafTable once)
        table = self.__dict__.pop(OFFERED, None)
        state.pop(OFFERED, None)
        # a forest's pickle is mostly node columns: only what the tree's shape
        # does not say, compressed (``compact``); where that does not apply, the
        # columns in as few bytes as hold them exactly, read back as the 8-byte
        # numbers they are
        state = compact_columns(state, table)
        for names, narrow in ((_INT_COLUMNS, narrow_ints), (_REAL_COLUMNS, narrow_reals)):
            for name in names:
                column = state.get(name)
                if isinstance(column, np.ndarray) and column.dtype.itemsize == 8:
                    state[name] = narrow(column)
        return state

    def __setstate__(self, state):
        state = expand_columns(dict(state))
        for names, dtype in ((_INT_COLUMNS, np.intp), (_REAL_COLUMNS, np.float64)):
            for name in names:
                column = state.get(name)
                if isinstance(column, np.ndarray):
                    state[name] = widened(column, dtype)
        self.__dict__.update(state)

    def apply(self, X, n_threads=1):
        """Leaf id for each row of a validated float32 X or ``SparseRows`` (rows split
        over n_threads); a scipy sparse X is read as stored (``tree_.apply`` as
        scikit-learn's, which takes CSR)."""
        if is_sparse(X):
            X = check_sparse_X(X, self.n_features, allow_nan=True)
        if isinstance(X, SparseRows):
            if self.surrogate_missing and np.isnan(X.data).any():
                raise TypeError("routing missing values by surrogate splits needs a dense "
                                "X: pass X.toarray()")
            return apply_csr(self._packed, self.category_sets, X.indptr, X.indices, X.data,
                             n_threads)
        leaves = self._router.route(X, n_threads)
        if self.surrogate_missing:
            missing = np.flatnonzero(np.isnan(X).any(axis=1))
            if missing.size:
                leaves[missing] = apply_surrogates(self._packed, self.category_sets,
                                                   *self._surrogates, X[missing])
        return leaves

    def routes_plainly(self):
        """Whether ``lookup`` routes as ``apply``: NaN goes where the splits send
        it (no surrogates, no C4.5 fractions)."""
        return not (self.surrogate_missing or self.fractional_missing)

    def lookup(self, X, table, n_threads=1):
        """(``table[leaf]`` for each row of a dense X whose values are unchecked,
        whether some row held NaN or infinity): the caller validates the values
        only then. ``table``: one intp or float64 per node."""
        return self._router.route(X, n_threads, table, check_finite=True)

    @property
    def node_argmax(self):
        """The most probable class of each node and output (the first on ties),
        shape (node_count, n_outputs): predict's table, derived once."""
        table = self.__dict__.get("_node_argmax")
        if table is None:
            table = np.argmax(self.value, axis=2).astype(np.intp)
            self.__dict__["_node_argmax"] = table
        return table

    @property
    def node_ids(self):
        """0, 1, ..., node_count - 1 (intp): the table whose ``lookup`` gives each
        row its leaf, derived once."""
        ids = self.__dict__.get("_node_ids")
        if ids is None or ids.shape[0] != self.node_count:
            ids = np.arange(self.node_count, dtype=np.intp)
            self.__dict__["_node_ids"] = ids
        return ids

    def decision_path(self, X):
        """Node indicator matrix (scipy CSR) of a validated float32 X, ``SparseRows``
        or scipy sparse X."""
        try:
            from scipy.sparse import csr_matrix
        except ImportError as exc:  # scipy is optional at runtime
            raise ImportError("decision_path returns a scipy.sparse matrix: "
                              "install scipy (pip install scipy)") from exc
        indptr, indices = decision_paths(self._parents, self.node_depth, self.apply(X))
        data = np.ones(indices.shape[0], dtype=np.intp)
        return csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def left_categories(self, node):
        """Category codes that go left at ``node`` (empty for a numeric split)."""
        return self.left_categories_of(self.categorical_set[node])

    def left_categories_of(self, row):
        """Category codes in row ``row`` of ``category_sets`` (empty for -1)."""
        if row < 0:
            return []
        return codes_in_set(self.category_sets[row])

    def mixes_leaves(self, X):
        """Whether some row of X reaches several leaves (C4.5's missing values)."""
        if not self.fractional_missing:
            return False
        if isinstance(X, SparseRows):
            if np.isnan(X.data).any():
                raise TypeError("C4.5's fractional routing of missing values needs a "
                                "dense X: pass X.toarray()")
            return False
        return bool(np.isnan(X).any())

    def leaf_values(self, X, n_threads=1):
        """``value`` of the leaf reached by each row (a weighted mix for C4.5 NaN)."""
        if self.mixes_leaves(X):
            return predict_fractional(self, X)[:, None, :]
        return self.value.take(self.apply(X, n_threads), axis=0)

    def predict(self, X, n_threads=1):
        """``value`` of the leaf reached by each row (see ``leaf_values``)."""
        return self.leaf_values(X, n_threads)

    def user_decrease(self, decrease):
        """A weighted impurity decrease in the stored units (scaled weights times
        scaled impurities, as a competitor's improvement is kept) in the user's
        units (infinite past float64)."""
        with np.errstate(over="ignore"):
            return unscaled(np.float64(decrease) * self.weight_unit, self.impurity_exponent)

    def compute_feature_importances(self, normalize=True):
        """Total weighted impurity decrease brought by each feature.

        Same definition as scikit-learn: for every split node,
        ``w_t * imp_t - w_l * imp_l - w_r * imp_r``, summed per feature, divided
        by the root weight and (optionally) normalised to sum to one.
        """
        importances = np.zeros(self.n_features, dtype=np.float64)
        inner = np.flatnonzero(self.children_left != TREE_LEAF)
        if inner.size:
            # scaled weights and impurities: finite whatever the units; summed in
            # node order and divided by the root's weight after, as scikit-learn
            # does, so equal trees give equal importances to the last bit
            w = self.scaled_weighted_n_node_samples
            imp = self.scaled_impurity
            left = self.children_left[inner]
            right = self.children_right[inner]
            decrease = (w[inner] * imp[inner] - w[left] * imp[left] - w[right] * imp[right])
            np.add.at(importances, self.feature[inner], decrease)
            importances /= w[0]
        if normalize:
            total = importances.sum()
            if total > 0.0:
                importances /= total
            return importances
        return unscaled(importances, self.impurity_exponent)
