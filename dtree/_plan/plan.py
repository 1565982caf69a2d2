"""The fit plan: every choice and every refusal of a fit, made once, before anything is built.

``choose(est)`` reads the (validated) hyperparameters alone: the registry rows
of the criterion, splitter and algorithm preset (a preset's criterion where
``criterion`` is left at its default), the pruning, and which columns split by
category. The input is encoded with those choices (``_input.encode``);
``make_plan(est, choices, data)`` then adds what the data says (its size,
outputs, categories, whether a sparse X stays sparse) and returns one frozen
``FitPlan``: the builder, the monotonic constraints, the threads, the growth
limits, the pruning and what the tree records of its rows, every refusal
raised on the way (the registry's, in its one wording, and the checks that
need the data). The growers read the plan, never the estimator.

Sizes that follow from the data (a tree has at most as many leaves as
samples, and no deeper than that) are clamped (``clamp_to_data``) so that
arbitrarily large but valid integers never reach a C size computation.
"""
import dataclasses
import math

import numpy as np

from . import registry
from .constraints import InvalidParameterError, is_int
from .._openmp import useful_threads
from .machine import n_threads, physical_memory, spare_threads

# The largest integer any builder receives: sizes are clamped to the data, and
# this bounds what is left (a depth, a count of threads) well inside C's ssize_t.
C_INT_MAX = 2**31 - 1
# the least a node of a fitted tree takes: its columns (9 of 8 bytes, 1 of 1)
# and one statistic
NODE_BYTES = 9 * 8 + 1 + 8
# the builders' exact splitter, grown from a sparse X's non-zeros
SPARSE_BUILDER = "sparse"


@dataclasses.dataclass(frozen=True)
class Choices:
    """What the hyperparameters choose before any data is seen.

    ``criterion``, ``splitter``, ``preset``: registry rows; ``pruning``:
    "pessimistic", "reduced_error" or None; ``categorical``: the
    ``categorical_features`` spec ("auto" where a preset implies it).
    """

    task: str
    criterion: registry.Criterion
    splitter: registry.Splitter
    preset: registry.Preset
    pruning: str
    categorical: object
    category_splits: str = "subsets"

    @property
    def multiway(self):
        """Whether a categorical split has one child per category (ID3's, C4.5's)."""
        return self.category_splits == "multiway"

    @property
    def sparse(self):
        """Whether a sparse X is grown from its non-zeros (else laid out densely)."""
        return self.criterion.sparse and self.splitter.sparse and self.preset.sparse and \
            (self.categorical is None or _is_auto(self.categorical))

    def refuses(self, name):
        """Whether the rows chosen refuse the registry row ``name`` ("outputs", ...)."""
        rows = [self.criterion, self.splitter, self.preset]
        if self.pruning is not None:
            rows.append(registry.ROWS[self.pruning])
        return bool(registry.conflicts(rows + [registry.ROWS[name]]))

    @property
    def splits_text(self):
        """Whether text columns are taken as categories (scikit-learn's tags)."""
        return _is_auto(self.categorical)


def _is_auto(spec):
    return isinstance(spec, str) and spec == "auto"


def choose(est):
    """The ``Choices`` of an estimator's (validated) hyperparameters."""
    task = registry.CLASSIFICATION if est._is_classifier else registry.REGRESSION
    preset = registry.ROWS[getattr(est, "algorithm", "cart")]
    name = est.criterion
    if name == registry.DEFAULT_CRITERION[task] and preset.criterion is not None:
        name = preset.criterion
    pruning = None if est.pruning == "none" else est.pruning
    if est.pruning is None and preset.pruning is not None and not (
            isinstance(est.ccp_alpha, str) or est.ccp_alpha > 0
            or getattr(est, "cp", None) is not None):
        pruning = preset.pruning
    categorical = est.categorical_features
    if categorical is None and preset.categories:
        categorical = "auto"
    shape = getattr(est, "category_splits", None)
    if shape is None:
        shape = preset.category_splits[0]
    elif shape not in preset.category_splits:
        raise ValueError(f"{preset.label} does not grow category_splits={shape!r}; it grows "
                         + " or ".join(repr(s) for s in preset.category_splits))
    return Choices(task=task, criterion=registry.criterion(name),
                   splitter=registry.ROWS[est.splitter], preset=preset, pruning=pruning,
                   categorical=categorical, category_splits=shape)


@dataclasses.dataclass(frozen=True)
class GrowthParams:
    """The numbers a grower works with, for one sample of the data.

    Sizes are clamped to the data (see ``clamp_to_data``); weights and the
    impurity decrease are in the units the grower sees (``FitPlan.growth``).
    """

    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    min_weight_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int     # -1: depth-first growth
    max_features: int       # features drawn per node

    def limits(self):
        """The growth limits, as ``_grow.build_tree`` takes them."""
        return dict(max_depth=self.max_depth, min_samples_split=self.min_samples_split,
                    min_samples_leaf=self.min_samples_leaf,
                    min_weight_leaf=self.min_weight_leaf,
                    min_impurity_decrease=self.min_impurity_decrease,
                    max_leaf_nodes=self.max_leaf_nodes)


def clamp_to_data(value, n_samples):
    """An int size parameter bounded by what ``n_samples`` samples allow.

    A tree on n samples has at most n leaves and depth at most n - 1, and a
    node limit above n + 1 acts as n + 1: clamping keeps every tree the same
    while no size reaching C code can wrap around.
    """
    return int(min(value, n_samples + 1, C_INT_MAX))


@dataclasses.dataclass(frozen=True)
class FitPlan:
    """One fit, decided: read by every grower, pruner and recorder of the fit.

    Attributes
    ----------
    choices : Choices
    builder : {"exact", "sparse", "hist", "c45"}
        The grower: the exact presorted splitter (dense X), the same search on
        a sparse X's non-zeros, the histogram splitter, or C4.5's own.
    n_features, n_outputs : int
    n_classes : int or list of int
        0 for regression; with several outputs one count per output.
    max_classes : int
        The builders' class count: the most of any output (0 for regression).
    categorical : ndarray of bool
        Which columns hold category codes.
    n_categories : ndarray of int32
        Per column 0 (numeric) or its number of categories.
    feature_names : ndarray of str or None
        The columns' names, where X had them (messages name columns by them).
    monotonic : ndarray of int8 or None
        The kernels' constraints (class 0's fraction for a classifier).
    params : dict
        The growth and pruning hyperparameters as given (``growth`` resolves
        the sizes for each sample a grower sees).
    """

    choices: Choices
    builder: str
    n_features: int
    n_outputs: int
    n_classes: object
    max_classes: int
    categorical: np.ndarray
    n_categories: np.ndarray
    feature_names: object
    monotonic: object
    n_threads: int
    random_state: object
    params: dict

    def column_label(self, j):
        """How messages name column j."""
        return _column_label(j, self.feature_names)

    @property
    def strata(self):
        """Classes that stratify hold-outs and folds: one output's only."""
        return self.n_classes if self.n_outputs == 1 else 0

    def max_features(self):
        """Features drawn per node (scikit-learn's ``max_features_``)."""
        return features_drawn(self.params["max_features"], self.n_features)

    def growth(self, n_samples, total_weight):
        """The growth limits for ``n_samples`` rows of ``total_weight``."""
        return growth_params(self.params, self.n_features, n_samples, total_weight)

    def search(self, growth, seed):
        """The splitters' settings (``_common.SearchSettings``) for one growth."""
        preset, p = self.choices.preset, self.params
        return dict(criterion=self.choices.criterion.code, n_classes=self.max_classes,
                    min_samples_leaf=growth.min_samples_leaf,
                    min_weight_leaf=growth.min_weight_leaf,
                    max_features=growth.max_features, seed=seed, n_threads=self.n_threads,
                    quantile=float(p["quantile"]), value_tolerance=float(p["value_tolerance"]),
                    multiway=self.choices.multiway, index_order=preset.index_order,
                    one_vs_rest=self.choices.category_splits == "one_vs_rest",
                    random_split=self.choices.splitter.random_split)


def features_drawn(max_features, n_features):
    """How many features ``max_features`` draws of ``n_features`` at each node."""
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        root = math.sqrt if max_features == "sqrt" else math.log2
        return max(1, int(root(n_features)))
    if is_int(max_features):
        return int(max_features)
    return max(1, int(max_features * n_features))


def growth_params(params, n_features, n_samples, total_weight):
    """The ``GrowthParams`` of hyperparameters ``params`` (a dict of the estimator's)
    for ``n_samples`` rows of ``total_weight`` (see ``FitPlan.growth``)."""
    max_depth = clamp_to_data(C_INT_MAX if params["max_depth"] is None
                              else params["max_depth"], n_samples)
    leaf, split = params["min_samples_leaf"], params["min_samples_split"]
    min_leaf = clamp_to_data(leaf, n_samples) if is_int(leaf) else \
        max(1, int(math.ceil(leaf * n_samples)))
    min_split = clamp_to_data(split, n_samples) if is_int(split) else \
        max(2, int(math.ceil(split * n_samples)))
    min_split = clamp_to_data(max(min_split, 2 * min_leaf), n_samples)
    # a tree on n samples has at most n leaves
    leaves = -1 if params["max_leaf_nodes"] is None else \
        max(2, clamp_to_data(params["max_leaf_nodes"], n_samples))
    return GrowthParams(
        max_depth=int(max_depth), min_samples_split=int(min_split),
        min_samples_leaf=int(min_leaf),
        min_weight_leaf=float(params["min_weight_fraction_leaf"] * total_weight),
        min_impurity_decrease=float(params["min_impurity_decrease"]),
        max_leaf_nodes=int(leaves), max_features=features_drawn(params["max_features"],
                                                                n_features))


# the hyperparameters a plan keeps (the estimator's, or these defaults where a
# class has no such parameter)
_PARAMS = dict(max_depth=None, min_samples_split=2, min_samples_leaf=1,
               min_weight_fraction_leaf=0.0, max_features=None, max_leaf_nodes=None,
               min_impurity_decrease=0.0, quantile=0.5, value_tolerance=0.0, max_bins=255,
               ccp_alpha=0.0, cp=None, prune_risk="impurity", cf=0.25, cv=10, cv_rule="1se",
               validation_fraction=0.1, keep_leaf_targets=False, keep_competitors=0,
               n_surrogates=None, handle_missing="split", n_jobs=1, monotonic_cst=None,
               threshold_rule=None, subtree_raising=None, category_splits=None, verbose=0)


def make_plan(est, choices, data, *, distributed=False):
    """The ``FitPlan`` of ``est`` on encoded training data, every refusal raised.

    ``data`` has the encoded ``X``, ``y`` and ``weights``, ``n_classes`` and
    ``columns`` (see ``_input.encode.TrainingData``); ``distributed``: the
    fit is ``dtree.dask``'s.
    """
    params = _params_of(est)
    columns = data.columns
    categorical = np.asarray(columns.categorical_features_, dtype=bool)
    n_features, n_outputs = int(columns.n_features_in_), data.n_outputs
    max_classes = max(data.n_classes) if isinstance(data.n_classes, list) else \
        int(data.n_classes)
    monotonic = monotonic_constraints(params["monotonic_cst"], n_features, n_outputs,
                                      max_classes, categorical)
    sparse = choices.sparse and data.is_sparse
    plan = FitPlan(choices=choices, builder=_builder(choices, sparse), n_features=n_features,
                   n_outputs=n_outputs, n_classes=data.n_classes, max_classes=max_classes,
                   categorical=categorical,
                   n_categories=np.array([0 if c is None else max(1, len(c))
                                          for c in columns.categories_], dtype=np.int32),
                   feature_names=columns.feature_names_in_, monotonic=monotonic,
                   n_threads=_fit_threads(params["n_jobs"], data.X, n_features),
                   random_state=est.random_state,
                   params=params)
    _check_max_features(params["max_features"], n_features)
    data_rows = [registry.ROWS[name] for name, used in (
        ("sparse", sparse), ("outputs", n_outputs > 1), ("categories", categorical.any()),
        ("feature_draw", plan.max_features() < n_features)) if used]
    refuse(_used(choices, params, distributed, data_rows), _labels(params, n_outputs))
    _check_pruning(plan, est, data)
    check_leaf_budget(params["max_leaf_nodes"])
    return plan


def check_choices(est, choices, *, distributed=False):
    """The refusals the hyperparameters decide alone, before any data is read (the
    distributed fit's first step; ``make_plan`` makes them again with the data's)."""
    params = _params_of(est)
    refuse(_used(choices, params, distributed, []), _labels(params, 1))


def _params_of(est):
    # (the parameters are the instance's attributes: __init__ stores them)
    given = vars(est)
    return {name: given.get(name, default) for name, default in _PARAMS.items()}


def _used(choices, params, distributed, data_rows):
    """The registry rows a fit uses: its choices, its data's kinds, its options."""
    used = [choices.splitter, choices.preset, choices.criterion] + list(data_rows)
    for name, asked in (
            ("dask", distributed), ("monotonic", params["monotonic_cst"] is not None),
            ("value_tolerance", params["value_tolerance"] > 0),
            ("best_first", params["max_leaf_nodes"] is not None),
            ("cv", isinstance(params["ccp_alpha"], str)),
            ("reduced_error", choices.pruning == "reduced_error"),
            ("pessimistic", choices.pruning == "pessimistic"),
            ("audit", _audit_parameter(params) is not None)):
        if asked:
            used.append(registry.ROWS[name])
    return used


def _labels(params, n_outputs):
    """This fit's own names of registry rows: the parameter that asked for the audit,
    the shape of a y of several outputs."""
    return {"outputs": f"a y of several outputs (shape (n_samples, {n_outputs}))",
            "audit": _audit_parameter(params)}


def refuse(used, labels=None):
    """ValueError naming every refused pair among the ``used`` rows (the registry's
    one wording), or nothing."""
    refused = [registry.refusal(a, b, labels) for a, b in registry.conflicts(used)]
    if refused:
        raise ValueError("; ".join(refused))


def _builder(choices, sparse):
    if choices.preset.builder is not None:
        return choices.preset.builder
    if sparse:
        return SPARSE_BUILDER
    return choices.splitter.builder


def _audit_parameter(params):
    """The parameter that asks for competitor or surrogate splits, or None."""
    if params["handle_missing"] == "surrogate":
        return "handle_missing='surrogate'"
    if params["keep_competitors"]:
        return "keep_competitors"
    if params["n_surrogates"]:
        return "n_surrogates"
    return None


def n_surrogates(plan):
    """Surrogates to keep per split: ``n_surrogates``, or rpart's 5 when they route."""
    if plan.params["n_surrogates"] is not None:
        return int(plan.params["n_surrogates"])
    return 5 if plan.params["handle_missing"] == "surrogate" else 0


def _fit_threads(n_jobs, X, n_features):
    """The threads ``n_jobs`` means, no more than X's size can use (a distributed
    fit's rows live on its workers: X is None). The default's (None) are also no
    more than the cores other work leaves free: a tree's growth waits for every
    thread at each large node, and a thread that shares its core with another
    process arrives late (one busy core of two made a 2-thread fit of 1e6 x 10
    1.3-1.8x slower than one thread)."""
    threads = n_threads(n_jobs)
    if X is None:
        return threads
    return spare_threads(useful_threads(threads, X.shape[0], n_features,
                                        by_default=n_jobs is None), n_jobs)


def _column_label(j, names):
    return f"column {names[j]!r}" if names is not None else f"column {j}"


def _check_max_features(value, n_features):
    if is_int(value) and value > n_features:
        raise InvalidParameterError(
            f"max_features must be in [1, n_features={n_features}]; got {value!r}")


def monotonic_constraints(monotonic_cst, n_features, n_outputs, n_classes, categorical):
    """The kernels' constraints (int8 per feature) from ``monotonic_cst``, or None.

    Raises ``ValueError`` in scikit-learn's words and order for several
    outputs, a wrong length, values other than -1, 0 and 1, and multiclass
    targets; and for a constraint on a categorical feature (a set of categories
    has no order). A classifier's kernels constrain the fraction of class 0, so
    the signs are flipped (scikit-learn's rule).
    """
    if monotonic_cst is None:
        return None
    if n_outputs > 1:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    cst = np.asarray(monotonic_cst)
    if cst.ndim != 1 or cst.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {cst.shape[0] if cst.ndim else cst.shape} "
                         f"but the input data X has {n_features} features.")
    if not np.isin(cst, (-1, 0, 1)).all():
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but "
                         f"got {np.unique(cst)}")
    cst = cst.astype(np.int8)
    if n_classes > 2:
        raise ValueError("Monotonicity constraints are not supported with multiclass "
                         "classification")
    constrained = np.flatnonzero(categorical & (cst != 0))
    if constrained.size:
        raise ValueError(f"monotonic_cst constrains categorical feature(s) "
                         f"{constrained.tolist()}: a set of categories has no order; "
                         "give them 0")
    return -cst if n_classes > 0 else cst


def _check_pruning(plan, est, data):
    """The pruning checks of parameters together, and of the data."""
    p = plan.params
    alpha = p["ccp_alpha"]
    if est.pruning not in (None, "none") and (isinstance(alpha, str) or alpha > 0):
        raise ValueError("use either ccp_alpha or pruning, not both")
    if p["cp"] is not None and not isinstance(alpha, str) and alpha > 0:
        raise ValueError("use either ccp_alpha (absolute) or cp (rpart's, relative to the "
                         "root's risk), not both")
    if p["cp"] is not None and est.pruning not in (None, "none"):
        raise ValueError("use either cp or pruning, not both")
    if p["subtree_raising"] and plan.choices.pruning != "pessimistic":
        raise ValueError("subtree_raising=True needs pruning='pessimistic' (subtree "
                         "raising is a step of C4.5's pessimistic pruning)")
    if isinstance(alpha, str) and is_int(p["cv"]):
        y, w = data.y, data.weights
        n = y.shape[0] if w is None else int(np.count_nonzero(w > 0))
        if p["cv"] > n:
            raise ValueError(f"cv={p['cv']} is larger than the number of samples ({n})")
        if plan.strata > 0:
            present = y if w is None else y[w > 0]
            counts = np.bincount(present, minlength=plan.strata)
            smallest = counts[counts > 0].min()
            if p["cv"] > smallest:
                raise ValueError(
                    f"cv={p['cv']} is larger than the smallest class count ({smallest}): "
                    "every fold needs every class")


def check_leaf_budget(max_leaf_nodes):
    """MemoryError for a ``max_leaf_nodes`` whose tree no memory here could hold.

    scikit-learn sizes its node arrays by ``max_leaf_nodes`` and fails to
    allocate; dtree allocates by the data, but refuses the same requests,
    before anything is allocated. Smaller values act as "unlimited" when the
    data allow fewer leaves.
    """
    if max_leaf_nodes is None:
        return
    memory = physical_memory()
    if memory is None:
        return
    nodes = 2 * int(max_leaf_nodes) - 1
    needed = nodes * NODE_BYTES
    if needed > memory:
        raise MemoryError(
            f"max_leaf_nodes={_short(max_leaf_nodes)} asks for a tree of {_short(nodes)} "
            f"nodes, at least {_short(needed)} bytes: more than this machine's memory "
            f"({memory:.3g} bytes)")


def _short(n):
    """An integer of any size in a few characters (a float's form, or its power of 10)."""
    n = int(n)
    return f"{n:.3g}" if abs(n) < 10 ** 300 else f"~1e{len(str(abs(n))) - 1}"
