"""A forest's file keeps its trees' node columns compact (format version 6), and back.

What the trees' shapes say is left out of the file, as a pickle leaves it out
(``_model.compact``), each derivation checked on every tree before a member is
left out (a forest where one does not hold keeps that member whole):

* ``is_leaf`` (a byte per node) instead of both children columns and the
  depths, when every tree numbers its nodes in pre-order;
* ``<name>_at_splits`` instead of a column whose leaves all hold the format's
  filler (feature -2, threshold -2.0, missing_go_to_left 0, no category set, a
  NaN training range);
* ``<name>_at_leaves`` instead of a count that adds up at every split node
  (samples, weighted samples), and ``class_counts_at_leaves`` instead of a
  classifier's class fractions when its whole class counts divide back to them;
  the header's ``"derived"`` (``["impurity"]``) says when a one-output
  classifier's impurities are left out too, computed again by the criterion's
  Gini formula;
* a regressor's ``value_at_leaves`` and ``value_residuals`` instead of its
  means, ``impurity_at_leaves`` and ``impurity_residuals`` instead of its
  impurities: each split node's difference, in bits, to what its children give
  (``_model.pooled``; zigzag-coded), when every tree's numbers allow it (format
  version 7);
* (format version 8) a one-output regressor's ``value_table`` (the forest's
  distinct leaf values) and ``value_positions`` (each tree's leaves as positions
  in it, zigzag-coded differences from the previous leaf's, ``_model.leaf_table``)
  instead of ``value_at_leaves``; and ``threshold_from_range`` (a byte per split
  node, 1 where its threshold is the midpoint of its training range, the exact
  splitter's rule) with ``threshold_at_splits`` holding only the others.

``expanded`` puts every member back before any tree is checked, so each tree
then passes the single tree's checks (``file_checks.check_tree``) as ever.
"""
import numpy as np

from .._model.compact import at_midpoints, derivable, gini, midpoints, summed_up
from .._model.leaf_table import leaf_table, table_codes
from .._model.narrow import unzigzag, zigzag
from .._model.pooled import residuals, restored
from .._route import preorder_shape
from .file_checks import ModelFileError

SHAPE = ("children_left", "children_right", "node_depth")
FILLERS = {"feature": -2, "threshold": -2.0, "missing_go_to_left": 0, "categorical_set": -1,
           "split_low": np.nan, "split_high": np.nan}
SUMMED = ("n_node_samples", "weighted_n_node_samples")
SPLITS, LEAVES, COUNTS = "_at_splits", "_at_leaves", "class_counts_at_leaves"
# the header's word for impurities computed again from the class counts
DERIVED = "impurity"
# a regressor's columns kept at their leaves, and their split nodes' residuals
POOLED = {"value": "value_residuals", "impurity": "impurity_residuals"}
RESIDUALS = tuple(POOLED.values())
# a forest's leaf values once (the forest's member) and each tree's leaves' positions;
# the split nodes whose thresholds are their ranges' midpoints
TABLE, POSITIONS, FROM_RANGE = "value_table", "value_positions", "threshold_from_range"
# the members of format version 8
TABLE_MEMBERS = (TABLE, POSITIONS, FROM_RANGE)
# the members this module writes, besides the plain ones
MEMBERS = ("is_leaf", COUNTS) + tuple(n + SPLITS for n in FILLERS) + \
    tuple(n + LEAVES for n in SUMMED + tuple(POOLED)) + RESIDUALS + TABLE_MEMBERS


def compacted(tree_members, is_classifier, impurity_exponents):
    """Each tree's members with what every tree's shape says left out, the
    header's ``"derived"`` list (what the reader computes beyond the members), and
    the forest's own members (``value_table``). ``impurity_exponents``: each tree's."""
    trees = [derivable([m[name] for name in SHAPE],
                       {name: m[name] for name in FILLERS if name in m},
                       {name: m[name] for name in SUMMED}, m["value"],
                       m["weighted_n_node_samples"], m["impurity"], is_classifier)
             for m in tree_members]
    if any(t is None for t in trees):
        return tree_members, [], {}
    out = [{k: v for k, v in m.items() if k not in SHAPE} for m in tree_members]
    for m, t in zip(out, trees):
        m["is_leaf"] = t.leaf.astype(np.uint8)
    for name, fill in FILLERS.items():
        # (the format's own filler: the reader needs none from the file)
        if all(t.fillers.get(name) is not None and
               np.array_equal(t.fillers[name], [fill], equal_nan=True) for t in trees):
            for m, t in zip(out, trees):
                m[name + SPLITS] = m.pop(name)[~t.leaf]
    for name in SUMMED:
        if all(t.adds_up[name] for t in trees):
            for m, t in zip(out, trees):
                m[name + LEAVES] = m.pop(name)[t.leaf]
    derived = []
    if all(t.counts is not None and t.adds_up["value"] for t in trees):
        from_counts = all(t.impurity_from_counts for t in trees)
        for m, t in zip(out, trees):
            del m["value"]
            m[COUNTS] = t.counts[t.leaf]
            if from_counts:
                del m["impurity"]
        if from_counts:
            derived.append(DERIVED)
    forest = {}
    if not is_classifier:
        _keep_residuals(out, tree_members, trees, impurity_exponents)
        forest = _keep_positions(out)
    _keep_derived_thresholds(out)
    return out, derived, forest


def _keep_positions(out):
    # every tree's leaf values as positions in one table, or every tree's own
    name = "value" + LEAVES
    if not all(name in m for m in out):
        return {}
    table = leaf_table([_Leaves(m[name]) for m in out])
    codes = [None if table is None else table_codes(m[name], table) for m in out]
    if table is None or any(c is None for c in codes):
        return {}
    for m, c in zip(out, codes):
        del m[name]
        m[POSITIONS] = c
    return {TABLE: table}


class _Leaves:
    # a tree's leaf values as ``leaf_table`` reads a tree's
    def __init__(self, leaves):
        self.value = leaves
        self.children_left = np.full(leaves.shape[0], -1)


def _keep_derived_thresholds(out):
    # thresholds at their ranges' midpoints left out, in every tree or none
    names = ("threshold" + SPLITS, "split_low" + SPLITS, "split_high" + SPLITS)
    if not all(all(n in m for n in names) for m in out):
        return
    found = [at_midpoints(*(m[n] for n in names)) for m in out]
    if sum(f.sum() for f in found) < 0.05 * sum(f.shape[0] for f in found):
        return      # (a byte per split node for too few)
    for m, same in zip(out, found):
        m[FROM_RANGE] = same.astype(np.uint8)
        m[names[0]] = m[names[0]][~same]


def _keep_residuals(out, tree_members, trees, impurity_exponents):
    # every tree's split nodes by residuals, or every tree's columns whole
    found = [residuals(m["value"], m["impurity"], m["weighted_n_node_samples"], t.shape,
                       exponent)
             for m, t, exponent in zip(tree_members, trees, impurity_exponents)]
    for k, name in enumerate(POOLED):
        if all(f[k] is not None for f in found):
            for m, t, f in zip(out, trees, found):
                m[name + LEAVES] = m.pop(name)[t.leaf]
                m[POOLED[name]] = zigzag(f[k])


def has_residuals(members):
    """Whether a forest's members keep split nodes by residuals (format version 7)."""
    return any(name in members for name in RESIDUALS)


def has_table(members):
    """Whether a forest's members keep leaf positions or derived thresholds (format
    version 8)."""
    return any(name in members for name in TABLE_MEMBERS)


def expanded(members, derived, dtypes, impurity_exponents):
    """The forest's members with every column a tree's reader checks put back (the
    members as they are when the file has no ``is_leaf``); ``dtypes``: each
    plain member's dtype; ``impurity_exponents``: each tree's."""
    if not isinstance(derived, list) or any(d != DERIVED for d in derived):
        raise ModelFileError(f"'derived' must be a list of {DERIVED!r}")
    if "is_leaf" not in members:
        if derived or any(name in members for name in MEMBERS):
            raise ModelFileError("compact members need 'is_leaf'")
        return members
    members = dict(members)
    is_leaf = members.pop("is_leaf")
    if is_leaf.dtype != np.uint8 or is_leaf.ndim != 1 or (is_leaf > 1).any():
        raise ModelFileError("'is_leaf' must be a 1-D uint8 array of 0 and 1")
    nodes = _offsets(members.get("tree_nodes"), is_leaf.shape[0])
    leaf = is_leaf == 1
    shapes = []
    for k in range(nodes.shape[0] - 1):
        shape = preorder_shape(np.ascontiguousarray(is_leaf[nodes[k]:nodes[k + 1]]))
        if shape is None:
            raise ModelFileError(f"tree {k}: 'is_leaf' is no tree in pre-order")
        shapes.append(shape)
    for j, name in enumerate(SHAPE):
        if name in members:
            raise ModelFileError(f"a file with 'is_leaf' holds no {name!r}")
        members[name] = np.concatenate([s[j] for s in shapes]).astype(dtypes[name])
    from_range = members.pop(FROM_RANGE, None)
    if from_range is not None and "threshold" + SPLITS not in members:
        raise ModelFileError(f"{FROM_RANGE!r} needs {'threshold' + SPLITS!r}")
    for name, fill in FILLERS.items():
        part = members.pop(name + SPLITS, None)
        if part is None:
            continue
        rows = (~leaf).sum()
        if name == "threshold" and from_range is not None:
            _check_member(FROM_RANGE, from_range, rows, np.uint8, False)
            if (from_range > 1).any():
                raise ModelFileError(f"{FROM_RANGE!r} must hold 0 and 1")
            rows = (from_range == 0).sum()
        _check_member(name + SPLITS, part, rows, dtypes[name], name in members)
        column = np.full(leaf.shape[0], fill, dtype=dtypes[name])
        if name == "threshold" and from_range is not None:
            inner = np.flatnonzero(~leaf)
            column[inner[from_range == 0]] = part
        else:
            column[~leaf] = part
        members[name] = column
    if from_range is not None:
        _derive_thresholds(members, leaf, from_range == 1)
    _positions(members, nodes, leaf, dtypes)
    leaves = {}
    for name in SUMMED:
        part = members.pop(name + LEAVES, None)
        if part is not None:
            _check_member(name + LEAVES, part, leaf.sum(), dtypes[name], name in members)
            leaves[name] = part
    counts = members.pop(COUNTS, None)
    if counts is not None:
        _check_member(COUNTS, counts, leaf.sum(), np.float64, "value" in members, ndim=3)
        leaves["value"] = counts
    if leaves:
        columns = {name: [] for name in leaves}
        first_leaf = np.concatenate([[0], np.cumsum(leaf)])[nodes]    # each tree's
        with np.errstate(all="ignore"):     # hostile counts: the tree's checks refuse them
            for k, shape in enumerate(shapes):
                a, b = first_leaf[k], first_leaf[k + 1]
                part = summed_up({n: c[a:b] for n, c in leaves.items()}, shape)
                for name in leaves:
                    columns[name].append(part[name])
            for name, parts in columns.items():
                members[name] = np.concatenate(parts).astype(
                    np.float64 if name == "value" else dtypes[name])
    if counts is not None:
        weight = members.get("weighted_n_node_samples")
        if weight is None or weight.shape[0] != leaf.shape[0]:
            raise ModelFileError("class counts need the weighted samples of every node")
        with np.errstate(all="ignore"):
            if derived:
                if "impurity" in members:
                    raise ModelFileError("a file deriving its impurities holds 'impurity'")
                members["impurity"] = gini(members["value"], weight)
            members["value"] = members["value"] / weight[:, None, None]
    elif derived:
        raise ModelFileError("impurities are derived from class counts")
    _restore(members, shapes, nodes, leaf, dtypes, impurity_exponents)
    return members


def _derive_thresholds(members, leaf, same):
    # the thresholds left out: their split nodes' ranges' midpoints
    names = ("threshold", "split_low", "split_high")
    if not all(isinstance(members.get(n), np.ndarray) and
               members[n].shape == leaf.shape for n in names):
        raise ModelFileError(f"{FROM_RANGE!r} needs the split nodes' thresholds and "
                             "ranges")
    at = np.flatnonzero(~leaf)[same]
    low, high = members["split_low"][at], members["split_high"][at]
    with np.errstate(all="ignore"):
        if not ((low.astype(np.float32) == low) & (high.astype(np.float32) == high) &
                (low < high)).all():
            raise ModelFileError(f"{FROM_RANGE!r} marks a split node without a float32 "
                                 "range")
        members["threshold"][at] = midpoints(low.astype(np.float32), high.astype(np.float32))


def _positions(members, nodes, leaf, dtypes):
    # the leaf values from the forest's table and each tree's positions in it
    table, codes = members.pop(TABLE, None), members.pop(POSITIONS, None)
    if (table is None) != (codes is None):
        raise ModelFileError(f"{TABLE!r} and {POSITIONS!r} come together")
    if table is None:
        return
    if "value" + LEAVES in members:
        raise ModelFileError(f"a file with {POSITIONS!r} holds no {'value' + LEAVES!r}")
    if table.dtype != np.float64 or table.ndim != 1 or table.shape[0] == 0:
        raise ModelFileError(f"{TABLE!r} must be a non-empty 1-D float64 array")
    if codes.dtype != np.int64 or codes.ndim != 1 or codes.shape[0] != leaf.sum():
        raise ModelFileError(f"{POSITIONS!r} must be 1-D int64 with a row per leaf")
    first = np.concatenate([[0], np.cumsum(leaf)])[nodes]      # each tree's first leaf
    at = np.empty(codes.shape[0], dtype=np.int64)
    for k in range(nodes.shape[0] - 1):
        a, b = first[k], first[k + 1]
        at[a:b] = np.cumsum(unzigzag(codes[a:b]))     # (wraps, never raises)
    if at.size and (at.min() < 0 or at.max() >= table.shape[0]):
        raise ModelFileError(f"{POSITIONS!r} point outside {TABLE!r}")
    members["value" + LEAVES] = table[at].reshape(-1, 1, 1).astype(dtypes["value"])


def _restore(members, shapes, nodes, leaf, dtypes, impurity_exponents):
    # the columns kept at their leaves, their split nodes from their residuals
    pooled = {}
    for name, residual_name in POOLED.items():
        part, diff = members.pop(name + LEAVES, None), members.pop(residual_name, None)
        if (part is None) != (diff is None):
            raise ModelFileError(f"{name + LEAVES!r} and {residual_name!r} come together")
        if part is None:
            continue
        ndim = 3 if name == "value" else 1      # (residuals: a split node's outputs)
        _check_member(name + LEAVES, part, leaf.sum(), dtypes[name], name in members, ndim)
        if diff.dtype != np.int64 or diff.ndim != min(ndim, 2) or \
                diff.shape[0] != (~leaf).sum():
            raise ModelFileError(f"{residual_name!r} must be {min(ndim, 2)}-D int64 with a "
                                 "row per split node")
        column = np.zeros((leaf.shape[0],) + part.shape[1:], dtype=np.float64)
        column[leaf] = part
        members[name], pooled[name] = column, unzigzag(diff)
    if not pooled:
        return
    weight = members.get("weighted_n_node_samples")
    value, impurity = members.get("value"), members.get("impurity")
    if not all(isinstance(c, np.ndarray) and c.dtype == np.float64 and
               c.shape[:1] == leaf.shape for c in (weight, value, impurity)) or \
            value.ndim != 3 or value.shape[2] != 1:
        raise ModelFileError("residuals need the trees' values, impurities and weights")
    if not isinstance(impurity_exponents, list) or len(impurity_exponents) != len(shapes) \
            or not all(type(e) is int and abs(e) <= 1 << 16 for e in impurity_exponents):
        raise ModelFileError("residuals need each tree's impurity_exponent (an int)")
    splits = np.concatenate([[0], np.cumsum(~leaf)])[nodes]     # each tree's first
    for k, shape in enumerate(shapes):
        a, b = nodes[k], nodes[k + 1]
        diffs = [None if name not in pooled else pooled[name][splits[k]:splits[k + 1]]
                 for name in POOLED]
        try:
            restored(value[a:b], impurity[a:b], weight[a:b], shape, impurity_exponents[k],
                     *diffs)
        except ValueError as exc:
            raise ModelFileError(f"tree {k}: {exc}") from None


def member_dtype(name, dtypes):
    """The dtype a member is read back as: its column's (``dtypes``: the plain
    members'), float64 for class counts."""
    if name in (COUNTS, TABLE):
        return np.float64
    if name in RESIDUALS + (POSITIONS,):
        return np.int64
    if name == FROM_RANGE:
        return np.uint8
    for suffix in (SPLITS, LEAVES):
        if name.endswith(suffix):
            return dtypes[name[:-len(suffix)]]
    return dtypes[name]


def _offsets(offsets, length):
    if offsets is None or offsets.dtype != np.int64 or offsets.ndim != 1 or \
            offsets.shape[0] < 2 or offsets[0] != 0 or (np.diff(offsets) < 0).any() or \
            offsets[-1] != length:
        raise ModelFileError("'tree_nodes' must be int64 offsets rising from 0 to the "
                             "length of 'is_leaf'")
    return offsets


def _check_member(name, part, rows, dtype, duplicate, ndim=1):
    if duplicate:
        raise ModelFileError(f"the file holds {name!r} and the whole column too")
    if part.dtype != np.dtype(dtype) or part.ndim != ndim or part.shape[0] != rows:
        raise ModelFileError(f"{name!r} must be {ndim}-D {np.dtype(dtype)} with {rows} rows")
