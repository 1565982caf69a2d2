"""A fitted tree's node columns in few bytes for pickles, and back, bit for bit.

A forest's pickle is almost all node columns, and most of them say again what
the tree's shape already says. ``compact_columns`` keeps only what cannot be
derived, each derivation checked on the tree at hand before a column is left
out (a column that does not derive exactly is kept whole):

* the shape: trees grown depth first number their nodes in pre-order (a split
  node's left child is the next node), so one bit per node (leaf or not) gives
  both children columns and the depths (``_route.preorder_shape``);
* columns whose leaves all hold one filler (feature -2, threshold -2.0, no
  category set, a NaN range) keep their split nodes' entries only;
* counts that add up at every split node (samples, weighted samples, a
  classifier's weighted class counts, whose division by the weighted samples
  gives its class fractions) keep their leaves' entries only
  (``_route.sum_children`` puts the rest back); a one-output classifier's
  impurities are computed again from those counts by the criterion's own Gini
  formula (``_criterion.gini_impurities``), when that gives them all;
* a regressor's split nodes keep only how their means and impurities differ,
  in bits, from what their children's give (``pooled``), when its numbers are
  moderate; in a forest's pickle its leaves' values are positions in the
  forest's table of them (``leaf_table``);
* a split's threshold is left out where it is the midpoint of the split's
  training range (the exact splitter's rule, ``midpoints``): the
  deepest split nodes of a full-depth tree, which hold two rows;
* what is left is narrowed (``narrow``), each array's bytes grouped by their
  place in a number (a float's sign and exponent bytes repeat; the low bytes of
  small integers are all that is not zero), and compressed together (zlib).

``expand_columns`` puts the columns back. The in-memory tree is unchanged.
"""
import zlib

import numpy as np

from .._criterion import gini_impurities
from .._route import preorder_shape, sum_children
from .leaf_table import LeafTable, table_codes, table_leaves
from .narrow import (byte_planes, from_byte_planes, narrow_ints, narrow_reals, unzigzag,
                     widened, zigzag)
from .pooled import residuals, restored

# 3: thresholds derived from ranges, a forest's leaf table; 2: each array's bytes
# grouped by place, regressors' split nodes as residuals; 1: bytes in order. A
# record is written in the oldest format that holds it.
READABLE = (1, 2, 3)
# how a column is kept from format 3 on
_FORMAT_3 = ("table", "midpoints")
KEY = "_compact_columns"
# the state's forest table of leaf values, when its leaves are positions in it
TABLE_KEY = "_leaf_table"
# the node columns this module stores (each an (n_nodes, ...) array)
_COLUMNS = ("children_left", "children_right", "node_depth", "feature", "threshold",
            "missing_go_to_left", "categorical_set", "feature_range", "n_node_samples",
            "scaled_weighted_n_node_samples", "value", "scaled_impurity")
_SHAPE = ("children_left", "children_right", "node_depth")
_FILLED = ("feature", "threshold", "missing_go_to_left", "categorical_set", "feature_range")
_SUMMED = ("n_node_samples", "scaled_weighted_n_node_samples")


class Derivable:
    """What one tree's columns let a writer leave out, each derivation checked on
    the tree (``derivable``): pickles (``compact_columns``) and forest files
    (``_deploy.compact_members``) decide by it.

    Attributes
    ----------
    shape : (left, right, depth)
        The pre-order shape the leaf flags give (equal to the tree's columns).
    leaf : ndarray of bool
    fillers : dict
        For each column given as filled, the leaves' one filler (a 1-row array),
        or None when the leaves hold several values.
    adds_up : dict
        For each summed column (and ``"value"`` when there are class counts),
        whether every split node holds its children's sum.
    counts : ndarray or None
        A classifier's whole weighted class counts, dividing back to its class
        fractions bit for bit.
    impurity_from_counts : bool
        The criterion's Gini formula gives every impurity from the counts.
    """

    def __init__(self, shape, leaf, fillers, adds_up, counts, impurity_from_counts):
        self.shape, self.leaf, self.fillers = shape, leaf, fillers
        self.adds_up, self.counts = adds_up, counts
        self.impurity_from_counts = impurity_from_counts


def derivable(shape_columns, filled, summed, value, weight, impurity, is_classifier):
    """A ``Derivable`` for one tree, or None when its nodes are not in pre-order.

    ``shape_columns``: (children_left, children_right, node_depth); ``filled``,
    ``summed``: name -> column; ``value``, ``weight``, ``impurity``: the class
    fractions (or means), weighted samples and impurities as the tree stores them.
    """
    leaf = shape_columns[0] < 0
    shape = preorder_shape(leaf.view(np.uint8))
    if shape is None or not all(np.array_equal(a, b) for a, b in zip(shape, shape_columns)):
        return None
    fillers = {name: _filler(column, leaf) for name, column in filled.items()}
    counts = whole_counts(value, weight) if is_classifier else None
    sums = dict(summed, **({} if counts is None else {"value": counts}))
    adds_up = adding_up(sums, shape)
    from_counts = counts is not None and adds_up["value"] and counts.shape[1] == 1 and \
        np.array_equal(gini(counts, weight), impurity)
    return Derivable(shape, leaf, fillers, adds_up, counts, bool(from_counts))


def _filler(column, leaf):
    # the leaves' one filler (a 1-row array), or None when they hold several
    leaves = column[leaf]
    fill = leaves[:1]
    if fill.shape[0] and np.array_equal(leaves, np.broadcast_to(fill, leaves.shape),
                                        equal_nan=column.dtype.kind == "f"):
        return fill
    return None


def compact_columns(state, leaf_table=None):
    """``state`` (a ``Tree``'s ``__dict__`` copy) with its node columns replaced by
    one compressed record under ``KEY``; the state as it is when its columns are
    not the arrays a fitted tree holds. With a forest's ``leaf_table``, a
    regressor's leaf values are kept as positions in it (a ``LeafTable``)."""
    columns = {name: state.get(name) for name in _COLUMNS}
    if not all(isinstance(c, np.ndarray) for c in columns.values()):
        return state
    n = columns["children_left"].shape[0]
    if n == 0 or any(c.shape[0] != n for c in columns.values()):
        return state
    kept = {}          # name -> (how, array, filler): how the reader rebuilds it
    tree = derivable([columns[name] for name in _SHAPE],
                     {name: columns[name] for name in _FILLED},
                     {name: columns[name] for name in _SUMMED}, columns["value"],
                     columns["scaled_weighted_n_node_samples"], columns["scaled_impurity"],
                     bool(state.get("is_classifier")))
    if tree is not None:
        leaf = tree.leaf
        kept["shape"] = ("bits", np.packbits(leaf))
        for name, fill in tree.fillers.items():
            if fill is not None:
                kept[name] = ("inner", columns[name][~leaf], fill)
        for name in _SUMMED:
            if tree.adds_up[name]:
                kept[name] = ("leaves", columns[name][leaf])
        if tree.counts is not None and tree.adds_up["value"]:
            kept["value"] = ("leaves", tree.counts[leaf])
            if tree.impurity_from_counts:
                kept["scaled_impurity"] = ("from_counts", np.zeros(0))
        if not state.get("is_classifier"):
            _keep_residuals(kept, columns, tree, int(state.get("impurity_exponent", 0)))
            if leaf_table is not None and kept.get("value", ("",))[0] == "children":
                codes = table_codes(kept["value"][1], leaf_table.values)
                if codes is not None:
                    kept["value"] = ("table", codes)
        _keep_derived_thresholds(kept)
    for name in _COLUMNS:
        if not (name in _SHAPE and "shape" in kept):
            kept.setdefault(name, ("all", columns[name]))
    out = {k: v for k, v in state.items() if k not in _COLUMNS}
    out[KEY] = _packed_record(kept, n)
    if kept.get("value", ("",))[0] == "table":
        out[TABLE_KEY] = leaf_table        # (the forest's shared ``LeafTable``)
    return out


def expand_columns(state):
    """The node columns of a ``compact_columns`` record put back in ``state`` (its
    forest's table of leaf values read where its leaves are positions in it)."""
    leaf_table = state.pop(TABLE_KEY, None)
    record = state.pop(KEY, None)
    if record is None:
        return state
    version, n, manifest, blob = record
    if version not in READABLE:
        raise ValueError(f"this tree was pickled in column format {version}; this dtree "
                         f"reads formats {READABLE[0]} to {READABLE[-1]}")
    kept = _unpacked(manifest, zlib.decompress(blob), grouped=version >= 2)
    if kept.get("value", ("",))[0] == "table":
        if not isinstance(leaf_table, LeafTable) or "shape" not in kept:
            raise ValueError("a pickled tree's leaf values are positions in a table it "
                             "does not hold")
        n_leaves = int(np.unpackbits(kept["shape"][1], count=n).sum())
        kept["value"] = ("children", table_leaves(kept["value"][1], leaf_table.values,
                                                  n_leaves))
    differences = {name: kept.pop(name)[1] for name in _RESIDUALS if name in kept}
    shape = None
    if "shape" in kept:
        shape = preorder_shape(np.unpackbits(kept.pop("shape")[1], count=n))
        if shape is None or shape[0].shape[0] != n:
            raise ValueError("a pickled tree's shape is no binary tree")
        state.update(zip(_SHAPE, shape))
    summed = {name: entry[1] for name, entry in kept.items() if entry[0] == "leaves"}
    if summed:
        if shape is None:
            raise ValueError("a pickled tree's sums need its shape")
        state.update(summed_up(summed, shape))
    derived = kept.pop(_DERIVED_THRESHOLDS, None)
    sides = _sides(shape)
    for name, entry in kept.items():
        if entry[0] == "all":
            state[name] = entry[1]
        elif entry[0] == "inner":
            state[name] = _filled(entry, sides, n, name)
        elif entry[0] == "children":
            state[name] = _at_leaves(entry[1], sides, n, name)
    if differences or any(entry[0] == "children" for entry in kept.values()):
        _restore(state, kept, differences, shape, n)
    if (derived is None) != (kept.get("threshold", ("",))[0] != "midpoints"):
        raise ValueError("a pickled tree's thresholds and their ranges come together")
    if derived is not None:
        state["threshold"] = _derived_thresholds(kept["threshold"], derived[1], state,
                                                 sides, n)
    if kept["value"][0] == "leaves":     # class counts: fractions of the weighted samples
        weight = state["scaled_weighted_n_node_samples"]
        if kept["scaled_impurity"][0] == "from_counts":
            state["scaled_impurity"] = gini(state["value"], weight)
        state["value"] = state["value"] / weight[:, None, None]
    elif kept["scaled_impurity"][0] == "from_counts":
        raise ValueError("a pickled tree's impurities need its class counts")
    for name in _COLUMNS:
        if not (isinstance(state.get(name), np.ndarray) and state[name].shape[0] == n):
            raise ValueError(f"a pickled tree's {name} does not fit its {n} nodes")
    return state


# ------------------------------------------------------------------ columns
# a regressor's column kept at its leaves ("children"), and its split nodes'
# differences to what their children give
_RESIDUALS = {"value_residuals": "value", "impurity_residuals": "scaled_impurity"}


def _keep_residuals(kept, columns, tree, impurity_exponent):
    leaf = tree.leaf
    differences = residuals(columns["value"], columns["scaled_impurity"],
                            columns["scaled_weighted_n_node_samples"], tree.shape,
                            impurity_exponent)
    for (residual_name, name), difference in zip(_RESIDUALS.items(), differences):
        if difference is not None:
            kept[name] = ("children", columns[name][leaf])
            kept[residual_name] = ("residuals", zigzag(difference))


# a split node's threshold left out where it is its range's midpoint (a bit per
# split node says where)
_DERIVED_THRESHOLDS = "threshold_from_range"


def midpoints(a, b):
    """The exact splitter's threshold between float32 values a < b, elementwise
    (``_splitter.midpoint``'s rule, in numpy's float64 operations: the same bits
    on every machine)."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    t = a / 2.0 + b / 2.0
    bad = (t >= b) | np.isinf(t)
    t[bad] = a[bad]
    return t


def at_midpoints(threshold, low, high):
    """Where a split's threshold is, bit for bit, the midpoint of its training
    range (float32 values low < high) by the splitter's rule (``midpoints``):
    the thresholds pickles and forest files leave out."""
    with np.errstate(all="ignore"):
        single = (low.astype(np.float32).astype(np.float64) == low) & \
            (high.astype(np.float32).astype(np.float64) == high) & (low < high)
        middle = midpoints(low.astype(np.float32), high.astype(np.float32))
    return single & (middle.view(np.int64) == threshold.astype(np.float64).view(np.int64))


def _keep_derived_thresholds(kept):
    threshold, ranges = kept.get("threshold"), kept.get("feature_range")
    if threshold is None or ranges is None or threshold[0] != "inner" or \
            ranges[0] != "inner" or ranges[1].shape != (threshold[1].shape[0], 2) or \
            threshold[1].shape[0] == 0:
        return
    same = at_midpoints(threshold[1], ranges[1][:, 0], ranges[1][:, 1])
    if same.mean() < 0.05:
        return       # (a bit per split node for too few)
    kept["threshold"] = ("midpoints", threshold[1][~same], threshold[2])
    kept[_DERIVED_THRESHOLDS] = ("bits", np.packbits(same))


def _sides(shape):
    # (the leaves' node ids, the split nodes') of a tree's shape, or None
    if shape is None:
        return None
    leaf = shape[0] < 0
    return np.flatnonzero(leaf), np.flatnonzero(~leaf)


def _derived_thresholds(entry, bits, state, sides, n):
    ranges = state.get("feature_range")
    if sides is None or not isinstance(ranges, np.ndarray) or ranges.shape != (n, 2):
        raise ValueError("a pickled tree's thresholds need its shape and ranges")
    inner = sides[1]
    same = np.unpackbits(bits, count=inner.shape[0]).astype(bool)
    if entry[1].shape != ((~same).sum(),):
        raise ValueError("a pickled tree's thresholds do not fit its split nodes")
    threshold = np.full(n, entry[2], dtype=np.float64)
    low, high = ranges[inner[same], 0], ranges[inner[same], 1]
    with np.errstate(all="ignore"):
        threshold[inner[same]] = midpoints(low.astype(np.float32), high.astype(np.float32))
    threshold[inner[~same]] = entry[1]
    return threshold


def _at_leaves(leaves, sides, n, name):
    if sides is None or leaves.shape[0] != sides[0].shape[0]:
        raise ValueError(f"a pickled tree's {name} does not fit its leaves")
    column = np.zeros((n,) + leaves.shape[1:], dtype=np.float64)
    column[sides[0]] = leaves
    return column


def _restore(state, kept, differences, shape, n):
    # the split nodes of the columns kept at their leaves, from their residuals
    by_column = {}
    for residual_name, name in _RESIDUALS.items():
        if (kept.get(name, ("",))[0] == "children") != (residual_name in differences):
            raise ValueError(f"a pickled tree's {name} and its residuals come together")
        by_column[name] = differences.get(residual_name)
    weight = state.get("scaled_weighted_n_node_samples")
    value, impurity = state.get("value"), state.get("scaled_impurity")
    if not all(isinstance(c, np.ndarray) and c.dtype == np.float64 and c.shape[:1] == (n,)
               for c in (weight, value, impurity)) or value.ndim != 3:
        raise ValueError("a pickled tree's residuals need its values, impurities and "
                         "weights")
    restored(value, impurity, weight, shape, int(state.get("impurity_exponent", 0)),
             *(None if d is None else unzigzag(d) for d in by_column.values()))


def _filled(entry, sides, n, name):
    if sides is None or entry[1].shape[0] != sides[1].shape[0]:
        raise ValueError(f"a pickled tree's {name} does not fit its split nodes")
    column = np.empty((n,) + entry[1].shape[1:], dtype=entry[1].dtype)
    column[...] = entry[2]
    column[sides[1]] = entry[1]
    return column


def whole_counts(value, weight):
    """``value`` (class fractions, (n, outputs, classes)) times ``weight`` when that
    gives whole numbers below 2**31 that divide back to ``value`` bit for bit;
    else None."""
    with np.errstate(all="ignore"):
        counts = np.rint(value * weight[:, None, None])
        if (weight > 0).all() and np.isfinite(counts).all() and \
                np.abs(counts).max(initial=0) < 2**31 and \
                np.array_equal(counts / weight[:, None, None], value):
            return counts
    return None


def gini(counts, weight):
    """One output's Gini impurities from its weighted class counts ((n, 1, classes))
    and weights, by the criterion's own formula."""
    return gini_impurities(np.ascontiguousarray(counts[:, 0, :], dtype=np.float64),
                           np.ascontiguousarray(weight, dtype=np.float64))


def _as_matrix(columns, n):
    # the columns side by side as float64 (counts below 2**53 add exactly)
    return np.ascontiguousarray(np.concatenate(
        [np.asarray(c, dtype=np.float64).reshape(n, -1) for c in columns], axis=1))


def adding_up(sums, shape):
    """Which of ``sums``' columns hold at every split node its children's sum."""
    n = shape[0].shape[0]
    leaf = shape[0] < 0
    matrix = _as_matrix(sums.values(), n)
    rebuilt = np.where(leaf[:, None], matrix, 0.0)
    sum_children(rebuilt, shape[0], shape[1])
    out, at = {}, 0
    for name, column in sums.items():
        width = int(np.prod(column.shape[1:], dtype=np.int64))
        block = rebuilt[:, at:at + width].reshape(column.shape)
        out[name] = bool(np.array_equal(block.astype(column.dtype), column)) and \
            bool(np.array_equal(block, matrix[:, at:at + width].reshape(column.shape)))
        at += width
    return out


def summed_up(leaves, shape):
    """Whole columns from their leaves' entries, split nodes summed."""
    n = shape[0].shape[0]
    leaf = shape[0] < 0
    for name, column in leaves.items():
        if column.shape[0] != leaf.sum():
            raise ValueError(f"a pickled tree's {name} does not fit its leaves")
    matrix = np.zeros((n, sum(int(np.prod(c.shape[1:], dtype=np.int64))
                              for c in leaves.values())))
    matrix[leaf] = _as_matrix(leaves.values(), int(leaf.sum()))
    sum_children(matrix, shape[0], shape[1])
    out, at = {}, 0
    for name, column in leaves.items():
        width = int(np.prod(column.shape[1:], dtype=np.int64))
        out[name] = matrix[:, at:at + width].reshape((n,) + column.shape[1:]).astype(
            column.dtype if name != "value" else np.float64)
        at += width
    return out


# ------------------------------------------------------------------ storage
def _packed_record(kept, n):
    # every array narrowed and laid end to end in one compressed blob; the
    # manifest says how to cut it and what each array was
    manifest, chunks = [], []
    for name, entry in kept.items():
        how, data = entry[0], entry[1]
        stored = _narrowed(data)
        filler = np.asarray(entry[2]).tolist() if len(entry) > 2 else None
        manifest.append((name, how, stored.dtype.str, data.dtype.str, stored.shape, filler))
        chunks.append(_grouped(stored))
    version = 3 if any(entry[0] in _FORMAT_3 for entry in kept.values()) else 2
    return (version, n, manifest, zlib.compress(b"".join(chunks), 1))


def _grouped(array):
    # the array's bytes, first byte of every number, then every second byte, ...
    return byte_planes(array).tobytes()


def _narrowed(data):
    if data.dtype.kind in "iu" and data.dtype.itemsize == 8:
        return narrow_ints(data)
    if data.dtype == np.float64:
        return narrow_reals(data)
    return data


def _unpacked(manifest, raw, grouped=True):
    kept, at = {}, 0
    for name, how, stored, dtype, shape, filler in manifest:
        stored, dtype = np.dtype(stored), np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        if at + count * stored.itemsize > len(raw):
            raise ValueError("a pickled tree's columns are cut short")
        if grouped and stored.itemsize > 1:
            data = from_byte_planes(np.frombuffer(
                raw, dtype=np.uint8, count=count * stored.itemsize,
                offset=at).reshape(stored.itemsize, count), stored).reshape(shape)
        else:
            data = np.frombuffer(raw, dtype=stored, count=count, offset=at).reshape(shape)
        at += count * stored.itemsize
        data = widened(data, dtype) if stored != dtype else data.copy()
        entry = (how, data) if filler is None else (how, data, np.asarray(filler, dtype=dtype))
        kept[name] = entry
    return kept
