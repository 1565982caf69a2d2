"""One tree from data spread over a Dask cluster: ``DaskDecisionTreeClassifier`` and
``DaskDecisionTreeRegressor`` (``pip install "dtree-exact[dask]"``).

The tree is ``splitter="hist"``'s, grown without gathering the data:

1. each partition summarizes its columns (``_fit.binning``'s mergeable summaries:
   exact while a feature has at most 4096 distinct values, a fixed grid of
   buckets beyond) and the summaries are merged by a tree reduction into every
   feature's bin thresholds; text and category columns of a DataFrame are
   categorical, their categories the union over the partitions;
2. each partition is binned once into uint8 codes that stay on its worker,
   beside its targets, weights and each row's node (the float data is not
   kept);
3. per round (a tree level, where no tie makes a node wait for the local
   depth-first order: ``_fit.levelwise``), each worker moves its rows through the
   splits just chosen and builds the histograms of its rows for the nodes
   asked for (the smaller child of each split; the larger is its parent's
   minus it), the histograms are summed by a tree reduction, and the splits
   are chosen here by the histogram splitter's own search.

Only summaries, histograms and splits cross the network. A lost worker is
Dask's to survive: every piece the fit keeps is a task result Dask can
recompute from the input collections.
"""
import math
import sys
import time

import numpy as np

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
    from distributed import Client, default_client
except ImportError as exc:   # pragma: no cover - the extra is not installed
    raise ImportError("dtree.dask needs Dask: pip install 'dtree-exact[dask]' "
                      "(dask[distributed])") from exc

from . import DecisionTreeClassifier, DecisionTreeRegressor
from ._estimators.params import ParamsMixin
from ._fit.binning import (SUMMARY_RUNS, category_thresholds, column_summary, merge_summaries,
                           thresholds_from_summary)
from ._fit.grow import scaled_growth, tree_from_arrays
from ._fit.levelwise import grow_levelwise, slot_table
from ._fit.pruning import prune_ccp
from ._fit.sampling import draw_seed
from ._hist_splitter import bin_codes, node_histograms, route_rows
from ._input.categorical import column_values, encode, fit_categories
from ._input.encode import Columns, TrainingData, class_weight_table
from ._model.fitted import Fitted, install
from ._model.units import power_of_two_scale, scaled, unscale_tree, weight_units
from ._plan.constraints import validate_params
from ._plan.plan import check_choices, choose, make_plan
from ._plan.registry import CLASSIFICATION, DEFAULT_CRITERION, REGRESSION

__all__ = ["DaskDecisionTreeClassifier", "DaskDecisionTreeRegressor"]

_after_round = None     # test hook: called with the DaskRows after each round


# ---------------------------------------------------------------- the estimators
class _DaskTree(ParamsMixin):
    _local_class = None

    def _local_estimator(self):
        params = {name: getattr(self, name) for name in self._param_names() if name != "client"}
        return self._local_class(splitter="hist", **params)

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on a dask array or DataFrame, partitioned across workers.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame, shape (n_samples, n_features)
            Numeric features; NaN is a missing value.
        y : dask.array.Array or dask.dataframe.Series, shape (n_samples,)
            Partitioned as X (chunks along rows that match X's are best).
        sample_weight : dask.array.Array or dask.dataframe.Series, optional

        Returns
        -------
        self
        """
        client = _resolve_client(self.client)
        local = self._local_estimator()
        validate_params(local)
        choices = choose(local)
        check_choices(local, choices, distributed=True)
        fitted = _fit(local, choices, client, _Partitions(X, y, sample_weight))
        install(local, fitted)
        install(self, fitted)
        self._local = local
        return self

    def to_local(self):
        """The fitted tree as an ordinary dtree estimator (``splitter="hist"``): save,
        export, ONNX, pruning and prediction on in-memory data all work on it."""
        import copy
        if not hasattr(self, "_local"):
            raise AttributeError(f"This {type(self).__name__} instance is not fitted yet: "
                                 "call 'fit' first")
        return copy.deepcopy(self._local)

    @property
    def feature_importances_(self):
        return self.to_local().feature_importances_

    def _map(self, X, method, dtype, width=None):
        """``method`` of the fitted tree on each partition of X: a lazy dask array
        (rows in X's order; ``width`` columns, or one dimension)."""
        local = self.to_local()
        if isinstance(X, dd.DataFrame):
            names = getattr(local, "feature_names_in_", None)
            if names is not None:
                missing = [c for c in names if c not in X.columns]
                if missing:
                    raise ValueError(f"X lacks the fitted columns {missing}")
                X = X[list(names)]
            elif len(X.columns) != local.n_features_in_:
                raise ValueError(f"X has {len(X.columns)} features, but "
                                 f"{type(self).__name__} is expecting "
                                 f"{local.n_features_in_} features as input")
            shape = (np.nan,) if width is None else (np.nan, width)
            return da.concatenate([
                da.from_delayed(dask.delayed(_predict_block)(part, local, method), shape,
                                dtype=dtype) for part in X.to_delayed()])
        if not isinstance(X, da.Array):
            raise TypeError(f"X must be a dask array or DataFrame, got {type(X).__name__}; "
                            "use to_local() to predict on in-memory data")
        if X.ndim != 2 or X.shape[1] != local.n_features_in_:
            raise ValueError(f"X has {X.shape[1] if X.ndim == 2 else X.ndim} "
                             f"features, but {type(self).__name__} is expecting "
                             f"{local.n_features_in_} features as input")
        X = X.rechunk({1: -1})
        if width is None:
            return X.map_blocks(_predict_block, local, method, dtype=dtype, drop_axis=1)
        return X.map_blocks(_predict_block, local, method, dtype=dtype,
                            chunks=(X.chunks[0], (width,)))

    def predict(self, X):
        """Predictions for each row: a lazy dask array (one chunk per partition of X)."""
        dtype = self.classes_.dtype if hasattr(self, "classes_") else np.float64
        return self._map(X, "predict", dtype)

    def apply(self, X):
        """Each row's leaf id: a lazy dask array."""
        return self._map(X, "apply", np.intp)


class DaskDecisionTreeClassifier(_DaskTree):
    """A ``DecisionTreeClassifier(splitter="hist")`` grown on a Dask cluster.

    The parameters are ``DecisionTreeClassifier``'s that histogram growth uses,
    plus ``client`` (default: the current ``distributed.Client``); ``verbose``
    (1 or more) prints a line per round over the cluster (each a pass over every
    partition) on standard error. See the module docstring for the algorithm. On the same bins the tree is the one
    ``DecisionTreeClassifier(splitter="hist")`` grows, node for node, ties and
    ``random_state``'s feature draws included (where the sums are exact: unit
    or integer weights and targets), and the bins do not depend on how the
    data is partitioned, so neither does the tree.

    Examples
    --------
    >>> from distributed import Client, LocalCluster          # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2))             # doctest: +SKIP
    >>> clf = DaskDecisionTreeClassifier(max_depth=8).fit(X, y)  # doctest: +SKIP
    >>> clf.predict(X).compute()                               # doctest: +SKIP
    """

    _local_class = DecisionTreeClassifier

    def __init__(self, *, criterion=DEFAULT_CRITERION[CLASSIFICATION], max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=None,
                 random_state=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 class_weight=None, ccp_alpha=0.0, prune_risk="impurity",
                 handle_missing="split", max_bins=255, monotonic_cst=None, client=None,
                 verbose=0):
        self._store_params(locals())

    def predict_proba(self, X):
        """Class probabilities (columns follow ``classes_``): a lazy dask array."""
        return self._map(X, "predict_proba", np.float64, len(self.to_local().classes_))


class DaskDecisionTreeRegressor(_DaskTree):
    """A ``DecisionTreeRegressor(splitter="hist")`` grown on a Dask cluster (see
    ``DaskDecisionTreeClassifier``)."""

    _local_class = DecisionTreeRegressor

    def __init__(self, *, criterion=DEFAULT_CRITERION[REGRESSION], max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=None,
                 random_state=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, prune_risk="impurity", handle_missing="split", max_bins=255,
                 monotonic_cst=None, client=None, verbose=0):
        self._store_params(locals())


def _predict_block(block, local, method):
    if len(block) == 0:     # an empty partition: an empty answer of the right shape
        if method == "predict_proba":
            return np.empty((0, len(local.classes_)))
        dtype = np.intp if method == "apply" else (
            local.classes_.dtype if hasattr(local, "classes_") else np.float64)
        return np.empty(0, dtype=dtype)
    return getattr(local, method)(block)


def _resolve_client(client):
    """The ``client`` parameter as a connected ``distributed.Client``: the current one
    for None; anything else (a scheduler's address, say) is refused by name."""
    if client is None:
        try:
            return default_client()
        except ValueError:
            raise ValueError("no Dask client: start one (distributed.Client(...), or a "
                             "LocalCluster) before fit, or pass client=") from None
    if not isinstance(client, Client):
        hint = (f": connect first, client=distributed.Client({client!r})"
                if isinstance(client, str) else "")
        raise TypeError("client must be a distributed.Client or None; got "
                        f"{type(client).__name__} {client!r}{hint}")
    return client


# ---------------------------------------------------------------- inputs
class _Partitions:
    """The fit's input as aligned lists of delayed partitions (X, y, weights), with
    X's column names and which columns are categorical (text or category
    columns of a DataFrame, as ``categorical_features="auto"``)."""

    def __init__(self, X, y, sample_weight):
        self.names, self.categorical = None, None
        if isinstance(X, dd.DataFrame):
            self._frame(X)
            lengths = None
            rows = None
        elif isinstance(X, da.Array):
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s)")
            X = X.rechunk({1: -1})
            self.n_features = X.shape[1]
            self.xs = list(X.to_delayed().ravel())
            lengths, rows = X.chunks[0], X.shape[0]
        else:
            raise TypeError(f"X must be a dask array or DataFrame, got {type(X).__name__}; "
                            "fit an ordinary dtree estimator on in-memory data")
        self.ys = self._aligned("y", y, X, lengths, rows)
        self.ws = [None] * len(self.xs) if sample_weight is None else \
            self._aligned("sample_weight", sample_weight, X, lengths, rows)

    def _frame(self, X):
        from pandas.api.types import (is_bool_dtype, is_numeric_dtype, is_object_dtype,
                                      is_string_dtype)
        kinds = []
        for c, t in X.dtypes.items():
            if str(t) == "category" or is_string_dtype(t) or is_object_dtype(t):
                kinds.append(True)
            elif is_numeric_dtype(t) or is_bool_dtype(t):
                kinds.append(False)
            else:
                raise ValueError(f"column {c!r} of X has dtype {t}: neither numeric nor "
                                 "categorical")
        self.names = np.asarray([str(c) for c in X.columns], dtype=object)
        self.categorical = np.asarray(kinds, dtype=bool)
        self.n_features = len(kinds)
        self.xs = list(X.to_delayed())

    def _aligned(self, name, v, X, lengths, rows):
        """``v``'s partitions, one per partition of X."""
        if isinstance(v, dd.DataFrame) and len(v.columns) == 1:
            v = v[v.columns[0]]
        if isinstance(v, dd.Series):
            if isinstance(X, dd.DataFrame) and v.npartitions == X.npartitions:
                return list(v.to_delayed())
            v = v.to_dask_array(lengths=True)
        if not isinstance(v, da.Array):
            raise TypeError(f"{name} must be a dask array or Series like X, got "
                            f"{type(v).__name__}")
        if v.ndim == 2 and v.shape[1] == 1:
            v = v[:, 0]
        if v.ndim != 1:
            raise ValueError(f"{name} must be 1-D: one value per row (several outputs are "
                             "not supported by the distributed fit)")
        if lengths is None:      # a DataFrame's partition lengths
            lengths = tuple(int(n) for n in X.map_partitions(len).compute())
            rows = sum(lengths)
        if v.shape[0] != rows:
            raise ValueError(f"X has {rows} rows but {name} has {v.shape[0]}")
        return list(v.rechunk((lengths,)).to_delayed().ravel())


def _matrix(xb, categorical, categories):
    """A partition of X as float32 (categories as their codes, NaN for missing)."""
    if categorical is None:
        return np.asarray(xb, dtype=np.float32)
    out = np.empty((len(xb), len(categorical)), dtype=np.float32)
    for j, is_cat in enumerate(categorical):
        values = column_values(xb, j)
        if is_cat:
            out[:, j] = encode(values, categories[j], "error", f"column {xb.columns[j]!r}")
        else:
            out[:, j] = np.asarray(xb.iloc[:, j].astype("float64").to_numpy(na_value=np.nan),
                                   dtype=np.float32)
    return out


# ---------------------------------------------------------------- the fit
def _fit(est, choices, client, parts):
    """The distributed fit of the local estimator ``est``: its ``Fitted`` state."""
    is_clf = isinstance(est, DecisionTreeClassifier)
    allow_nan = est.handle_missing == "split"
    xs, ys, ws, categorical = parts.xs, parts.ys, parts.ws, parts.categorical
    table = None
    if is_clf and est.class_weight is not None:
        # class weights need the classes and their counts first: the labels alone
        counted = client.compute([dask.delayed(_label_counts)(yb) for yb in ys])
        labels, counts = _tree_reduce(client, counted, _merge_label_counts).result()
        table = (labels, class_weight_table(est.class_weight, labels, counts))
    weighted_input = ws[0] is not None or table is not None
    # 1. summaries of every partition, merged
    summaries = [dask.delayed(_summarize)(xb, yb, wb, is_clf, allow_nan, categorical, table)
                 for xb, yb, wb in zip(xs, ys, ws)]
    total = _tree_reduce(client, client.compute(summaries), _merge_part_summaries).result()
    n_rows, d = total["n_rows"], parts.n_features
    if n_rows == 0:
        raise ValueError("no sample with a positive weight: the tree needs at least one")
    categories = total["categories"]
    thresholds = [thresholds_from_summary(s, int(est.max_bins)) if c is None else
                  category_thresholds(len(c), f"column {parts.names[j]!r}")
                  for j, (s, c) in enumerate(zip(total["columns"], categories))]
    classes = np.asarray(total["classes"]) if is_clf else None
    # 2. the weights' and targets' units (as the local fit scales them)
    w_unit, w_exp, weighted = 1.0, 0, False
    if weighted_input:
        w_unit, w_exp, uniform = weight_units(total["w_min"], total["w_max"],
                                              choices.criterion.log_counts)
        weighted = not uniform
    y_exp = 0 if is_clf else power_of_two_scale(np.array([total["y_absmax"]]))
    # 3. every partition binned once; its codes stay on its worker
    encoded = client.compute([dask.delayed(_encode)(xb, yb, wb, thresholds, classes, y_exp,
                                                  w_exp if weighted else None, categorical,
                                                  categories, table)
                            for xb, yb, wb in zip(xs, ys, ws)])
    lo, hi = _tree_reduce(client, [client.submit(_bounds, p) for p in encoded],
                          _merge_bounds).result()
    # 4. the plan (every refusal), then the tree, level by level
    n_classes = len(classes) if is_clf else 0
    columns = Columns(d, np.zeros(d, dtype=bool) if categorical is None else categorical,
                      categories, parts.names)
    plan = make_plan(est, choices, TrainingData(None, None, None, n_classes, columns, classes),
                     distributed=True)
    growth = scaled_growth(plan, n_rows, total["w_sum"] / w_unit if weighted else float(n_rows),
                           plan.choices.criterion.degree * y_exp)
    search = plan.search(growth, draw_seed(plan.random_state))
    rows = DaskRows(client, encoded, hi, search["criterion"], n_classes)
    report = None
    if est.verbose:
        started = time.perf_counter()

        def report(rounds, nodes):
            # each round is a pass over every partition on the cluster
            print(f"[dtree] round {rounds}: {nodes} nodes in "
                  f"{time.perf_counter() - started:.2f} s", file=sys.stderr, flush=True)
    arrays = grow_levelwise(rows, lo, hi, search=search, n_rows=n_rows, weighted=weighted,
                            params=growth, monotonic=plan.monotonic,
                            categorical=plan.categorical, report=report)
    rows.release()
    tree = unscale_tree(tree_from_arrays(plan, arrays), w_unit, y_exp,
                        plan.choices.criterion.degree)
    alpha = None
    if est.ccp_alpha > 0.0:
        tree = prune_ccp(tree, float(est.ccp_alpha), est.prune_risk)
        alpha = float(est.ccp_alpha)
    return Fitted(tree_=tree, n_features_in_=d,
                  categorical_features_=columns.categorical_features_, categories_=categories,
                  n_outputs_=1, max_features_=plan.max_features(),
                  feature_names_in_=parts.names, classes_=classes,
                  n_classes_=n_classes if is_clf else None, ccp_alpha_=alpha)


class DaskRows:
    """``grow_levelwise``'s rows, kept on the workers as futures: per partition its
    codes, targets and weights, and each row's node."""

    def __init__(self, client, parts, hi, criterion, n_classes):
        self.client, self.parts = client, parts
        self.hi, self.criterion, self.n_classes = hi, criterion, n_classes
        self.nodes = [client.submit(_root_nodes, p) for p in parts]
        self.rounds = 0

    def histograms(self, routes, slots):
        client = self.client
        if routes is not None:
            self.nodes = [client.submit(_routed, p, node, routes)
                          for p, node in zip(self.parts, self.nodes)]
        slot = slot_table(slots)
        parts = [client.submit(_histograms, p, node, slot, self.hi, self.criterion,
                               self.n_classes, len(slots))
                 for p, node in zip(self.parts, self.nodes)]
        hist, second = _tree_reduce(client, parts, _add_pair).result()
        self.rounds += 1
        if _after_round is not None:     # (tests: a worker lost between rounds)
            _after_round(self)
        return list(zip(hist, second))

    def release(self):
        for f in self.nodes + self.parts:
            f.release()


# ---------------------------------------------------------------- worker-side pieces
def _summarize(xb, yb, wb, is_clf, allow_nan, categorical, table):
    """One partition's summary: its numeric columns' value runs, its categorical
    columns' categories, its labels or target range, and weights."""
    yb = np.asarray(yb)
    if len(xb) != yb.shape[0]:
        raise ValueError("X and y partitions differ in length")
    w, keep = _weights(wb, yb, table)
    categories = [None] * xb.shape[1]
    if categorical is not None:
        for j in np.flatnonzero(categorical):
            # (the categories come from every row, as a local fit's)
            categories[j] = fit_categories(column_values(xb, j), f"column {xb.columns[j]!r}")
        xb = _matrix(xb, categorical, categories)
    xb = np.asarray(xb, dtype=np.float32)
    if np.isinf(xb).any():
        raise ValueError("Input X contains infinity or a value too large for dtype('float32').")
    if not allow_nan and np.isnan(xb).any():
        raise ValueError("Input X contains NaN: missing values need handle_missing='split'")
    labels = yb            # (a local fit's classes come from every row too)
    xb, yb = xb[keep], yb[keep]
    out = {"n_rows": int(xb.shape[0]), "categories": categories,
           "columns": [None if c is not None else column_summary(xb[:, f])
                       for f, c in enumerate(categories)]}
    if is_clf:
        if labels.dtype.kind == "f" and np.isnan(labels).any():
            raise ValueError("y contains NaN")
        out["classes"] = np.unique(labels)
    else:
        yb = yb.astype(np.float64)
        if not np.isfinite(yb).all():
            raise ValueError("y contains NaN or infinity: regression targets must be finite")
        out["y_absmax"] = float(np.max(np.abs(yb))) if yb.size else 0.0
    w = np.ones(xb.shape[0]) if w is None else w[keep]
    out["w_min"] = float(w.min()) if w.size else math.inf
    out["w_max"] = float(w.max()) if w.size else -math.inf
    out["w_sum"] = float(w.sum())
    return out


def _weights(wb, yb, table):
    """The rows' weights (sample weights times class weights; None when neither is
    given) and which are positive (the rows the tree sees); refuses bad weights."""
    n = yb.shape[0]
    w = None
    if wb is not None:
        w = np.asarray(wb, dtype=np.float64)
        if w.shape[0] != n:
            raise ValueError("X and sample_weight partitions differ in length")
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("sample_weight must be finite and non-negative")
    if table is not None:
        classes, per_class = table
        factors = per_class[np.searchsorted(classes, yb)]
        w = factors if w is None else w * factors
    return w, (np.ones(n, dtype=bool) if w is None else w > 0)


def _label_counts(yb):
    return np.unique(np.asarray(yb), return_counts=True)


def _merge_label_counts(a, b):
    labels = np.union1d(a[0], b[0])
    counts = np.zeros(labels.shape[0], dtype=np.int64)
    for part_labels, part_counts in (a, b):
        counts[np.searchsorted(labels, part_labels)] += part_counts
    return labels, counts


def _merge_part_summaries(a, b):
    out = {"n_rows": a["n_rows"] + b["n_rows"],
           "columns": [None if s is None else merge_summaries([s, t], SUMMARY_RUNS)
                       for s, t in zip(a["columns"], b["columns"])],
           "categories": [None if s is None else
                          fit_categories(np.concatenate([s, t]), "a column")
                          for s, t in zip(a["categories"], b["categories"])],
           "w_min": min(a["w_min"], b["w_min"]), "w_max": max(a["w_max"], b["w_max"]),
           "w_sum": a["w_sum"] + b["w_sum"]}
    if "classes" in a:
        out["classes"] = np.union1d(a["classes"], b["classes"])
    else:
        out["y_absmax"] = max(a["y_absmax"], b["y_absmax"])
    return out


def _encode(xb, yb, wb, thresholds, classes, y_exp, w_exp, categorical, categories, table):
    """A partition's codes, encoded targets and scaled weights (positive weights only),
    and its bins' smallest and largest values."""
    xb = _matrix(xb, categorical, categories)
    w, keep = _weights(wb, np.asarray(yb), table)
    codes, lo, hi = bin_codes(xb[keep], thresholds)
    yb = np.asarray(yb)[keep]
    if classes is not None:
        y_enc = np.searchsorted(classes, yb).astype(np.int32)
    else:
        y_enc = scaled(yb.astype(np.float64), y_exp)
    w = None if w_exp is None else scaled(w[keep], w_exp)
    return codes, y_enc, w, lo, hi


def _bounds(part):
    return part[3], part[4]


def _merge_bounds(a, b):
    return np.minimum(a[0], b[0]), np.maximum(a[1], b[1])


def _root_nodes(part):
    return np.zeros(part[0].shape[0], dtype=np.int32)


def _routed(part, node, routes):
    node = node.copy()     # a task's result is never changed in place
    route_rows(part[0], node, *routes)
    return node


def _histograms(part, node, slot, hi, criterion, n_classes, n_slots):
    return node_histograms(part[0], part[1], part[2], node, slot, hi, criterion, n_classes,
                           n_slots)


def _add_pair(a, b):
    return a[0] + b[0], a[1] + b[1]


def _tree_reduce(client, futures, combine, fan_in=2):
    """One future of ``combine`` folded over the futures' results, pairwise on the
    workers (a tree of depth log2 of their number)."""
    level = list(futures)
    if not level:
        raise ValueError("X has no partition")
    while len(level) > 1:
        level = [client.submit(combine, *level[i:i + fan_in]) if i + 1 < len(level)
                 else level[i] for i in range(0, len(level), fan_in)]
    return level[0]
