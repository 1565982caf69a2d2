"""The categorical split search equals brute force over all category subsets."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import is_tie, split_score

from dtree._plan.registry import criterion_code
from dtree._splitter import best_split


def subset_candidates(column, y, w, criterion, n_classes, min_leaf):
    """Every partition of the present categories (and the missing group) in two."""
    missing = np.isnan(column)
    groups = [("code", c) for c in np.unique(column[~missing])]
    if missing.any():
        groups.append(("missing", None))
    masks = [missing if kind == "missing" else column == c for kind, c in groups]
    out = []
    for size in range(1, len(groups)):
        for chosen in itertools.combinations(range(len(groups)), size):
            left = np.zeros(len(column), dtype=bool)
            for g in chosen:
                left |= masks[g]
            if left.sum() < min_leaf or (~left).sum() < min_leaf:
                continue
            out.append((split_score(y, w, left, criterion, n_classes), left))
    return out


@st.composite
def problems(draw):
    n = draw(st.integers(4, 40))
    k = draw(st.integers(2, 7))
    codes = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)),
                     dtype=np.float32)
    if draw(st.booleans()):
        codes[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = np.nan
    task = draw(st.sampled_from(["binary", "multiclass", "regression"]))
    if task == "regression":
        y = np.array(draw(st.lists(st.floats(-50, 50), min_size=n, max_size=n)))
        n_classes = 0
    else:
        n_classes = 2 if task == "binary" else draw(st.integers(3, 4))
        y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)),
                     dtype=np.int32)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0.1, 5.0), min_size=n, max_size=n)))
    return codes, y, w, n_classes, k, draw(st.integers(1, 3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(), criterion=st.sampled_from(["gini", "entropy", "gain_ratio"]))
def test_category_subset_search_is_exact(problem, criterion):
    codes, y, w, n_classes, k, min_leaf = problem
    if n_classes == 0:
        criterion = "squared_error"
    found = best_split(codes[:, None], y, w, n_classes=n_classes,
                       criterion=criterion_code(criterion), min_samples_leaf=min_leaf,
                       n_categories=np.array([k], dtype=np.int32))
    candidates = subset_candidates(codes, y, np.ones(len(y)) if w is None else w,
                                   criterion, n_classes or None, min_leaf)
    if not candidates:
        assert found is None
        return
    best = min(score for score, _ in candidates)
    assert found is not None and found["categorical"]
    left = np.isin(codes, found["left_categories"]) | (np.isnan(codes) & found["missing_left"])
    assert left.sum() == found["pos"]
    ours = split_score(y, np.ones(len(y)) if w is None else w, left, criterion,
                       n_classes or None)
    # up to 12 groups the search is exhaustive: exact for every criterion
    assert is_tie(ours, best, best), (ours, best)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("task", ["binary", "regression"])
def test_breiman_ordering_is_exact_for_many_categories(seed, task):
    # 14 categories (more than the exhaustive limit): the ordered scan must
    # still find the best of all 8191 subsets for gini, entropy and squared error
    rng = np.random.RandomState(seed)
    codes = rng.randint(0, 14, 300).astype(np.float32)
    if task == "binary":
        y = (rng.rand(300) < (codes + 1) % 5 / 5).astype(np.int32)
        criteria, n_classes = ["gini", "entropy"], 2
    else:
        y = np.sin(codes) * 3 + rng.normal(size=300)
        criteria, n_classes = ["squared_error"], 0
    w = rng.uniform(0.5, 2.0, 300)
    for criterion in criteria:
        found = best_split(codes[:, None], y, w, n_classes=n_classes,
                           criterion=criterion_code(criterion),
                           n_categories=np.array([14], dtype=np.int32))
        candidates = subset_candidates(codes, y, w, criterion, n_classes or None, 1)
        best = min(score for score, _ in candidates)
        left = np.isin(codes, found["left_categories"])
        assert is_tie(split_score(y, w, left, criterion, n_classes or None), best, best)
