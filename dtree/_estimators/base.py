"""The estimators' shared body: the fit pipeline, prediction and the tree's readers.

``fit`` reads as the pipeline: check the parameters (``_plan.constraints``),
choose (``_plan.plan.choose``: registry rows, presets), encode the input
(``_input.encode``), make the plan (every refusal), grow and prune
(``_fit.fit``), and install the fitted state in one step (``_model.fitted``).
predict encodes new X the same way and reads the fitted ``Tree``
(``_model.tree``). Names, defaults and meanings follow scikit-learn's trees so
that switching is a change of import.
"""
import copy

import numpy as np

from .._input import validation as val
from .._input.encode import check_fitted, check_predict_values, encode_predict_X
from .._deploy.model_file import save, to_dict
from .._fit.fit import fit_tree
from .._fit.pruning import RISKS, alpha_of_cp, cost_complexity_path, prune_ccp
from .._model.fitted import Fitted, install, one_fit
from .._model.multiway import kway_shape
from .._plan.constraints import Interval, validate_params
from .._plan.machine import n_threads, spare_threads
from .._route import PARALLEL_ROWS
from .._plan.plan import choose, make_plan
from .analyst import AnalystMixin
from .params import XY_PARAMETERS, ParamsMixin, PathResult, documented


def _finite_numbers(rows, categorical):
    """Whether every value of the numeric columns of ``rows`` is finite."""
    if not categorical.any():
        return False      # (the caller met a non-finite value, and all columns are numbers)
    return bool(np.isfinite(rows[:, ~categorical]).all())


class BaseDecisionTree(AnalystMixin, ParamsMixin):
    """Shared fit / apply / inspection logic of the two estimators."""


    def _tags(self, kind):
        """scikit-learn's tags (imported only when scikit-learn asks for them)."""
        from sklearn.utils import (ClassifierTags, InputTags, RegressorTags, Tags,
                                   TargetTags)

        try:
            choices = choose(self)
            text, outputs = choices.splits_text, not choices.refuses("outputs")
        except ValueError:     # parameters no fit would take: the plainest tags
            text, outputs = False, False
        return Tags(estimator_type=kind,
                    target_tags=TargetTags(required=True, multi_output=outputs),
                    classifier_tags=(ClassifierTags(multi_label=outputs)
                                     if kind == "classifier" else None),
                    regressor_tags=RegressorTags() if kind == "regressor" else None,
                    input_tags=InputTags(allow_nan=self.handle_missing != "error",
                                         string=text, categorical=text, sparse=True))

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Build the tree from training data.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            Features (converted to float32, as scikit-learn does; text and
            category columns as ``categorical_features`` says).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels of any hashable kind (a classifier), or finite real
            targets (a regressor).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None gives every sample weight 1.

        Returns
        -------
        self
        """
        plan, data = self._plan(X, y, sample_weight)
        result = fit_tree(plan, data)
        columns = data.columns
        install(self, Fitted(tree_=result.tree, n_features_in_=columns.n_features_in_,
                             categorical_features_=columns.categorical_features_,
                             categories_=columns.categories_, n_outputs_=result.n_outputs,
                             max_features_=result.max_features,
                             feature_names_in_=columns.feature_names_in_,
                             classes_=data.classes, n_classes_=data.n_classes_attribute,
                             ccp_alpha_=result.ccp_alpha, cp_table_=result.cp_table))
        return self

    def _plan(self, X, y, sample_weight=None):
        """The fit's plan and its encoded training data: parameters checked, presets
        resolved, input encoded, every refusal made (nothing grown yet)."""
        validate_params(self)
        choices = choose(self)
        data = self._training_data(choices, X, y, sample_weight)
        return make_plan(self, choices, data), data

    def _n_threads(self, n_rows=0):
        """Threads for predict from ``n_jobs`` (None: one per available core, and for
        a batch of ``n_rows`` large enough for threads, no more than the cores other
        work leaves free: a thread sharing its core with another process made the
        default's predict slower than one thread)."""
        jobs = getattr(self, "n_jobs", 1)
        threads = n_threads(jobs)
        return spare_threads(threads, jobs) if n_rows >= PARALLEL_ROWS else threads

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Effective alphas and total leaf risks of the minimal cost-complexity pruning.

        Fits an unpruned tree with this estimator's parameters (as scikit-learn
        does) and walks the weakest-link sequence with ``prune_risk``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        dict
            ``ccp_alphas`` (increasing, starting at 0) and ``impurities`` (the
            total leaf risk of the subtree at each alpha); also readable as
            attributes.
        """
        unpruned = copy.deepcopy(self).set_params(ccp_alpha=0.0, pruning="none")
        unpruned.fit(X, y, sample_weight=sample_weight)
        alphas, impurities = cost_complexity_path(unpruned.tree_, self.prune_risk)
        return PathResult(ccp_alphas=alphas, impurities=impurities)

    @one_fit
    def prune(self, ccp_alpha=None, *, cp=None):
        """A copy of this fitted estimator pruned at ``ccp_alpha`` or rpart's ``cp``
        (no refit).

        Parameters
        ----------
        ccp_alpha : float, optional
            Complexity parameter (>= 0), in the units of ``prune_risk``.
        cp : float, optional
            rpart's complexity parameter (>= 0), relative to the root's risk (the
            unit of ``cp_table_``'s CP column): the splits whose complexity is at
            most ``cp`` go, as with rpart's ``prune(fit, cp)``. Give one of the two.

        Returns
        -------
        estimator
            Same class and parameters; ``tree_`` is the minimal cost-complexity
            subtree of this one, with feature importances recomputed from it.
        """
        self._check_fitted()
        if (ccp_alpha is None) == (cp is None):
            raise ValueError("prune takes either ccp_alpha (absolute) or cp (rpart's, "
                             "relative to the root's risk)")
        for name, value in (("ccp_alpha", ccp_alpha), ("cp", cp)):
            if value is not None and not Interval("real", 0.0, None, "left").accepts(value):
                raise ValueError(f"{name} must be a finite float >= 0; got {value!r}")
        if self.prune_risk not in RISKS:
            raise ValueError(f"prune_risk must be one of {list(RISKS)}; got "
                             f"{self.prune_risk!r}")
        if cp is not None:
            ccp_alpha = alpha_of_cp(self.tree_, float(cp), self.prune_risk)
        pruned = copy.deepcopy(self)
        pruned.tree_ = prune_ccp(self.tree_, float(ccp_alpha), self.prune_risk)
        pruned.ccp_alpha_ = float(ccp_alpha)
        return pruned

    # ------------------------------------------------------- persistence
    @one_fit
    def save(self, path):
        """Write this fitted estimator to a model file (read it with ``dtree.load``).

        The file is a versioned archive of plain arrays and a JSON header:
        loading it never executes code. See ``dtree._deploy.model_file``.

        Parameters
        ----------
        path : str, path-like or writable binary file
        """
        save(self, path)

    @one_fit
    def to_dict(self):
        """The fitted estimator as JSON-able Python (read it with ``dtree.from_dict``).

        Returns
        -------
        dict
        """
        return to_dict(self)

    # ------------------------------------------------------------- predict
    @documented("Score of the predictions on the given data, as scikit-learn's mixins "
                "define it.\n\nClassifiers: the mean (weighted) accuracy. Regressors: the "
                "coefficient of determination R^2.", "float", XY_PARAMETERS)
    @one_fit
    def score(self, X, y, sample_weight=None):
        pred = self.predict(X)
        y = val.check_y(y, pred.shape[0], estimator_name=type(self).__name__,
                        multi_output=True, warn_column=False)
        if y.shape[1:] != pred.shape[1:]:
            raise ValueError(f"y has shape {y.shape}; the predictions have {pred.shape}")
        return self._score(y, pred, val.check_sample_weight(sample_weight, pred.shape[0]))

    def __sklearn_is_fitted__(self):
        return hasattr(self, "tree_")

    def _check_fitted(self):
        check_fitted(self)

    def _validate_X_predict(self, X):
        return encode_predict_X(self, X)

    def _at_leaves(self, X, table):
        """``table[leaf]`` (one intp or float64 per node) for each row of X, routed
        with the values unchecked and checked only when the routing met NaN or
        infinity (the check then raises, or finds the NaN allowed): one pass
        over X instead of two."""
        tree = self.tree_
        if not tree.routes_plainly():
            X = self._validate_X_predict(X)
            return table.take(tree.apply(X, self._n_threads(X.shape[0])))
        rows = encode_predict_X(self, X, check_values=False)
        if not isinstance(rows, np.ndarray):        # sparse rows, checked as read
            return table.take(tree.apply(rows, self._n_threads()))
        # (a batch too small for threads skips asking how many there are)
        threads = self._n_threads(rows.shape[0]) if rows.shape[0] >= PARALLEL_ROWS else 1
        out, unusual = tree.lookup(rows, table, threads)
        # NaN in a category column is a missing category, always allowed: only
        # non-finite numbers need the full check (which raises or allows them)
        if unusual and not _finite_numbers(rows, self.categorical_features_):
            check_predict_values(self, X)
        return out

    @documented("Index of the leaf each sample ends up in.",
                "ndarray of shape (n_samples,)\n    Node ids in ``tree_``.")
    @one_fit
    def apply(self, X):
        X = self._validate_X_predict(X)
        return self.tree_.apply(X, self._n_threads(X.shape[0]))

    @documented("Nodes each sample passes through.",
                "scipy.sparse.csr_matrix of shape (n_samples, n_nodes)\n"
                "    Entry (i, j) is 1 when sample i goes through node j.")
    @one_fit
    def decision_path(self, X):
        X = self._validate_X_predict(X)
        return self.tree_.decision_path(X)

    @one_fit
    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0).

        For ``algorithm="id3"`` and ``"c4.5"`` a multiway split (stored as a
        cascade of nodes) is one level, as in Quinlan's trees; ``tree_.max_depth``
        counts the stored nodes.

        Returns
        -------
        int
        """
        self._check_fitted()
        shape = self._kway_shape()
        return self.tree_.max_depth if shape is None else shape[0]

    @one_fit
    def get_n_leaves(self):
        """Number of leaves.

        For ``algorithm="id3"`` and ``"c4.5"``, C4.5's leaves (Weka J48's
        "Number of Leaves"): a multiway split has a leaf for every category of
        its feature, an empty one where no case at the split has it;
        ``tree_.n_leaves`` counts the stored leaves.

        Returns
        -------
        int
        """
        self._check_fitted()
        shape = self._kway_shape()
        return self.tree_.n_leaves if shape is None else shape[1]

    def _kway_shape(self):
        """(depth, leaves, size) of a multiway preset's tree read as C4.5's, else None."""
        if not choose(self).multiway:
            return None
        counts = [0 if c is None else len(c) for c in self.categories_]
        return kway_shape(self.tree_, counts)

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease per feature (Gini importance).

        Returns
        -------
        ndarray of shape (n_features,)
        """
        self._check_fitted()
        return self.tree_.compute_feature_importances()
