"""rpart's printed reports of a fitted tree: ``print.rpart``'s node list
(``export_text(layout="rpart")``), ``printcp``'s header and table, and the
"Variable importance" of ``summary.rpart``.

Nodes carry rpart's numbers (``_model.numbering``). Numbers are printed to 7
significant digits as R prints them.
"""
import numpy as np

from .._model.numbering import rpart_children, rpart_numbers, rpart_sides
from .._model.other_splits import SURROGATE
from .._model.tree import TREE_LEAF


def _g(v):
    return f"{v:.7g}"


def split_texts(estimator, tree, node, names):
    """The tests leading to ``node``'s children, as rpart prints them: (left, right)."""
    f = tree.feature[node]
    if tree.categorical_set[node] >= 0:
        cats = estimator.categories_[f]
        left = set(int(c) for c in tree.left_categories(node))
        present = range(len(cats))
        inside = ",".join(str(cats[c]) for c in present if c in left)
        outside = ",".join(str(cats[c]) for c in present if c not in left)
        return f"{names[f]}={inside}", f"{names[f]}={outside}"
    t = _g(tree.threshold[node])
    return f"{names[f]}<={t}", f"{names[f]}>{t}"


def rpart_print(estimator, tree, names, classes):
    """``print.rpart``'s layout: a line per node, indented by depth, leaves starred."""
    numbers = rpart_numbers(tree)
    sides = rpart_sides(tree)
    w = tree.weighted_n_node_samples
    if classes is not None:
        head = "node), split, n, loss, yval, (yprob)"
    else:
        head = "node), split, n, deviance, yval"
    lines = [f"n= {int(tree.n_node_samples[0])}", "", head,
             "      * denotes terminal node", ""]
    width = len(str(max(numbers)))
    stack = [(0, 0, "root")]
    while stack:
        node, depth, test = stack.pop()
        if classes is not None:
            p = tree.value[node, 0, :len(classes[0])]
            k = int(np.argmax(p))
            loss = w[node] * (1.0 - p[k])
            body = (f"{test} {_g(w[node])} {_g(loss)} {classes[0][k]} ("
                    + " ".join(f"{v:.8f}" for v in p) + ")")
        else:
            deviance = w[node] * tree.impurity[node]
            body = f"{test} {_g(w[node])} {_g(deviance)} {_g(tree.value[node, 0, 0])}"
        leaf = tree.children_left[node] == TREE_LEAF
        lines.append(" " * (2 * depth) + f"{numbers[node]:>{width}}) " + body
                     + (" *" if leaf else ""))
        if not leaf:
            tests = dict(zip((int(tree.children_left[node]), int(tree.children_right[node])),
                             split_texts(estimator, tree, node, names)))
            first, second = rpart_children(tree, node, sides)   # rpart's left son first
            stack.append((second, depth + 1, tests[second]))
            stack.append((first, depth + 1, tests[first]))
    return "\n".join(lines) + "\n"


def split_decrease(tree, node):
    """The weighted impurity decrease of ``node``'s split (scikit-learn's
    importance term; rpart's primary-split goodness) in the tree's stored units:
    finite whatever the targets' size, and a power of two from the user's
    (``tree.user_decrease``), which percentages do not see."""
    left, right = tree.children_left[node], tree.children_right[node]
    w, imp = tree.scaled_weighted_n_node_samples, tree.scaled_impurity
    return w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right]


def variable_importance(estimator, names):
    """rpart's variable importance: per feature, the goodness of the splits it makes,
    plus for each split it stands in for as a surrogate that split's goodness
    times the surrogate's adjusted agreement; as percentages of the total,
    largest first, rounded (those rounding to 0 left out, as rpart leaves them)."""
    tree = estimator.tree_
    score = np.zeros(len(names))
    other = tree.other_splits
    for node in range(tree.node_count):
        if tree.children_left[node] == TREE_LEAF:
            continue
        goodness = max(split_decrease(tree, node), 0.0)
        score[tree.feature[node]] += goodness
        if other is not None:
            for k in other.rows(node, SURROGATE):
                score[other.feature[k]] += goodness * max(other.adj[k], 0.0)
    total = score.sum()
    if total <= 0:
        return {}
    percent = np.round(100.0 * score / total).astype(int)
    order = sorted(range(len(names)), key=lambda j: (-score[j], j))
    return {names[j]: int(percent[j]) for j in order if percent[j] > 0}


def importance_lines(estimator, names):
    """The "Variable importance" block of rpart's summary (names over their numbers)."""
    importance = variable_importance(estimator, names)
    if not importance:
        return []
    cells = [(name, str(v)) for name, v in importance.items()]
    widths = [max(len(a), len(b)) for a, b in cells]
    return ["Variable importance",
            " ".join(f"{a:>{w}}" for (a, _), w in zip(cells, widths)),
            " ".join(f"{b:>{w}}" for (_, b), w in zip(cells, widths)), ""]


def printcp_text(estimator, table, names):
    """rpart's ``printcp``: the kind of tree, the variables its splits use, the root's
    error (or impurity) and n, then the CP table."""
    tree = estimator.tree_
    used = sorted({names[f] for f in tree.feature[tree.children_left != TREE_LEAF]})
    n = int(tree.n_node_samples[0])
    w = tree.weighted_n_node_samples[0]
    kind = "Classification" if tree.is_classifier else "Regression"
    lines = [f"{kind} tree:", repr(estimator), "",
             "Variables actually used in tree construction:",
             ("[1] " + " ".join(used)) if used else "(none: the tree is its root)", ""]
    if not tree.is_classifier:
        deviance = w * tree.impurity[0]
        lines.append(f"Root node error: {_g(deviance)}/{_g(w)} = {_g(tree.impurity[0])}")
    elif estimator.prune_risk == "misclassification":
        errors = w * (1.0 - tree.value[0, 0].max())
        lines.append(f"Root node error: {_g(errors)}/{_g(w)} = {_g(errors / w)}")
    else:
        criterion = getattr(estimator, "criterion", "impurity")
        lines.append(f"Root node impurity ({criterion}, prune_risk='impurity'): "
                     f"{_g(tree.impurity[0])}")
    lines += ["", f"n= {n}", "", str(table)]
    return "\n".join(lines) + "\n"
