"""rpart-style node-by-node report of a fitted tree: ``summary()``.

As rpart's ``summary.rpart``: the CP table (when cross-validated), the variable
importance, then every node under rpart's number (root 1, node k's children 2k
and 2k + 1) with its complexity parameter (the cp, relative to the root's risk,
below which pruning keeps its split). Each split node lists its split and competitors ("Primary splits", with the
improvement and the rows missing the feature) and its surrogates (agreement,
adjusted agreement, and the training rows missing the split's feature that
each would decide), numbers to 7 significant digits as rpart prints them.
A classifier's ``improve`` is the weighted impurity decrease (rpart's for
the gini criterion); a regressor's is the fraction of the node's squared
error the split removes (rpart's anova ``improve``).
"""
import numpy as np

from .._model.tree import TREE_LEAF
from .._model.other_splits import COMPETITOR, SURROGATE
from .._model.names import fitted_and_named
from .._model.numbering import rpart_numbers
from .._fit.pruning import PruningSequence
from .rpart import importance_lines


def summary_text(estimator, feature_names=None):
    """The report ``summary`` prints."""
    tree, names, classes = fitted_and_named(estimator, feature_names, None)
    width = max(len(n) for n in names)
    total = tree.weighted_n_node_samples[0]
    numbers = rpart_numbers(tree)
    complexity = node_complexity(tree, getattr(estimator, "prune_risk", "impurity"))
    lines = [f"n= {int(tree.n_node_samples[0])}", ""]
    table = getattr(estimator, "cp_table_", None)
    if table is not None:
        lines += [str(table), ""]
    lines += importance_lines(estimator, names)
    for node in range(tree.node_count):
        lines += _node_lines(estimator, tree, node, names, classes, width, total, numbers,
                             complexity)
    return "\n".join(lines) + "\n"


def node_complexity(tree, risk):
    """Each split node's complexity parameter as rpart reports it: the cp (relative
    to the root's risk) at and below which pruning keeps its split, that is the
    least collapse alpha on its path from the root; NaN for leaves."""
    if tree.node_count == 1:
        return np.full(1, np.nan)
    seq = PruningSequence(tree, risk)
    collapse = seq.collapse_alphas(tree)
    least = collapse.copy()
    for node in range(tree.node_count):       # pre-order: parents first
        for child in (tree.children_left[node], tree.children_right[node]):
            if child != TREE_LEAF:
                least[child] = min(least[node], collapse[child])
    root = seq.root_risk if seq.root_risk > 0 else 1.0
    out = np.where(tree.children_left != TREE_LEAF, least / root, np.nan)
    return np.maximum(out, 0.0)


def _g(v):
    return f"{v:.7g}"


def _node_lines(estimator, tree, node, names, classes, width, total, numbers, complexity):
    w = tree.weighted_n_node_samples[node]
    cp = "" if np.isnan(complexity[node]) else \
        f",    complexity param={_g(complexity[node])}"
    out = [f"Node number {numbers[node]}: {int(tree.n_node_samples[node])} observations{cp}"]
    if classes is not None:
        for k, names_k in enumerate(classes):        # (one block per output)
            p = tree.value[node, k, :len(names_k)]
            best = int(np.argmax(p))
            out.append(f"  predicted class={names_k[best]}  expected loss={_g(1 - p[best])}"
                       f"  P(node) ={_g(w / total)}")
            out.append("    class counts: " + " ".join(f"{_g(c * w):>5}" for c in p))
            out.append("   probabilities: " + " ".join(f"{c:.3f}" for c in p))
    else:
        means = ", ".join(_g(v) for v in tree.value[node, :, 0])
        out.append(f"  mean={means}, MSE={_g(tree.impurity[node])}")
    if tree.children_left[node] == TREE_LEAF:
        return out + [""]
    left, right = tree.children_left[node], tree.children_right[node]
    out.append(f"  left son={numbers[left]} ({int(tree.n_node_samples[left])} obs) "
               f"right son={numbers[right]} ({int(tree.n_node_samples[right])} obs)")
    out.append("  Primary splits:")
    out.append(_primary_line(estimator, tree, node, names, width))
    other = tree.other_splits
    if other is not None:
        for k in other.rows(node, COMPETITOR):
            out.append(_other_line(estimator, tree, node, other, k, names, width))
        surrogates = other.rows(node, SURROGATE)
        if surrogates.size:
            out.append("  Surrogate splits:")
            out += [_other_line(estimator, tree, node, other, k, names, width)
                    for k in surrogates]
    return out + [""]


def _test(estimator, feature, threshold, category_set, tree, names, width):
    name = names[feature].ljust(width)
    if category_set >= 0:
        codes = tree.left_categories_of(category_set)
        cats = estimator.categories_[feature]
        return f"{name} in {{{', '.join(str(cats[c]) for c in codes)}}}"
    return f"{name} <= {threshold:<6g}"


def _improve(tree, node, decrease):
    """rpart's improve of a split of ``node`` from its weighted impurity decrease
    in the stored units: the decrease for a classifier, its share of the node's
    error for a regressor (a ratio: computed in the stored units, finite)."""
    if tree.is_classifier:
        return tree.user_decrease(decrease)
    node_error = tree.scaled_weighted_n_node_samples[node] * tree.scaled_impurity[node]
    return decrease / node_error if node_error > 0 else 0.0


def _primary_line(estimator, tree, node, names, width):
    f = tree.feature[node]
    left, right = tree.children_left[node], tree.children_right[node]
    w, imp = tree.scaled_weighted_n_node_samples, tree.scaled_impurity
    decrease = w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right]
    side = "left" if tree.missing_go_to_left[node] else "right"
    test = _test(estimator, f, tree.threshold[node], tree.categorical_set[node], tree,
                 names, width)
    return (f"      {test} to the left,  improve={_improve(tree, node, decrease):#.7g}, "
            f"(missing go {side})")


def _other_line(estimator, tree, node, other, k, names, width):
    test = _test(estimator, other.feature[k], other.threshold[k], other.category_set[k],
                 tree, names, width)
    if other.kind[k] == COMPETITOR:
        return (f"      {test} to the left,  "
                f"improve={_improve(tree, node, other.improvement[k]):#.7g}, "
                f"({int(other.count[k])} missing)")
    side = "left, " if other.goes_left[k] else "right,"
    return (f"      {test} to the {side} agree={other.improvement[k]:.3f}, "
            f"adj={other.adj[k]:.3f}, ({int(other.count[k])} split)")
