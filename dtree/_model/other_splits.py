"""The other splits of each node: competitors and surrogates (rpart's definitions).

A *competitor* is the best split on another feature at a node (rpart's "primary
splits" after the first): the exact splitter's search on that feature alone,
over the node's training rows, under the tree's criterion, weights and leaf
limits. Its ``improvement`` is the weighted impurity decrease
``w * imp - w_l * imp_l - w_r * imp_r`` (rpart's ``improve`` for the gini
criterion with unit weights).

A *surrogate* is the split on another feature that best agrees with the
primary split over the node's rows whose primary feature is present (rpart's
``surrogatestyle=0``): agreement is the weight sent the primary's way over the
weight the primary splits, so a surrogate feature missing on many rows is
penalised; ``adj`` is the agreement beyond the majority direction's,
``(agree - majority) / (1 - majority)``. A surrogate must send at least two
rows each way and beat the majority direction; ties go to the lower
threshold, then the lower feature index.

``handle_missing="surrogate"`` routes a row whose primary feature is missing
through the first surrogate whose feature is present, else the majority
direction (rpart's ``usesurrogate=2``): the compiled routing does
(``_route.apply_surrogates``, over ``_model.routing.surrogate_table``). This module
holds the table; the audit computes it (``_fit.audit``).
"""
import numpy as np

COMPETITOR, SURROGATE = 0, 1
# the columns of an OtherSplits table: name -> dtype (the model file's too)
COLUMNS = {
    "node": np.int64,
    "kind": np.uint8,
    "feature": np.int64,
    "threshold": np.float64,        # NaN for a category set
    "category_set": np.int64,       # row of tree.category_sets, -1 for a threshold
    "decided_set": np.int64,        # a category surrogate: the row of the codes it
                                    # decides (rpart: the categories its node held;
                                    # others pass to the next surrogate); else -1
    "improvement": np.float64,      # competitor: weighted impurity decrease in the
                                    # tree's stored units (``Tree.user_decrease``);
                                    # surrogate: agreement (a fraction)
    "adj": np.float64,              # surrogate: adjusted agreement; competitor: 0
    "goes_left": np.uint8,          # competitor: missing values go left;
                                    # surrogate: rows passing the test go left
    "count": np.int64,              # competitor: rows missing the feature;
                                    # surrogate: rows missing the primary it decides
}


class OtherSplits:
    """Competitor and surrogate splits of a tree's nodes, one row each, sorted by
    node, then kind (competitors first), then rank (best first).

    Attributes are the arrays of ``COLUMNS``.
    """

    def __init__(self, **columns):
        for name, dtype in COLUMNS.items():
            setattr(self, name, np.asarray(columns.get(name, ()), dtype=dtype))

    def __len__(self):
        return int(self.node.shape[0])

    def rows(self, node, kind):
        """Row indices of ``node``'s splits of ``kind``, best first."""
        return np.flatnonzero((self.node == node) & (self.kind == kind))

    def renumbered(self, new_id):
        """The rows of nodes that remain internal, their nodes renumbered by ``new_id``
        (-1 for a node that is gone or became a leaf)."""
        keep = new_id[self.node] >= 0
        columns = {name: getattr(self, name)[keep] for name in COLUMNS}
        columns["node"] = new_id[self.node[keep]]
        order = np.lexsort((np.arange(columns["node"].shape[0]), columns["kind"],
                            columns["node"]))
        return OtherSplits(**{name: col[order] for name, col in columns.items()})
