"""The registry: what dtree can grow, and what works with what, in one table.

One row for each criterion, splitter, algorithm preset, input kind and growth
option. A criterion's row holds its kernel code (``_criterion``'s section of
that number), its task, the kind of value its leaves predict, the power of the
target's unit in its impurity and what it asks of the targets. Every row says
what it does *not* work with (``lacks``, each with the reason); everything
else it works with. The parameters' accepted values, the plan's choice of
builder and every refusal of a combination are read from here
(``_plan.plan``), so adding a criterion is a row here and a section in
``_criterion`` (see that module's docstring), and a combination nobody
declared is never run: the plan refuses it, in one wording (``refusal``),
before anything is allocated.

The rows are modelled on scikit-learn's tables at the top of
``sklearn/tree/_classes.py`` (``CRITERIA_CLF``, ``DENSE_SPLITTERS``) and on
rpart's ``func_table.h`` (a criterion is one row).
"""
import dataclasses
import warnings

# Kinds of row, in the order a refusal names them: "splitter='hist' does not
# support criterion='quantile'", never the other way round.
KINDS = ("splitter", "algorithm", "criterion", "input", "option")

CLASSIFICATION, REGRESSION = "classification", "regression"


@dataclasses.dataclass(frozen=True)
class Row:
    """One thing a fit can use.

    name : the parameter's value (or the option's name).
    kind : one of ``KINDS``.
    label : how messages name it ("splitter='hist'", "several outputs").
    lacks : {name of another row: why} for the rows it does not work with.
    """

    name: str
    kind: str
    label: str
    lacks: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Criterion(Row):
    """A criterion's row.

    code : the kernels' number for it (one section of ``_criterion``).
    task : ``CLASSIFICATION`` or ``REGRESSION``.
    value : what a leaf predicts: "fractions" (class fractions), "mean" or
        "weighted_quantile" (a weighted quantile of the targets).
    degree : the power of the target's unit in the impurity (2 for squared
        error; classifiers' impurities have no unit: 0).
    targets : what the criterion asks of y (None, or "counts": y >= 0 with a
        positive sum).
    sparse : the sparse splitter searches it (else a sparse X is laid out densely).
    split_information : its score is divided by the split's information (the
        gain ratio: C4.5's grower asks).
    log_counts : its sums take x ln x of weighted counts, which the weights' unit
        would round differently: weights are always brought to one power-of-two
        unit (``_model.units.weight_units``), so the tree does not depend on it.
    """

    code: int = -1
    task: str = CLASSIFICATION
    value: str = "fractions"
    degree: int = 0
    targets: str = None
    sparse: bool = True
    split_information: bool = False
    log_counts: bool = False


@dataclasses.dataclass(frozen=True)
class Splitter(Row):
    """A splitter's row. ``builder``: the growth it runs ("exact" or "hist");
    ``random_split``: one random cut per drawn feature; ``sparse``: a sparse X is
    grown from its non-zeros (the sparse splitter)."""

    builder: str = "exact"
    random_split: bool = False
    sparse: bool = False


@dataclasses.dataclass(frozen=True)
class Preset(Row):
    """An algorithm preset's row: what it implies where parameters stay at default.

    criterion : the criterion it grows with when ``criterion`` is left at the
        classifier's default (None: the default itself).
    pruning : the pruning it applies when ``pruning`` is None.
    categories : text columns split by category unless told otherwise.
    category_splits : the shapes of a categorical split it grows, its default
        first: "subsets" (a set of categories against the rest, CART's),
        "multiway" (one child per category, stored as a cascade of
        one-category-against-the-rest nodes, pruned as one unit) or
        "one_vs_rest" (one category against the rest: Weka J48's ``-B``).
    builder : its own grower (C4.5's fractional cases), or None.
    index_order : the features are scanned by index, so ties go to the
        smallest index (Quinlan's presets; CART's ties follow the feature draw).
    sparse : a sparse X can be grown from its non-zeros (by the sparse splitter).
    threshold : where a numeric cut is placed when ``threshold_rule`` is None:
        "midpoint" (between the two values it separates, scikit-learn's) or
        "training_value" (the largest training value at or below the midpoint,
        over the whole training set: C4.5 release 8's and Weka J48's).
    raising : pessimistic pruning raises subtrees when ``subtree_raising`` is None
        (C4.5's and J48's default).
    """

    criterion: str = None
    pruning: str = None
    categories: bool = False
    category_splits: tuple = ("subsets",)
    builder: str = None
    index_order: bool = False
    sparse: bool = False
    threshold: str = "midpoint"
    raising: bool = False


_QUANTILE_WHY = "a bin's targets have no running sum that gives a quantile"
_HELD_OUT_WHY = "held-out data is scored by squared error or misclassification"
_AUDIT_WHY = "competitor and surrogate splits replay the exact CART search on dense X"
_ONE_CLASS_VARIABLE = "Quinlan's trees have one class variable"
_FOR_CLASSIFIERS = "C4.5's error estimate is for classifiers"
_QUINLAN_CLASSIFIES = "Quinlan's presets grow classifiers"
_REGRESSION_LACKS = {"pessimistic": _FOR_CLASSIFIERS, "id3": _QUINLAN_CLASSIFIES,
                     "c4.5": _QUINLAN_CLASSIFIES}

CRITERIA = (
    Criterion("gini", "criterion", "criterion='gini'", code=0,
              lacks={"id3": "ID3 splits by information gain",
                     "c4.5": "C4.5 splits by gain ratio or information gain"}),
    Criterion("entropy", "criterion", "criterion='entropy'", code=1, log_counts=True),
    Criterion("log_loss", "criterion", "criterion='log_loss'", code=1,     # entropy's alias
              log_counts=True),
    Criterion("gain_ratio", "criterion", "criterion='gain_ratio'", code=2,
              split_information=True, log_counts=True,
              lacks={"outputs": "the gain ratio is for one output"}),
    Criterion("squared_error", "criterion", "criterion='squared_error'", code=3,
              task=REGRESSION, value="mean", degree=2, lacks=_REGRESSION_LACKS),
    Criterion("poisson", "criterion", "criterion='poisson'", code=4, task=REGRESSION,
              value="mean", degree=1, targets="counts",
              lacks=dict(_REGRESSION_LACKS, cv=_HELD_OUT_WHY, reduced_error=_HELD_OUT_WHY)),
    Criterion("absolute_error", "criterion", "criterion='absolute_error'", code=5,
              task=REGRESSION, value="weighted_quantile", degree=1, sparse=False,
              lacks=dict(_REGRESSION_LACKS, hist=_QUANTILE_WHY, dask=_QUANTILE_WHY,
                         cv=_HELD_OUT_WHY, reduced_error=_HELD_OUT_WHY)),
    Criterion("quantile", "criterion", "criterion='quantile'", code=6, task=REGRESSION,
              value="weighted_quantile", degree=1, sparse=False,
              lacks=dict(_REGRESSION_LACKS, hist=_QUANTILE_WHY, dask=_QUANTILE_WHY,
                         cv=_HELD_OUT_WHY, reduced_error=_HELD_OUT_WHY)),
)
# names kept for scikit-learn's sake: (the criterion it means, the warning it gives)
DEPRECATED_CRITERIA = {
    "friedman_mse": ("squared_error",
                     'Value `"friedman_mse"` for `criterion` is deprecated (as in '
                     'scikit-learn 1.9, which will remove it in 1.11). It maps to '
                     '`"squared_error"` as both were always equivalent. Use '
                     '`criterion="squared_error"` to remove this warning.'),
}
DEFAULT_CRITERION = {CLASSIFICATION: "gini", REGRESSION: "squared_error"}

SPLITTERS = (
    Splitter("best", "splitter", "splitter='best'", sparse=True,
             lacks={"dask": "dtree.dask grows histogram trees"}),
    Splitter("random", "splitter", "splitter='random'", random_split=True, sparse=True,
             lacks={"id3": "random cuts grow CART trees",
                    "c4.5": "random cuts grow CART trees", "audit": _AUDIT_WHY,
                    "dask": "dtree.dask grows histogram trees"}),
    Splitter("hist", "splitter", "splitter='hist'", builder="hist",
             lacks={"id3": "histograms grow CART trees",
                    "c4.5": "histograms grow CART trees",
                    "value_tolerance": "its bins decide which values are apart",
                    "outputs": "its histograms hold one output", "audit": _AUDIT_WHY}),
)

PRESETS = (
    Preset("cart", "algorithm", "algorithm='cart'", sparse=True,
           category_splits=("subsets", "one_vs_rest")),
    Preset("id3", "algorithm", "algorithm='id3'", criterion="entropy", categories=True,
           category_splits=("multiway",), index_order=True,
           lacks={"best_first": "ID3 grows depth-first", "outputs": _ONE_CLASS_VARIABLE,
                  "monotonic": "Quinlan's trees have no constraints", "audit": _AUDIT_WHY}),
    Preset("c4.5", "algorithm", "algorithm='c4.5'", criterion="gain_ratio",
           pruning="pessimistic", categories=True, category_splits=("multiway", "one_vs_rest"),
           builder="c45",
           index_order=True, threshold="training_value", raising=True,
           lacks={"best_first": "C4.5 grows depth-first on every feature",
                  "feature_draw": "C4.5 grows depth-first on every feature",
                  "value_tolerance": "C4.5 cuts between any two different values",
                  "outputs": _ONE_CLASS_VARIABLE,
                  "monotonic": "Quinlan's trees have no constraints", "audit": _AUDIT_WHY}),
)

INPUTS = (
    Row("sparse", "input", "sparse X", lacks={"audit": _AUDIT_WHY}),
    Row("outputs", "input", "a y of several outputs",
        lacks={"categories": "fit one tree per output, or use numeric features",
               "pessimistic": "C4.5's error estimate is for one class variable",
               "monotonic": "a constraint orders one output"}),
    Row("categories", "input", "X with categorical features"),
    Row("missing", "input", "X with missing values"),
    Row("dask", "input", "dtree.dask's distributed fit",
        lacks={"id3": "it grows CART trees", "c4.5": "it grows CART trees",
               "cv": "it would refit the tree on folds; prune to_local()'s tree",
               "audit": "surrogates are computed from the training rows in memory"}),
)

OPTIONS = (
    Row("monotonic", "option", "monotonic_cst"),
    Row("value_tolerance", "option", "value_tolerance > 0"),
    Row("best_first", "option", "max_leaf_nodes"),
    Row("feature_draw", "option", "max_features below the number of features"),
    Row("cv", "option", "ccp_alpha='cv'"),
    Row("reduced_error", "option", "pruning='reduced_error'"),
    Row("pessimistic", "option", "pruning='pessimistic'"),
    Row("audit", "option", "keeping competitor and surrogate splits",
        lacks={"monotonic": _AUDIT_WHY}),
)

ROWS = {row.name: row for row in CRITERIA + SPLITTERS + PRESETS + INPUTS + OPTIONS}


def criteria(task):
    """The criterion names a task accepts, in the registry's order."""
    return tuple(row.name for row in CRITERIA if row.task == task)


def current_criterion(name):
    """``name``, or the criterion a deprecated name means, with its FutureWarning:
    what an estimator stores at construction (as scikit-learn 1.9 does)."""
    if isinstance(name, str) and name in DEPRECATED_CRITERIA:
        name, message = DEPRECATED_CRITERIA[name]
        warnings.warn(message, FutureWarning, stacklevel=3)
    return name


def criterion(name):
    """The row of a criterion's name; ValueError for a name no row has."""
    row = ROWS.get(name) if isinstance(name, str) else None
    if not isinstance(row, Criterion):
        raise ValueError(f"unknown criterion {name!r}; expected one of "
                         f"{[r.name for r in CRITERIA]}")
    return row


def criterion_code(name):
    """The kernel code of a criterion's name."""
    return criterion(name).code


def names(kind):
    """The names of one kind of row, in the registry's order."""
    return tuple(row.name for row in ROWS.values() if row.kind == kind)


def ordered(first, second):
    """A pair of rows as messages name them: by kind (``KINDS``), then as the
    registry lists them."""
    names = list(ROWS)
    return tuple(sorted((first, second),
                        key=lambda row: (KINDS.index(row.kind), names.index(row.name))))


def refusal(first, second, labels=None):
    """The one wording of a refused pair of rows (whichever of them declared it),
    the earlier kind first; ``labels``: {row name: a label of this fit's own}
    (the parameter that asked for an option, the shape of y)."""
    a, b = ordered(first, second)
    why = a.lacks.get(b.name) or b.lacks.get(a.name)
    labels = labels or {}
    subject, what = labels.get(a.name, a.label), labels.get(b.name, b.label)
    return (f"{subject} does not support {what} ({what} is not supported with "
            f"{subject}" + (f": {why})" if why else ")"))


def conflicts(used):
    """The refused pairs among ``used`` rows, each once, in the order of ``used``."""
    out = []
    for i, a in enumerate(used):
        for b in used[i + 1:]:
            if b.name in a.lacks or a.name in b.lacks:
                out.append((a, b))
    return out


def compatibility_table():
    """What works with what, as a Markdown table: a row per criterion, splitter and
    preset, a column per input kind and option (and the splitters and presets);
    "no" where the pair is refused. The README shows it."""
    columns = [row for row in SPLITTERS + PRESETS + INPUTS + OPTIONS
               if row.name not in ("missing", "categories")]
    rows = CRITERIA + SPLITTERS + PRESETS
    head = ["", *[c.label for c in columns]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = []
        for col in columns:
            if col.kind == row.kind:
                cells.append("")
            else:
                cells.append("no" if conflicts([row, col]) else "yes")
        lines.append("| " + " | ".join([row.label] + cells) + " |")
    return "\n".join(lines)
