"""The routing rule as Python reads it: category sets, and each split node's rule as data.

The rule itself is compiled once (``_route.pxd``'s ``side``: a number goes
left when at or below the threshold, a category code when it is in the node's
set, a missing value the way the split learnt, or by the node's surrogates).
This module holds what Python needs of it:

- the category-set bit test and its inverse (``codes_in_set``, ``bitset``),
  written once for Python;
- ``node_rule``: a split node's rule as data (its tests in order, then the
  missing side), the one description the SQL and ONNX emitters translate;
- ``surrogate_table``: the surrogates laid out for the compiled routing.
"""
import dataclasses

import numpy as np

from .._route import CATEGORY_SET_WORDS as CAT_WORDS
from .other_splits import SURROGATE

def bitset(codes):
    """One row of ``category_sets``: bit c of word c // 64 set for each code."""
    words = np.zeros(CAT_WORDS, dtype=np.uint64)
    for c in codes:
        words[c // 64] |= np.uint64(1) << np.uint64(c % 64)
    return words


def codes_in_set(words):
    """The category codes a row of ``category_sets`` holds, ascending."""
    bits = np.unpackbits(np.asarray(words, dtype="<u8").view(np.uint8), bitorder="little")
    return np.flatnonzero(bits).tolist()


@dataclasses.dataclass(frozen=True)
class Test:
    """One test of a node's rule.

    A row the test decides (its ``feature`` present; for a category surrogate,
    a code among ``decided``) passes when its value is at most ``threshold``
    (``codes`` None) or is one of ``codes``; passing rows go left when
    ``passes_left`` (a surrogate can send them right).
    """

    feature: int
    threshold: float
    codes: tuple = None
    decided: tuple = None
    passes_left: bool = True


@dataclasses.dataclass(frozen=True)
class NodeRule:
    """Where a row goes at a split node: by the first of ``tests`` that decides it,
    else to the left child when ``missing_left``."""

    tests: tuple
    missing_left: bool


def node_rule(tree, node):
    """The rule of split ``node``: its own test, then (``handle_missing="surrogate"``)
    its surrogates in order, then its missing side."""
    tests = [Test(int(tree.feature[node]), float(tree.threshold[node]),
                  _codes(tree, tree.categorical_set[node]))]
    other = tree.other_splits
    if tree.surrogate_missing and other is not None:
        for k in other.rows(node, SURROGATE):
            tests.append(Test(int(other.feature[k]), float(other.threshold[k]),
                              _codes(tree, other.category_set[k]),
                              _codes(tree, other.decided_set[k]),
                              bool(other.goes_left[k])))
    return NodeRule(tuple(tests), bool(tree.missing_go_to_left[node]))


def _codes(tree, row):
    return None if row < 0 else tuple(codes_in_set(tree.category_sets[row]))


def surrogate_table(tree):
    """The surrogates as ``_route.apply_surrogates`` reads them: per node the range
    ``start[node]:start[node + 1]`` of rows (best first) of feature, threshold,
    category set, decided set and direction."""
    other = tree.other_splits
    if other is None:
        empty_i, empty_f = np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float64)
        return (np.zeros(tree.node_count + 1, dtype=np.intp), empty_i, empty_f, empty_i,
                empty_i, np.zeros(0, dtype=np.uint8))
    rows = np.flatnonzero(other.kind == SURROGATE)      # sorted by node, then rank
    counts = np.bincount(other.node[rows], minlength=tree.node_count)
    start = np.zeros(tree.node_count + 1, dtype=np.intp)
    np.cumsum(counts, out=start[1:])
    return (start, other.feature[rows].astype(np.intp),
            other.threshold[rows].astype(np.float64),
            other.category_set[rows].astype(np.intp), other.decided_set[rows].astype(np.intp),
            other.goes_left[rows].astype(np.uint8))
