"""DecisionTreeClassifier and DecisionTreeRegressor: the public estimators.

The estimators validate and encode the input once, resolve the
hyperparameters, hand everything to the Cython builder, and wrap the node arrays
it returns in a ``Tree``. Names, defaults and meanings follow scikit-learn's
trees so that switching is a change of import.
"""
import copy
import math
import os

import numpy as np

from . import _categorical as cat
from . import _validation as val
from ._base import ParamsMixin
from ._criterion import CRITERIA
from ._nodes import Tree
from ._pruning import (RISKS, PruningSequence, cost_complexity_path, cp_table,
                       cross_validated_losses, fold_ids, pessimistic_leaves, prune_ccp,
                       reduced_error_leaves, select_row)
from ._binning import fit_bins
from ._frames import is_polars, polars_to_array
from ._params import (CLASSIFIER, MAX_THREADS, REGRESSOR, InvalidParameterError,
                      clamp_to_data, is_int, is_real, validate_params)
from ._c45 import grow_c45
from ._hist import bin_codes, build_hist_tree
from ._scaling import (MODERATE, power_of_two_scale, scale_limit, scaled, uniform_weight,
                       unscale_tree)
from ._splitter import Splitter
from ._tree import build_tree

ALGORITHMS = ("cart", "id3", "c4.5")
CLASSIFICATION_CRITERIA = ("gini", "entropy", "log_loss", "gain_ratio")
REGRESSION_CRITERIA = ("squared_error",)
# Depth limit standing in for "unlimited": deeper than any tree a machine holds.
_NO_DEPTH_LIMIT = 2**31 - 1


_is_int = is_int
_is_real = is_real


def _draw_seed(random_state):
    """A 63-bit seed for the Cython feature draw, from scikit-learn style random_state."""
    if random_state is None or random_state is np.random:
        return int(np.random.randint(1, 2**62, dtype=np.int64))
    if _is_int(random_state):
        return int(np.random.RandomState(random_state).randint(1, 2**62, dtype=np.int64))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(1, 2**62, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(1, 2**62))
    raise ValueError(f"random_state must be None, an int, a numpy RandomState or "
                     f"Generator; got {random_state!r}")


class PathResult(dict):
    """A dict whose keys are also attributes (scikit-learn's Bunch)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _available_cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _rng(random_state):
    if isinstance(random_state, np.random.RandomState):
        return random_state
    return np.random.RandomState(_draw_seed(random_state) % (2**32))


def _holdout(encoded_y, n_classes, fraction, rng):
    """Mask of a held-out part of about ``fraction`` of the samples (per class)."""
    n = encoded_y.shape[0]
    held = np.zeros(n, dtype=bool)
    groups = [np.flatnonzero(encoded_y == k) for k in range(n_classes)] if n_classes \
        else [np.arange(n)]
    for members in groups:
        if members.shape[0] < 2:
            continue
        take = min(max(1, int(round(fraction * members.shape[0]))), members.shape[0] - 1)
        held[rng.choice(members, size=take, replace=False)] = True
    if held.all() or not held.any():
        what = "train on" if held.all() else "validate on"
        raise ValueError(f"validation_fraction={fraction} leaves no samples to {what}")
    return held


class BaseDecisionTree(ParamsMixin):
    """Shared fit / apply / inspection logic of the two estimators."""

    _criteria = ()

    # ------------------------------------------------------------------ fit
    def _algorithm(self):
        algorithm = getattr(self, "algorithm", "cart")
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}; got {algorithm!r}")
        return algorithm

    def _criterion(self):
        # A preset's criterion applies unless another than the default was chosen.
        if self.criterion == "gini":
            return {"id3": "entropy", "c4.5": "gain_ratio"}.get(self._algorithm(), "gini")
        return self.criterion

    def _pruning_method(self):
        """The pruning to apply: the parameter, or the preset's when it is None."""
        if self.pruning == "none":
            return None
        if self.pruning is None and self._algorithm() == "c4.5" and not (
                isinstance(self.ccp_alpha, str) or self.ccp_alpha > 0):
            return "pessimistic"
        return self.pruning

    def _resolve_params(self, n_samples, n_features, total_weight):
        """Turn the (validated) hyperparameters into the builder's numbers.

        Sizes are clamped to what ``n_samples`` allows (see
        ``_params.clamp_to_data``): the tree is the same and no size reaching
        C code can overflow.
        """
        if self._criterion() not in self._criteria:
            raise InvalidParameterError(f"criterion must be one of {list(self._criteria)}; "
                                        f"got {self.criterion!r}")
        max_depth = _NO_DEPTH_LIMIT if self.max_depth is None else self.max_depth
        max_depth = clamp_to_data(max_depth, n_samples)

        leaf = self.min_samples_leaf
        if _is_int(leaf):
            min_samples_leaf = clamp_to_data(leaf, n_samples)
        else:
            min_samples_leaf = max(1, int(math.ceil(leaf * n_samples)))
        split = self.min_samples_split
        if _is_int(split):
            min_samples_split = clamp_to_data(split, n_samples)
        else:
            min_samples_split = max(2, int(math.ceil(split * n_samples)))
        min_samples_split = clamp_to_data(max(min_samples_split, 2 * min_samples_leaf),
                                          n_samples)
        min_weight_leaf = self.min_weight_fraction_leaf * total_weight

        max_features = self.max_features
        if max_features is None:
            n_draw = n_features
        elif isinstance(max_features, str):
            root = math.sqrt if max_features == "sqrt" else math.log2
            n_draw = max(1, int(root(n_features)))
        elif _is_int(max_features):
            if max_features > n_features:
                raise InvalidParameterError(
                    f"max_features must be in [1, n_features={n_features}]; got "
                    f"{max_features!r}")
            n_draw = int(max_features)
        else:
            n_draw = max(1, int(max_features * n_features))

        # a tree on n samples has at most n leaves
        max_leaf_nodes = -1 if self.max_leaf_nodes is None else \
            max(2, clamp_to_data(self.max_leaf_nodes, n_samples))
        decrease = float(self.min_impurity_decrease)
        return dict(max_depth=max_depth, min_samples_split=min_samples_split,
                    min_samples_leaf=min_samples_leaf, min_weight_leaf=float(min_weight_leaf),
                    min_impurity_decrease=decrease, max_leaf_nodes=max_leaf_nodes,
                    max_features=n_draw)

    def _grow(self, X, encoded_y, weights, n_classes, y_exp=None):
        """An unpruned tree grown with this estimator's growth parameters.

        Weights (and regression targets) are scaled by a power of two to near 1
        for the builders and the tree is put back into the user's units after
        (``_scaling``): the tree does not depend on the units.
        """
        if weights is not None and not (weights > 0).all():
            # A zero-weight sample must not place a threshold: drop it, as
            # scikit-learn does (n_node_samples counts positive weights only).
            keep = weights > 0
            X, encoded_y, weights = X[keep], encoded_y[keep], weights[keep]
        w_unit, w_exp = uniform_weight(weights), 0
        if w_unit is not None:
            weights = None
        else:
            w_exp = power_of_two_scale(weights, moderate=MODERATE)
            weights, w_unit = scaled(weights, w_exp), math.ldexp(1.0, w_exp)
        if y_exp is None:  # (a fit passes one exponent to all its trees: folds too)
            y_exp = 0 if n_classes else power_of_two_scale(encoded_y)
        encoded_y = scaled(encoded_y, y_exp)
        limits = self._resolve_params(X.shape[0], X.shape[1],
                                      float(weights.sum()) if weights is not None
                                      else float(X.shape[0]))
        # impurities are in squared target units
        limits["min_impurity_decrease"] = scale_limit(limits["min_impurity_decrease"],
                                                      2 * y_exp)
        tree = self._grow_scaled(X, encoded_y, weights, n_classes, limits, w_exp)
        return unscale_tree(tree, w_unit, y_exp)

    def _grow_scaled(self, X, encoded_y, weights, n_classes, limits, w_exp):
        """The builder for this configuration, on weights and targets scaled near 1."""
        n_draw = limits.pop("max_features")
        seed = _draw_seed(self.random_state) if n_draw < X.shape[1] else 1
        n_categories = np.array([0 if c is None else max(1, len(c))
                                 for c in self.categories_], dtype=np.int32)
        if self.splitter == "hist":
            return self._grow_hist(X, encoded_y, weights, n_classes, limits, n_draw, seed)
        if self._algorithm() == "c4.5":
            return self._grow_c45(X, encoded_y, weights, n_classes, limits, n_draw,
                                  n_categories, w_exp)
        multiway = self._algorithm() == "id3"
        if multiway and limits["max_leaf_nodes"] > 0:
            raise ValueError("algorithm='id3' grows depth-first: max_leaf_nodes is not "
                             "supported with it")
        splitter = Splitter(X, encoded_y, weights, n_classes, CRITERIA[self._criterion()],
                            limits["min_samples_leaf"], limits["min_weight_leaf"],
                            n_draw, seed, n_categories, multiway, self._n_threads())
        arrays = build_tree(splitter, **limits)
        del splitter  # free the presorted columns before building the Tree object
        self.max_features_ = n_draw
        return Tree.from_builder(arrays, X.shape[1], n_classes)

    def _categorical_spec(self):
        """``categorical_features``, or "auto" where Quinlan's presets imply it."""
        spec = self.categorical_features
        if spec is None and getattr(self, "algorithm", "cart") in ("id3", "c4.5"):
            return "auto"  # the presets split text columns by category
        return spec

    def _splits_text(self):
        """Whether text columns are taken as categories (for scikit-learn's tags)."""
        spec = self._categorical_spec()
        return isinstance(spec, str) and spec == "auto"

    def _n_threads(self):
        """Threads for fit and predict from ``n_jobs`` (None: one per available core)."""
        n_jobs = getattr(self, "n_jobs", 1)
        cores = _available_cores()
        if n_jobs is None:
            return cores
        if not _is_int(n_jobs) or n_jobs == 0:
            raise InvalidParameterError(f"n_jobs must be None or a non-zero int; got "
                                        f"{n_jobs!r}")
        # scikit-learn's convention: -1 is every core, -2 all but one, ...
        threads = int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))
        return min(threads, max(MAX_THREADS, cores))

    def _grow_hist(self, X, encoded_y, weights, n_classes, limits, n_draw, seed):
        """The histogram splitter's tree (``_hist``): features binned, then grown."""
        max_bins = self.max_bins
        unsupported = [name for name, used in (
            ("categorical_features", self.categorical_features_.any()),
            (f"algorithm={self._algorithm()!r}", self._algorithm() != "cart")) if used]
        if unsupported:
            raise ValueError(f"splitter='hist' does not support {', '.join(unsupported)} yet; "
                             "use splitter='best'")
        threads = self._n_threads()
        codes, lo, hi = bin_codes(X, fit_bins(X, int(max_bins)), threads)
        arrays = build_hist_tree(codes, lo, hi, encoded_y, weights, n_classes=n_classes,
                                 criterion=CRITERIA[self._criterion()], max_features=n_draw,
                                 seed=seed, n_threads=threads, **limits)
        self.max_features_ = n_draw
        return Tree.from_builder(arrays, X.shape[1], n_classes)

    def _grow_c45(self, X, encoded_y, weights, n_classes, limits, n_draw, n_codes, w_exp):
        """C4.5's tree: fractional missing values, so its own grower (``_c45``)."""
        if limits["max_leaf_nodes"] > 0 or n_draw < X.shape[1]:
            raise ValueError("algorithm='c4.5' grows depth-first on every feature: "
                             "max_leaf_nodes and max_features are not supported with it")
        if self._criterion() not in ("gain_ratio", "entropy", "log_loss"):
            raise ValueError(f"algorithm='c4.5' splits by gain ratio or information gain; "
                             f"criterion={self.criterion!r} is not supported with it")
        if weights is None:
            weights = np.ones(X.shape[0])
        # C4.5's MINOBJS is 2; scikit-learn's default min_samples_leaf of 1 means "preset"
        min_objs = 2 if self.min_samples_leaf == 1 else limits["min_samples_leaf"]
        # a weight of cases: in the scaled units of the weights
        min_objs = max(scale_limit(float(min_objs), w_exp), limits["min_weight_leaf"])  # min_weight_fraction_leaf
        arrays = grow_c45(X, encoded_y, weights, n_classes,
                          self.categorical_features_.astype(np.uint8), n_codes,
                          max_depth=limits["max_depth"],
                          min_samples_split=limits["min_samples_split"],
                          min_objs=float(min_objs),
                          min_impurity_decrease=limits["min_impurity_decrease"],
                          use_ratio=self._criterion() == "gain_ratio")
        self.max_features_ = n_draw
        tree = Tree.from_builder(arrays, X.shape[1], n_classes)
        tree.fractional_missing = True
        return tree

    def _fit(self, X, encoded_y, weights, n_classes):
        self._check_pruning_params(encoded_y, weights, n_classes)
        for name in ("cp_table_", "ccp_alpha_"):
            self.__dict__.pop(name, None)
        pruning = self._pruning_method()
        # every tree of this fit (folds and hold-outs too) shares one target scale,
        # so that pruning compares their alphas in the same units
        y_exp = 0 if n_classes else power_of_two_scale(encoded_y)
        if pruning == "reduced_error":
            valid = _holdout(encoded_y, n_classes, self.validation_fraction,
                             _rng(self.random_state))
            train = ~valid
            tree = self._grow(X[train], encoded_y[train],
                              None if weights is None else weights[train], n_classes, y_exp)
            w_valid = np.ones(valid.sum()) if weights is None else weights[valid]
            tree = tree.subtree(reduced_error_leaves(tree, X[valid], encoded_y[valid],
                                                     w_valid))
        else:
            tree = self._grow(X, encoded_y, weights, n_classes, y_exp)
            if pruning == "pessimistic":
                tree = tree.subtree(pessimistic_leaves(tree, self.cf))
        if isinstance(self.ccp_alpha, str):
            tree = self._prune_by_cross_validation(tree, X, encoded_y, weights, n_classes,
                                                   y_exp)
        elif self.ccp_alpha > 0.0:
            tree = prune_ccp(tree, float(self.ccp_alpha), self.prune_risk)
            self.ccp_alpha_ = float(self.ccp_alpha)
        self.tree_ = tree
        return self

    def _check_pruning_params(self, encoded_y, weights, n_classes):
        """The pruning checks that need the data or several parameters together."""
        alpha = self.ccp_alpha
        if self.pruning == "pessimistic" and n_classes == 0:
            raise ValueError("pruning='pessimistic' (C4.5) is for classifiers; use "
                             "ccp_alpha or pruning='reduced_error' for regression")
        if not _is_real(self.cf) or not 0.0 < self.cf <= 0.5:
            raise ValueError(f"cf must be a float in (0, 0.5]; got {self.cf!r}")
        if self.pruning not in (None, "none") and (isinstance(alpha, str) or alpha > 0):
            raise ValueError("use either ccp_alpha or pruning, not both")
        if isinstance(alpha, str) and _is_int(self.cv):
            n = encoded_y.shape[0] if weights is None else int(np.count_nonzero(weights > 0))
            if self.cv > n:
                raise ValueError(f"cv={self.cv} is larger than the number of samples ({n})")
            if n_classes > 0:
                present = encoded_y if weights is None else encoded_y[weights > 0]
                counts = np.bincount(present, minlength=n_classes)
                smallest = counts[counts > 0].min()
                if self.cv > smallest:
                    raise ValueError(
                        f"cv={self.cv} is larger than the smallest class count ({smallest}): "
                        "every fold needs every class")

    def _prune_by_cross_validation(self, tree, X, encoded_y, weights, n_classes, y_exp):
        """Choose alpha by k-fold cross-validation over the pruning sequence (rpart)."""
        table, seq = cp_table(tree, self.prune_risk)
        # losses in units where neither weights nor squared targets overflow
        w = np.ones(X.shape[0]) if weights is None else weights / weights.max()
        y_scaled = encoded_y if n_classes > 0 else np.ldexp(encoded_y, -y_exp)
        if n_classes > 0:
            counts = np.bincount(encoded_y, weights=w, minlength=n_classes)
            root_loss = w.sum() - counts.max()
        else:
            root_loss = np.sum(w * (y_scaled - np.average(y_scaled, weights=w)) ** 2)
        if tree.node_count == 1 or root_loss <= 0:
            table.xerror = np.zeros(len(table))
            table.xstd = np.zeros(len(table))
        else:
            sums = np.zeros(len(table))
            squares = np.zeros(len(table))
            total = 0.0
            for train, test in self._cv_splits(X, encoded_y, n_classes):
                total += w[test].sum()
                fold_tree = self._grow(X[train], encoded_y[train],
                                       None if weights is None else weights[train], n_classes,
                                       y_exp)
                fold_seq = PruningSequence(fold_tree, self.prune_risk)
                s, q = cross_validated_losses(fold_tree, fold_seq, X[test], y_scaled[test],
                                              w[test], table.scaled_alpha, y_exp)
                sums += s
                squares += q
            table.xerror = sums / root_loss
            table.xstd = np.sqrt(np.maximum(squares - sums ** 2 / total, 0.0)) / root_loss
        table.rule = self.cv_rule
        table.selected = select_row(table, self.cv_rule)
        self.cp_table_ = table
        self.ccp_alpha_ = float(table.alpha[table.selected])
        return tree.subtree(seq.leaves_at(table.scaled_alpha[table.selected], tree.node_count))

    def _cv_splits(self, X, encoded_y, n_classes):
        """(train, test) index arrays: our folds for an int ``cv``, else the user's."""
        cv = self.cv
        if _is_int(cv):
            folds = fold_ids(encoded_y, n_classes, cv, _rng(self.random_state))
            return [(np.flatnonzero(folds != k), np.flatnonzero(folds == k))
                    for k in range(cv)]
        splits = list(cv.split(X, encoded_y)) if hasattr(cv, "split") else list(cv)
        if not splits:
            raise ValueError("cv gave no (train, test) splits")
        return [_check_fold(pair, k, X.shape[0]) for k, pair in enumerate(splits)]

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Effective alphas and total leaf risks of the minimal cost-complexity pruning.

        Fits an unpruned tree with this estimator's parameters (as scikit-learn
        does) and walks the weakest-link sequence with ``prune_risk``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
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
        if not _is_real(ccp_alpha) or not math.isfinite(ccp_alpha) or ccp_alpha < 0:
            raise ValueError(f"ccp_alpha must be a finite float >= 0; got {ccp_alpha!r}")
        if self.prune_risk not in RISKS:
            raise ValueError(f"prune_risk must be one of {list(RISKS)}; got "
                             f"{self.prune_risk!r}")
        pruned = copy.deepcopy(self)
        pruned.tree_ = prune_ccp(self.tree_, float(ccp_alpha), self.prune_risk)
        pruned.ccp_alpha_ = float(ccp_alpha)
        return pruned

    def _check_missing_param(self):
        if self.handle_missing not in ("split", "error"):
            raise ValueError(f"handle_missing must be 'split' or 'error'; got "
                             f"{self.handle_missing!r}")
        return self.handle_missing == "split"

    def _prepare_X(self, X):
        val.refuse_sparse(X)  # before the categorical columns are looked at
        names = val.get_feature_names(X)
        allow_nan = self._check_missing_param()
        if self.handle_unknown not in ("error", "missing"):
            raise ValueError(f"handle_unknown must be 'error' or 'missing'; got "
                             f"{self.handle_unknown!r}")
        X, text_columns = _unwrap_frame(X)
        n_columns = _n_columns(X)
        self._algorithm()  # a bad preset name is reported before the columns are read
        spec = self._categorical_spec()
        mask = cat.resolve_mask(spec, X, names, n_columns, text_columns) \
            if n_columns is not None else np.zeros(0, dtype=bool)
        categories = [None] * len(mask)
        for j in np.flatnonzero(mask):
            label = val._column_label(j, names)
            categories[j] = cat.fit_categories(cat.column_values(X, j), label)
            if isinstance(spec, str):  # chosen by "auto", not by the user
                cat.warn_if_identifier(cat.column_values(X, j), categories[j], label)
        X = self._to_matrix(X, mask, categories, names, allow_nan)
        self.n_features_in_ = X.shape[1]
        # (check_X has refused anything but a 2-D X, so mask covers every column)
        self.categorical_features_ = mask
        self.categories_ = categories
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return X

    def _to_matrix(self, X, mask, categories, names, allow_nan, n_features=None):
        """The validated float32 matrix: categories as codes, NaN only where allowed."""
        if mask.any():
            n_columns = _n_columns(X)
            if n_features is not None and n_columns != n_features:
                raise ValueError(f"X has {n_columns} features, but {type(self).__name__} is "
                                 f"expecting {n_features} features as input.")
            X = self._encode_categories(X, mask, categories, names)
        # a missing category is NaN whatever handle_missing says of numbers
        X = val.check_X(X, feature_names=names, n_features=n_features,
                        estimator_name=type(self).__name__,
                        allow_nan=allow_nan or mask.any())
        if mask.any() and not allow_nan:
            self._refuse_nan(X, ~mask, names)
        return X

    def _encode_categories(self, X, mask, categories, names):
        """X as a float64 matrix: category codes (NaN if missing) and numbers."""
        n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
        out = np.empty((n_rows, mask.shape[0]), dtype=np.float64)
        for j in range(mask.shape[0]):
            label = val._column_label(j, names)
            if mask[j]:
                out[:, j] = cat.encode(cat.column_values(X, j), categories[j],
                                       self.handle_unknown, label)
            else:
                out[:, j] = _numeric_column(X, j, label)
        return out

    def _refuse_nan(self, X, numeric, names):
        bad = np.isnan(X[:, numeric]).any(axis=0)
        if bad.any():
            j = int(np.flatnonzero(numeric)[np.flatnonzero(bad)[0]])
            raise ValueError(f"Input X contains NaN in {val._column_label(j, names)}, and "
                             "missing values are disabled (handle_missing='error')")

    # ------------------------------------------------------- persistence
    def save(self, path):
        """Write this fitted estimator to a model file (read it with ``dtree.load``).

        The file is a versioned archive of plain arrays and a JSON header:
        loading it never executes code. See ``dtree._io``.

        Parameters
        ----------
        path : str, path-like or writable binary file
        """
        from ._io import save

        save(self, path)

    def to_dict(self):
        """The fitted estimator as JSON-able Python (read it with ``dtree.from_dict``).

        Returns
        -------
        dict
        """
        from ._io import to_dict

        return to_dict(self)

    # ------------------------------------------------------------- predict
    def __sklearn_is_fitted__(self):
        return hasattr(self, "tree_")

    def _check_fitted(self):
        if not hasattr(self, "tree_"):
            raise val.not_fitted_error(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator.")

    def _validate_X_predict(self, X):
        self._check_fitted()
        fitted_names = getattr(self, "feature_names_in_", None)
        val.check_feature_names(fitted_names, X, type(self).__name__)
        X, _ = _unwrap_frame(X)
        return self._to_matrix(X, self.categorical_features_, self.categories_,
                               fitted_names, self._check_missing_param(),
                               n_features=self.n_features_in_)

    def apply(self, X):
        """Index of the leaf each sample ends up in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Node ids in ``tree_``.
        """
        X = self._validate_X_predict(X)
        return self.tree_.apply(X, self._n_threads())

    def decision_path(self, X):
        """Nodes each sample passes through.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Entry (i, j) is 1 when sample i goes through node j.
        """
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
    splitter : {"best", "hist"}, default="best"
        Split search. "best": the exact presorted scan. "hist": each feature
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
        Seed of the feature draw (used only when max_features < n_features).

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
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights.
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
    handle_missing : {"split", "error"}, default="split"
        NaN in X is a missing value: "split" learns, at each split, whether
        missing values go left or right (both are tried, as is a split on
        missingness alone); where a node saw none at fit, NaN follows the child
        with more samples. "error" refuses NaN.
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

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
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

    _criteria = CLASSIFICATION_CRITERIA
    _parameter_constraints = CLASSIFIER

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 prune_risk="impurity", pruning=None, cv=10, cv_rule="1se", cf=0.25,
                 validation_fraction=0.1, handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", algorithm="cart", n_jobs=None, max_bins=255):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.prune_risk = prune_risk
        self.pruning = pruning
        self.cv = cv
        self.cv_rule = cv_rule
        self.cf = cf
        self.validation_fraction = validation_fraction
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.handle_unknown = handle_unknown
        self.algorithm = algorithm
        self.n_jobs = n_jobs
        self.max_bins = max_bins

    def fit(self, X, y, sample_weight=None):
        """Build the tree from training data.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features (converted to float32, as scikit-learn does).
        y : array-like of shape (n_samples,)
            Class labels of any hashable kind (str, int, bool, ...).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None gives every sample weight 1.

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._prepare_X(X)
        _check_label_kinds(y)
        y = val.check_y(y, X.shape[0], estimator_name=type(self).__name__)
        classes, codes = _encode_labels(y)
        weights = val.check_sample_weight(sample_weight, X.shape[0])
        weights = self._apply_class_weight(classes, codes, weights)
        self.classes_ = classes
        self.n_classes_ = int(classes.shape[0])
        return self._fit(X, codes, weights, self.n_classes_)

    def _apply_class_weight(self, classes, codes, weights):
        cw = self.class_weight
        if cw is None:
            return weights
        if isinstance(cw, str):
            if cw != "balanced":
                raise ValueError(f"class_weight must be None, 'balanced' or a dict; got {cw!r}")
            counts = np.bincount(codes, minlength=classes.shape[0]).astype(np.float64)
            per_class = codes.shape[0] / (classes.shape[0] * counts)
        elif isinstance(cw, dict):
            known = classes.tolist()
            unknown = [k for k in cw if k not in known]
            if unknown:
                raise ValueError(f"class_weight has labels {unknown!r} that are not in y "
                                 f"(classes: {known!r})")
            per_class = np.array([float(cw.get(c, 1.0)) for c in known])
            if (per_class < 0).any() or not np.isfinite(per_class).all():
                raise ValueError("class_weight values must be finite and >= 0")
        else:
            raise ValueError(f"class_weight must be None, 'balanced' or a dict; got {cw!r}")
        expanded = per_class[codes]
        weights = expanded if weights is None else weights * expanded
        if not (weights > 0).any():
            raise ValueError("sample weights times class weights sum to zero")
        return weights

    def predict_proba(self, X):
        """Class probabilities: the weighted class fractions of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        X = self._validate_X_predict(X)
        return self.tree_.leaf_values(X, self._n_threads())[:, 0, :]

    def predict_log_proba(self, X):
        """Logarithm of ``predict_proba`` (-inf for a zero probability).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Most probable class of each sample (the first in ``classes_`` on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._validate_X_predict(X)
        if self.tree_.mixes_leaves(X):
            proba = self.tree_.leaf_values(X)[:, 0, :]
            return self.classes_.take(np.argmax(proba, axis=1))
        # argmax per node once, not per sample
        node_class = np.argmax(self.tree_.value[:, 0, :], axis=1)
        return self.classes_.take(node_class.take(self.tree_.apply(X, self._n_threads())))

    def score(self, X, y, sample_weight=None):
        """Mean (weighted) accuracy on the given data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
        """
        pred = self.predict(X)
        y = val.check_y(y, pred.shape[0], estimator_name=type(self).__name__)
        sw = val.check_sample_weight(sample_weight, pred.shape[0])
        return float(np.average(pred == y, weights=sw))

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        from sklearn.utils import InputTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(),
                    input_tags=InputTags(allow_nan=self.handle_missing == "split",
                                         string=self._splits_text(),
                                         categorical=self._splits_text()))


class DecisionTreeRegressor(BaseDecisionTree):
    """Exact CART decision tree regressor (squared error).

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error"
        Variance reduction. (absolute_error and poisson are not available yet.)
    splitter : {"best", "hist"}, default="best"
    max_depth : int or None, default=None
    min_samples_split : int or float, default=2
    min_samples_leaf : int or float, default=1
    min_weight_fraction_leaf : float, default=0.0
    max_features : int, float, {"sqrt", "log2"} or None, default=None
    random_state : int, RandomState, Generator or None, default=None
    max_leaf_nodes : int or None, default=None
    min_impurity_decrease : float, default=0.0
    ccp_alpha, prune_risk, pruning, cv, cv_rule, validation_fraction, handle_missing
    categorical_features, handle_unknown, n_jobs, max_bins
        See ``DecisionTreeClassifier`` (``pruning="pessimistic"`` is for
        classifiers only).

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

    _criteria = REGRESSION_CRITERIA
    _parameter_constraints = REGRESSOR

    def __init__(self, *, criterion="squared_error", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, prune_risk="impurity",
                 pruning=None, cv=10, cv_rule="1se", validation_fraction=0.1,
                 handle_missing="split", categorical_features="auto",
                 handle_unknown="missing", n_jobs=None, max_bins=255):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.prune_risk = prune_risk
        self.pruning = pruning
        self.cv = cv
        self.cv_rule = cv_rule
        self.validation_fraction = validation_fraction
        self.handle_missing = handle_missing
        self.n_jobs = n_jobs
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.handle_unknown = handle_unknown

    # C4.5's pessimistic pruning is for classifiers; the shared checks read cf.
    cf = 0.25

    def fit(self, X, y, sample_weight=None):
        """Build the tree from training data.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._prepare_X(X)
        y = val.check_y(y, X.shape[0], estimator_name=type(self).__name__)
        y = _numeric_target(y)
        weights = val.check_sample_weight(sample_weight, X.shape[0])
        return self._fit(X, y, weights, 0)

    def predict(self, X):
        """Mean target of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._validate_X_predict(X)
        return self.tree_.value[:, 0, 0].take(self.tree_.apply(X, self._n_threads()))

    def score(self, X, y, sample_weight=None):
        """Coefficient of determination R^2 of the prediction.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
        """
        pred = self.predict(X)
        y = _numeric_target(val.check_y(y, pred.shape[0], estimator_name=type(self).__name__))
        sw = val.check_sample_weight(sample_weight, pred.shape[0])
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
        from sklearn.utils import RegressorTags, Tags, TargetTags

        from sklearn.utils import InputTags

        return Tags(estimator_type="regressor", target_tags=TargetTags(required=True),
                    regressor_tags=RegressorTags(),
                    input_tags=InputTags(allow_nan=self.handle_missing == "split",
                                         string=self._splits_text(),
                                         categorical=self._splits_text()))


def _check_label_kinds(y):
    """Refuse labels mixing strings and numbers (numpy would turn 1 into '1')."""
    if y is None or (isinstance(y, np.ndarray) and y.dtype != object):
        return
    if hasattr(y, "dtype") and getattr(y.dtype, "kind", "O") != "O":
        return
    values = np.asarray(y, dtype=object).ravel()
    for value in values:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise ValueError("Input y contains missing labels (None or NaN)")
    kinds = {isinstance(v, str) for v in values}
    if len(kinds) > 1:
        raise TypeError("y mixes string and number labels; labels must be mutually "
                        "comparable (all str or all numbers)")


def _numeric_column(X, j, label):
    """Column j as float64 (NaN for missing), fast for frames and numeric arrays."""
    try:
        if hasattr(X, "iloc"):
            return X.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan)
        column = np.asarray(X)[:, j] if not isinstance(X, np.ndarray) else X[:, j]
        try:
            return np.asarray(column, dtype=np.float64)
        except TypeError:  # None among the values
            return np.where(cat.missing_mask(column), np.nan, column).astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"X {label} has non-numeric values; list it in "
                         "categorical_features (or use 'auto')") from None


def _check_fold(pair, k, n_samples):
    """A user's (train, test) pair as integer index arrays within the data."""
    try:
        train, test = pair
    except (TypeError, ValueError):
        raise ValueError(f"cv split {k} is not a (train, test) pair") from None
    out = []
    for part, indices in (("train", train), ("test", test)):
        try:
            indices = np.asarray(indices)
        except (TypeError, ValueError):
            raise ValueError(f"cv split {k}: the {part} indices are not an array") from None
        if indices.dtype == bool and indices.shape == (n_samples,):
            indices = np.flatnonzero(indices)  # a mask
        if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
            raise ValueError(f"cv split {k}: the {part} indices must be a 1-D array of "
                             f"integers; got dtype {indices.dtype}, shape {indices.shape}")
        if indices.size == 0:
            raise ValueError("every cv split needs training and test samples")
        if indices.min() < 0 or indices.max() >= n_samples:
            raise ValueError(f"cv split {k}: {part} indices must lie in [0, {n_samples}); "
                             f"got {indices.min()} to {indices.max()}")
        out.append(indices.astype(np.intp))
    return tuple(out)


def _unwrap_frame(X):
    """(X, mask of its text columns or None): polars frames become numpy arrays."""
    if is_polars(X):
        return polars_to_array(X)
    return X, None


def _n_columns(X):
    """Number of columns of a 2-D array-like, or None when it is not 2-D."""
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.asarray(X, dtype=object).shape
        except (TypeError, ValueError):
            return None
    return shape[1] if len(shape) == 2 else None


def _encode_labels(y):
    """Sorted unique labels and the int32 code of each sample."""
    if y.dtype.kind == "f":
        if np.isnan(y).any():
            raise ValueError("Input y contains NaN: every sample needs a class label")
        if not np.isfinite(y).all():
            raise ValueError("Input y contains infinity: every sample needs a class label")
        if (y != np.round(y)).any():
            raise ValueError(
                "Unknown label type: continuous. A classifier needs discrete labels "
                "(got non-integer floats); use DecisionTreeRegressor for a numeric target."
            )
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"y labels must be mutually comparable (one kind, e.g. all str or "
                        f"all int): {exc}") from None
    return classes, codes.astype(np.int32).ravel()


def _numeric_target(y):
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must be numeric for a regressor") from None
    if np.isnan(y).any():
        raise ValueError("Input y contains NaN")
    if not np.isfinite(y).all():
        raise ValueError("Input y contains infinity or a value too large for dtype('float64')")
    return y
