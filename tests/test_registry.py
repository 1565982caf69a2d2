"""The registry and the fit plan: every combination a row declares it lacks is refused
by ``fit`` in the one wording, before anything is built; the refusal is the
registry's (remove the row's entry and the combination runs); kernels refuse a code
no criterion has; the plan is frozen and a fit's state is installed at once."""
import dataclasses
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import dtree
from dtree._plan import registry
from dtree._plan.plan import check_choices, choose
from helpers import search_settings


def _rows_of(kind):
    return [row for row in registry.ROWS.values() if row.kind == kind]


def _config(names):
    """(estimator, X, y) of a fit that uses the registry rows ``names`` (and defaults
    for the rest), or None where no fit can use them together (a regressor has no
    algorithm preset)."""
    rows = [registry.ROWS[n] for n in names]
    criteria = [r for r in rows if isinstance(r, registry.Criterion)]
    task = criteria[0].task if criteria else registry.CLASSIFICATION
    presets = [r for r in rows if isinstance(r, registry.Preset)]
    if task == registry.REGRESSION and presets:
        return None
    if presets and criteria and criteria[0].name == registry.DEFAULT_CRITERION[task]:
        return None     # the default criterion means "the preset's"
    params, rng = {}, np.random.RandomState(0)
    X = rng.rand(60, 3)
    y = (X[:, 0] > 0.5).astype(int) if task == registry.CLASSIFICATION else X[:, 0] + 1.0
    for row in rows:
        if isinstance(row, registry.Criterion):
            params["criterion"] = row.name
        elif isinstance(row, registry.Splitter):
            params["splitter"] = row.name
        elif isinstance(row, registry.Preset):
            params["algorithm"] = row.name
    names = set(names)
    if "categories" in names:
        X[:, 2] = rng.randint(0, 3, 60)
        params["categorical_features"] = [2]
    options = {"monotonic": ("monotonic_cst", [1, 0, 0]), "value_tolerance":
               ("value_tolerance", 0.01), "best_first": ("max_leaf_nodes", 5),
               "feature_draw": ("max_features", 1), "cv": ("ccp_alpha", "cv"),
               "reduced_error": ("pruning", "reduced_error"),
               "pessimistic": ("pruning", "pessimistic"), "audit": ("keep_competitors", 1)}
    for name, (key, value) in options.items():
        if name in names:
            params[key] = value
    if "cv" in names:
        params["cv"] = 3
    if "outputs" in names:
        y = np.column_stack([y, y[::-1]])
    if "sparse" in names:
        X = sp.csc_matrix(np.where(X > 0.5, X, 0.0))
    cls = dtree.DecisionTreeClassifier if task == registry.CLASSIFICATION else \
        dtree.DecisionTreeRegressor
    return cls(random_state=0, **params), X, y


def _declared_pairs():
    pairs = set()
    for row in registry.ROWS.values():
        for other in row.lacks:
            pairs.add(tuple(sorted((row.name, other))))
    return sorted(pairs)


DECLARED = _declared_pairs()


def test_every_declared_name_is_a_row_and_the_labels_are_distinct():
    for row in registry.ROWS.values():
        assert set(row.lacks) <= set(registry.ROWS), row.name
        assert row.kind in registry.KINDS
    labels = [row.label for row in registry.ROWS.values()
              if not (isinstance(row, registry.Criterion) and row.code == 1)]
    assert len(labels) == len(set(labels))


@pytest.mark.parametrize("pair", [p for p in DECLARED if "dask" not in p],
                         ids=lambda p: "+".join(p))
def test_each_declared_combination_is_refused_by_fit_in_one_wording(pair):
    config = _config(pair)
    a, b = (registry.ROWS[n] for n in pair)
    if config is None:
        # unreachable by a fit: the registry still says no
        assert registry.conflicts([a, b])
        return
    est, X, y = config
    first, second = registry.ordered(a, b)
    with pytest.raises(ValueError) as info:
        est.fit(X, y)
    message = str(info.value)
    if pair == ("monotonic", "outputs"):
        # scikit-learn's words, checked first (as scikit-learn checks them)
        assert message == "Monotonicity constraints are not supported with multiple outputs."
        return
    why = first.lacks.get(second.name) or second.lacks.get(first.name)
    subject = {"audit": "keep_competitors",
               "outputs": "a y of several outputs (shape (n_samples, 2))"}.get(first.name,
                                                                              first.label)
    assert f"{subject} does not support" in message, message
    assert why in message, message


@pytest.mark.parametrize("pair", [p for p in DECLARED if "dask" in p],
                         ids=lambda p: "+".join(p))
def test_the_distributed_fits_refusals_are_the_registrys(pair):
    other = registry.ROWS[pair[0] if pair[1] == "dask" else pair[1]]
    if isinstance(other, registry.Splitter):
        return      # the Dask estimators grow splitter="hist" always
    params = {"criterion": dict(criterion=other.name), "algorithm": dict(algorithm=other.name),
              "option": {"cv": dict(ccp_alpha="cv"),
                         "audit": dict(handle_missing="surrogate")}.get(other.name)}[other.kind]
    cls = dtree.DecisionTreeRegressor if getattr(other, "task", None) == \
        registry.REGRESSION else dtree.DecisionTreeClassifier
    est = cls(splitter="hist", **params)
    with pytest.raises(ValueError, match="dtree.dask's distributed fit"):
        check_choices(est, choose(est), distributed=True)


def test_a_refusal_is_the_registrys_own(monkeypatch):
    X, y = np.random.RandomState(0).rand(50, 2), np.arange(50) % 2
    with pytest.raises(ValueError, match="splitter='hist' does not support value_tolerance"):
        dtree.DecisionTreeClassifier(splitter="hist", value_tolerance=0.1).fit(X, y)
    hist = registry.ROWS["hist"]
    lacks = {k: v for k, v in hist.lacks.items() if k != "value_tolerance"}
    monkeypatch.setitem(registry.ROWS, "hist", dataclasses.replace(hist, lacks=lacks))
    dtree.DecisionTreeClassifier(splitter="hist", value_tolerance=0.1).fit(X, y)


def test_undeclared_combinations_fit():
    # every pair of a criterion and a splitter, preset or input kind the registry
    # does not refuse runs (a spot check of the other side of the table)
    for crit, other in itertools.product(registry.CRITERIA,
                                         _rows_of("splitter") + _rows_of("algorithm")
                                         + [registry.ROWS["outputs"]]):
        if registry.conflicts([crit, other]):
            continue
        config = _config((crit.name, other.name))
        if config is None:
            continue
        est, X, y = config
        est.fit(X, y)
        assert est.tree_.node_count >= 1


@pytest.mark.parametrize("make", [
    lambda s: dtree._splitter.Splitter(np.zeros((4, 1), np.float32), np.zeros(4, np.int32),
                                       None, s),
    lambda s: dtree._sparse_splitter.SparseSplitter(
        sp.csc_matrix(np.ones((4, 1), np.float32)), np.zeros(4, np.int32), None, s),
    lambda s: dtree._hist_splitter.HistSplitter(
        np.zeros((4, 1), np.uint8), np.zeros((1, 256), np.float32),
        np.full((1, 256), -np.inf, np.float32), np.zeros(4, np.int32), None, s),
])
@pytest.mark.parametrize("code", [-1, 7, 99])
def test_kernels_refuse_a_code_no_criterion_has(make, code):
    import dtree._hist_splitter, dtree._sparse_splitter, dtree._splitter  # noqa: F401
    with pytest.raises(ValueError, match=f"no criterion has the kernel code {code}"):
        make(search_settings(code, 2, 1))


def test_the_plan_is_frozen_and_names_its_builder():
    X, y = np.random.RandomState(0).rand(40, 3), np.arange(40) % 2
    est = dtree.DecisionTreeClassifier(algorithm="c4.5")
    plan, data = est._plan(X, y)
    assert plan.builder == "c45" and plan.choices.criterion.name == "gain_ratio"
    assert plan.choices.pruning == "pessimistic"
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.builder = "exact"
    plan, data = est._plan(sp.csr_matrix(X), y)
    assert plan.builder == "c45" and isinstance(data.X, np.ndarray)   # laid out densely
    assert dtree.DecisionTreeClassifier()._plan(sp.csr_matrix(X), y)[0].builder == "sparse"
    assert dtree.DecisionTreeRegressor(criterion="absolute_error")._plan(
        sp.csr_matrix(X), y.astype(float))[0].builder == "exact"


def test_a_fit_installs_its_state_at_once():
    import pandas as pd

    rng = np.random.RandomState(0)
    frame = pd.DataFrame(rng.rand(40, 2), columns=["a", "b"])
    y = np.arange(40) % 2
    clf = dtree.DecisionTreeClassifier(ccp_alpha=0.01).fit(frame, y)
    assert list(clf.feature_names_in_) == ["a", "b"] and clf.ccp_alpha_ == 0.01
    before = clf.tree_
    # a refused fit leaves the fitted state as it was
    with pytest.raises(ValueError):
        clf.set_params(splitter="hist", value_tolerance=0.5).fit(frame.to_numpy(), y)
    assert clf.tree_ is before and list(clf.feature_names_in_) == ["a", "b"]
    # a fit on another X leaves nothing of the last one behind
    clf.set_params(splitter="best", value_tolerance=0.0, ccp_alpha=0.0)
    clf.fit(frame.to_numpy(), y)
    assert not hasattr(clf, "feature_names_in_") and not hasattr(clf, "ccp_alpha_")
    assert clf.tree_ is not before
