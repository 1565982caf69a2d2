"""scikit-learn's tree drawings for dtree's trees: ``export_graphviz`` (the same dot
text) and ``plot_tree`` (the same boxes), both reached through ``dtree.export``.

Each node's box (``_NodeLabels``) says what scikit-learn's does, line for line:
node id, split (a category-set split as ``name in {a, b}``), impurity, samples,
value, class; its fill is the majority class's colour faded by impurity (a
regressor's: by value; several outputs: by impurity).
"""
import numpy as np

from .._model.tree import TREE_LEAF
from .._model.arguments import list_of_names
from .._model.names import class_names_of, fitted_tree
from .labels import _axes, _category_names, _dot_escape, other_split_lines


def class_colours(n):
    """n colours of equal saturation and value, hues evenly spaced from 25 degrees
    (scikit-learn's tree colours: two classes are orange and blue)."""
    s, v = 0.75, 0.9
    c = s * v
    m = v - c
    out = []
    for h in np.arange(25, 385, 360.0 / n).astype(int)[:n]:
        h_bar = h / 60.0
        x = c * (1 - abs((h_bar % 2) - 1))
        r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x),
                   (c, x, 0)][int(h_bar)]
        out.append((int(255 * (r + m)), int(255 * (g + m)), int(255 * (b + m))))
    return out


def _fill(tree, node, palette, bounds):
    """A node's fill: its class's colour (or the regressors' one), faded towards white
    as the node is less pure (or its value lower): the first output's."""
    value = tree.value[node, 0, :int(tree.n_classes[0])]
    if tree.n_outputs > 1:
        lo, hi = bounds
        alpha = 0.0 if hi <= lo else (hi - tree.impurity[node]) / (hi - lo)
        colour = palette[0]
    elif tree.is_classifier:
        fractions = value / value.sum() if value.sum() > 0 else value
        k = int(np.argmax(fractions))
        ordered = np.sort(fractions)
        alpha = 1.0 if len(fractions) < 2 or ordered[-2] >= 1 else \
            (ordered[-1] - ordered[-2]) / (1 - ordered[-2])
        colour = palette[k]
    else:
        lo, hi = bounds
        alpha = 0.0 if hi <= lo else (value[0] - lo) / (hi - lo)
        colour = palette[0]
    rgb = [int(round(alpha * c + (1 - alpha) * 255, 0)) for c in colour]
    return "#{:02x}{:02x}{:02x}".format(*rgb)


class _NodeLabels:
    """What scikit-learn's exporters write in each node's box (and its fill colour),
    for ``export_graphviz`` and ``plot_tree``."""

    def __init__(self, decision_tree, feature_names, class_names, label, impurity, node_ids,
                 proportion, precision, show_missing=False, special_characters=False,
                 br="\n"):
        self.estimator = decision_tree
        self.tree = tree = fitted_tree(decision_tree)
        if label not in ("all", "root", "none"):
            raise ValueError(f"label must be 'all', 'root' or 'none'; got {label!r}")
        if not isinstance(precision, (int, np.integer)) or isinstance(precision, bool) \
                or precision < 0:
            raise ValueError(f"'precision' should be greater or equal to 0. Got {precision} "
                             "instead.")
        n_features = tree.n_features
        if feature_names is not None:
            feature_names = list_of_names(feature_names, "feature_names")
        if feature_names is not None and len(feature_names) != n_features:
            raise ValueError(f"Length of feature_names, {len(feature_names)} does not match "
                             f"number of features, {n_features}")
        if special_characters:
            self.le, self.hash = "&le;", "&#35;"
        else:
            self.le, self.hash = "<=", "#"
        self.br, self.special = br, special_characters
        if feature_names is None:
            feature_names = [f"x<SUB>{i}</SUB>" if special_characters else f"x[{i}]"
                             for i in range(n_features)]
        self.feature_names = list(feature_names)
        self.classes = None
        if class_names is True:
            self.classes = [f"y<SUB>{k}</SUB>" if special_characters else f"y[{k}]"
                            for k in range(int(tree.n_classes[0]))]
        elif class_names is not None and class_names is not False and tree.is_classifier:
            self.classes = class_names_of(decision_tree, class_names)[0]
        self.criterion = str(getattr(decision_tree, "criterion", "impurity"))
        self.label, self.impurity, self.node_ids = label, impurity, node_ids
        # (a float64 has 17 significant digits: more decimals change no number)
        self.proportion, self.show_missing = proportion, show_missing
        self.precision = int(min(precision, 64))
        if tree.n_outputs > 1:
            # several outputs: the colour says how pure the node is (its impurity)
            self.palette = class_colours(1)
            self.bounds = (tree.impurity.min(), tree.impurity.max())
        else:
            self.palette = class_colours(int(tree.n_classes[0]) if tree.is_classifier else 1)
            self.bounds = (tree.value[:, 0, 0].min(), tree.value[:, 0, 0].max())

    def fill(self, node):
        return _fill(self.tree, node, self.palette, self.bounds)

    def text(self, node):
        tree, precision = self.tree, self.precision
        parts = []
        named = self.label == "all" or (self.label == "root" and node == 0)
        if self.node_ids:
            parts.append(f"node {self.hash}{node}" if named else f"{self.hash}{node}")
        if tree.children_left[node] != TREE_LEAF:
            name = self.feature_names[tree.feature[node]]
            if tree.categorical_set[node] >= 0:
                parts.append(f"{name} in {_category_names(self.estimator, tree, node)}")
            else:
                parts.append(f"{name} {self.le} {round(tree.threshold[node], precision)}")
            if self.show_missing:
                side = "left" if tree.missing_go_to_left[node] else "right"
                parts.append(f"missing: {side}")
            parts += other_split_lines(self.estimator, tree, node, self.feature_names,
                                       precision)
        if self.impurity:
            value = round(tree.impurity[node], precision)
            parts.append(f"{self.criterion} = {value}" if named else f"{value}")
        if self.proportion:
            share = f"{round(100.0 * tree.n_node_samples[node] / tree.n_node_samples[0], 1)}%"
        else:
            share = f"{tree.n_node_samples[node]}"
        parts.append(f"samples = {share}" if named else share)
        parts.append(("value = " if named else "") + _value_text(
            tree, node, self.proportion, precision, self.br))
        if self.classes is not None and tree.is_classifier and tree.n_outputs == 1:
            k = int(np.argmax(tree.value[node, 0, :int(tree.n_classes[0])]))
            parts.append(f"class = {self.classes[k]}" if named else f"{self.classes[k]}")
        return self.br.join(parts)


def export_graphviz(decision_tree, out_file=None, *, max_depth=None, feature_names=None,
                    class_names=None, label="all", filled=False, leaves_parallel=False,
                    impurity=True, node_ids=False, proportion=False, rotate=False,
                    rounded=False, special_characters=False, precision=3,
                    fontname="helvetica", show_missing=False):
    """Graphviz dot source of the tree: scikit-learn's ``export_graphviz``.

    The same arguments with the same meaning, and the same text on trees
    scikit-learn can express; a category-set split reads ``name in {a, b}``
    (scikit-learn's exporter prints ``<= nan`` for it).

    Parameters
    ----------
    decision_tree : fitted estimator
    out_file : file object or str, optional
        Where to write the source; None returns it as a str.
    max_depth : int, optional
        Nodes deeper than this are drawn as "(...)".
    feature_names : list of str, optional
        Default ``x[i]`` (scikit-learn's).
    class_names : list of str or True, optional
        True names the classes ``y[k]``.
    label : {"all", "root", "none"}, default="all"
        Which nodes spell out what each line is.
    filled : bool, default=False
        Colour nodes by majority class and purity, or by value.
    leaves_parallel : bool, default=False
        Draw all leaves at the bottom.
    impurity, node_ids, proportion : bool
        Show the impurity, the node ids; samples and values as proportions.
    rotate : bool, default=False
        Left to right.
    rounded : bool, default=False
    special_characters : bool, default=False
        HTML labels (for PostScript-compatible fonts).
    precision : int, default=3
    fontname : str, default="helvetica"
    show_missing : bool, default=False
        dtree's extra: a line per split saying where missing values go.

    Returns
    -------
    str or None
    """
    if max_depth is not None and (not isinstance(max_depth, (int, np.integer))
                                  or max_depth < 0):
        raise ValueError(f"max_depth must be None or an int >= 0; got {max_depth!r}")
    labels = _NodeLabels(decision_tree, feature_names, class_names, label, impurity,
                         node_ids, proportion, precision, show_missing, special_characters,
                         "<br/>" if special_characters else "\\n")
    tree = labels.tree
    open_, close_ = ("<", ">") if special_characters else ('"', '"')

    def text(node):
        body = labels.text(node)
        return body if special_characters else _dot_escape(body).replace("\\\\n", "\\n")

    out = ["digraph Tree {"]
    style = [s for s, on in (("filled", filled), ("rounded", rounded)) if on]
    styled = f'style="{", ".join(style)}", color="black", ' if style else ""
    out.append(f'node [shape=box, {styled}fontname="{fontname}"] ;')
    if leaves_parallel:
        out.append("graph [ranksep=equally, splines=polyline] ;")
    out.append(f'edge [fontname="{fontname}"] ;')
    if rotate:
        out.append("rankdir=LR ;")
    ranks = {}
    # pre-order, an explicit stack (no recursion limit): (node, depth, parent)
    stack = [(0, 0, -1)]
    while stack:
        node, depth, parent = stack.pop()
        leaf = tree.children_left[node] == TREE_LEAF
        cut = max_depth is not None and depth > max_depth
        ranks.setdefault("leaves" if leaf or cut else str(depth), []).append(str(node))
        if cut:
            fill = ', fillcolor="#C0C0C0"' if filled else ""
            out.append(f'{node} [label="(...)"{fill}] ;')
        else:
            fill = f', fillcolor="{labels.fill(node)}"' if filled else ""
            out.append(f"{node} [label={open_}{text(node)}{close_}{fill}] ;")
        if parent >= 0:
            edge = f"{parent} -> {node}"
            if parent == 0 and not cut:
                left = tree.children_left[0] == node
                angle = (45 if left else -45) * (-1 if rotate else 1)
                edge += (f' [labeldistance=2.5, labelangle={angle}, '
                         f'headlabel="{"True" if left else "False"}"]')
            out.append(edge + " ;")
        if not leaf and not cut:
            stack.append((tree.children_right[node], depth + 1, node))
            stack.append((tree.children_left[node], depth + 1, node))
    if leaves_parallel:
        for rank in sorted(ranks):
            out.append("{rank=same ; " + "; ".join(ranks[rank]) + "} ;")
    out.append("}")
    dot = "\n".join(out)       # (no newline after the closing brace, as scikit-learn)
    if out_file is None:
        return dot
    if isinstance(out_file, (str, bytes)) or hasattr(out_file, "__fspath__"):
        with open(out_file, "w", encoding="utf-8") as handle:
            handle.write(dot)
    else:
        out_file.write(dot)
    return None


def _value_text(tree, node, proportion, precision, br):
    """The value line as scikit-learn writes it: a regressor's value; a classifier's
    weighted class counts (whole numbers when they are) or fractions; with several
    outputs one row per output."""
    if not tree.is_classifier:
        values = tree.value[node, :, 0:1]
    elif proportion:
        values = tree.value[node]
    else:
        values = tree.value[node] * tree.weighted_n_node_samples[node]
    if tree.is_classifier and not proportion and np.all(np.mod(values, 1) == 0):
        values = values.astype(int)
    else:
        values = np.around(values, precision)
    if tree.n_outputs == 1:
        row = values[0].tolist()
        return str(row[0]) if not tree.is_classifier else str(row)
    return "[" + br.join(str(row) for row in values.tolist()) + "]"


def plot_tree(decision_tree, *, max_depth=None, feature_names=None, class_names=None,
              label="all", filled=False, impurity=True, node_ids=False, proportion=False,
              rounded=False, precision=3, ax=None, fontsize=None, show_missing=False):
    """Draw the tree with matplotlib: scikit-learn's ``plot_tree``.

    The same arguments with the same meaning; each box holds the lines
    ``export_graphviz`` writes (a category-set split reads ``name in {a, b}``),
    the left child is the "True" branch, and nodes below ``max_depth`` are
    drawn as "(...)".

    Parameters
    ----------
    decision_tree : fitted estimator
    max_depth : int, optional
    feature_names, class_names, label, filled, impurity, node_ids, proportion,
    rounded, precision
        As ``export_graphviz``.
    ax : matplotlib Axes, optional
    fontsize : int, optional
        Default 8.
    show_missing : bool, default=False
        dtree's extra: a line per split saying where missing values go.

    Returns
    -------
    list of matplotlib Annotation
        One per box drawn (scikit-learn's return value).
    """
    labels = _NodeLabels(decision_tree, feature_names, class_names, label, impurity,
                         node_ids, proportion, precision, show_missing)
    tree = labels.tree
    if max_depth is not None and (not isinstance(max_depth, (int, np.integer))
                                  or max_depth < 0):
        raise ValueError(f"max_depth must be None or an int >= 0; got {max_depth!r}")
    # x position: leaves (and cut subtrees) evenly spaced in order, parents centred
    positions, next_leaf, cut = {}, 0, set()
    stack = [(0, 0, False)]  # (node, depth, children placed): no recursion limit
    while stack:
        node, depth, done = stack.pop()
        left, right = tree.children_left[node], tree.children_right[node]
        if done:
            positions[node] = ((positions[left][0] + positions[right][0]) / 2.0, depth)
        elif max_depth is not None and depth > max_depth:
            positions[node] = (next_leaf, depth)
            cut.add(node)
            next_leaf += 1
        elif left == TREE_LEAF:
            positions[node] = (next_leaf, depth)
            next_leaf += 1
        else:
            stack.extend([(node, depth, True), (right, depth + 1, False),
                          (left, depth + 1, False)])
    width = max(next_leaf, 1)
    height = max(d for _, d in positions.values()) + 1
    ax = _axes(ax, (min(2 + 1.6 * width, 40), min(1.5 + 1.3 * height, 30)))
    ax.set_axis_off()
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-height + 0.4, 0.6)
    box = dict(boxstyle="round" if rounded else "square", ec="black")
    annotations = []
    for node, (x, depth) in sorted(positions.items()):
        colour = "#C0C0C0" if node in cut else (labels.fill(node) if filled else "white")
        size = 8 if fontsize is None else fontsize
        annotations.append(ax.annotate(
            "\n  (...)  \n" if node in cut else labels.text(node), (x, -depth), ha="center",
            va="center", fontsize=size, bbox=dict(box, fc=colour)))
        if node not in cut and tree.children_left[node] != TREE_LEAF:
            for child in (tree.children_left[node], tree.children_right[node]):
                cx, cd = positions[child]
                ax.annotate("", xy=(cx, -cd + 0.18), xytext=(x, -depth - 0.18),
                            arrowprops=dict(arrowstyle="->", color="grey"))
                if node == 0:   # the root's branches say which way is True (scikit-learn's)
                    left = child == tree.children_left[0]
                    annotations.append(ax.annotate(
                        "True  " if left else "  False", ((x + cx) / 2, -(depth + cd) / 2),
                        ha="right" if left else "left", va="center", fontsize=size))
    return annotations
