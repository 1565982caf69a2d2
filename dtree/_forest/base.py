"""The forests' shared body: one encoding of the data, one plan, many trees.

``fit`` reads as scikit-learn's forest fit: the parameters checked, the data
encoded and the plan made once (by a template tree: every refusal of a single
tree is made before anything grows), the per-tree seeds and bootstraps drawn
as scikit-learn draws them (``draws``), each tree grown by the single tree's
``fit_tree`` on the shared encoded data with its bootstrap counts as weights,
and the trees installed as fitted ``DecisionTree*`` estimators (fitted on the
class codes, as scikit-learn's forest trees are). Threads run over trees.
Prediction averages the trees' leaf values in one compiled loop
(``_forest_predict``).
"""
import concurrent.futures
import dataclasses
import sys
import threading
import time
import warnings

import numpy as np

from .._fit.fit import fit_tree
from .._fit.grow import BinnedX, TreeSizes
from .._input import validation as val
from .._input.encode import encode_predict_X
from .._model.fitted import Fitted, install
from .._model.leaf_table import offer_table
from .._model.tree import Tree
from .._plan.constraints import validate_params
from .._plan.machine import n_threads, physical_memory, spare_threads
from .._plan.plan import choose, make_plan
from .._route import PARALLEL_ROWS
from .._splitter import ColumnOrder
from .._estimators.params import ParamsMixin, documented
from . import draws
from .predict import ForestLayout, forest_leaf_values


# every attribute a fit sets (``_install`` replaces them all at once)
_FITTED = ("estimators_", "estimator_", "n_features_in_", "categorical_features_",
           "categories_", "n_outputs_", "feature_names_in_", "classes_", "n_classes_",
           "oob_score_", "oob_decision_function_", "oob_prediction_", "_n_samples",
           "_n_samples_bootstrap", "_sample_weight", "_layout")


# the least a fitted tree costs (its estimator, Tree and arrays): bounds n_estimators
TREE_BYTES = 4096

_OOB = ("oob_score_", "oob_decision_function_", "oob_prediction_")

# With the default n_jobs, trees grow on threads only when one (the second) takes
# at least this long on one thread (seconds): a small tree's Python share holds the
# GIL, and two threads over trees of 300-3,000 rows x 10 took 1.2-1.8x one thread's
# time
TREE_SECONDS = 1e-3


@dataclasses.dataclass(frozen=True)
class _Job:
    """What one tree's fit needs besides the shared plan and data."""

    index: int
    seed: int


class BaseForest(ParamsMixin):
    """Shared fit / apply / inspection logic of the forests."""

    # the tree class of ``estimators_`` and the parameters passed on to it
    _tree_class = None
    _tree_params = ("criterion", "max_depth", "min_samples_split", "min_samples_leaf",
                    "min_weight_fraction_leaf", "max_features", "max_leaf_nodes",
                    "min_impurity_decrease", "ccp_alpha", "monotonic_cst", "splitter",
                    "max_bins", "handle_missing", "categorical_features", "handle_unknown")

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Build a forest of trees from the training set (X, y).

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            Features (float32; text and category columns as
            ``categorical_features`` says).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (classifiers) or real targets (regressors).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights. With ``bootstrap=True`` they are the
            probabilities of the rows' draws (scikit-learn >= 1.9); without it
            they weight the rows of every tree.

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_forest_params()
        if val.is_sparse(y):
            raise ValueError("sparse multilabel-indicator for y is not supported.")
        template = self._template()
        choices = choose(template)
        data = self._training_data(template, choices, X, y, sample_weight)
        plan = make_plan(template, choices, data)
        if plan.builder == "exact":
            # sorted once for every tree: a tree's bootstrap keeps its rows' order
            # (random cuts need no sorted columns, only X by feature:
            # ``Splitter.sample_mode``)
            data = dataclasses.replace(data, shared_X=ColumnOrder(
                data.X, n_threads(self.n_jobs), sort=not plan.choices.splitter.random_split))
        elif plan.builder == "hist":
            # binned once for every tree, as LightGBM bins once for its trees
            data = dataclasses.replace(data, shared_X=BinnedX(
                dataclasses.replace(plan, n_threads=n_threads(self.n_jobs)), data.X))
        data = dataclasses.replace(data, tree_sizes=TreeSizes())
        if self.oob_score:
            self._check_oob_target(data)
        n_samples = data.X.shape[0]
        weights = self._forest_weights(data)
        n_drawn = draws.n_bootstrap(n_samples, self.max_samples, weights) \
            if self.bootstrap else None

        trees = list(getattr(self, "estimators_", [])) if self.warm_start else []
        n_new = self.n_estimators - len(trees)
        if n_new < 0:
            raise ValueError(f"n_estimators={self.n_estimators} must be larger or equal to "
                             f"len(estimators_)={len(trees)} when warm_start==True")
        if n_new == 0:
            warnings.warn("Warm-start fitting without increasing n_estimators does not fit "
                          "new trees.", UserWarning, stacklevel=2)
        seeds = draws.tree_seeds(self.random_state, n_new, len(trees)) if n_new else []
        jobs = [_Job(len(trees) + i, seed) for i, seed in enumerate(seeds)]
        trees.extend(self._grow_trees(plan, data, weights, n_drawn, jobs))

        state = dict(estimators_=trees, estimator_=self._tree_class(),
                     n_features_in_=data.columns.n_features_in_,
                     categorical_features_=data.columns.categorical_features_,
                     categories_=data.columns.categories_, n_outputs_=data.n_outputs,
                     _n_samples=n_samples, _n_samples_bootstrap=n_drawn,
                     _sample_weight=weights)
        if data.columns.feature_names_in_ is not None:
            state["feature_names_in_"] = data.columns.feature_names_in_
        if data.classes is not None:
            state.update(classes_=data.classes, n_classes_=data.n_classes_attribute)
        if n_new == 0:   # (a warm start adding no tree keeps its out-of-bag estimates)
            state.update({name: getattr(self, name) for name in _OOB if hasattr(self, name)})
        self._install(state)
        if self.oob_score and (n_new > 0 or not hasattr(self, "oob_score_")):
            self._set_oob_score_and_attributes(X, data)
        return self

    def _training_data(self, template, choices, X, y, sample_weight):
        """The encoded training data (the template tree's encoding)."""
        return template._training_data(choices, X, y, sample_weight)

    def _check_oob_target(self, data):
        """Out-of-bag scores need targets they can average (scikit-learn's rule)."""

    def _template(self):
        """A tree with the forest's tree parameters: it encodes the data and makes the
        plan every tree of the forest shares."""
        params = {name: getattr(self, name) for name in self._tree_params}
        return self._tree_class(**params, n_jobs=self.n_jobs, random_state=None)

    def _check_forest_params(self):
        # sizes bounded by what a machine can hold before anything is drawn
        memory = physical_memory() or 2**40
        if self.n_estimators * TREE_BYTES > memory:
            raise ValueError(f"n_estimators={self.n_estimators} trees need at least "
                             f"{self.n_estimators * TREE_BYTES:.3g} bytes (about {TREE_BYTES} "
                             f"per fitted tree): more than this machine's memory "
                             f"({memory:.3g} bytes)")
        if not self.bootstrap and self.max_samples is not None:
            raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either switch "
                             "to `bootstrap=True` or set `max_sample=None`.")
        if not self.bootstrap and self.oob_score:
            raise ValueError("Out of bag estimation only available if bootstrap=True")

    def _forest_weights(self, data):
        """The rows' weights at forest level: sample weights times class weights."""
        return data.weights

    def _install(self, state):
        """Set one fit's attributes at once (the instance's dictionary replaced: an
        earlier fit's attributes this one has not, such as ``oob_score_``, go)."""
        keep = {name: value for name, value in vars(self).items()
                if name not in _FITTED and name not in state}
        keep.update(state)
        self.__dict__ = keep

    def _grow_trees(self, plan, data, weights, n_drawn, jobs):
        """Each job's fitted tree, in order; threads over trees when there are
        enough of them, else the threads go to each tree's own search. The
        default n_jobs puts no threads over trees whose second takes less than
        TREE_SECONDS on one. (Trees on threads wait for no one until the last:
        unlike a node's parallel region, they need no cores left free.)"""
        threads = n_threads(self.n_jobs)
        over_trees = min(threads, len(jobs))
        one_each = dataclasses.replace(plan, n_threads=1)
        started, done, lock = time.perf_counter(), [0], threading.Lock()
        total = len(jobs)
        step = max(1, total // 10)

        def grow(job, tree_plan):
            if self.verbose > 1:
                print(f"building tree {job.index + 1} of {self.n_estimators}")
            fitted = self._grow_one(tree_plan, data, weights, n_drawn, job)
            if self.verbose == 1:
                # scikit-learn's level 1 reports as its jobs finish: a line per tenth
                with lock:
                    done[0] += 1
                    if done[0] % step == 0 or done[0] == total:
                        print(f"[dtree] built {done[0]} of {total} trees in "
                              f"{time.perf_counter() - started:.2f} s", file=sys.stderr,
                              flush=True)
            return fitted

        first = []
        if over_trees > 1 and self.n_jobs is None:
            # the second tree timed (the first pays for cold caches and fresh pages);
            # the trees are the same on any number of threads: only time is at stake
            for job in jobs[:2 if len(jobs) > 2 else 1]:
                clock = time.perf_counter()
                first.append(grow(job, one_each))
                took = time.perf_counter() - clock
            if took < TREE_SECONDS:
                over_trees = 1
            jobs = jobs[len(first):]
        if over_trees <= 1:
            # (each tree then has the plan's threads: as many as a tree of this
            # size can use, as a single tree's fit would have)
            return first + [grow(job, plan) for job in jobs]
        with concurrent.futures.ThreadPoolExecutor(over_trees) as pool:
            return first + list(pool.map(lambda job: grow(job, one_each), jobs))

    def _grow_one(self, plan, data, weights, n_drawn, job):
        """One fitted tree: its bootstrap counts (or the rows' weights) and its seed."""
        tree_weights = weights
        if self.bootstrap:
            indices = draws.bootstrap_indices(job.seed, data.X.shape[0], n_drawn, weights)
            tree_weights = np.bincount(indices, minlength=data.X.shape[0]).astype(np.float64)
            if getattr(self, "class_weight", None) == "balanced_subsample":
                tree_weights = tree_weights * draws.subsample_balanced(
                    data.y, data.classes, indices)
        result = fit_tree(dataclasses.replace(plan, random_state=job.seed),
                          dataclasses.replace(data, weights=tree_weights))
        tree = self._tree_class(**{name: getattr(self, name) for name in self._tree_params},
                                random_state=job.seed, n_jobs=1)
        columns = data.columns
        classes, n_classes = self._tree_classes(data)
        return install(tree, Fitted(
            tree_=result.tree, n_features_in_=columns.n_features_in_,
            categorical_features_=columns.categorical_features_,
            categories_=columns.categories_, n_outputs_=result.n_outputs,
            max_features_=result.max_features, feature_names_in_=columns.feature_names_in_,
            classes_=classes, n_classes_=n_classes, ccp_alpha_=None))

    def _tree_classes(self, data):
        """A tree's ``classes_`` and ``n_classes_`` (a classifier's trees are fitted on
        class codes, as scikit-learn's are)."""
        return None, None

    # ------------------------------------------------------------- keeping
    def save(self, path):
        """Write this fitted forest to a model file (read it with ``dtree.load``).

        The trees' arrays are laid end to end in a versioned archive of plain
        arrays with a JSON header: loading never executes code, and checks every
        tree as a single tree's file is checked.

        Parameters
        ----------
        path : str, path-like or writable binary file
        """
        from .._deploy.model_file import save
        save(self, path)

    def to_dict(self):
        """The fitted forest as JSON-able Python (read it with ``dtree.from_dict``).

        Returns
        -------
        dict
        """
        from .._deploy.model_file import to_dict
        return to_dict(self)

    # ------------------------------------------------------------- reading
    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimators_")

    def __len__(self):
        """The number of trees."""
        return len(self.estimators_)

    def __getitem__(self, index):
        """The index-th tree."""
        return self.estimators_[index]

    def __iter__(self):
        """The trees, in order."""
        return iter(self.estimators_)

    @property
    def estimator(self):
        """The kind of tree the forest grows, unfitted, with its defaults (scikit-learn's
        ``estimator``; not a parameter here)."""
        return self._tree_class()

    def _validate_X_predict(self, X):
        return encode_predict_X(self, X)

    def _leaf_values(self, X):
        """The trees' mean leaf values for validated X: (n_samples, n_outputs, width)."""
        trees = [t.tree_ for t in self.estimators_]
        layout = self.__dict__.get("_layout")
        if layout is None or layout.n_trees != len(trees):
            layout = ForestLayout(trees)
            self.__dict__["_layout"] = layout
        return forest_leaf_values(trees, X, self._predict_threads(X), layout)

    def _predict_threads(self, X):
        """Threads for predicting validated X: ``n_jobs``'s, the default's no more than
        the cores other work leaves free for a batch large enough for threads (a
        thread sharing its core made the default slower than one thread)."""
        threads = n_threads(self.n_jobs)
        return spare_threads(threads, self.n_jobs) if X.shape[0] >= PARALLEL_ROWS else threads

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_layout", None)     # derived from the trees: rebuilt on first use
        trees = state.get("estimators_")
        if isinstance(trees, list) and trees and \
                all(isinstance(getattr(t, "tree_", None), Tree) for t in trees):
            # a regression forest's leaf values once for all its trees
            offer_table([t.tree_ for t in trees])
        return state

    @documented('Index of the leaf each sample ends up in, in every tree.',
                'ndarray of shape (n_samples, n_estimators)')
    def apply(self, X):
        X = self._validate_X_predict(X)
        threads = self._predict_threads(X)
        return np.stack([t.tree_.apply(X, threads) for t in self.estimators_], axis=1)

    @documented('Nodes each sample passes through, in every tree.',
                "indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)\n"
                "    Columns ``n_nodes_ptr[i]:n_nodes_ptr[i + 1]`` are tree i's nodes.\n"
                "n_nodes_ptr : ndarray of shape (n_estimators + 1,)")
    def decision_path(self, X):
        from scipy.sparse import hstack
        X = self._validate_X_predict(X)
        paths = [t.tree_.decision_path(X) for t in self.estimators_]
        n_nodes_ptr = np.cumsum([0] + [p.shape[1] for p in paths])
        return hstack(paths).tocsr(), n_nodes_ptr

    @property
    def feature_importances_(self):
        """Mean of the trees' normalised impurity decreases (Gini importance),
        normalised; zeros when every tree is a single leaf.

        Returns
        -------
        ndarray of shape (n_features,)
        """
        if not self.__sklearn_is_fitted__():
            encode_predict_X(self, None)   # (raises NotFittedError)
        grown = [t.feature_importances_ for t in self.estimators_ if t.tree_.node_count > 1]
        if not grown:
            return np.zeros(self.n_features_in_, dtype=np.float64)
        mean = np.mean(grown, axis=0, dtype=np.float64)
        return mean / np.sum(mean)

    def _indices_of(self, tree):
        """The rows tree drew (all rows without bootstrap)."""
        if not self.bootstrap:
            return np.arange(self._n_samples, dtype=np.int32)
        if isinstance(self._sample_weight, str):
            raise ValueError("the rows each tree drew depend on the sample weights of the "
                             "fit, which model files do not keep")
        return draws.bootstrap_indices(tree.random_state, self._n_samples,
                                       self._n_samples_bootstrap, self._sample_weight)

    @property
    def estimators_samples_(self):
        """The rows each tree drew (its bootstrap indices, with repeats), recomputed
        from the trees' seeds at each call.

        Returns
        -------
        list of ndarray
        """
        return [self._indices_of(t) for t in self.estimators_]

    # ------------------------------------------------------------ out of bag
    def _oob_sums(self, X):
        """Each training row's mean leaf value over the trees that did not draw it:
        (n_samples, n_outputs, width); rows no tree left out get 0, with a warning."""
        Xp = self._validate_X_predict(X)
        n = self._n_samples
        total, seen = None, np.zeros(n, dtype=np.int64)
        for tree in self.estimators_:
            counts = np.bincount(self._indices_of(tree), minlength=n)
            out = counts == 0
            values = tree.tree_.leaf_values(Xp, n_threads(self.n_jobs))
            if total is None:
                total = np.zeros_like(values, dtype=np.float64)
            total[out] += values[out]
            seen += out
        if (seen == 0).any():
            warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                          "trees were used to compute any reliable OOB estimates.",
                          UserWarning, stacklevel=3)
        return total / np.maximum(seen, 1)[:, None, None]

    def _tags(self, kind):
        from sklearn.utils import (ClassifierTags, InputTags, RegressorTags, Tags,
                                   TargetTags)
        return Tags(estimator_type=kind,
                    target_tags=TargetTags(required=True, multi_output=True),
                    classifier_tags=(ClassifierTags(multi_label=True)
                                     if kind == "classifier" else None),
                    regressor_tags=RegressorTags() if kind == "regressor" else None,
                    input_tags=InputTags(allow_nan=self.handle_missing != "error",
                                         string=True, categorical=True, sparse=True))

