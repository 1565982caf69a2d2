"""The classifiers: ``DecisionTreeClassifier`` and ``ExtraTreeClassifier``."""
import numpy as np

from .._input.encode import check_fitted, classifier_data
from .._model.fitted import one_fit
from .._plan.constraints import CLASSIFIER
from .._plan.registry import CLASSIFICATION, DEFAULT_CRITERION
from .base import BaseDecisionTree
from .params import documented, register, with_defaults


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
    consecutive distinct values of every feature. Ties go to the feature
    visited first (the order ``random_state`` draws, as scikit-learn's; by index
    for ID3 and C4.5), where scikit-learn's own rounding tells tied candidates
    apart its choice, then to the smallest threshold. So the tree equals
    scikit-learn's node by node for the same ``random_state``.

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
        depth-first or best-first (``max_leaf_nodes``). Categorical features
        take one bin per category (at most 255). Not with the ID3 / C4.5 presets.
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
    cp : float or None, default=None
        rpart's complexity parameter: pruning at ``ccp_alpha`` = ``cp`` times the
        root's risk (``prune_risk``), the unit of ``cp_table_``'s CP column, so
        every split whose complexity is at most ``cp`` goes (rpart's
        ``prune(fit, cp)``). The tree is grown in full first: rpart also stops
        growing at splits that gain less than ``cp``, so it can lack a weak split
        whose children's splits would have paid for it. With ``ccp_alpha="cv"``
        it ends the CP table instead, as rpart's ``cp`` does (its last row's CP
        is ``cp``); with a number for ``ccp_alpha``, it is refused.
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
    threshold_rule : {None, "midpoint", "training_value"}, default=None
        Where a numeric split's threshold lies between the two values it
        separates: "midpoint" (scikit-learn's) or "training_value" (the largest
        value of the feature in the whole training set at or below the
        midpoint: C4.5 release 8's and Weka J48's). Either sends every
        training row the same way. None: the ``algorithm`` preset's
        ("training_value" for "c4.5", else "midpoint").
    category_splits : {None, "subsets", "multiway", "one_vs_rest"}, default=None
        The shape of a split on a categorical feature: "subsets" (a set of
        categories against the rest: CART's), "multiway" (one branch per
        category: ID3's and C4.5's) or "one_vs_rest" (one category against the
        rest, the feature free to split again below: Weka J48's ``-B``, for
        ``algorithm="c4.5"``). None: the ``algorithm`` preset's ("subsets" for
        "cart", "multiway" for "id3" and "c4.5"); a shape the preset does not
        grow is refused.
    verbose : int, default=0
        1 or more: a line on standard error per cross-validation fold of
        ``ccp_alpha="cv"`` (the fit that takes longest), and one when the tree
        is grown (its leaves and the time taken).
    subtree_raising : bool or None, default=None
        With ``pruning="pessimistic"``, C4.5's subtree raising as well as
        subtree replacement: where a node's largest branch, given all the
        node's training cases, is estimated to err no more than the node's
        subtree, the branch takes the node's place (Weka J48's ``-S`` turns
        it off). None: the ``algorithm`` preset's (on for "c4.5", else off).
    validation_fraction : float, default=0.1
        Held-out fraction for ``pruning="reduced_error"``. With
        ``algorithm="c4.5"`` it must be 1/N: one of N folds is held out as Weka
        J48's ``-R -N`` holds it out (its stratified folds, the last one), and
        the k-way tree is pruned node by node on it.
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
          (``"auto"`` unless given) split into one child per category (of those
          seen at fit), numeric ones at binary thresholds (whose gain pays
          ``log2(candidate cuts) / node weight``); the split with the highest
          gain ratio among those whose gain is at least the average
          (``criterion="entropy"`` picks the highest gain instead); a split
          needs two branches with ``min_samples_leaf`` weight each (default 2,
          C4.5's MINOBJS); missing values are fractional cases: at fit and at
          predict a case missing the split's feature goes down every branch
          with its weight shared in proportion to the branches' known weights;
          a split that makes no fewer training errors than its node is
          collapsed; pessimistic pruning (``pruning="pessimistic"``, ``cf``,
          ``subtree_raising``) unless ``pruning`` or ``ccp_alpha`` says
          otherwise. ``min_weight_fraction_leaf`` raises the branch minimum;
          ``max_features`` and ``max_leaf_nodes`` are refused.

        Multiway splits are stored as a cascade of single-category tests (ID3:
        the lowest code first, missing values last, a category absent at a node
        following the last branch; C4.5: the lightest branch first, a category
        absent at a node getting an empty leaf that predicts the node's
        classes, as in C4.5). ``max_depth`` and ``tree_.max_depth`` count these
        binary levels; ``get_depth()`` and ``get_n_leaves()`` count C4.5's.
    max_bins : int, default=255
        Bins per feature for ``splitter="hist"`` (2 to 255; missing values
        have a bin of their own).
    n_jobs : int or None, default=None
        Threads for fit (each large node's split search and partition run one
        feature per thread) and predict (blocks of rows; a DataFrame's columns
        are encoded on them too when n_jobs is set, on one thread for None). None:
        one per available core; -1 too, -2 all but one, and so on. The tree is the
        same for any number of threads. Builds without OpenMP run on one thread.
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
        Node arrays (see ``dtree._model.tree.Tree``).
    feature_importances_ : ndarray of shape (n_features,)
    categorical_features_ : ndarray of bool, shape (n_features,)
        Which columns were treated as categorical.
    categories_ : list
        Per feature, the categories (index = code) or None for numeric ones.
    ccp_alpha_ : float
        The alpha the tree was pruned at (set when ccp_alpha > 0 or "cv").
    cp_table_ : CPTable
        rpart's CP table, with the cross-validated columns (ccp_alpha="cv").

    Notes
    -----
    Every parameter is checked when ``fit`` starts, those the configuration
    does not use included; a bad one raises ``InvalidParameterError`` (a
    ValueError and a TypeError) naming it. Integer sizes beyond what the data
    allows (``max_leaf_nodes``, ``max_depth``, ``min_samples_*`` above the
    number of samples) act as that bound.

    Weights and targets may have any scale: uniform sample weights give the
    unit-weight tree, and weights anywhere in float64 or targets up to
    ±1e308 give the tree of the same data in moderate units (see
    ``dtree._model.units``).

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier(max_depth=2).fit([[0.0], [1.0], [2.0]], ["a", "b", "b"])
    >>> clf.predict([[1.5]]).tolist()
    ['b']
    """

    _is_classifier = True
    _parameter_constraints = CLASSIFIER

    # (kept duplicate, by shape: each estimator spells its parameters out in its
    # signature, as scikit-learn's do: get_params, clone and the docs read it)
    def __init__(self, *, criterion=DEFAULT_CRITERION[CLASSIFICATION], splitter="best",
                 max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0, cp=None,
                 prune_risk="impurity", pruning=None, cv=10, cv_rule="1se", cf=0.25,
                 validation_fraction=0.1, handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", algorithm="cart", n_jobs=None, max_bins=255,
                 monotonic_cst=None, value_tolerance=0.0, keep_competitors=0,
                 n_surrogates=None, threshold_rule=None, subtree_raising=None,
                 category_splits=None, verbose=0):
        self._store_params(locals())

    def _training_data(self, choices, X, y, sample_weight):
        return classifier_data(self, choices, X, y, sample_weight)

    @documented("Class probabilities: the weighted class fractions of each sample's leaf.",
                "ndarray of shape (n_samples, n_classes), or a list of n_outputs such\n"
                "    arrays with several outputs\n    Columns follow ``classes_``.")
    @one_fit
    def predict_proba(self, X):
        check_fitted(self)
        if self.tree_.routes_plainly():
            # each row's leaf as predict finds it (values checked only where the
            # routing met NaN or infinity): a small batch pays no second pass
            proba = self.tree_.value.take(self._at_leaves(X, self.tree_.node_ids), axis=0)
        else:
            X = self._validate_X_predict(X)
            proba = self.tree_.leaf_values(X, self._n_threads(X.shape[0]))
        if self.n_outputs_ == 1:
            return proba[:, 0, :]
        return [proba[:, k, :n] for k, n in enumerate(self.n_classes_)]

    @documented("Logarithm of ``predict_proba`` (-inf for a zero probability).",
                "ndarray of shape (n_samples, n_classes), or a list of them")
    @one_fit
    def predict_log_proba(self, X):
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if self.n_outputs_ == 1:
                return np.log(proba)
            return [np.log(p) for p in proba]

    @documented("Most probable class of each sample (the first in ``classes_`` on ties).",
                "ndarray of shape (n_samples,) or (n_samples, n_outputs)")
    @one_fit
    def predict(self, X):
        check_fitted(self)
        node_class = self.tree_.node_argmax     # per node once, not per sample
        if self.n_outputs_ == 1:
            if self.tree_.fractional_missing:
                proba = self.predict_proba(X)
                return self.classes_.take(np.argmax(proba, axis=1))
            positions = self._at_leaves(X, node_class[:, 0])
            classes = self.classes_
            if classes.dtype == np.intp and classes[0] == 0 and classes[-1] == len(classes) - 1:
                return positions    # sorted distinct 0..K-1: the positions are the classes
            return classes.take(positions)
        X = self._validate_X_predict(X)
        if self.tree_.mixes_leaves(X):
            proba = self.tree_.leaf_values(X)[:, 0, :]
            return self.classes_.take(np.argmax(proba, axis=1))
        leaves = self.tree_.apply(X, self._n_threads(X.shape[0]))
        out = np.empty((X.shape[0], self.n_outputs_), dtype=_common_dtype(self.classes_))
        for k, classes in enumerate(self.classes_):
            out[:, k] = classes.take(node_class[:, k].take(leaves))
        return out

    def _score(self, y, pred, sw):
        # accuracy; with several outputs a sample counts when every output is right
        # (subset accuracy, as scikit-learn's for multilabel targets)
        hits = pred == y if pred.ndim == 1 else np.all(pred == y, axis=1)
        # (a ratio: weights over their largest, so that their sum stays finite)
        return float(np.average(hits, weights=None if sw is None else sw / sw.max()))

    def __sklearn_tags__(self):
        return self._tags("classifier")


@register
@with_defaults(splitter="random", max_features="sqrt")
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
