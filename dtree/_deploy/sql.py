"""A fitted tree as one SQL ``SELECT``: ``export_sql``.

The query computes each row's leaf once and maps it to the prediction and, for
a classifier, one probability column per class. The leaf is found in layers
(common table expressions) of at most ``LAYER_DEPTH`` tree levels each: a
layer's ``CASE`` on the node reached so far continues down nested ``CASE WHEN``
tests, so no expression nests deeper than a few levels whatever the tree's
depth (SQLite's parser refuses deep nesting). Rows come back in the order a
plain scan of the table gives.

Exactness: dtree reads features as float32, so a threshold ``t`` is written as
the double bound ``m`` that a double column must stay under (``x < m``, or
``x <= m`` where float32 rounding sends ``m`` itself down) for its float32
value to be ``<= t``; every number is written as an integer times a power of
two (``CAST(k AS REAL) / 1024``), which every database evaluates exactly, so
no decimal parser's rounding is involved. Missing values (NULL) follow the
tree's rule: the learnt side, or the surrogates then the majority side; a
category the model never saw is a missing value (``handle_unknown="missing"``).
Names and text values are quoted (identifiers in double quotes, text in single
quotes, each quote doubled), so no name or value can end a literal.
"""
import math

import numpy as np

from .._model.tree import TREE_LEAF
from .._model.routing import node_rule
from .._model.arguments import list_of_names, text
from .._model.names import class_names_of, feature_names_of, fitted_and_named
from .._input.encode import check_fitted

DOUBLE = {"sqlite": "REAL", "duckdb": "DOUBLE", "postgres": "DOUBLE PRECISION",
          "ansi": "DOUBLE PRECISION"}
_TRUE, _FALSE = "1=1", "1=0"
LAYER_DEPTH = 6
# keeps a layer a subquery of its own (no "query flattening"): flattened, a layer's
# two references to the node column would copy the layers above it, twice per layer
FENCE = {"sqlite": " LIMIT -1 OFFSET 0", "duckdb": " OFFSET 0", "postgres": " OFFSET 0",
         "ansi": " OFFSET 0 ROWS"}
_POW_LIMIT = 62                      # 2**62: the largest power of two an int64 holds


def identifier(name):
    """``name`` as a quoted SQL identifier."""
    text = str(name)
    if "\x00" in text:
        raise ValueError(f"SQL names cannot hold a NUL character: {text!r}")
    return '"' + text.replace('"', '""') + '"'


def text_literal(value):
    text = str(value)
    if "\x00" in text:
        raise ValueError(f"SQL text cannot hold a NUL character: {text!r}")
    return "'" + text.replace("'", "''") + "'"


def exact_number(value, dialect):
    """A finite double as integer arithmetic every database evaluates exactly."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"SQL export needs finite numbers; got {value!r}")
    if value == int(value) and abs(value) < 2.0**62:
        return f"CAST({int(value)} AS {DOUBLE[dialect]})"
    mantissa, exponent = math.frexp(value)          # value = mantissa * 2**exponent
    k = int(mantissa * 2**53)                       # an integer: exact
    exponent -= 53
    text = f"CAST({k} AS {DOUBLE[dialect]})"
    # multiply or divide by powers of two: exact while the result is normal
    op = "*" if exponent > 0 else "/"
    left = abs(exponent)
    while left:
        step = min(left, _POW_LIMIT)
        text = f"({text} {op} {2**step})"
        left -= step
    return text


def value_literal(value, dialect):
    """A category value or class label as SQL: quoted text, 1/0 for a bool, an
    integer as written, any other number exactly (``exact_number``)."""
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, (str, np.str_)):
        return text_literal(value)
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return exact_number(value, dialect)


def float32_bound(threshold):
    """``(bound, inclusive)``: a double x rounds to a float32 ``<= threshold`` exactly
    when ``x <= bound`` (inclusive) or ``x < bound``."""
    t = float(threshold)
    low = np.float32(t)
    if float(low) > t:                             # the float32 at or below t
        low = np.nextafter(low, np.float32(-np.inf))
    if np.isinf(low) and low > 0:
        return math.inf, True
    high = np.nextafter(low, np.float32(np.inf))
    high = 2.0**128 if np.isinf(high) else float(high)
    bound = (float(low) + high) / 2.0               # exact in double
    # a double exactly halfway rounds to the float32 with the even last bit
    inclusive = int(np.asarray(low).view(np.uint32)) % 2 == 0
    return bound, inclusive


class _Writer:
    """Builds the SQL of one estimator in one dialect."""

    def __init__(self, estimator, dialect, names):
        self.est = estimator
        self.tree = estimator.tree_
        self.dialect = dialect
        self.names = names

    def column(self, f):
        return identifier(self.names[f])

    def category_literals(self, f, codes):
        cats = self.est.categories_[f]
        return [value_literal(cats[c], self.dialect) for c in codes]

    def test(self, test):
        """(present, passes): SQL for "the test decides the row" and "it passes" (one
        ``Test`` of the node's rule: a category surrogate decides the codes its
        node held)."""
        col = self.column(test.feature)
        if test.codes is None:
            if test.threshold == math.inf:
                return f"{col} IS NOT NULL", _TRUE
            bound, inclusive = float32_bound(test.threshold)
            if bound == math.inf:
                return f"{col} IS NOT NULL", _TRUE
            op = "<=" if inclusive else "<"
            return f"{col} IS NOT NULL", f"{col} {op} {exact_number(bound, self.dialect)}"
        n = len(self.est.categories_[test.feature])
        left = self.category_literals(test.feature, test.codes)
        known = self.category_literals(test.feature,
                                       range(n) if test.decided is None else test.decided)
        present = f"{col} IN ({', '.join(known)})" if known else _FALSE
        passes = f"{col} IN ({', '.join(left)})" if left else _FALSE
        return present, passes

    def goes_left(self, node):
        """SQL for "the row goes left" at ``node``: its rule (``node_rule``), test by
        test, then its missing side."""
        rule = node_rule(self.tree, node)
        branches = []
        for test in rule.tests:
            present, passes = self.test(test)
            branches.append((present, passes if test.passes_left else f"NOT ({passes})"))
        fallback = _TRUE if rule.missing_left else _FALSE
        whens = " ".join(f"WHEN {p} THEN ({q})" for p, q in branches)
        return f"CASE {whens} ELSE {fallback} END"

    def descend(self, root, levels):
        """Nested CASE from ``root`` down ``levels`` levels: the node id reached."""
        tree = self.tree
        parts, stack = [], [("node", root, 0)]
        while stack:
            kind, item, depth = stack.pop()
            if kind == "text":
                parts.append(item)
            elif tree.children_left[item] == TREE_LEAF or depth == levels:
                parts.append(str(int(item)))
            else:
                stack += [("text", " END", 0),
                          ("node", tree.children_right[item], depth + 1),
                          ("text", " ELSE ", 0),
                          ("node", tree.children_left[item], depth + 1),
                          ("text", f"CASE WHEN {self.goes_left(item)} THEN ", 0)]
        return "".join(parts)

    def layers(self, source, tag=""):
        """``(ctes, source, column)``: the layers over ``source`` (an identifier), the
        last one's name and its column holding each row's leaf; ``tag`` tells one
        tree's layers from another's."""
        tree = self.tree
        ctes, column = [], None
        for k, top in enumerate(range(0, max(tree.max_depth, 1), LAYER_DEPTH)):
            roots = np.flatnonzero((tree.node_depth == top)
                                   & (tree.children_left != TREE_LEAF))
            name = f'"__dtree_{tag}{k}"'
            new = f'"__dtree_{tag}node_{k}"'
            if column is None:
                expr = self.descend(0, LAYER_DEPTH)
            else:
                whens = " ".join(f"WHEN {int(r)} THEN {self.descend(r, LAYER_DEPTH)}"
                                 for r in roots)
                expr = f"CASE {column} {whens} ELSE {column} END" if whens else column
            ctes.append(f"{name} AS (SELECT *, {expr} AS {new} FROM {source}{FENCE[self.dialect]})")
            source, column = name, new
        return ctes, source, column


def _by_leaf(tree, column, values):
    leaves = np.flatnonzero(tree.children_left == TREE_LEAF)
    whens = " ".join(f"WHEN {int(leaf)} THEN {values(leaf)}" for leaf in leaves)
    return f"CASE {column} {whens} END"


def export_sql(estimator, table="t", *, dialect="sqlite", feature_names=None,
               prediction="prediction", proba_prefix="proba_", keep_columns=()):
    """The fitted tree as one SQL ``SELECT`` over ``table``.

    Parameters
    ----------
    estimator : fitted DecisionTreeClassifier or DecisionTreeRegressor
        One output; not a C4.5 tree (which mixes leaves for missing values).
    table : str, default="t"
        The table to score (one identifier, quoted as given).
    dialect : {"sqlite", "duckdb", "postgres", "ansi"}, default="sqlite"
        Decides the double type the numbers are cast to.
    feature_names : list of str, optional
        The table's column for each feature; defaults to ``feature_names_in_``
        or ``feature_<i>``. Numeric columns should be DOUBLE (or float32 REAL);
        categorical ones hold the category values (text or numbers).
    prediction : str, default="prediction"
        Name of the predicted label (or value) column.
    proba_prefix : str, default=``"proba_"``
        A classifier also returns one column per class, named this prefix plus
        the class.
    keep_columns : sequence of str or None, default=()
        Columns of ``table`` returned first (None: none), as they are (a key to join or
        order the predictions by: a parallel scan, as PostgreSQL's, may return
        rows in any order).

    Returns
    -------
    str
        The query: one row per row of ``table``, in scan order; ``prediction``
        equals ``predict`` and the probability columns ``predict_proba``
        (missing values as NULL, routed as the model routes NaN).

    Examples
    --------
    >>> import sqlite3
    >>> from dtree import DecisionTreeClassifier
    >>> from dtree.export import export_sql
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[1.0], [2.0], [3.0], [4.0]],
    ...                                               ["no", "no", "yes", "yes"])
    >>> con = sqlite3.connect(":memory:")
    >>> _ = con.execute("CREATE TABLE t (feature_0 REAL)")
    >>> _ = con.executemany("INSERT INTO t VALUES (?)", [(1.5,), (3.5,)])
    >>> con.execute(export_sql(clf, table="t")).fetchall()
    [('no', 1.0, 0.0), ('yes', 0.0, 1.0)]
    """
    for name, value in (("table", table), ("dialect", dialect), ("prediction", prediction),
                        ("proba_prefix", proba_prefix)):
        if "\x00" in text(value, name):
            raise ValueError(f"{name} cannot hold a NUL character (no SQL name can)")
    if dialect not in DOUBLE:
        raise ValueError(f"dialect must be one of {sorted(DOUBLE)}; got {dialect!r}")
    forest = hasattr(estimator, "estimators_") or hasattr(estimator, "n_estimators")
    if forest:
        check_fitted(estimator)
        trees = list(estimator.estimators_)
        names = feature_names_of(estimator, feature_names)
        classes = class_names_of(estimator, None)
    else:
        tree, names, classes = fitted_and_named(estimator, feature_names, None)
        trees = [estimator]
    if estimator.n_outputs_ > 1:
        raise ValueError("export_sql writes one prediction column: fit one tree per "
                         f"output (this one has {estimator.n_outputs_})")
    if any(t.tree_.fractional_missing for t in trees):
        raise ValueError("a C4.5 tree sends a missing value down every branch and mixes "
                         "the leaves; export_sql follows one branch: not supported")
    columns = [identifier(name) for name in
               list_of_names(() if keep_columns is None else keep_columns, "keep_columns")]
    labels = getattr(estimator, "classes_", None)
    if forest:
        ctes, source, means = _forest_means(trees, identifier(table), dialect, names,
                                            1 if classes is None else len(labels))
        if classes is None:
            columns.append(f"{means[0]} AS {identifier(prediction)}")
        else:
            columns.append(_first_largest(means, [value_literal(c, dialect) for c in labels])
                           + f" AS {identifier(prediction)}")
            columns += [f"{mean} AS {identifier(proba_prefix + name)}"
                        for mean, name in zip(means, classes[0])]
    else:
        ctes, source, leaf = _Writer(estimator, dialect, names).layers(identifier(table))
        if classes is None:
            columns.append(_by_leaf(tree, leaf,
                                    lambda leaf: exact_number(tree.value[leaf, 0, 0], dialect))
                           + f" AS {identifier(prediction)}")
        else:
            fractions = tree.value[:, 0, :len(labels)]
            columns.append(_by_leaf(
                tree, leaf, lambda node: value_literal(labels[int(np.argmax(fractions[node]))],
                                                       dialect))
                + f" AS {identifier(prediction)}")
            for k, name in enumerate(classes[0]):
                columns.append(_by_leaf(tree, leaf,
                                        lambda leaf, k=k: exact_number(fractions[leaf, k], dialect))
                               + f" AS {identifier(proba_prefix + name)}")
    body = ",\n  ".join(columns)
    return "WITH " + ",\n".join(ctes) + f"\nSELECT\n  {body}\nFROM {source}"


def _forest_means(trees, source, dialect, names, width):
    """``(ctes, source, means)``: each tree's leaf found in layers of its own, then
    one layer with the mean over the trees of each of the ``width`` leaf values
    (summed in tree order, then divided by the tree count, as ``predict``
    averages them); ``means`` are its columns."""
    ctes, leaves = [], []
    for t, est in enumerate(trees):
        layers, source, leaf = _Writer(est, dialect, names).layers(source, f"t{t}_")
        ctes += layers
        leaves.append((est.tree_, leaf))
    n = exact_number(float(len(trees)), dialect)
    means, sums = [], []
    for k in range(width):
        terms = [_by_leaf(tree, leaf, lambda node, tree=tree: exact_number(
            tree.value[node, 0, k], dialect)) for tree, leaf in leaves]
        means.append(f'"__dtree_mean_{k}"')
        sums.append("(" + "\n    + ".join(terms) + f") / {n} AS {means[-1]}")
    ctes.append(f'"__dtree_means" AS (SELECT *, ' + ",\n  ".join(sums)
                + f" FROM {source}{FENCE[dialect]})")
    return ctes, '"__dtree_means"', means


def _first_largest(columns, labels):
    """SQL for the label of the first of ``columns`` holding the largest value
    (``np.argmax``'s choice on ties)."""
    whens = []
    for j in range(len(columns) - 1):
        others = " AND ".join(f"{columns[j]} >= {columns[i]}"
                              for i in range(len(columns)) if i != j)
        whens.append(f"WHEN {others} THEN {labels[j]}")
    return f"CASE {' '.join(whens)} ELSE {labels[-1]} END" if whens else labels[0]
