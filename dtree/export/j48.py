"""A classification tree in Weka J48's text layout (``export_text(layout="j48")``).

J48 prints C4.5's tree: a multiway category split as one node with a line
``attribute = value`` per category (its empty branches too), numeric tests as
``attribute <= t`` and ``attribute > t``, ``|   `` per level, and each leaf as
``: class (cases/errors)`` after its test, the errors left out when there are
none; then the number of leaves and the size of the tree. dtree's cascades are
read as their k-way node (``_model.multiway``), so a Weka user can compare the
trees line by line. Categories come in ``categories_`` order (J48 prints the
ARFF header's), numbers in the user's weight units.
"""
import numpy as np

from .._model.multiway import cascade_links, kway_shape
from .._model.tree import TREE_LEAF

LEVEL = "|   "


def j48_text(estimator, tree, names, classes):
    """The J48 layout of a fitted classifier's tree (see the module).

    Parameters
    ----------
    estimator : fitted DecisionTreeClassifier
    tree : Tree
    names : list of str
        Feature names.
    classes : list of str
        Class names.

    Returns
    -------
    str
    """
    if not tree.is_classifier or tree.n_outputs != 1:
        raise ValueError("layout='j48' prints a classifier of one output, as J48 has")
    multiway = bool(getattr(estimator, "_kway_shape", lambda: None)() is not None)
    links = cascade_links(tree) if multiway else np.zeros(tree.node_count, dtype=bool)
    lines = []
    # (node, depth, test text or None): a test's line gets its leaf appended
    stack = [(0, 0, None)]
    while stack:
        node, depth, test = stack.pop()
        pad = LEVEL * max(depth - 1, 0)
        if tree.children_left[node] == TREE_LEAF:
            leaf = _leaf(tree, node, classes[0])
            lines.append(f"{pad}{test}: {leaf}" if test is not None else f": {leaf}")
            continue
        if test is not None:
            lines.append(pad + test)
        stack.extend(reversed([(child, depth + 1, text)
                               for child, text in _branches(estimator, tree, node, names,
                                                            links)]))
    counts = [0 if c is None else len(c) for c in estimator.categories_]
    _, n_leaves, size = kway_shape(tree, counts) if multiway else \
        (None, tree.n_leaves, tree.node_count)
    return "\n".join(lines) + f"\n\nNumber of Leaves  : \t{n_leaves}\n\n" \
        f"Size of the tree : \t{size}\n"


def _branches(estimator, tree, node, names, links):
    """(child, test text) of each branch of ``node``, a cascade read whole."""
    name = names[tree.feature[node]]
    left, right = tree.children_left[node], tree.children_right[node]
    if tree.categorical_set[node] < 0:
        t = _number(tree.threshold[node], 6)
        return [(left, f"{name} <= {t}"), (right, f"{name} > {t}")]
    cats = [str(c) for c in estimator.categories_[tree.feature[node]]]
    out, taken = [], []
    link = node
    while True:
        here = [cats[c] for c in tree.left_categories(link)]
        taken += here
        out.append((tree.children_left[link], _category_test(name, here)))
        nxt = tree.children_right[link]
        if not links[nxt]:
            rest = [c for c in cats if c not in taken]
            out.append((nxt, _category_test(name, rest, negated=here if link == node else None)))
            break
        link = nxt
    # J48 lists a split's categories in its header's order: here categories_'s
    order = {c: i for i, c in enumerate(cats)}
    return sorted(out, key=lambda b: min((order.get(v, len(cats)) for v in
                                          _named(b[1], name)), default=len(cats)))


def _category_test(name, values, negated=None):
    if len(values) == 1:
        return f"{name} = {values[0]}"
    if negated is not None and len(negated) == 1:   # a binary split: J48 -B's "!="
        return f"{name} != {negated[0]}"
    return f"{name} in {{{', '.join(values)}}}"


def _named(test, name):
    body = test[len(name) + 1:]
    if body.startswith("= "):
        return [body[2:]]
    if body.startswith("in {"):
        return body[4:-1].split(", ")
    return []


def _leaf(tree, node, names):
    w = float(tree.weighted_n_node_samples[node])
    value = tree.value[node, 0, :len(names)]
    errors = w * (1.0 - float(value.max()))
    text = f"{names[int(np.argmax(value))]} ({_number(w, 2)}"
    if errors > 1e-6:
        text += f"/{_number(errors, 2)}"
    return text + ")"


def _number(x, decimals):
    """J48's numbers: leaf counts rounded to 2 decimals and printed as Java prints a
    double (at least one decimal); thresholds to 6 decimals, trailing zeros dropped."""
    x = round(float(x), decimals)
    if decimals == 2:
        return repr(x + 0.0)
    text = f"{x:.{decimals}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"
