"""Text of a fitted tree: ``export_text`` (scikit-learn's layout), ``export_compact``
(one line per node) and ``export_rules`` (one rule per leaf, with its path's bounds)."""
import numpy as np

from .rpart import rpart_print
from .._model.arguments import int_at_least
from .._model.names import fitted_and_named, fitted_tree
from .._model.tree import TREE_LEAF
from .j48 import j48_text
from .labels import _category_names, other_split_lines


def _node_values(tree, node):
    """Per output, the node's class fractions (its own classes only) or its value."""
    return [tree.value[node, k, :int(tree.n_classes[k])] for k in range(tree.n_outputs)]


MAX_SPACING = 1000


def _decimals(decimals):
    # beyond 340 decimals no float64 (5e-324 included) gains a digit
    return min(int_at_least(decimals, "decimals", 0), 340)


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


def _condition(estimator, tree, node, name, decimals, left, gt=">", show_missing=False):
    """Text of the test a sample passes to go left (or right) at ``node``; with
    ``show_missing``, where a missing value goes too (``missing_note``)."""
    if tree.categorical_set[node] >= 0:
        listed = _category_names(estimator, tree, node)
        text = f"{name} in {listed}" if left else f"{name} not in {listed}"
    else:
        t = tree.threshold[node]
        text = f"{name} <= {t:.{decimals}f}" if left else f"{name} {gt} {t:.{decimals}f}"
    note = missing_note(tree, node, left) if show_missing else ""
    return text + (f" ({note})" if note else "")


def missing_note(tree, node, left):
    """Where a row missing ``node``'s feature goes, said on the branch it takes:
    "or missing" on the learnt (or majority) side, "or missing, unless a surrogate
    decides" where surrogates route it, C4.5's fractional cases on both sides."""
    if tree.fractional_missing:
        return "missing: down both branches, weighted"
    if bool(tree.missing_go_to_left[node]) != left:
        return "missing: surrogates decide" if tree.surrogate_missing else ""
    return "or missing, unless a surrogate decides" if tree.surrogate_missing else \
        "or missing"


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
                spacing=3, decimals=2, show_weights=False, show_missing=False,
                layout="sklearn"):
    """The tree as indented text, in scikit-learn's ``export_text`` layout, Weka J48's
    or rpart's.

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
    show_missing : bool, default=False
        Say on each split which branch a row missing its feature takes ("or
        missing"; surrogates and C4.5's fractional cases said as such). Off by
        default: scikit-learn's layout.
    layout : {"sklearn", "j48", "rpart"}, default="sklearn"
        "j48": Weka J48's layout, for a classifier (``attribute = value`` per
        branch of a multiway split, ``<=``/``>`` tests, leaves as ``class
        (cases/errors)``, then the leaves and size), so a tree can be compared
        with J48's line by line. "rpart": ``print.rpart``'s (a line per node
        under rpart's number: its test, n, loss or deviance, its value and a
        classifier's class probabilities; leaves starred). ``max_depth``,
        ``spacing``, ``decimals``, ``show_weights`` and ``show_missing`` are
        scikit-learn's layout's.

    Returns
    -------
    str

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier, export_text
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[1.0], [2.0], [3.0], [4.0]],
    ...                                               ["no", "no", "yes", "yes"])
    >>> print(export_text(clf))
    |--- feature_0 <= 2.50
    |   |--- class: no
    |--- feature_0 >  2.50
    |   |--- class: yes
    <BLANKLINE>
    >>> print(export_text(clf, layout="rpart"))
    n= 4
    <BLANKLINE>
    node), split, n, loss, yval, (yprob)
          * denotes terminal node
    <BLANKLINE>
    1) root 4 2 no (0.50000000 0.50000000)
      2) feature_0<=2.5 2 0 no (1.00000000 0.00000000) *
      3) feature_0>2.5 2 0 yes (0.00000000 1.00000000) *
    <BLANKLINE>
    """
    tree, names, classes = fitted_and_named(estimator, feature_names, class_names)
    if not isinstance(layout, str) or layout not in ("sklearn", "j48", "rpart"):
        raise ValueError(f"layout must be 'sklearn', 'j48' or 'rpart', given {layout!r}")
    if layout == "rpart":
        return rpart_print(estimator, tree, names, classes)
    if layout == "j48":
        if classes is None:
            raise ValueError("layout='j48' prints a classifier, as J48 has")
        return j48_text(estimator, tree, names, classes)
    max_depth = int_at_least(max_depth, "max_depth", 0)
    decimals = _decimals(decimals)
    if not isinstance(spacing, int) or isinstance(spacing, bool) or spacing <= 0:
        raise ValueError(f"spacing must be > 0, given {spacing!r}")
    if spacing > MAX_SPACING:   # every line repeats it once per level: text of any size
        raise ValueError(f"spacing must be at most {MAX_SPACING}, given {spacing!r}")
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
                                             gt="> ", show_missing=show_missing))
            stack.append(("node", tree.children_right[node], depth + 1))
            continue
        if tree.children_left[node] == TREE_LEAF:
            lines.append(indent + _leaf_text(tree, node, classes, decimals, show_weights))
            continue
        if depth > max_depth:
            lines.append(indent + f"truncated branch of depth {subtree_depth(node) + 1}")
            continue
        name = names[tree.feature[node]]
        lines.append(indent + _condition(estimator, tree, node, name, decimals, True,
                                         show_missing=show_missing))
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


def export_rules(estimator, *, feature_names=None, class_names=None, decimals=2,
                 show_missing=True):
    """One if-then rule per leaf, in left-to-right leaf order.

    The tests along a leaf's path are merged per feature (the tightest bounds
    of a numeric feature, the categories still allowed for a categorical one),
    so a rule has at most two conditions per feature however deep the tree:
    the text is linear in the number of leaves times features, not quadratic
    in depth.

    Parameters
    ----------
    estimator : fitted DecisionTreeClassifier or DecisionTreeRegressor
    feature_names, class_names : list of str, optional
    decimals : int, default=2
        Digits of the thresholds and probabilities.
    show_missing : bool, default=True
        Say where rows missing a feature go: ``(x <= 1.50 or x is missing)``
        where every test of x on the path sends missing values this way, ``x
        is not missing`` where a category test would otherwise pass them; a
        tree routing missing values by surrogates, or by C4.5's fractional
        cases, says so in a first line (its rules are for rows without them).

    Returns
    -------
    str
        Lines such as ``if petal_width <= 0.80 then class = setosa
        (proba 1.00) [samples 50]``.
    """
    tree, names, classes = fitted_and_named(estimator, feature_names, class_names)
    decimals = _decimals(decimals)
    rules = []
    if show_missing and (tree.fractional_missing or tree.surrogate_missing):
        rules.append("# rows missing a tested feature: "
                     + ("C4.5 sends them down every branch, weighted; the rules below "
                        "are for rows without missing values" if tree.fractional_missing
                        else "surrogate splits route them; the rules below are for rows "
                        "without missing values"))
        show_missing = False
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
        premise = path.text(estimator, names, decimals, show_missing) or "true"
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
    (right turns only); both whether a missing value follows every test of the
    feature on the path. Applying a test logs the feature's previous state, so
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
        missing = (previous[2] if previous else True) and \
            bool(tree.missing_go_to_left[node]) == goes_left
        if tree.categorical_set[node] >= 0:
            codes = frozenset(int(c) for c in tree.left_categories(node))
            allowed, excluded = previous[:2] if previous else (None, frozenset())
            if goes_left:
                allowed = codes if allowed is None else allowed & codes
            elif allowed is not None:
                allowed = allowed - codes
            else:
                excluded = excluded | codes
            new = (allowed, excluded, missing)
        else:
            low, high = previous[:2] if previous else (-np.inf, np.inf)
            t = float(tree.threshold[node])
            new = ((low, min(high, t)) if goes_left else (max(low, t), high)) + (missing,)
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

    def text(self, estimator, names, decimals, show_missing=False):
        parts = []
        for f in self.order:
            first, second, missing = self.state[f]
            if isinstance(second, frozenset):
                allowed, excluded = first, second
                listed = allowed if allowed is not None else excluded
                cats = estimator.categories_[f]
                shown = "{" + ", ".join(str(cats[c]) for c in sorted(listed)) + "}"
                tests = [f"{names[f]} {'in' if allowed is not None else 'not in'} {shown}"]
            else:
                low, high = first, second
                tests = ([f"{names[f]} > {low:.{decimals}f}"] if low > -np.inf else []) + \
                    ([f"{names[f]} <= {high:.{decimals}f}"] if high < np.inf else [])
            if show_missing and missing:
                parts.append("(" + " and ".join(tests) + f" or {names[f]} is missing)")
            elif show_missing and isinstance(second, frozenset) and first is None:
                parts.append(f"{names[f]} is not missing and " + tests[0])
            else:
                parts.extend(tests)
        return " and ".join(parts)
