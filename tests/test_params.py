"""Hyperparameters: every one checked against its range, huge values clamped safely.

Sizes that would wrap around in C (max_leaf_nodes near 2**63 once crashed the
process) run in a subprocess, so a regression shows as a failed test, not a
dead test run.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree._plan.constraints import InvalidParameterError

X = np.arange(10.0).reshape(-1, 1)
Y = np.array([0, 1] * 5)
ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


def _run(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("leaves", [2**40, 2**60, 2**63 - 1, 2**80])
def test_max_leaf_nodes_beyond_any_memory_is_a_memory_error_that_harms_nothing(splitter,
                                                                               leaves):
    # scikit-learn's contract (its test_huge_allocations): a MemoryError, raised
    # before anything is allocated; the process then fits as if nothing happened
    proc = _run(f"""
        import gc, numpy as np
        from dtree import DecisionTreeClassifier, DecisionTreeRegressor
        X = np.arange(10.).reshape(-1, 1)
        for E, y in ((DecisionTreeClassifier, [0, 1] * 5), (DecisionTreeRegressor, [0., 1.] * 5)):
            try:
                E(max_leaf_nodes={leaves}, splitter={splitter!r}).fit(X, y)
            except MemoryError as exc:
                assert "max_leaf_nodes" in str(exc), exc
            else:
                raise AssertionError("no MemoryError")
            ref = E(max_leaf_nodes=10, splitter={splitter!r}).fit(X, y)
            gc.collect()  # a corrupted heap shows here, or at exit
            assert ref.tree_.node_count == 19
            assert (ref.predict(X) == np.asarray(y)).all()
        print("fine")
    """)
    assert proc.returncode == 0 and proc.stdout.strip() == "fine", proc.stderr[-2000:]


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("leaves", [2**20, 2**24])
def test_large_max_leaf_nodes_memory_could_hold_is_the_unlimited_tree(splitter, leaves):
    for E, y in ((DecisionTreeClassifier, Y), (DecisionTreeRegressor, Y.astype(float))):
        huge = E(max_leaf_nodes=leaves, splitter=splitter).fit(X, y)
        assert huge.tree_.node_count == 19
        assert (huge.predict(X) == y).all()


def test_builders_bound_the_frontier_by_the_data_themselves():
    # The C entry points clamp too: a caller that skips the Python checks
    # cannot make them wrap a size computation.
    proc = _run("""
        import numpy as np
        from dtree._plan.registry import criterion_code
        from dtree._splitter import Splitter
        from dtree._grow import build_tree
        from dtree._node_store import bound_leaves
        assert bound_leaves(2**62, 10) == 10 and bound_leaves(-1, 10) == -1
        assert bound_leaves(5, 10) == 5 and bound_leaves(7, 1) == 2
        X = np.arange(10, dtype=np.float32).reshape(-1, 1)
        y = np.array([0, 1] * 5, dtype=np.int32)
        s = Splitter(X, y, None, dict(criterion=criterion_code("gini"), n_classes=2, min_samples_leaf=1, min_weight_leaf=0.0, max_features=1, seed=1, n_threads=1, quantile=0.5, value_tolerance=0.0, multiway=False, one_vs_rest=False, index_order=False, random_split=False))
        out = build_tree(s, max_depth=100, min_samples_split=2, min_samples_leaf=1,
                         min_weight_leaf=0.0, min_impurity_decrease=0.0,
                         max_leaf_nodes=2**62)
        assert out["feature"].shape[0] == 19
        print("fine")
    """)
    assert proc.returncode == 0 and proc.stdout.strip() == "fine", proc.stderr[-2000:]


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("name, value", [
    ("max_depth", 2**63), ("max_depth", 2**100), ("max_leaf_nodes", 2**24),
    ("min_samples_split", 2**63), ("min_samples_leaf", 2**62), ("min_samples_leaf", 2**70),
    ("n_jobs", 2**31), ("n_jobs", -(2**63)), ("n_jobs", 2**64),
])
def test_huge_valid_integers_fit(Estimator, name, value):
    y = Y if Estimator is DecisionTreeClassifier else Y.astype(float)
    model = Estimator(**{name: value}).fit(X, y)
    if name in ("min_samples_split", "min_samples_leaf"):
        assert model.tree_.node_count == 1  # nothing can be split
    else:
        assert model.tree_.node_count == 19
    assert model.predict(X).shape == (10,)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("name, value", [
    ("max_depth", 0), ("max_depth", 1.5), ("max_depth", "3"), ("max_depth", True),
    ("min_samples_split", 1), ("min_samples_split", 1.5), ("min_samples_split", 0.0),
    ("min_samples_leaf", 0), ("min_samples_leaf", 1.0), ("min_samples_leaf", np.nan),
    ("min_weight_fraction_leaf", 0.6), ("min_weight_fraction_leaf", -0.1),
    ("max_features", 0), ("max_features", 1.5), ("max_features", "half"),
    ("max_leaf_nodes", 1), ("max_leaf_nodes", 2.0),
    ("min_impurity_decrease", -1.0), ("min_impurity_decrease", np.inf),
    ("ccp_alpha", -0.1), ("ccp_alpha", np.nan), ("ccp_alpha", "auto"),
    ("prune_risk", "gini"), ("pruning", "yes"), ("cv_rule", "2se"),
    # parameters the default configuration does not use are checked too
    ("cv", -3), ("cv", 1), ("cv", "abc"),
    ("validation_fraction", 1.0), ("validation_fraction", "x"),
    ("max_bins", "abc"), ("max_bins", 1), ("max_bins", 256),
    ("random_state", "abc"), ("random_state", -1), ("random_state", 2**32), ("random_state", 1.5),
    ("handle_missing", "drop"), ("handle_unknown", "ignore"),
    ("categorical_features", "all"), ("categorical_features", 3),
    ("n_jobs", 0), ("n_jobs", 1.5), ("n_jobs", "2"), ("splitter", "random!"),
])
def test_bad_values_name_the_parameter(Estimator, name, value):
    y = Y if Estimator is DecisionTreeClassifier else Y.astype(float)
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of "
                                                    f"{Estimator.__name__} must be"):
        Estimator(**{name: value}).fit(X, y)


@pytest.mark.parametrize("name, value", [
    ("class_weight", {0: "heavy"}), ("class_weight", {0: -1.0}), ("class_weight", {0: np.inf}),
    ("class_weight", "unbalanced"), ("class_weight", [1, 2]), ("algorithm", "c5.0"),
    ("criterion", "squared_error"), ("cf", 0.0), ("cf", 0.7),
])
def test_classifier_only_parameters(name, value):
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        DecisionTreeClassifier(**{name: value}).fit(X, Y)


def test_parameter_error_is_both_value_and_type_error():
    # scikit-learn's InvalidParameterError is both: code catching either keeps working
    with pytest.raises(ValueError):
        DecisionTreeClassifier(max_depth="x").fit(X, Y)
    with pytest.raises(TypeError):
        DecisionTreeClassifier(max_depth="x").fit(X, Y)


def test_parameters_are_checked_before_the_data_is_read():
    # a bad parameter is reported even when X would be refused too
    with pytest.raises(InvalidParameterError, match="max_bins"):
        DecisionTreeClassifier(max_bins="abc").fit([[np.inf]], [0])


@pytest.mark.parametrize("value, good", [
    (1, True), (np.int64(1), True), (0.5, True), (np.float32(0.25), True), ("sqrt", True),
    ("log2", True), (None, True), (np.int64(0), False), (np.bool_(True), False),
])
def test_numpy_scalars_are_numbers_but_bools_are_not(value, good):
    estimator = DecisionTreeClassifier(max_features=value)
    if good:
        estimator.fit(X, Y)
    else:
        with pytest.raises(InvalidParameterError, match="max_features"):
            estimator.fit(X, Y)


def test_error_wording_follows_scikit_learn():
    with pytest.raises(InvalidParameterError) as info:
        DecisionTreeClassifier(max_depth=0).fit(X, Y)
    assert str(info.value) == ("The 'max_depth' parameter of DecisionTreeClassifier must be "
                               "an int in the range [1, inf) or None. Got 0 instead.")


def test_sizes_are_clamped_to_what_the_data_allows():
    from dtree._plan.plan import C_INT_MAX, clamp_to_data, growth_params

    assert clamp_to_data(2**63, 10) == 11 and clamp_to_data(5, 10) == 5
    assert clamp_to_data(2**70, 2**40) == C_INT_MAX
    limits = growth_params(DecisionTreeClassifier(max_leaf_nodes=2**24, max_depth=2**63,
                                                  min_samples_split=2**63).get_params(),
                           1, 10, 10.0)
    assert limits.max_leaf_nodes == 11 and limits.max_depth == 11
    assert limits.min_samples_split == 11
