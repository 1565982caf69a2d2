"""The audit's computation: every split node's competitor and surrogate splits."""
import numpy as np

from .._model.other_splits import COLUMNS, SURROGATE, OtherSplits
from .._model.routing import bitset
from .._route import CATEGORY_SET_WORDS as CAT_WORDS
from .._splitter import Splitter


def attach(tree, X, y, w, *, search, n_categories, n_competitors, n_surrogates,
           surrogate_missing):
    """Compute and attach (``tree.other_splits``) every split node's competitors and
    surrogates from the rows the tree was grown on (X float32 dense, y as the
    builder's, w > 0) in one replay of the growth (``_audit_scan``), under the
    splitters' settings ``search`` (every feature, by index); with
    ``surrogate_missing``, missing primaries route by surrogates
    (``missing_go_to_left`` becomes the majority direction)."""
    from .._audit_scan import replay
    splitter = Splitter(X, y, w, search, n_categories)
    found = replay(splitter, tree, n_competitors, n_surrogates)
    if surrogate_missing:
        tree.missing_go_to_left = found["majority_left"]
    records, sets = [], [row for row in tree.category_sets]
    for rec in sorted(found["rows"], key=lambda r: (r["node"], r["kind"])):
        codes, decided = rec.pop("codes"), rec.pop("decided")
        if rec["kind"] == SURROGATE:
            # fractions of weights summed in other orders: rounding may pass 1 by an ulp
            rec["improvement"], rec["adj"] = min(rec["improvement"], 1.0), min(rec["adj"], 1.0)
        rec["category_set"] = -1 if codes is None else len(sets)
        if codes is not None:
            sets.append(bitset(codes))
        rec["decided_set"] = -1 if decided is None else len(sets)
        if decided is not None:
            sets.append(bitset(decided))
        records.append(rec)
    tree.category_sets = np.asarray(sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    tree.other_splits = OtherSplits(**{
        name: [r[name] for r in records] for name in COLUMNS})
    tree.surrogate_missing = bool(surrogate_missing)
    tree.forget_routing()      # missing_go_to_left may have changed
    return tree
