"""The forests: ``RandomForestClassifier``, ``RandomForestRegressor``,
``ExtraTreesClassifier`` and ``ExtraTreesRegressor``, scikit-learn's names,
parameters and defaults over dtree's trees."""
import numpy as np

from .._estimators.base import BaseDecisionTree
from .._estimators.classifier import DecisionTreeClassifier, ExtraTreeClassifier
from .._estimators.params import documented, register
from .._estimators.regressor import DecisionTreeRegressor, ExtraTreeRegressor
from .._model.fitted import one_fit
from .._plan.registry import CLASSIFICATION, DEFAULT_CRITERION, REGRESSION, current_criterion
from .._plan.constraints import (CLASSIFIER, COMMON, NONE, REGRESSOR, InstanceOf, Interval,
                                 Options, Predicate, is_int)
from . import draws
from .base import BaseForest

_BOOL = InstanceOf((bool, np.bool_), "a bool")

# the tree parameters a forest takes, checked as the trees check them (ccp_alpha a
# number: no cross-validated alpha per tree)
_TREE = {name: COMMON[name] for name in (
    "splitter", "max_depth", "min_samples_split", "min_samples_leaf",
    "min_weight_fraction_leaf", "max_features", "max_leaf_nodes", "min_impurity_decrease",
    "handle_missing", "categorical_features", "handle_unknown", "n_jobs", "max_bins",
    "monotonic_cst")}
FOREST = dict(_TREE, **{
    "n_estimators": [Interval("int", 1, None, "left")],
    "bootstrap": [_BOOL],
    "oob_score": [_BOOL, Predicate(callable, "a callable")],
    "random_state": [NONE, Interval("int", 0, 2**32 - 1, "both"),
                     InstanceOf((np.random.RandomState,),
                                "an instance of 'numpy.random.RandomState'")],
    "verbose": [Interval("int", 0, None, "left"), _BOOL],
    "warm_start": [_BOOL],
    "max_samples": [NONE, Interval("real_not_int", 0.0, None, "neither"),
                    Interval("int", 1, None, "left")],
    "ccp_alpha": [Interval("real", 0.0, None, "left")],
})
FOREST_CLASSIFIER = dict(FOREST, criterion=CLASSIFIER["criterion"], class_weight=[
    Options("balanced_subsample")] + CLASSIFIER["class_weight"])
FOREST_REGRESSOR = dict(FOREST, criterion=REGRESSOR["criterion"])


class ForestClassifier(BaseForest):
    """Prediction, scoring and out-of-bag estimates of the classifying forests."""

    _is_classifier = True
    _parameter_constraints = FOREST_CLASSIFIER
    score = BaseDecisionTree.score
    _score = DecisionTreeClassifier._score

    def _forest_weights(self, data):
        factors = draws.forest_class_weights(self.class_weight, data.classes, data.y,
                                             data.weights, self.bootstrap)
        if factors is None:
            return data.weights
        if data.weights is None:
            return factors
        # a class whose rows all weigh 0 has an infinite "balanced" weight: its rows
        # stay at 0 (0 * inf would be NaN), as a single tree's do
        with np.errstate(invalid="ignore"):
            return np.where(data.weights == 0, 0.0, data.weights * factors)

    def _validate_y_class_weight(self, y, sample_weight):
        """scikit-learn's hook: the class codes of y (n_samples, n_outputs) and each
        row's class weight at forest level (None: none)."""
        y = np.asarray(y).reshape(len(y), -1)
        classes, codes = zip(*(np.unique(y[:, k], return_inverse=True)
                               for k in range(y.shape[1])))
        codes = np.stack(codes, axis=1)
        if y.shape[1] == 1:
            return codes, draws.forest_class_weights(
                self.class_weight, classes[0], codes[:, 0],
                None if sample_weight is None else np.asarray(sample_weight, float),
                self.bootstrap)
        return codes, draws.forest_class_weights(
            self.class_weight, list(classes), codes,
            None if sample_weight is None else np.asarray(sample_weight, float), self.bootstrap)

    def _check_oob_target(self, data):
        if data.n_outputs > 1 and max(np.atleast_1d(data.n_classes)) > 2:
            raise ValueError("The type of target cannot be used to compute OOB estimates. Got "
                             "multiclass-multioutput while only the following are supported: "
                             "continuous, continuous-multioutput, binary, multiclass, "
                             "multilabel-indicator.")

    def _tree_classes(self, data):
        if isinstance(data.classes, list):
            return ([np.arange(c.shape[0], dtype=np.float64) for c in data.classes],
                    np.array([c.shape[0] for c in data.classes]))
        return np.arange(data.classes.shape[0], dtype=np.float64), int(data.classes.shape[0])

    @documented("Class probabilities: the mean of the trees' ``predict_proba``.",
                "ndarray of shape (n_samples, n_classes), or a list of n_outputs such\n"
                "    arrays\n    Columns follow ``classes_``.")
    @one_fit
    def predict_proba(self, X):
        proba = self._leaf_values(self._validate_X_predict(X))
        if self.n_outputs_ == 1:
            return proba[:, 0, :]
        return [proba[:, k, :c.shape[0]] for k, c in enumerate(self.classes_)]

    @documented('Logarithm of ``predict_proba`` (-inf for a zero probability).',
                'ndarray of shape (n_samples, n_classes), or a list of them')
    @one_fit
    def predict_log_proba(self, X):
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return np.log(proba) if self.n_outputs_ == 1 else [np.log(p) for p in proba]

    @documented('The class of highest mean probability (the first in ``classes_`` on ties).',
                'ndarray of shape (n_samples,) or (n_samples, n_outputs)')
    @one_fit
    def predict(self, X):
        proba = self.predict_proba(X)
        if self.n_outputs_ == 1:
            return self.classes_.take(np.argmax(proba, axis=1))
        out = np.empty((proba[0].shape[0], self.n_outputs_), dtype=self.classes_[0].dtype)
        for k, classes in enumerate(self.classes_):
            out[:, k] = classes.take(np.argmax(proba[k], axis=1))
        return out

    def _set_oob_score_and_attributes(self, X, data):
        mean = self._oob_sums(X)            # (n_samples, n_outputs, width)
        codes = data.y.reshape(data.y.shape[0], -1)
        decision = np.moveaxis(mean, 1, 2)  # scikit-learn's (n_samples, width, n_outputs)
        if decision.shape[-1] == 1:
            decision = decision[..., 0]
        self.oob_decision_function_ = decision
        predicted = np.argmax(decision, axis=1)
        if callable(self.oob_score):
            self.oob_score_ = self.oob_score(codes, predicted)
        else:
            hits = predicted.reshape(codes.shape) == codes
            self.oob_score_ = float(np.mean(np.all(hits, axis=1)))

    def __sklearn_tags__(self):
        return self._tags("classifier")


class ForestRegressor(BaseForest):
    """Prediction, scoring and out-of-bag estimates of the regressing forests."""

    _is_classifier = False
    _parameter_constraints = FOREST_REGRESSOR
    score = BaseDecisionTree.score
    _score = DecisionTreeRegressor._score

    @documented("The mean of the trees' predictions.",
                'ndarray of shape (n_samples,) or (n_samples, n_outputs)')
    @one_fit
    def predict(self, X):
        values = self._leaf_values(self._validate_X_predict(X))[:, :, 0]
        return values[:, 0] if self.n_outputs_ == 1 else values

    def _training_data(self, template, choices, X, y, sample_weight):
        try:
            return template._training_data(choices, X, y, sample_weight)
        except ValueError as error:
            # (scikit-learn's forests word the Poisson check apart from its trees)
            if str(error).startswith("Sum of y is not positive"):
                raise ValueError("Sum of y is not strictly positive which is necessary for "
                                 "Poisson regression.") from None
            raise

    def _set_oob_score_and_attributes(self, X, data):
        prediction = self._oob_sums(X)[:, :, 0]
        y = data.y.reshape(data.y.shape[0], -1)
        self.oob_prediction_ = prediction[:, 0] if prediction.shape[1] == 1 else prediction
        if callable(self.oob_score):
            self.oob_score_ = self.oob_score(y, self.oob_prediction_)
        else:
            self.oob_score_ = self._score(y if y.shape[1] > 1 else y[:, 0],
                                          self.oob_prediction_, None)

    def __sklearn_tags__(self):
        return self._tags("regressor")


_CLASSIFIER_DOC = """
    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    criterion : {{"gini", "entropy", "log_loss", "gain_ratio"}}, default="gini"
        Each tree's split quality (see ``DecisionTreeClassifier``).
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf
        Each tree's stopping rules, as ``DecisionTreeClassifier``'s.
    max_features : {{"sqrt", "log2"}}, int, float or None, default={max_features!r}
        Features drawn at each split.
    max_leaf_nodes, min_impurity_decrease, ccp_alpha, monotonic_cst
        As ``DecisionTreeClassifier``'s, for each tree.
    bootstrap : bool, default={bootstrap}
        Each tree is grown on a bootstrap draw of the rows (as the rows' counts
        in the draw, passed as weights), else on all rows.
    oob_score : bool or callable, default=False
        Estimate the generalisation score on the rows each tree did not draw
        (accuracy, or ``oob_score(y, y_pred)``); bootstrap only.
    n_jobs : int or None, default=None
        Threads: over trees at fit, over rows at predict (a DataFrame's columns
        are encoded on them too when n_jobs is set). None: every core.
    random_state : int, RandomState or None, default=None
        Seeds the trees (one ``randint`` each, as scikit-learn's forests), so
        the same value gives scikit-learn's forest.
    verbose : int, default=0
    warm_start : bool, default=False
        Keep the trees of the last fit and add trees up to ``n_estimators``.
    class_weight : dict, list of dicts, "balanced", "balanced_subsample" or None, default=None
        "balanced_subsample": "balanced" weights of each tree's bootstrap.
    max_samples : int, float or None, default=None
        Rows drawn per tree (a float: a fraction of the rows, or of the total
        sample weight); None: as many as there are rows.
    splitter : {{"best", "random", "hist"}}, default={splitter!r}
        Each tree's split search (see ``DecisionTreeClassifier``).
    max_bins, handle_missing, categorical_features, handle_unknown
        dtree's own, as ``DecisionTreeClassifier``'s: text columns are
        categories, NaN is a missing value.

    Attributes
    ----------
    estimators_ : list of {tree}
        The fitted trees, fitted on class codes (``classes_`` of each tree is
        0, 1, ...), each seeded by its ``random_state``.
    estimator_ : {tree}
        The unfitted tree the forest's trees are made from.
    classes_ : ndarray or list of ndarray
    n_classes_ : int or list of int
    n_outputs_, n_features_in_, feature_names_in_
    feature_importances_ : ndarray of shape (n_features,)
    oob_score_ : float
    oob_decision_function_ : ndarray of shape (n_samples, n_classes) or (n_samples, n_classes, n_outputs)
    estimators_samples_ : list of ndarray
"""


def _classifier_init(self, n_estimators=100, *, criterion=DEFAULT_CRITERION[CLASSIFICATION],
                     max_depth=None,
                     min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                     max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                     bootstrap=True, oob_score=False, n_jobs=None, random_state=None,
                     verbose=0, warm_start=False, class_weight=None, ccp_alpha=0.0,
                     max_samples=None, monotonic_cst=None, splitter="best", max_bins=255,
                     handle_missing="split", categorical_features="auto",
                     handle_unknown="missing"):
    self._store_params(locals())


def _regressor_init(self, n_estimators=100, *, criterion=DEFAULT_CRITERION[REGRESSION],
                    max_depth=None,
                    min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                    max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                    bootstrap=True, oob_score=False, n_jobs=None, random_state=None,
                    verbose=0, warm_start=False, ccp_alpha=0.0, max_samples=None,
                    monotonic_cst=None, splitter="best", max_bins=255,
                    handle_missing="split", categorical_features="auto",
                    handle_unknown="missing"):
    criterion = current_criterion(criterion)   # (as the trees: deprecated names replaced)
    self._store_params(locals())


def _with_defaults(init, **defaults):
    """``init`` with other defaults for some keyword parameters (the ExtraTrees'
    ``bootstrap=False`` and ``splitter="random"``)."""
    import functools
    import inspect
    signature = inspect.signature(init)
    signature = signature.replace(parameters=[
        p.replace(default=defaults[p.name]) if p.name in defaults else p
        for p in signature.parameters.values()])

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        init(**bound.arguments)

    __init__.__signature__ = signature
    return __init__


@register
class RandomForestClassifier(ForestClassifier):
    __doc__ = ("A random forest classifier: scikit-learn's, tree for tree, on dtree's exact "
               "trees.\n\n    Each tree is a ``DecisionTreeClassifier`` grown on a bootstrap "
               "of the rows\n    with ``max_features`` features drawn at each split; the "
               "forest predicts\n    the mean of the trees' class probabilities. For the same "
               "``random_state``\n    each tree equals scikit-learn's "
               "``RandomForestClassifier``'s node for node.\n"
               + _CLASSIFIER_DOC.format(max_features="sqrt", bootstrap=True, splitter="best",
                                        tree="DecisionTreeClassifier"))
    _tree_class = DecisionTreeClassifier
    __init__ = _with_defaults(_classifier_init)


@register
class ExtraTreesClassifier(ForestClassifier):
    __doc__ = ("An extra-trees classifier: scikit-learn's ``ExtraTreesClassifier`` on "
               "dtree's trees.\n\n    Each tree is an ``ExtraTreeClassifier`` (one random "
               "threshold per drawn\n    feature, the best kept) grown on all the rows "
               "(``bootstrap=False``).\n"
               + _CLASSIFIER_DOC.format(max_features="sqrt", bootstrap=False,
                                        splitter="random", tree="ExtraTreeClassifier"))
    _tree_class = ExtraTreeClassifier
    __init__ = _with_defaults(_classifier_init, bootstrap=False, splitter="random")


_REGRESSOR_DOC = (_CLASSIFIER_DOC.replace("DecisionTreeClassifier", "DecisionTreeRegressor")
                  .split("    class_weight")[0] + """    max_samples : int, float or None, default=None
        Rows drawn per tree (a float: a fraction); None: as many as there are rows.
    splitter, max_bins, handle_missing, categorical_features, handle_unknown
        As ``DecisionTreeRegressor``'s.

    Attributes
    ----------
    estimators_ : list of {tree}
    estimator_ : {tree}
    n_outputs_, n_features_in_, feature_names_in_
    feature_importances_ : ndarray of shape (n_features,)
    oob_score_ : float
        R^2 of the out-of-bag predictions (or ``oob_score(y, y_pred)``).
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
    estimators_samples_ : list of ndarray
""").replace('{{"gini", "entropy", "log_loss", "gain_ratio"}}, default="gini"',
             '{{"squared_error", "absolute_error", "poisson", "quantile"}}, '
             'default="squared_error"').replace("oob_score : bool or callable, default=False\n"
                                                "        Estimate the generalisation score "
                                                "on the rows each tree did not draw\n"
                                                "        (accuracy,",
                                                "oob_score : bool or callable, default=False\n"
                                                "        Estimate the generalisation score "
                                                "on the rows each tree did not draw\n"
                                                "        (R^2,")


@register
class RandomForestRegressor(ForestRegressor):
    __doc__ = ("A random forest regressor: scikit-learn's, tree for tree, on dtree's exact "
               "trees.\n\n    Each tree is a ``DecisionTreeRegressor`` grown on a bootstrap of "
               "the rows;\n    the forest predicts the mean of the trees' predictions.\n"
               + _REGRESSOR_DOC.format(max_features=1.0, bootstrap=True, splitter="best",
                                       tree="DecisionTreeRegressor"))
    _tree_class = DecisionTreeRegressor
    __init__ = _with_defaults(_regressor_init)


@register
class ExtraTreesRegressor(ForestRegressor):
    __doc__ = ("An extra-trees regressor: scikit-learn's ``ExtraTreesRegressor`` on dtree's "
               "trees.\n\n    Each tree is an ``ExtraTreeRegressor`` grown on all the rows "
               "(``bootstrap=False``).\n"
               + _REGRESSOR_DOC.format(max_features=1.0, bootstrap=False, splitter="random",
                                       tree="ExtraTreeRegressor"))
    _tree_class = ExtraTreeRegressor
    __init__ = _with_defaults(_regressor_init, bootstrap=False, splitter="random")
