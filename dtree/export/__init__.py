"""Reading a fitted tree: text, rules, Graphviz dot, pictures, ROC.

Every function reads the flat node arrays of ``estimator.tree_``. Pictures need
matplotlib (``pip install "dtree-exact[plot]"``), imported only when a picture is
drawn; each returns the matplotlib Axes it drew on and works headless (Agg).
"""
import numpy as np

from .._input.encode import encode_predict_X
from .._model.tree import TREE_LEAF
from .drawing import export_graphviz, plot_tree
from .._deploy.sql import export_sql
from .._model.names import feature_names_of, fitted_and_named, fitted_tree
from .labels import _axes, _category_names, other_split_lines

__all__ = ["export_text", "export_sql", "export_compact", "export_rules", "export_graphviz",
           "plot_tree", "plot_decision_boundary", "roc_curve", "roc_auc", "plot_roc",
           "to_onnx", "onnx_input"]


def _node_values(tree, node):
    """Per output, the node's class fractions (its own classes only) or its value."""
    return [tree.value[node, k, :int(tree.n_classes[k])] for k in range(tree.n_outputs)]


def _outcomes(tree, node, classes, decimals):
    """Per output, what the node predicts as text: its majority class or its value."""
    if classes is None:
        return [f"{v[0]:.{decimals}f}" for v in _node_values(tree, node)]
    return [names[int(np.argmax(v))] for v, names in zip(_node_values(tree, node), classes)]


def _joined(parts):
    # one output: the part itself; several: a bracketed list
    return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"


def _one_output(estimator, what):
    if estimator.n_outputs_ > 1:
        raise ValueError(f"{what} draws one output; this tree has {estimator.n_outputs_} "
                         "(fit one on the output to draw)")


def _condition(estimator, tree, node, name, decimals, left, gt=">"):
    """Text of the test a sample passes to go left (or right) at ``node``."""
    if tree.categorical_set[node] >= 0:
        listed = _category_names(estimator, tree, node)
        return f"{name} in {listed}" if left else f"{name} not in {listed}"
    t = tree.threshold[node]
    return f"{name} <= {t:.{decimals}f}" if left else f"{name} {gt} {t:.{decimals}f}"


def _leaf_text(tree, node, classes, decimals, show_weights):
    outcomes = _outcomes(tree, node, classes, decimals)
    if classes is None:
        return "value: [" + ", ".join(outcomes) + "]"
    text = f"class: {_joined(outcomes)}"
    if show_weights:
        weights = [_number_list(v * tree.weighted_n_node_samples[node], decimals)
                   for v in _node_values(tree, node)]
        text = f"weights: {_joined(weights)} " + text
    return text


def _number_list(values, decimals, form="f"):
    return "[" + ", ".join(f"{v:.{decimals}{form}}" for v in values) + "]"


def export_text(estimator, *, feature_names=None, class_names=None, max_depth=10,
                spacing=3, decimals=2, show_weights=False):
    """The tree as indented text, in scikit-learn's ``export_text`` layout.

    Parameters
    ----------
    estimator : fitted DecisionTreeClassifier or DecisionTreeRegressor
    feature_names : list of str, optional
        Defaults to ``feature_names_in_`` or ``feature_<i>``.
    class_names : list of str, optional
        Defaults to ``classes_``.
    max_depth : int, default=10
        Splits deeper than this are shown as "truncated branch of depth N".
    spacing : int, default=3
        Width of each level's indentation (scikit-learn's).
    decimals : int, default=2
    show_weights : bool, default=False
        Show the weighted class counts at each leaf.

    Returns
    -------
    str
    """
    tree, names, classes = fitted_and_named(estimator, feature_names, class_names)
    if not isinstance(max_depth, int) or max_depth < 0:
        raise ValueError(f"max_depth must be an int >= 0; got {max_depth!r}")
    if not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be an int >= 0; got {decimals!r}")
    if not isinstance(spacing, int) or isinstance(spacing, bool) or spacing <= 0:
        raise ValueError(f"spacing must be > 0, given {spacing!r}")
    lines = []
    level = "|" + " " * spacing
    branch = "|" + "-" * spacing + " "

    def subtree_depth(node):
        depth, stack = 0, [(node, 0)]
        while stack:
            i, d = stack.pop()
            depth = max(depth, d)
            if tree.children_left[i] != TREE_LEAF:
                stack.extend([(tree.children_left[i], d + 1), (tree.children_right[i], d + 1)])
        return depth

    # an explicit stack: trees 1,000s of levels deep are real (no recursion limit)
    stack = [("node", 0, 0)]
    while stack:
        kind, node, depth = stack.pop()
        indent = level * depth + branch
        if kind == "right":  # the right branch's heading, once the left one is written
            name = names[tree.feature[node]]
            lines.append(indent + _condition(estimator, tree, node, name, decimals, False,
                                             gt="> "))
            stack.append(("node", tree.children_right[node], depth + 1))
            continue
        if tree.children_left[node] == TREE_LEAF:
            lines.append(indent + _leaf_text(tree, node, classes, decimals, show_weights))
            continue
        if depth > max_depth:
            lines.append(indent + f"truncated branch of depth {subtree_depth(node) + 1}")
            continue
        name = names[tree.feature[node]]
        lines.append(indent + _condition(estimator, tree, node, name, decimals, True))
        lines += [level * (depth + 1) + line
                  for line in other_split_lines(estimator, tree, node, names, decimals)]
        stack.append(("right", node, depth))
        stack.append(("node", tree.children_left[node], depth + 1))
    return "\n".join(lines) + "\n"


def export_compact(estimator):
    """The tree in the tutorial notes' compact form.

    ``Branch(X22 <= 89.04)`` for a split (4 significant digits), ``Leaf(0.013,
    0.987)`` for a leaf (class probabilities, or the mean for a regressor), and
    four spaces of indentation per level; the left (``<=``) child comes first.

    Returns
    -------
    str
    """
    tree = fitted_tree(estimator)
    lines = []
    stack = [(0, 0)]
    while stack:
        node, depth = stack.pop()
        pad = "    " * depth
        if tree.children_left[node] == TREE_LEAF:
            values = "; ".join(", ".join(f"{v:.3f}" for v in output)
                               for output in _node_values(tree, node))
            lines.append(pad + "Leaf(" + values + ")")
            continue
        if tree.categorical_set[node] >= 0:
            codes = ", ".join(str(c) for c in tree.left_categories(node))
            lines.append(pad + f"Branch(X{tree.feature[node]} in {{{codes}}})")
        else:
            lines.append(pad + f"Branch(X{tree.feature[node]} <= {tree.threshold[node]:.4g})")
        stack.append((tree.children_right[node], depth + 1))
        stack.append((tree.children_left[node], depth + 1))
    return "\n".join(lines)


def export_rules(estimator, *, feature_names=None, class_names=None, decimals=2):
    """One if-then rule per leaf, in left-to-right leaf order.

    The tests along a leaf's path are merged per feature (the tightest bounds
    of a numeric feature, the categories still allowed for a categorical one),
    so a rule has at most two conditions per feature however deep the tree:
    the text is linear in the number of leaves times features, not quadratic
    in depth.

    Returns
    -------
    str
        Lines such as ``if petal_width <= 0.80 then class = setosa
        (proba 1.00) [samples 50]``.
    """
    tree, names, classes = fitted_and_named(estimator, feature_names, class_names)
    rules = []
    path = _PathBounds(tree)
    # pops in this order for a split: test left, left subtree, undo, test right,
    # right subtree, undo; so the path's bounds are always those of the node
    stack = [("enter", 0)]
    while stack:
        kind, item = stack.pop()
        if kind == "test":
            path.apply(*item)
            continue
        if kind == "undo":
            path.undo()
            continue
        node = item
        if tree.children_left[node] != TREE_LEAF:
            stack.extend([("undo", None), ("enter", tree.children_right[node]),
                          ("test", (node, False)),
                          ("undo", None), ("enter", tree.children_left[node]),
                          ("test", (node, True))])
            continue
        premise = path.text(estimator, names, decimals) or "true"
        n = int(tree.n_node_samples[node])
        if classes is None:
            outcome = f"value = {_joined(_outcomes(tree, node, None, decimals))}"
        else:
            outcome = ", ".join(
                f"class = {names[int(np.argmax(v))]} (proba {v.max():.{decimals}f})"
                for v, names in zip(_node_values(tree, node), classes))
        rules.append(f"if {premise} then {outcome} [samples {n}]")
    return "\n".join(rules) + "\n"


class _PathBounds:
    """The tests on the path from the root, merged per feature, with an undo log.

    A numeric feature keeps (strict lower bound, upper bound); a categorical
    one the categories still allowed (after a left turn) or those excluded
    (right turns only). Applying a test logs the feature's previous state, so
    walking down and back up costs O(1) per node.
    """

    def __init__(self, tree):
        self.tree = tree
        self.state = {}   # feature -> bounds
        self.order = []   # features in the order they were first tested
        self.log = []     # (feature, previous state or None)

    def apply(self, node, goes_left):
        tree = self.tree
        f = int(tree.feature[node])
        previous = self.state.get(f)
        if tree.categorical_set[node] >= 0:
            codes = frozenset(int(c) for c in tree.left_categories(node))
            allowed, excluded = previous or (None, frozenset())
            if goes_left:
                allowed = codes if allowed is None else allowed & codes
            elif allowed is not None:
                allowed = allowed - codes
            else:
                excluded = excluded | codes
            new = (allowed, excluded)
        else:
            low, high = previous or (-np.inf, np.inf)
            t = float(tree.threshold[node])
            new = (low, min(high, t)) if goes_left else (max(low, t), high)
        if previous is None:
            self.order.append(f)
        self.state[f] = new
        self.log.append((f, previous))

    def undo(self):
        f, previous = self.log.pop()
        if previous is None:
            del self.state[f]
            self.order.pop()  # a feature first tested here was the last one added
        else:
            self.state[f] = previous

    def text(self, estimator, names, decimals):
        parts = []
        for f in self.order:
            bounds = self.state[f]
            if isinstance(bounds[1], frozenset):
                allowed, excluded = bounds
                listed = allowed if allowed is not None else excluded
                cats = estimator.categories_[f]
                shown = "{" + ", ".join(str(cats[c]) for c in sorted(listed)) + "}"
                parts.append(f"{names[f]} {'in' if allowed is not None else 'not in'} "
                             f"{shown}")
                continue
            low, high = bounds
            if low > -np.inf:
                parts.append(f"{names[f]} > {low:.{decimals}f}")
            if high < np.inf:
                parts.append(f"{names[f]} <= {high:.{decimals}f}")
        return " and ".join(parts)


_PALETTE = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
            (140, 86, 75), (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207)]


def _node_colour(tree, node, value_range):
    """Fill colour: the majority class's hue, paler when the node is less pure (the
    first output's, when there are several)."""
    if tree.is_classifier:
        proba = _node_values(tree, node)[0]
        k = int(np.argmax(proba))
        ordered = np.sort(proba)[::-1]
        strength = 1.0 if len(proba) == 1 else (ordered[0] - ordered[1]) / max(ordered[0], 1e-12)
        base = _PALETTE[k % len(_PALETTE)]
    else:
        lo, hi = value_range
        strength = 0.0 if hi <= lo else (tree.value[node, 0, 0] - lo) / (hi - lo)
        base = _PALETTE[1]
    rgb = [int(round(255 - strength * (255 - c))) for c in base]
    return "#{:02x}{:02x}{:02x}".format(*rgb)


# ------------------------------------------------------------- pictures
def _leaf_boxes(tree, lows, highs):
    """Axis-aligned box of every leaf of a tree on two features."""
    boxes = []
    stack = [(0, np.array(lows, float), np.array(highs, float))]
    while stack:
        node, lo, hi = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
            boxes.append((node, lo, hi))
            continue
        f, t = tree.feature[node], tree.threshold[node]
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[f] = min(hi[f], t)
        right_lo[f] = max(lo[f], t)
        stack.append((tree.children_left[node], lo, left_hi))
        stack.append((tree.children_right[node], right_lo, hi))
    return boxes


def plot_decision_boundary(estimator, X, y=None, *, ax=None, alpha=0.35):
    """Draw the leaf rectangles of a tree fitted on two features, and the data.

    Each leaf is the axis-aligned rectangle its splits cut out, filled with its
    class colour (classifiers) or shaded by its value (regressors).

    Parameters
    ----------
    estimator : estimator fitted on exactly two features
    X : array-like of shape (n_samples, 2)
        Points to scatter (and the extent of the picture).
    y : array-like of shape (n_samples,), optional
        Colours of the points.

    Returns
    -------
    matplotlib Axes
    """
    from matplotlib.patches import Rectangle

    tree = fitted_tree(estimator)
    _one_output(estimator, "plot_decision_boundary")
    if estimator.n_features_in_ != 2:
        raise ValueError("plot_decision_boundary needs a tree fitted on exactly 2 features; "
                         f"this one has {estimator.n_features_in_}")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n_samples, 2); got {X.shape}")
    span = X.max(axis=0) - X.min(axis=0)
    lows, highs = X.min(axis=0) - 0.05 * span - 1e-9, X.max(axis=0) + 0.05 * span + 1e-9
    ax = _axes(ax, (6, 5))
    value_range = (tree.value[:, 0, 0].min(), tree.value[:, 0, 0].max())
    for node, lo, hi in _leaf_boxes(tree, lows, highs):
        ax.add_patch(Rectangle((lo[0], lo[1]), hi[0] - lo[0], hi[1] - lo[1],
                               facecolor=_node_colour(tree, node, value_range), alpha=alpha,
                               edgecolor="black", linewidth=0.5))
    colours = None
    if y is not None and tree.is_classifier:
        codes = np.searchsorted(estimator.classes_, np.asarray(y))
        colours = [np.array(_PALETTE[c % len(_PALETTE)]) / 255 for c in codes]
    elif y is not None:
        colours = np.asarray(y, dtype=float)
    ax.scatter(X[:, 0], X[:, 1], c=colours, s=12, edgecolors="black", linewidths=0.3)
    names = feature_names_of(estimator, None)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_xlim(lows[0], highs[0])
    ax.set_ylim(lows[1], highs[1])
    return ax


def roc_curve(y_true, scores):
    """False and true positive rates at every distinct score threshold.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) of 0/1 (or bool)
    scores : array-like of shape (n_samples,)
        Larger means more likely positive.

    Returns
    -------
    fpr, tpr, thresholds : ndarray
        Starting at (0, 0) with threshold +inf.
    """
    y_true = np.asarray(y_true).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    if y_true.shape != scores.shape or y_true.ndim != 1:
        raise ValueError("y_true and scores must be 1-D of the same length")
    positives, negatives = y_true.sum(), (~y_true).sum()
    if positives == 0 or negatives == 0:
        raise ValueError("ROC needs both positive and negative samples")
    order = np.argsort(-scores, kind="mergesort")
    s, t = scores[order], y_true[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), s.shape[0] - 1]
    tp = np.cumsum(t)[last]
    fp = (last + 1) - tp
    return (np.r_[0.0, fp / negatives], np.r_[0.0, tp / positives], np.r_[np.inf, s[last]])


def roc_auc(y_true, scores):
    """Area under the ROC curve (trapezoids, so tied scores count half).

    Returns
    -------
    float
    """
    fpr, tpr, _ = roc_curve(y_true, scores)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))


def plot_roc(estimator, X, y, *, pos_label=None, ax=None):
    """ROC curve of a fitted binary classifier on (X, y), with its AUC in the legend.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; defaults to ``classes_[1]``.

    Returns
    -------
    matplotlib Axes
    """
    fitted_tree(estimator)
    _one_output(estimator, "plot_roc")
    if not hasattr(estimator, "classes_") or len(estimator.classes_) != 2:
        raise ValueError("plot_roc needs a fitted binary classifier")
    pos_label = estimator.classes_[1] if pos_label is None else pos_label
    matches = np.flatnonzero(estimator.classes_ == pos_label)
    if matches.size == 0:
        raise ValueError(f"pos_label {pos_label!r} is not one of {estimator.classes_.tolist()}")
    scores = estimator.predict_proba(X)[:, matches[0]]
    truth = np.asarray(y) == pos_label
    fpr, tpr, _ = roc_curve(truth, scores)
    ax = _axes(ax, (5, 5))
    ax.plot(fpr, tpr, drawstyle="default", label=f"AUC = {roc_auc(truth, scores):.3f}")
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.legend(loc="lower right")
    return ax


def onnx_input(estimator, X):
    """The float32 matrix an exported graph takes for X.

    Numbers pass through; categorical columns become their category codes
    (the index in ``estimator.categories_``), missing values NaN.

    Returns
    -------
    ndarray of shape (n_samples, n_features), float32
    """
    return encode_predict_X(estimator, X)


def to_onnx(estimator, **kwargs):
    """ONNX model of a fitted estimator (needs the onnx package).

    See ``dtree._onnx.to_onnx`` for the parameters and the graph's inputs and
    outputs.

    Returns
    -------
    onnx.ModelProto
    """
    from .._deploy.onnx import to_onnx as convert

    return convert(estimator, **kwargs)
