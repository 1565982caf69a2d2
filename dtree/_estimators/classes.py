"""DecisionTreeClassifier and DecisionTreeRegressor: the public estimators.

Each ``fit`` reads as the pipeline: check the parameters (``_params``),
encode the input (``_encode``), then grow and prune (``_fit``); predict
encodes new X the same way and reads the fitted ``Tree`` (``_nodes``). Names,
defaults and meanings follow scikit-learn's trees so that switching is a
change of import.
"""
import copy
import math

import numpy as np

from .._input import validation as val
from .params import XY_PARAMETERS, ParamsMixin, PathResult, documented, register
from .._model.editing import EditingMixin
from .._model.leaves import LeavesMixin
from ..export.summary import SummaryMixin
from .._input.encode import (check_fitted, check_label_kinds, check_regression_target,
                             class_weighted, encode_fit_X, encode_label_columns, encode_predict_X,
                             friedman_alias, numeric_target)
from .._fit.fit import fit_tree, outputs_refusals, resolve_params
from .._deploy.model_file import save, to_dict
from .._plan.constraints import CLASSIFIER, REGRESSOR, is_real, n_threads, validate_params
from .._plan.presets import splits_text
from .._fit.pruning import RISKS, cost_complexity_path, prune_ccp
from .._model.units import power_of_two_scale, scaled


class BaseDecisionTree(EditingMixin, SummaryMixin, LeavesMixin, ParamsMixin):
    """Shared fit / apply / inspection logic of the two estimators."""


    def _tags(self, kind):
        """scikit-learn's tags (imported only when scikit-learn asks for them)."""
        from sklearn.utils import (ClassifierTags, InputTags, RegressorTags, Tags,
                                   TargetTags)

        text = splits_text(self)
        return Tags(estimator_type=kind,
                    target_tags=TargetTags(required=True,
                                           multi_output=not outputs_refusals(self)),
                    classifier_tags=(ClassifierTags(multi_label=not outputs_refusals(self))
                                     if kind == "classifier" else None),
                    regressor_tags=RegressorTags() if kind == "regressor" else None,
                    input_tags=InputTags(allow_nan=self.handle_missing != "error",
                                         string=text, categorical=text, sparse=True))

    # ------------------------------------------------------------------ fit
    def _resolve_params(self, n_samples, n_features, total_weight):
        """The builder's numbers for data of this size (see ``_fit.resolve_params``)."""
        return resolve_params(self, n_samples, n_features, total_weight)

    def _n_threads(self):
        """Threads for fit and predict from ``n_jobs`` (None: one per available core)."""
        return n_threads(getattr(self, "n_jobs", 1))

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

    def prune(self, ccp_alpha):
        """A copy of this fitted estimator pruned at ``ccp_alpha`` (no refit).

        Parameters
        ----------
        ccp_alpha : float
            Complexity parameter (>= 0), in the units of ``prune_risk``.

        Returns
        -------
        estimator
            Same class and parameters; ``tree_`` is the minimal cost-complexity
            subtree of this one, with feature importances recomputed from it.
        """
        self._check_fitted()
        if not is_real(ccp_alpha) or not math.isfinite(ccp_alpha) or ccp_alpha < 0:
            raise ValueError(f"ccp_alpha must be a finite float >= 0; got {ccp_alpha!r}")
        if self.prune_risk not in RISKS:
            raise ValueError(f"prune_risk must be one of {list(RISKS)}; got "
                             f"{self.prune_risk!r}")
        pruned = copy.deepcopy(self)
        pruned.tree_ = prune_ccp(self.tree_, float(ccp_alpha), self.prune_risk)
        pruned.ccp_alpha_ = float(ccp_alpha)
        return pruned

    # ------------------------------------------------------- persistence
    def save(self, path):
        """Write this fitted estimator to a model file (read it with ``dtree.load``).

        The file is a versioned archive of plain arrays and a JSON header:
        loading it never executes code. See ``dtree._io``.

        Parameters
        ----------
        path : str, path-like or writable binary file
        """
        save(self, path)

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

    @documented("Index of the leaf each sample ends up in.",
                "ndarray of shape (n_samples,)\n    Node ids in ``tree_``.")
    def apply(self, X):
        X = self._validate_X_predict(X)
        return self.tree_.apply(X, self._n_threads())

    @documented("Nodes each sample passes through.",
                "scipy.sparse.csr_matrix of shape (n_samples, n_nodes)\n"
                "    Entry (i, j) is 1 when sample i goes through node j.")
    def decision_path(self, X):
        X = self._validate_X_predict(X)
        return self.tree_.decision_path(X)

    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0).

        Returns
        -------
        int
        """
        self._check_fitted()
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves.

        Returns
        -------
        int
        """
        self._check_fitted()
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease per feature (Gini importance).

        Returns
        -------
        ndarray of shape (n_features,)
        """
        self._check_fitted()
        return self.tree_.compute_feature_importances()


def _common_dtype(arrays):
    """One dtype for the labels of every output: numbers stay numbers, text stays
    text, and a mix of the two becomes object (neither turns into the other)."""
    if all(a.dtype.kind in "biuf" for a in arrays) or all(a.dtype.kind in "US" for a in arrays):
        return np.result_type(*[a.dtype for a in arrays])
    return object


@register
class DecisionTreeClassifier(BaseDecisionTree):
    """Exact CART decision tree classifier.

    Every split is the exact best of its criterion among the midpoints of
    consecutive distinct values of every feature (ties go to the smallest
    feature index, then to the smallest threshold). On data without such ties the
    tree equals scikit-learn's node by node.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "gain_ratio"}, default="gini"
        Split quality. "log_loss" is an alias of "entropy" (information gain);
        "gain_ratio" is C4.5's information gain divided by the split information.
    splitter : {"best", "random", "hist"}, default="best"
        Split search. "best": the exact presorted scan. "random": one threshold
        per drawn feature, uniform between the node's least and greatest value,
        the best of those cuts kept (scikit-learn's random splitter; see
        ``ExtraTreeClassifier``). "hist": each feature
        binned into at most ``max_bins`` quantile bins (one per distinct value
        when there are that few; bins are fitted on 200,000 sampled rows at
        most), per-node histograms (the larger child's by subtracting the
        smaller's from its parent's), and cuts between the bins present in a
        node at the midpoint of their nearest values; nodes under 512 samples
        sort them instead. Where every feature has at most ``max_bins``
        distinct values (and at most 200,000 rows), it finds the exact tree,
        depth-first or best-first (``max_leaf_nodes``). Not yet with
        categorical features or the ID3 / C4.5 presets.
    max_depth : int or None, default=None
        Maximum depth; None grows until the other limits stop it.
    min_samples_split : int or float, default=2
        Minimum samples to split a node (a float is a fraction of n_samples).
    min_samples_leaf : int or float, default=1
        Minimum samples in each leaf (a float is a fraction of n_samples).
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each leaf.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random for each split (None: all).
    random_state : int in [0, 2**32 - 1], RandomState, Generator or None, default=None
        As scikit-learn's: it seeds the generator that draws, at every node, the
        order in which features are visited (and which, with ``max_features``
        below the feature count). Ties between splits go to the feature visited
        first, so the same value gives scikit-learn's tree. None draws a fresh
        seed from numpy's global RandomState at each fit.

    Every parameter is checked when ``fit`` starts, those the configuration
    does not use included; a bad one raises ``InvalidParameterError`` (a
    ValueError and a TypeError) naming it. Integer sizes beyond what the data
    allows (``max_leaf_nodes``, ``max_depth``, ``min_samples_*`` above the
    number of samples) act as that bound.

    Weights and targets may have any scale: uniform sample weights give the
    unit-weight tree, and weights anywhere in float64 or targets up to
    ±1e308 give the tree of the same data in moderate units (see
    ``dtree._scaling``).
    max_leaf_nodes : int or None, default=None
        Grow best-first with at most this many leaves.
    min_impurity_decrease : float, default=0.0
        Split only if ``N_t / N * (impurity - N_tR / N_t * right_impurity
        - N_tL / N_t * left_impurity)`` reaches this value (weighted counts).
    class_weight : dict, list of dicts, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights. With several
        outputs, "balanced" or one dict per output (their weights multiplied).
    ccp_alpha : float or "cv", default=0.0
        Minimal cost-complexity pruning: the subtree minimising
        ``R(T) + ccp_alpha * |leaves|``. ``"cv"`` chooses alpha by ``cv``-fold
        cross-validation over the pruning sequence with rpart's rule
        (``cv_rule``); the table is kept in ``cp_table_``.
    prune_risk : {"impurity", "misclassification"}, default="impurity"
        R(T) of the cost-complexity pruning: the weighted impurity of the leaves
        (scikit-learn) or their weighted misclassification (rpart). For
        regression both mean the squared error.
    pruning : {None, "none", "pessimistic", "reduced_error"}, default=None
        None: the ``algorithm`` preset's (pessimistic for "c4.5", else none);
        "none": no pruning. "pessimistic": C4.5's subtree replacement with
        confidence ``cf`` (classifiers). "reduced_error": pruning against a
        held-out ``validation_fraction`` of the training data (the tree then
        grows on the rest).
    cv : int, CV splitter or iterable of (train, test) indices, default=10
        Folds for ``ccp_alpha="cv"``: an int gives that many random folds
        (stratified for classifiers, drawn with ``random_state``).
    cv_rule : {"1se", "min"}, default="1se"
        The simplest tree within one standard error of the best
        cross-validated error, or the best.
    cf : float, default=0.25
        C4.5's confidence factor for ``pruning="pessimistic"``, in (0, 0.5].
    validation_fraction : float, default=0.1
        Held-out fraction for ``pruning="reduced_error"``.
    handle_missing : {"split", "surrogate", "error"}, default="split"
        NaN in X is a missing value: "split" learns, at each split, whether
        missing values go left or right (both are tried, as is a split on
        missingness alone); where a node saw none at fit, NaN follows the child
        with more samples. "surrogate" grows the same tree, then at predict a
        row missing a node's feature follows that node's first surrogate split
        whose feature it has, else the side the split sent more training
        weight (rpart's ``usesurrogate=2``; see ``n_surrogates``). "error"
        refuses NaN.
    categorical_features : None, "auto", indices, names or boolean mask, default="auto"
        Columns split by sets of categories instead of thresholds. "auto":
        text columns, that is pandas category / object / string columns,
        pyarrow-backed strings, polars String / Categorical / Enum columns and
        object columns of text in an array; numbers stay numbers, so numeric
        input gives the same tree as with None. A column "auto" picks that has
        a distinct value in nearly every row (an identifier) draws an
        ``IdentifierColumnWarning``. None: numbers only (text is refused).
        Categories (at most 1024 per column) are the distinct values seen at
        fit; missing values are NaN/None and follow ``handle_missing``.
        Subsets are searched exactly up to 12 categories at a node, above that
        by Breiman's ordering (two classes, regression) or one-vs-rest.
    handle_unknown : {"error", "missing"}, default="missing"
        A category unseen at fit: route it as a missing value (as
        scikit-learn's histogram gradient boosting does), or refuse it.
    algorithm : {"cart", "id3", "c4.5"}, default="cart"
        A preset; parameters given explicitly override it (the defaults
        ``criterion="gini"``, ``min_samples_leaf=1`` and ``pruning=None`` mean
        "the preset's").

        - "cart": everything above (binary splits, category subsets, missing
          values sent the better way).
        - "id3": Quinlan's ID3. Categorical features (``"auto"`` unless
          given) split into one child per category, information gain
          (``criterion="entropy"``); numeric features keep binary thresholds;
          growth stops where the gain is below ``min_impurity_decrease``.
        - "c4.5": Quinlan's C4.5 (release 8). Categorical features
          (``"auto"`` unless given) split into one child per category present
          at the node, numeric ones at binary thresholds (whose gain pays
          ``log2(candidate cuts) / node weight``); the split with the highest
          gain ratio among those whose gain is at least the average
          (``criterion="entropy"`` picks the highest gain instead); a split
          needs two branches with ``min_samples_leaf`` weight each (default 2,
          C4.5's MINOBJS); missing values are fractional cases: at fit and at
          predict a case missing the split's feature goes down every branch
          with its weight shared in proportion to the branches' known weights;
          pessimistic pruning (``pruning="pessimistic"``, ``cf``) unless
          ``pruning`` or ``ccp_alpha`` says otherwise. ``min_weight_fraction_leaf``
          raises the branch minimum; ``max_features`` and ``max_leaf_nodes``
          are refused.

        Multiway splits are stored as a cascade of single-category tests (ID3:
        the lowest code first, missing values last; C4.5: the lightest branch
        first, so a category absent at a node follows the heaviest branch).
        ``max_depth`` counts these binary levels.
    max_bins : int, default=255
        Bins per feature for ``splitter="hist"`` (2 to 255; missing values
        have a bin of their own).
    n_jobs : int or None, default=None
        Threads for fit (each large node's split search and partition run one
        feature per thread) and predict (blocks of rows). None: one per
        available core; -1 too, -2 all but one, and so on. The tree is the same
        for any number of threads. Builds without OpenMP run on one thread.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        The monotonicity constraint of each feature, as scikit-learn: 1
        increasing, -1 decreasing, 0 none; here on the probability of the
        positive class (``classes_[1]``), so binary classification only. A split
        on a constrained feature is made only if its children's values keep the
        order and the bounds inherited from above, and every node's value is
        clipped to its bounds. Numeric features with ``algorithm="cart"`` only
        (a category set has no order); missing values go to whichever side
        their split learns, and count in that side's value.
    value_tolerance : float >= 0, default=0.0
        Two values of a feature closer than this (``b <= a + value_tolerance``)
        are one value to the exact splitter: no threshold between them, and a
        feature whose values in a node span no more is constant there. 0 (the
        default) splits between any two different values; ``1e-7`` is
        scikit-learn's fixed rule, which never splits a feature measured in
        small units (its values 1e-9 apart). Not with ``splitter="hist"`` (whose
        bins decide) or ``algorithm="c4.5"``.
    keep_competitors : int >= 0, default=0
        Keep, at each split node, the best split on up to this many other
        features (rpart's competitor "primary splits"), in
        ``tree_.other_splits``; ``summary()`` and ``export_text`` show them.
        Computed after growth from the training rows (0: nothing is done).
    n_surrogates : int >= 0 or None, default=None
        Keep up to this many surrogate splits per split node (rpart's
        definition: the splits on other features that best agree with the
        split, with their agreement and adjusted agreement). None: 5 with
        ``handle_missing="surrogate"`` (rpart's ``maxsurrogate``), else 0.
        Competitors and surrogates need ``splitter="best"``, CART, dense X and
        no ``monotonic_cst``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,) or list of such arrays
    n_classes_ : int or ndarray of shape (n_outputs,)
        One array and one count per output when y has several columns.
    n_outputs_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.
    max_features_ : int
    tree_ : Tree
        Node arrays (see ``dtree._nodes.Tree``).
    feature_importances_ : ndarray of shape (n_features,)
    categorical_features_ : ndarray of bool, shape (n_features,)
        Which columns were treated as categorical.
    categories_ : list
        Per feature, the categories (index = code) or None for numeric ones.
    ccp_alpha_ : float
        The alpha the tree was pruned at (set when ccp_alpha > 0 or "cv").
    cp_table_ : CPTable
        rpart's CP table, with the cross-validated columns (ccp_alpha="cv").

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier(max_depth=2).fit([[0.0], [1.0], [2.0]], ["a", "b", "b"])
    >>> clf.predict([[1.5]]).tolist()
    ['b']
    """

    _is_classifier = True
    _parameter_constraints = CLASSIFIER

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 prune_risk="impurity", pruning=None, cv=10, cv_rule="1se", cf=0.25,
                 validation_fraction=0.1, handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", algorithm="cart", n_jobs=None, max_bins=255,
                 monotonic_cst=None, value_tolerance=0.0, keep_competitors=0,
                 n_surrogates=None):
        self._store_params(locals())

    def fit(self, X, y, sample_weight=None):
        """Build the tree from training data.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features (converted to float32, as scikit-learn does).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels of any hashable kind (str, int, bool, ...).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None gives every sample weight 1.

        Returns
        -------
        self
        """
        validate_params(self)
        X = encode_fit_X(self, X)
        check_label_kinds(y)
        y = val.check_y(y, X.shape[0], estimator_name=type(self).__name__,
                        multi_output=True, warn_column=bool(outputs_refusals(self)))
        classes, codes = encode_label_columns(y)
        weights = val.check_sample_weight(sample_weight, X.shape[0])
        weights = class_weighted(self.class_weight, classes, codes, weights)
        self.classes_ = classes
        if codes.ndim == 1:
            self.n_classes_ = int(classes.shape[0])
        else:   # several outputs: lists, as scikit-learn's
            self.n_classes_ = np.array([c.shape[0] for c in classes], dtype=np.intp)
        return fit_tree(self, X, codes, weights,
                        self.n_classes_ if codes.ndim == 1 else self.n_classes_.tolist())

    @documented("Class probabilities: the weighted class fractions of each sample's leaf.",
                "ndarray of shape (n_samples, n_classes), or a list of n_outputs such\n"
                "    arrays with several outputs\n    Columns follow ``classes_``.")
    def predict_proba(self, X):
        X = self._validate_X_predict(X)
        proba = self.tree_.leaf_values(X, self._n_threads())
        if self.n_outputs_ == 1:
            return proba[:, 0, :]
        return [proba[:, k, :n] for k, n in enumerate(self.n_classes_)]

    @documented("Logarithm of ``predict_proba`` (-inf for a zero probability).",
                "ndarray of shape (n_samples, n_classes), or a list of them")
    def predict_log_proba(self, X):
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if self.n_outputs_ == 1:
                return np.log(proba)
            return [np.log(p) for p in proba]

    @documented("Most probable class of each sample (the first in ``classes_`` on ties).",
                "ndarray of shape (n_samples,) or (n_samples, n_outputs)")
    def predict(self, X):
        X = self._validate_X_predict(X)
        if self.tree_.mixes_leaves(X):
            proba = self.tree_.leaf_values(X)[:, 0, :]
            return self.classes_.take(np.argmax(proba, axis=1))
        # argmax per node once, not per sample
        node_class = np.argmax(self.tree_.value, axis=2)
        leaves = self.tree_.apply(X, self._n_threads())
        if self.n_outputs_ == 1:
            return self.classes_.take(node_class[:, 0].take(leaves))
        out = np.empty((X.shape[0], self.n_outputs_), dtype=_common_dtype(self.classes_))
        for k, classes in enumerate(self.classes_):
            out[:, k] = classes.take(node_class[:, k].take(leaves))
        return out

    def _score(self, y, pred, sw):
        # accuracy; with several outputs a sample counts when every output is right
        # (subset accuracy, as scikit-learn's for multilabel targets)
        hits = pred == y if pred.ndim == 1 else np.all(pred == y, axis=1)
        return float(np.average(hits, weights=sw))

    def __sklearn_tags__(self):
        return self._tags("classifier")


@register
class DecisionTreeRegressor(BaseDecisionTree):
    """Exact CART decision tree regressor.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error", "quantile", "poisson", \
"friedman_mse"}, default="squared_error"
        "squared_error": variance reduction, leaves predict the mean.
        "absolute_error": reduction of the sum of absolute deviations from the
        median, leaves predict the weighted median (scikit-learn's definition:
        where the weight below a target is exactly half, the midpoint).
        "quantile": reduction of the pinball loss of level ``quantile``, leaves
        predict the weighted quantile (defined as the median is);
        ``quantile=0.5`` splits as "absolute_error" (whose loss is twice the
        pinball loss).
        "poisson": reduction of the half Poisson deviance (y >= 0 with a positive
        sum; no split leaves a child whose mean is 0), leaves predict the mean.
        "friedman_mse": deprecated, as in scikit-learn 1.9; the same as
        "squared_error" (a FutureWarning says so).
        The quantile criteria search a categorical feature's subsets along the
        order of the categories' mean targets (m - 1 candidates, not every
        subset), and are not available with ``splitter="hist"``.
    splitter : {"best", "random", "hist"}, default="best"
    max_depth : int or None, default=None
    min_samples_split : int or float, default=2
    min_samples_leaf : int or float, default=1
    min_weight_fraction_leaf : float, default=0.0
    max_features : int, float, {"sqrt", "log2"} or None, default=None
    random_state : int, RandomState, Generator or None, default=None
    max_leaf_nodes : int or None, default=None
    min_impurity_decrease : float, default=0.0
    quantile : float in (0, 1), default=0.5
        The level of ``criterion="quantile"`` (other criteria ignore it).
    ccp_alpha, prune_risk, pruning, cv, cv_rule, validation_fraction, handle_missing
    categorical_features, handle_unknown, n_jobs, max_bins, monotonic_cst, value_tolerance,
    keep_competitors, n_surrogates
        See ``DecisionTreeClassifier``; here ``monotonic_cst`` constrains the
        predicted value, and ``pruning="pessimistic"`` is for classifiers only.
    keep_leaf_targets : bool, default=False
        Keep each leaf's training targets (and weights) in ``tree_.leaf_targets``
        and in model files, for ``predict_interval`` (8 bytes per training row
        and output, plus 16).

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    max_features_ : int
    tree_ : Tree
    feature_importances_ : ndarray of shape (n_features,)

    Examples
    --------
    >>> from dtree import DecisionTreeRegressor
    >>> reg = DecisionTreeRegressor().fit([[0.0], [1.0], [2.0]], [1.0, 1.0, 3.0])
    >>> reg.predict([[1.9]]).tolist()
    [3.0]
    """

    _is_classifier = False
    _parameter_constraints = REGRESSOR

    def __init__(self, *, criterion="squared_error", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, prune_risk="impurity",
                 pruning=None, cv=10, cv_rule="1se", validation_fraction=0.1,
                 handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", n_jobs=None, max_bins=255, quantile=0.5,
                 monotonic_cst=None, value_tolerance=0.0, keep_competitors=0,
                 n_surrogates=None, keep_leaf_targets=False):
        criterion = friedman_alias(criterion)   # as scikit-learn 1.9 does, at construction
        self._store_params(locals())

    # C4.5's pessimistic pruning is for classifiers; the shared checks read cf.
    cf = 0.25

    def fit(self, X, y, sample_weight=None):
        """Build the tree from training data.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        validate_params(self)
        X = encode_fit_X(self, X)
        y = check_regression_target(self, numeric_target(y))
        y = val.check_y(y, X.shape[0], estimator_name=type(self).__name__,
                        multi_output=True, warn_column=bool(outputs_refusals(self)))
        weights = val.check_sample_weight(sample_weight, X.shape[0])
        return fit_tree(self, X, np.ascontiguousarray(y), weights, 0)

    @documented("Each sample's leaf value: its mean target (its quantile for the "
                "quantile criteria).",
                "ndarray of shape (n_samples,) or (n_samples, n_outputs)")
    def predict(self, X):
        X = self._validate_X_predict(X)
        values = self.tree_.value[:, :, 0]
        leaves = self.tree_.apply(X, self._n_threads())
        if self.n_outputs_ == 1:
            return values[:, 0].take(leaves)
        return values.take(leaves, axis=0)

    def _score(self, y, pred, sw):
        # R^2; with several outputs the mean of theirs (scikit-learn's "uniform_average")
        y = numeric_target(y)
        if pred.ndim == 2:
            y = y.reshape(pred.shape)
            return float(np.mean([self._score(y[:, k], pred[:, k], sw)
                                  for k in range(pred.shape[1])]))
        w = np.ones_like(y) if sw is None else sw
        # R^2 is a ratio: compute it in units where neither squares nor sums overflow
        exponent = power_of_two_scale(np.r_[y, pred]) + 1 + math.ceil(math.log2(y.shape[0]))
        y, pred, w = scaled(y, exponent), scaled(pred, exponent), w / w.max()
        residual = np.sum(w * (y - pred) ** 2)
        total = np.sum(w * (y - np.average(y, weights=w)) ** 2)
        if total == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return float(1.0 - residual / total)

    def __sklearn_tags__(self):
        return self._tags("regressor")


@register
class ExtraTreeClassifier(DecisionTreeClassifier):
    """Extremely randomized tree classifier (scikit-learn's ``ExtraTreeClassifier``).

    A ``DecisionTreeClassifier`` whose defaults are ``splitter="random"`` and
    ``max_features="sqrt"``: at each node, one threshold per drawn feature, drawn
    uniformly between the node's least and greatest value of that feature (the
    ends of its presorted segment), and the best of those cuts kept. Missing
    values go to a side drawn at random; a categorical feature sends each
    category present (and the missing values) left on a coin. Every other
    parameter, attribute and method is ``DecisionTreeClassifier``'s; ``random_state``
    makes a fit reproducible. Use it alone for a very fast, very rough tree, or
    many of them in an ensemble.

    Examples
    --------
    >>> from dtree import ExtraTreeClassifier
    >>> clf = ExtraTreeClassifier(random_state=0).fit([[0.0], [1.0], [2.0], [3.0]],
    ...                                                [0, 0, 1, 1])
    >>> clf.predict([[0.2], [2.8]]).tolist()
    [0, 1]
    """

    def __init__(self, *, criterion="gini", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 prune_risk="impurity", pruning=None, cv=10, cv_rule="1se", cf=0.25,
                 validation_fraction=0.1, handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", algorithm="cart", n_jobs=None, max_bins=255,
                 monotonic_cst=None, value_tolerance=0.0, keep_competitors=0,
                 n_surrogates=None):
        self._store_params(locals())


@register
class ExtraTreeRegressor(DecisionTreeRegressor):
    """Extremely randomized tree regressor (scikit-learn's ``ExtraTreeRegressor``).

    A ``DecisionTreeRegressor`` whose defaults are ``splitter="random"`` and
    ``max_features=1.0`` (every feature drawn, one random threshold each, the
    best kept; see ``ExtraTreeClassifier`` for the draw). Every criterion,
    several outputs, weights, missing values and pruning work as for
    ``DecisionTreeRegressor``.

    Examples
    --------
    >>> from dtree import ExtraTreeRegressor
    >>> reg = ExtraTreeRegressor(random_state=0).fit([[0.0], [1.0], [2.0]], [1.0, 1.0, 3.0])
    >>> reg.predict([[0.0], [2.0]]).tolist()
    [1.0, 3.0]
    """

    def __init__(self, *, criterion="squared_error", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, prune_risk="impurity",
                 pruning=None, cv=10, cv_rule="1se", validation_fraction=0.1,
                 handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", n_jobs=None, max_bins=255, quantile=0.5,
                 monotonic_cst=None, value_tolerance=0.0, keep_competitors=0,
                 n_surrogates=None, keep_leaf_targets=False):
        criterion = friedman_alias(criterion)
        self._store_params(locals())
