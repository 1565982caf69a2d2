"""rpart's analyst tools on the estimators: ``summary``, ``snip``, ``simplify`` and the
honest leaves (``leaf_support``, ``outside_training_range``, ``predict_interval``).

Each method reads the fitted model (``_model``) or the export layer; none grows a tree.
"""
import copy

import numpy as np

from ..export.rpart import printcp_text
from ..export.summary import summary_text
from .._fit.pruning import cp_table
from .._model.names import feature_names_of
from .._model.numbering import node_ids_of
from .._model.editing import merged_leaves, snip_leaves
from .._model.fitted import one_fit
from .._model.leaves import check_confidence, outside_range, wilson_interval
from .params import documented


class AnalystMixin:
    """The estimators' analyst methods: fitted copies edited by hand, the rpart report,
    and what each leaf rests on."""


    @one_fit
    def summary(self, *, feature_names=None, file=None):
        """Print and return a node-by-node report (rpart's ``summary.rpart``).

        Parameters
        ----------
        feature_names : list of str, optional
            Defaults to ``feature_names_in_`` or ``feature_<i>``.
        file : writable text file, optional
            Where to print (default: standard output); ``False`` prints nothing.

        Returns
        -------
        str
            The report.
        """
        text = summary_text(self, feature_names)
        if file is not False:
            print(text, end="", file=file)
        return text


    @one_fit
    def snip(self, nodes, *, numbering="tree"):
        """A copy with the subtrees under the given nodes removed (rpart's ``snip.rpart``).

        Parameters
        ----------
        nodes : int or sequence of int
            The nodes to make leaves, each predicting its own value.
        numbering : {"tree", "rpart"}, default="tree"
            "tree": node ids of ``tree_`` (pre-order, root 0); "rpart": rpart's
            node numbers, as ``summary`` and ``export_text(layout="rpart")`` print
            them (root 1, node k's children 2k and 2k + 1), so an R user's
            ``snip.rpart(fit, toss=c(...))`` numbers carry over.

        Returns
        -------
        estimator
            A fitted copy (nodes renumbered in pre-order); this one is unchanged.
        """
        self._check_fitted()
        if numbering not in ("tree", "rpart"):
            raise ValueError(f"numbering must be 'tree' or 'rpart'; got {numbering!r}")
        if numbering == "rpart":
            nodes = node_ids_of(self.tree_, np.atleast_1d(np.asarray(nodes, dtype=object)))
        return self._with_tree(self.tree_.subtree(snip_leaves(self.tree_, nodes)))

    @one_fit
    def printcp(self, *, file=None):
        """Print and return rpart's ``printcp``: the kind of tree, the variables its
        splits use, the root's error (or impurity, with ``prune_risk="impurity"``)
        and n, then the CP table (``cp_table_`` when ``ccp_alpha="cv"``, else the
        table of this tree's pruning sequence without the cross-validated columns).

        Parameters
        ----------
        file : writable text file, optional
            Where to print (default: standard output); ``False`` prints nothing.

        Returns
        -------
        str
        """
        self._check_fitted()
        table = getattr(self, "cp_table_", None)
        if table is None:
            table = cp_table(self.tree_, self.prune_risk)[0]
        text = printcp_text(self, table, feature_names_of(self, None))
        if file is not False:
            print(text, end="", file=file)
        return text

    @one_fit
    def simplify(self):
        """A copy where sibling leaves that predict the same are merged into their parent,
        repeatedly: the same ``predict`` for every input, with fewer nodes.

        Returns
        -------
        estimator
            A fitted copy; this one is unchanged. (``predict_proba`` of a merged
            leaf is its parent's class fractions.)
        """
        self._check_fitted()
        return self._with_tree(self.tree_.subtree(merged_leaves(self.tree_)))

    def _with_tree(self, tree):
        edited = copy.copy(self)
        edited.__dict__ = {k: copy.deepcopy(v) if k != "tree_" else tree
                           for k, v in self.__dict__.items()}
        return edited


    @documented("Training samples in the leaf each row reaches.",
                "ndarray of shape (n_samples,), int\n"
                "    ``tree_.n_node_samples`` of the leaf (positive-weight training rows).")
    @one_fit
    def leaf_support(self, X):
        return self.tree_.n_node_samples[self.apply(X)]

    @documented("Rows whose value at some split on their path lies outside the training "
                "range of that split's feature at that node.\n\nEach split node records "
                "the smallest and largest value of its numeric feature among the training "
                "rows it split; a row is flagged when its (present) value at such a node "
                "is below or above them, that is where the tree extrapolates. Missing "
                "values and category splits never flag.", "ndarray of shape (n_samples,), bool")
    @one_fit
    def outside_training_range(self, X):
        self._check_fitted()
        tree = self.tree_
        if tree.feature_range is None:
            raise ValueError("this model holds no training ranges (grown by dtree.dask, "
                             "which keeps no rows on the client, or read from a file "
                             "written before dtree recorded them)")
        Xv = self._validate_X_predict(X)
        return outside_range(tree, Xv, tree.apply(Xv, self._n_threads()))

    @one_fit
    def predict_interval(self, X, confidence=0.95):
        """An interval for each prediction, from the training data of its leaf.

        Classifier: the Wilson score interval of each class's fraction in the
        leaf (from its weighted fraction and its count of training rows), so a
        leaf of 3 rows gives a wide interval whatever its fractions.
        Regressor (fitted with ``keep_leaf_targets=True``): the weighted
        ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the
        leaf's training targets, an interval that holds about ``confidence``
        of the targets a leaf like it sees.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        confidence : float in (0, 1), default=0.95

        Returns
        -------
        lower, upper : ndarrays
            Shaped as ``predict_proba`` (classifier; a list per output with
            several) or as ``predict`` (regressor).
        """
        confidence = check_confidence(confidence)
        self._check_fitted()
        tree = self.tree_
        leaves = self.apply(X)
        if tree.is_classifier:
            counts = tree.n_node_samples[leaves][:, None]
            bounds = [wilson_interval(tree.value[leaves, k, :n], counts, confidence)
                      for k, n in enumerate(tree.n_classes)]
            if self.n_outputs_ == 1:
                return bounds[0]
            return [b[0] for b in bounds], [b[1] for b in bounds]
        if tree.leaf_targets is None:
            raise ValueError("a regressor's predict_interval reads its leaves' training "
                             "targets: fit with keep_leaf_targets=True")
        ids, values = tree.leaf_targets.quantiles(((1 - confidence) / 2,
                                                   (1 + confidence) / 2))
        at = np.full(tree.node_count, -1, dtype=np.intp)
        at[ids] = np.arange(ids.shape[0])
        lower, upper = values[at[leaves], :, 0], values[at[leaves], :, 1]
        if self.n_outputs_ == 1:
            return lower[:, 0], upper[:, 0]
        return lower, upper
