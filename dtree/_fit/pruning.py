"""Pruning on the flat node arrays of a fitted tree.

- Cost-complexity (weakest-link) pruning, with the cost R(T) measured by node
  impurity (scikit-learn's choice) or by misclassification (rpart's), the pruning
  path, and the choice of alpha by cross-validation with rpart's CP table and its
  one-standard-error rule.
- Reduced-error pruning against held-out data.

(C4.5's pessimistic pruning, with its subtree raising, is ``c45_pruning``.)
Every pruner here only decides which nodes become leaves; ``Tree.subtree``
builds the compacted copy, so a pruned tree is a subtree of the original.
"""
import heapq

import numpy as np

from .._model.units import power_of_two_scale, scale_limit, scaled, unscaled

from .._model.tree import TREE_LEAF

RISKS = ("impurity", "misclassification")
CV_RULES = ("1se", "min")


# --------------------------------------------------------------- risks
def node_risk(tree, risk):
    """R(t) of every node as a leaf, per unit of root weight.

    Parameters
    ----------
    tree : Tree
    risk : {"impurity", "misclassification"}
        "impurity": ``w_t / w_root * impurity_t`` (scikit-learn). For classifiers
        "misclassification": the weight of the samples outside the node's
        majority class over the root weight (rpart). For regression both mean the
        sum of squared errors over the root weight.

    Returns
    -------
    ndarray of shape (node_count,)
    """
    w = tree.scaled_weighted_n_node_samples  # only ratios are used: any unit will do
    if risk == "misclassification" and tree.is_classifier:
        # (several outputs: the mean of theirs, as the impurity is)
        counts = tree.value * w[:, None, None]
        return np.maximum(w[:, None] - counts.max(axis=2), 0.0).mean(axis=1) / w[0]
    # in the tree's scaled impurity units (2**impurity_exponent each): finite always
    return w / w[0] * tree.scaled_impurity


def _parents(tree):
    parent = np.full(tree.node_count, -1, dtype=np.intp)
    inner = np.flatnonzero(tree.children_left != TREE_LEAF)
    parent[tree.children_left[inner]] = inner
    parent[tree.children_right[inner]] = inner
    return parent


# ------------------------------------------------------- weakest link
class PruningSequence:
    """The weakest-link pruning sequence of a tree, one pruned node per step.

    Each step prunes the internal node with the smallest effective alpha
    ``g(t) = (R(t) - R(T_t)) / (|T_t| - 1)``, the smallest node id on ties; this is
    scikit-learn's order, with its arithmetic, so paths agree to the last bit.
    Risks and alphas are in the tree's scaled impurity units (a user's alpha
    is ``ldexp(alpha, exponent)``; see ``_model.units``), so they stay finite for
    targets near 1e308.

    Attributes
    ----------
    alphas : ndarray
        Effective alpha of each step.
    exponent : int
        The tree's ``impurity_exponent``.
    nodes : ndarray
        Node pruned at each step.
    risks : ndarray
        Total leaf risk R(T) after each step.
    n_leaves : ndarray
        Leaves of the subtree after each step.
    initial_risk : float
        R(T) of the unpruned tree.
    root_risk : float
        R(t) of the root alone.
    """

    def __init__(self, tree, risk):
        self.exponent = tree.impurity_exponent  # (0 for classifiers, whatever the risk)
        r_node = node_risk(tree, risk)
        parent = _parents(tree).tolist()
        left = tree.children_left.tolist()
        right = tree.children_right.tolist()
        n = tree.node_count
        rn = r_node.tolist()
        r_branch = [0.0] * n
        n_leaves = [0] * n
        # Leaf risks bubble up in leaf-id order, scikit-learn's summation order.
        for leaf in np.flatnonzero(tree.children_left == TREE_LEAF).tolist():
            r_branch[leaf] = rn[leaf]
            node = leaf
            while node != 0:
                up = parent[node]
                r_branch[up] += rn[leaf]
                n_leaves[up] += 1
                node = up
        candidate = [left[i] != TREE_LEAF for i in range(n)]

        def effective_alpha(i):
            return (rn[i] - r_branch[i]) / (n_leaves[i] - 1)

        heap = [(effective_alpha(i), i, 0) for i in range(n) if candidate[i]]
        heapq.heapify(heap)
        version = [0] * n
        alphas, nodes, risks, leaves_after = [], [], [], []
        self.initial_risk = r_branch[0] if n else 0.0
        self.root_risk = rn[0] if n else 0.0
        while candidate[0]:
            alpha, node, ver = heapq.heappop(heap)
            if not candidate[node] or ver != version[node]:
                continue
            # the pruned branch's internal nodes are candidates no more
            stack = [node]
            while stack:
                i = stack.pop()
                if left[i] != TREE_LEAF:
                    candidate[i] = False
                    stack.append(left[i])
                    stack.append(right[i])
            n_pruned = n_leaves[node] - 1
            n_leaves[node] = 0
            r_diff = rn[node] - r_branch[node]
            r_branch[node] = rn[node]
            up = parent[node]
            while up != -1:
                n_leaves[up] -= n_pruned
                r_branch[up] += r_diff
                version[up] += 1
                heapq.heappush(heap, (effective_alpha(up), up, version[up]))
                up = parent[up]
            alphas.append(alpha)
            nodes.append(node)
            risks.append(r_branch[0])
            leaves_after.append(max(n_leaves[0], 1))
        self.alphas = np.asarray(alphas, dtype=np.float64)
        self.nodes = np.asarray(nodes, dtype=np.intp)
        self.risks = np.asarray(risks, dtype=np.float64)
        self.n_leaves = np.asarray(leaves_after, dtype=np.intp)
        self.initial_leaves = int(np.count_nonzero(tree.children_left == TREE_LEAF))

    def n_steps_at(self, alpha):
        """Steps taken when pruning at ``alpha``: all up to the first alpha above it."""
        above = np.flatnonzero(self.alphas > alpha)
        return int(above[0]) if above.size else int(self.alphas.shape[0])

    def leaves_at(self, alpha, node_count):
        """Mask of the nodes that become leaves when pruning at ``alpha``."""
        mask = np.zeros(node_count, dtype=bool)
        mask[self.nodes[: self.n_steps_at(alpha)]] = True
        return mask

    def collapse_alphas(self, tree):
        """Alpha at which each node turns into a leaf.

        Original leaves: -inf. Internal nodes pruned by a step: that step's alpha.
        Internal nodes only removed with an ancestor: +inf.
        """
        c = np.full(tree.node_count, np.inf)
        c[tree.children_left == TREE_LEAF] = -np.inf
        c[self.nodes] = self.alphas
        return c


def cost_complexity_path(tree, risk="impurity"):
    """scikit-learn's ``cost_complexity_pruning_path`` on a fitted tree.

    Returns
    -------
    ccp_alphas, impurities : ndarray
        The effective alphas (starting at 0 for the whole tree) and the total
        leaf risk of the subtree at each.
    """
    seq = PruningSequence(tree, risk)
    # (a link whose risk rounding left a hair below its subtree's prunes at 0, not at
    # -1e-19: prune refuses negative alphas)
    return (unscaled(np.r_[0.0, np.maximum(seq.alphas, 0.0)], seq.exponent),
            unscaled(np.r_[seq.initial_risk, seq.risks], seq.exponent))


def alpha_of_cp(tree, cp, risk="impurity"):
    """rpart's complexity parameter ``cp`` (relative to the root's risk, the unit of
    the CP table's CP column) as an absolute ``ccp_alpha`` for ``tree``: pruning at
    it removes the splits whose complexity is at most ``cp``, as rpart's
    ``prune(fit, cp)`` does."""
    seq = PruningSequence(tree, risk)
    return float(unscaled(cp * seq.root_risk, seq.exponent))


def prune_ccp(tree, ccp_alpha, risk="impurity"):
    """The minimal cost-complexity subtree for ``ccp_alpha`` (in the user's units)."""
    if ccp_alpha <= 0.0:
        return tree
    seq = PruningSequence(tree, risk)
    return tree.subtree(seq.leaves_at(scale_limit(ccp_alpha, seq.exponent), tree.node_count))


# ---------------------------------------------------------- CP table
class CPTable:
    """rpart's complexity-parameter table.

    One row per subtree of the pruning sequence, from the root alone to the
    whole tree.

    Attributes
    ----------
    CP : ndarray
        alpha at which the row's tree becomes optimal, over the root risk.
    nsplit : ndarray
        Splits (leaves - 1) of the row's tree.
    rel_error : ndarray
        R(T) / R(root) on the training data (the ``prune_risk`` measure).
    xerror : ndarray
        Cross-validated loss (misclassification for classifiers, squared error
        for regressors) over the same loss of the root on the training data.
    xstd : ndarray
        Standard error of ``xerror``.
    alpha : ndarray
        The alpha (per unit of root weight) each row's tree is evaluated at: the
        geometric mean of the row's and the previous row's CP, as rpart does
        (infinity for the root row). ``scaled_alpha`` holds the same in the
        trees' scaled impurity units (finite where ``alpha`` overflows).
    selected : int or None
        Row chosen by the cross-validation rule.
    """

    columns = ("CP", "nsplit", "rel_error", "xerror", "xstd")

    def __init__(self, CP, nsplit, rel_error, alpha, xerror=None, xstd=None, selected=None,
                 rule=None):
        self.CP = np.asarray(CP, dtype=np.float64)
        self.nsplit = np.asarray(nsplit, dtype=np.intp)
        self.rel_error = np.asarray(rel_error, dtype=np.float64)
        self.alpha = np.asarray(alpha, dtype=np.float64)
        n = self.CP.shape[0]
        self.xerror = np.full(n, np.nan) if xerror is None else np.asarray(xerror, float)
        self.xstd = np.full(n, np.nan) if xstd is None else np.asarray(xstd, float)
        self.selected = selected
        self.rule = rule

    def __len__(self):
        return int(self.CP.shape[0])

    def to_dict(self):
        """The columns as lists (JSON-able)."""
        return {name: getattr(self, name).tolist() for name in self.columns}

    def to_frame(self):
        """The table as a pandas DataFrame (pandas required)."""
        import pandas as pd

        frame = pd.DataFrame({name: getattr(self, name) for name in self.columns})
        return frame.rename(columns={"rel_error": "rel error"})

    def __str__(self):
        lines = [f"{'':>3} {'CP':>10} {'nsplit':>6} {'rel error':>10} {'xerror':>10} "
                 f"{'xstd':>10}"]
        for i in range(len(self)):
            mark = " <" if i == self.selected else ""
            lines.append(f"{i + 1:>3} {self.CP[i]:>10.8f} {self.nsplit[i]:>6d} "
                         f"{self.rel_error[i]:>10.7f} {self.xerror[i]:>10.7f} "
                         f"{self.xstd[i]:>10.7f}{mark}")
        if self.selected is not None:
            lines.append(f"selected row {self.selected + 1} by the {self.rule} rule")
        return "\n".join(lines)

    __repr__ = __str__

    def plot_cp(self):
        """The cp each row is drawn at by rpart's ``plotcp``: infinity for the root's
        row, else the geometric mean of the row's CP and the previous row's (a
        value inside the cp interval where the row's tree is the best)."""
        x = np.full(len(self), np.inf)
        x[1:] = np.sqrt(self.CP[1:]) * np.sqrt(self.CP[:-1])
        return x

    def plot(self, ax=None):
        """rpart's ``plotcp``: xerror with its one-SE band against CP (drawn into the
        current axes, or ``ax``), the x axis labelled as rpart labels it.

        Parameters
        ----------
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            ax = plt.gca()
        x = self.plot_cp()
        ax.errorbar(np.arange(len(self)), self.xerror, yerr=self.xstd, fmt="o-", capsize=3)
        best = int(np.nanargmin(self.xerror)) if np.isfinite(self.xerror).any() else None
        if best is not None:
            ax.axhline(self.xerror[best] + self.xstd[best], linestyle="--", color="grey",
                       label="min + 1 SE")
        ax.set_xticks(np.arange(len(self)))
        ax.set_xticklabels(["Inf" if np.isinf(v) else f"{v:.2g}" for v in x], rotation=45)
        ax.set_xlabel("cp")
        ax.set_ylabel("X-val relative error")
        top = ax.secondary_xaxis("top")
        top.set_xticks(np.arange(len(self)))
        top.set_xticklabels([str(k + 1) for k in self.nsplit])
        top.set_xlabel("size of tree")
        if best is not None:
            ax.legend()
        return ax


def cp_table(tree, risk, floor=None):
    """CP table (without the cross-validation columns) and the pruning sequence.

    ``floor``: rpart's ``cp`` the tree was asked for: only the rows whose tree is
    the best for some cp at or above it, the last row's CP raised to it (rpart's
    table ends at its ``cp``).
    """
    seq = PruningSequence(tree, risk)
    root = seq.root_risk
    # steps with the same alpha prune together: one row per distinct subtree
    level_alpha, level_risk, level_leaves = [], [], []
    for alpha, total, leaves in zip(seq.alphas, seq.risks, seq.n_leaves):
        if level_alpha and alpha <= level_alpha[-1] * (1 + 1e-10) + 1e-300:
            level_risk[-1], level_leaves[-1] = total, leaves
        else:
            level_alpha.append(alpha)
            level_risk.append(total)
            level_leaves.append(leaves)
    # rows from the root to the whole tree
    alphas = np.r_[level_alpha[::-1], 0.0]
    risks = np.r_[level_risk[::-1], seq.initial_risk]
    leaves = np.r_[level_leaves[::-1], seq.initial_leaves]
    scale = root if root > 0 else 1.0
    if floor is not None and floor > 0:
        least = floor * scale
        keep = np.r_[True, alphas[:-1] > least]
        alphas, risks, leaves = alphas[keep], risks[keep], leaves[keep]
        alphas[-1] = max(alphas[-1], least)
    upper = np.r_[np.inf, alphas[:-1]]
    with np.errstate(invalid="ignore"):
        # sqrt(a) * sqrt(b): the geometric mean without overflowing for alphas near 1e200;
        # a step's alpha can round below 0 (a split that rounding made no better than
        # its parent), where the root is undefined: it prunes at alpha 0
        eval_alpha = np.where(np.isinf(upper), np.inf,
                              np.sqrt(np.maximum(alphas, 0.0)) * np.sqrt(np.maximum(upper, 0.0)))
    user_alpha = unscaled(eval_alpha, seq.exponent)
    table = CPTable(CP=np.maximum(alphas, 0.0) / scale, nsplit=leaves - 1,
                    rel_error=risks / scale if root > 0 else np.ones_like(risks),
                    alpha=user_alpha)
    table.scaled_alpha = eval_alpha
    return table, seq


def cross_validated_losses(tree, seq, X_test, y_test, w_test, eval_alphas, exponent=0):
    """Held-out loss of the pruned subtrees of a fold's tree at every eval alpha.

    Each node is the leaf a sample ends in for the alphas in
    ``[m(node), m(parent))`` where ``m`` is the smallest collapse alpha on the
    path from the root; the losses are spread over those ranges at once.

    ``exponent``: regression losses are those of targets scaled by
    ``2**-exponent`` (``y_test`` is given scaled), so that squares cannot overflow.

    Returns
    -------
    (sum of w*loss, sum of w*loss^2) per eval alpha, in the order given.
    """
    order = np.argsort(eval_alphas)
    finite = np.where(np.isinf(eval_alphas), np.finfo(np.float64).max, eval_alphas)
    sorted_alphas = finite[order]
    collapse = seq.collapse_alphas(tree)
    m = collapse.copy()
    for node in range(tree.node_count):  # pre-order: parents come first
        for child in (tree.children_left[node], tree.children_right[node]):
            if child != TREE_LEAF:
                m[child] = min(m[node], collapse[child])
    parent = _parents(tree)
    m_parent = np.where(parent >= 0, m[np.maximum(parent, 0)], np.inf)

    rows, nodes, loss = _path_losses(tree, X_test, y_test, exponent)
    weight = w_test[rows]
    lo = np.searchsorted(sorted_alphas, m[nodes], side="left")
    hi = np.searchsorted(sorted_alphas, m_parent[nodes], side="left")
    k = sorted_alphas.shape[0]
    first, second = np.zeros(k + 1), np.zeros(k + 1)
    np.add.at(first, lo, weight * loss)
    np.add.at(first, hi, -weight * loss)
    np.add.at(second, lo, weight * loss * loss)
    np.add.at(second, hi, -weight * loss * loss)
    sums = np.empty(k)
    squares = np.empty(k)
    sums[order] = np.cumsum(first)[:k]
    squares[order] = np.cumsum(second)[:k]
    return sums, squares


def _path_losses(tree, X, y, exponent=0):
    """Every (sample, node on its path) pair and the sample's loss if that node were a leaf.

    0/1 loss for classifiers (``y`` holds class codes), squared error for
    regressors, in units where the targets are scaled by ``2**-exponent`` (``y``
    is given scaled); with several outputs the mean of theirs.
    """
    path = tree.decision_path(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(path.indptr))
    nodes = path.indices
    y = y.reshape(y.shape[0], -1)
    if tree.is_classifier:
        node_class = np.argmax(tree.value, axis=2)
        loss = (node_class[nodes] != y[rows]).mean(axis=1)
    else:
        loss = ((y[rows] - scaled(tree.value[nodes, :, 0], exponent)) ** 2).mean(axis=1)
    return rows, nodes, loss


def single_leaf_loss(y, w, is_classifier):
    """The loss of one leaf holding every sample (rpart's root error): the weight
    outside the majority class, or the weighted sum of squared errors about the
    mean; with several outputs the mean of theirs (as ``_path_losses``)."""
    y = y.reshape(y.shape[0], -1)
    losses = []
    for column in y.T:
        if is_classifier:
            losses.append(w.sum() - np.bincount(column, weights=w).max())
        else:
            losses.append(np.sum(w * (column - np.average(column, weights=w)) ** 2))
    return float(np.mean(losses))


def _replace_bottom_up(tree, cost_as_leaf, slack=0.0, links=None):
    """Leaves of bottom-up subtree replacement.

    Visiting children before parents, a node becomes a leaf when its cost as a
    leaf is at most its (already pruned) subtree's cost plus ``slack``. A node
    of ``links`` (a multiway cascade's continuation) never becomes a leaf by
    itself: it passes the cost of its branches up to the cascade's head.
    """
    leaves = np.zeros(tree.node_count, dtype=bool)
    subtree = cost_as_leaf.copy()
    for node in _post_order(tree):
        left, right = tree.children_left[node], tree.children_right[node]
        if left == TREE_LEAF:
            continue
        below = subtree[left] + subtree[right]
        if links is not None and links[node]:
            subtree[node] = below
        elif cost_as_leaf[node] <= below + slack:
            leaves[node] = True
        else:
            subtree[node] = below
    return leaves


def fold_ids(y_codes, n_classes, cv, rng):
    """Fold of each sample: stratified by class for classifiers, shuffled otherwise."""
    n = y_codes.shape[0]
    folds = np.empty(n, dtype=np.intp)
    if n_classes > 0:
        offset = 0
        for k in range(n_classes):
            members = np.flatnonzero(y_codes == k)
            rng.shuffle(members)
            folds[members] = (np.arange(members.shape[0]) + offset) % cv
            offset += members.shape[0]
    else:
        perm = rng.permutation(n)
        folds[perm] = np.arange(n) % cv
    return folds


def select_row(table, rule):
    """Row chosen by the 1-SE rule (simplest tree within one SE of the best) or the min."""
    best = int(np.argmin(table.xerror))
    if rule == "min":
        return best
    limit = table.xerror[best] + table.xstd[best]
    return int(np.flatnonzero(table.xerror <= limit * (1 + 1e-12))[0])


def _post_order(tree):
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if tree.children_left[node] != TREE_LEAF:
            stack.append(tree.children_left[node])
            stack.append(tree.children_right[node])
    return order[::-1]


# ---------------------------------------------------------- reduced error
def reduced_error_leaves(tree, X_val, y_val, w_val):
    """Nodes that reduced-error pruning turns into leaves.

    Bottom-up, a subtree becomes a leaf when the leaf's loss on the held-out
    samples reaching it is no larger than the subtree's (0/1 loss for
    classifiers, squared error for regressors).
    """
    # only comparisons follow: losses of scaled targets and weights cannot overflow
    exponent = 0 if tree.is_classifier else power_of_two_scale(y_val)
    y_val = scaled(y_val, exponent)
    rows, nodes, loss = _path_losses(tree, X_val, y_val, exponent)
    w_val = w_val / w_val.max()
    as_leaf = np.bincount(nodes, weights=w_val[rows] * loss, minlength=tree.node_count)
    return _replace_bottom_up(tree, as_leaf)
