"""scikit-learn's tree drawings for dtree's trees: ``export_graphviz`` (the same dot
text) and ``plot_tree`` (the same boxes), both reached through ``dtree.export``.

Each node's box (``_NodeLabels``) says what scikit-learn's does, line for line:
node id, split (a category-set split as ``name in {a, b}``), impurity, samples,
value, class; its fill is the majority class's colour faded by impurity (a
regressor's: by value; several outputs: by impurity).
"""
import textwrap

import numpy as np

from .._model.tree import TREE_LEAF
from .._model.arguments import list_of_names
from .._model.names import class_names_of, fitted_tree
from .labels import _category_names, _dot_escape, other_split_lines
from .layout import tidy_layout


# plot_tree breaks lines longer than this (a box's text is otherwise export_graphviz's)
WRAP = 44


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
                 br="\n", other_splits=True):
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
            odd = [k for k, name in enumerate(feature_names) if not isinstance(name, str)]
            if odd:
                # (scikit-learn's words first, which its export tests match)
                raise ValueError(f"All feature names must be strings. feature_names[{odd[0]}] "
                                 f"is {feature_names[odd[0]]!r} "
                                 f"({type(feature_names[odd[0]]).__name__}).")
        elif getattr(decision_tree, "feature_names_in_", None) is not None:
            # the columns' names, as export_text shows them
            feature_names = [str(name) for name in decision_tree.feature_names_in_]
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
        self.other_splits = other_splits
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
            if self.other_splits:
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
                    fontname="helvetica", show_missing=False, other_splits=True):
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
        Default: the names the estimator was fitted with (``feature_names_in_``,
        as ``export_text`` shows them), else ``x[i]`` (scikit-learn's).
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
    other_splits : bool, default=True
        dtree's extra: the competitor and surrogate lines of a tree that kept
        them (``keep_competitors``, ``handle_missing="surrogate"``).

    Returns
    -------
    str or None
    """
    if max_depth is not None and (not isinstance(max_depth, (int, np.integer))
                                  or max_depth < 0):
        raise ValueError(f"max_depth must be None or an int >= 0; got {max_depth!r}")
    labels = _NodeLabels(decision_tree, feature_names, class_names, label, impurity,
                         node_ids, proportion, precision, show_missing, special_characters,
                         "<br/>" if special_characters else "\\n", other_splits)
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
              rounded=False, precision=3, ax=None, fontsize=None, show_missing=False,
              other_splits=True):
    """Draw the tree with matplotlib: scikit-learn's ``plot_tree``.

    The same arguments with the same meaning; each box holds the lines
    ``export_graphviz`` writes (a category-set split reads ``name in {a, b}``),
    the left child is the "True" branch, and nodes below ``max_depth`` are
    drawn as "(...)". Boxes never overlap: each level of the tree is a band as
    tall as its tallest box, subtrees sit side by side as tightly as their
    boxes allow, and edges run from a box's bottom to its children's tops.

    Parameters
    ----------
    decision_tree : fitted estimator
    max_depth : int, optional
    feature_names : list of str, optional
        Default: the names the estimator was fitted with (``feature_names_in_``,
        as ``export_text`` shows them), else ``x[i]``.
    class_names, label, filled, impurity, node_ids, proportion, rounded, precision
        As ``export_graphviz``.
    ax : matplotlib Axes, optional
        Default: the current axes (``plt.gca()``), as scikit-learn's.
    fontsize : int, optional
        Default: the largest size (up to 12) at which the tree fits the axes. A
        size given is kept unless the tree would not fit the axes at it; then the
        text shrinks until it does.
    show_missing : bool, default=False
        dtree's extra: a line per split saying where missing values go.
    other_splits : bool, default=True
        dtree's extra: the competitor and surrogate lines of a tree that kept
        them (``keep_competitors``, ``handle_missing="surrogate"``).

    Returns
    -------
    list of matplotlib Annotation
        One per box drawn, in pre-order, with the root's "True" and "False"
        labels after its children's boxes (scikit-learn's return value).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    labels = _NodeLabels(decision_tree, feature_names, class_names, label, impurity,
                         node_ids, proportion, precision, show_missing,
                         other_splits=other_splits)
    tree = labels.tree
    if max_depth is not None and (not isinstance(max_depth, (int, np.integer))
                                  or max_depth < 0):
        raise ValueError(f"max_depth must be None or an int >= 0; got {max_depth!r}")
    if fontsize is not None and not (isinstance(fontsize, (int, float, np.number))
                                     and fontsize > 0):
        raise ValueError(f"fontsize must be a positive number or None; got {fontsize!r}")
    if ax is None:
        ax = plt.gca()
    ax.set_axis_off()
    renderer = _renderer(ax.figure)
    base = 12.0 if fontsize is None else float(fontsize)
    style = dict(boxstyle="round" if rounded else "square", ec="black")
    children, order, cut, stack = {}, [], set(), [(0, 0)]
    while stack:   # pre-order, no recursion limit
        node, depth = stack.pop()
        order.append(node)
        if max_depth is not None and depth > max_depth:
            cut.add(node)
        elif tree.children_left[node] != TREE_LEAF:
            children[node] = (int(tree.children_left[node]), int(tree.children_right[node]))
            stack += [(children[node][1], depth + 1), (children[node][0], depth + 1)]
    boxes, widths, heights = {}, {}, {}
    for node in order:
        colour = "#C0C0C0" if node in cut else (labels.fill(node) if filled else "white")
        boxes[node] = ax.annotate("\n  (...)  \n" if node in cut else _wrapped(labels.text(node)),
                                  (0.0, 0.0), ha="center", va="center", fontsize=base,
                                  bbox=dict(style, fc=colour), annotation_clip=False)
        widths[node], heights[node] = _box_size(boxes[node], renderer)
    line = base * ax.figure.dpi / 72.0            # a line of text, in pixels
    centres = tidy_layout(children, widths, heights, gap_x=line, gap_y=2.5 * line)
    left = min(x - widths[n] / 2 for n, (x, _) in centres.items())
    right = max(x + widths[n] / 2 for n, (x, _) in centres.items())
    bottom = min(y - heights[n] / 2 for n, (_, y) in centres.items())
    top = max(y + heights[n] / 2 for n, (_, y) in centres.items())
    # data units are pixels at the base size: shrink the text (never the room
    # between boxes) until the layout fits the axes
    frame = ax.get_window_extent(renderer)
    scale = 0.97 * min(frame.width / (right - left), frame.height / (top - bottom))
    size = base * min(1.0, scale)
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    out = []
    for node in order:
        box = boxes[node]
        box.xy = box.xyann = centres[node]
        box.set_fontsize(size)
        out.append(box)
        if node != 0 and node in children.get(0, ()):
            # the root's branches say which way is True (scikit-learn's labels)
            is_left = node == children[0][0]
            (px, py), (cx, cy) = centres[0], centres[node]
            out.append(ax.annotate("True  " if is_left else "  False",
                                   ((px + cx) / 2, (py - heights[0] / 2 + cy
                                                    + heights[node] / 2) / 2),
                                   ha="right" if is_left else "left", va="center",
                                   fontsize=size, annotation_clip=False))
    to_data = ax.transData.inverted()
    for node, kids in children.items():
        low = _box_extent(boxes[node], renderer, to_data)
        for child in kids:
            high = _box_extent(boxes[child], renderer, to_data)
            ax.add_patch(FancyArrowPatch(
                ((low[0] + low[2]) / 2, low[1]), ((high[0] + high[2]) / 2, high[3]),
                arrowstyle="->", mutation_scale=max(size, 4.0), color="grey",
                shrinkA=0, shrinkB=0))
    return out


def _wrapped(text, width=WRAP):
    """A box's text with each line longer than ``width`` characters (a long
    category set, the competitor and surrogate lines) broken between words, so
    that one long line does not make the whole drawing small."""
    return "\n".join(textwrap.fill(line, width, break_long_words=False,
                                    break_on_hyphens=False) if len(line) > width else line
                      for line in text.split("\n"))


def _renderer(figure):
    """The figure's renderer, to measure text before the figure is drawn."""
    get = getattr(figure.canvas, "get_renderer", None)
    return get() if get is not None else figure._get_renderer()


def _box_pixels(box, renderer):
    """A text box's extent on the canvas, pixels: its text's, widened by the box's
    padding (0.3 of the font size for scikit-learn's square and round boxes) and
    its edge."""
    extent = box.get_window_extent(renderer)
    pad = 0.3 * box.get_fontsize() * box.figure.dpi / 72.0 + 1.0
    return extent.x0 - pad, extent.y0 - pad, extent.x1 + pad, extent.y1 + pad


def _box_size(box, renderer):
    """A text box's width and height on the canvas, pixels."""
    x0, y0, x1, y1 = _box_pixels(box, renderer)
    return x1 - x0, y1 - y0


def _box_extent(box, renderer, to_data):
    """A text box's (left, bottom, right, top) in data units."""
    x0, y0, x1, y1 = _box_pixels(box, renderer)
    (left, bottom), (right, top) = to_data.transform([(x0, y0), (x1, y1)])
    return left, bottom, right, top
