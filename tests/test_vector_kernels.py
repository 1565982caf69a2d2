"""The splitters' kernels on vector lanes (``_vector_kernels.h``, and the random
splitter's row mode in ``_row_kernels.h``): the stable partition entry for entry
the scalar kernel's at every instruction-set level this machine has, nothing
written outside the segment; and the same trees with every level and with the
scans' filter switched off (``DTREE_SIMD``, ``DTREE_FILTERED_SCANS``)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from dtree import _splitter

LEVELS = range(_splitter.simd_level() + 1)


def _case(rng, n, density):
    v = rng.random(n).astype(np.float32)
    ix = rng.integers(0, n, n).astype(np.int32) if n else np.zeros(0, np.int32)
    bits = (rng.random(64 * ((n + 63) // 64 + 1)) < density)
    goes_left = np.packbits(bits, bitorder="little").view(np.uint64).copy()
    return v, ix, goes_left


def _expected(v, ix, y, goes_left, start, end):
    """The stable partition by definition: left entries, then right, in order."""
    left = np.array([(goes_left[i >> 6] >> np.uint64(i & 63)) & np.uint64(1)
                     for i in ix[start:end]], dtype=bool)
    out = []
    for a in (v, ix, y):
        seg = a[start:end]
        a = a.copy()
        a[start:end] = np.concatenate([seg[left], seg[~left]])
        out.append(a)
    return out


@pytest.mark.parametrize("payload", ["codes", "targets"])
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_partitions_as_defined(level, payload):
    rng = np.random.default_rng(level * 7 + len(payload))
    for trial in range(400):
        n = int(rng.integers(0, 80)) if trial < 300 else int(rng.integers(80, 3000))
        density = [0.0, 1.0, 0.5, 0.1, 0.9][trial % 5]
        v, ix, goes_left = _case(rng, n, density)
        y = rng.integers(0, 2**16, n).astype(np.uint16) if payload == "codes" \
            else rng.standard_normal(n)
        start = int(rng.integers(0, n + 1))
        end = int(rng.integers(start, n + 1))
        want = _expected(v, ix, y, goes_left, start, end)
        got = [v.copy(), ix.copy(), y.copy()]
        assert _splitter._stable_partition(*got, goes_left, start, end, level) == level
        for a, b in zip(got, want):
            # (outside [start, end) nothing may change: the vector stores stay inside)
            np.testing.assert_array_equal(a, b)


def test_the_machine_level_is_reported_and_bounded():
    assert _splitter.simd_level() in (0, 1, 2)
    v, ix, goes_left = _case(np.random.default_rng(0), 40, 0.5)
    # a level above the machine's runs the machine's best
    assert _splitter._stable_partition(v, ix, np.zeros(40, np.uint16), goes_left, 0, 40,
                                       9) == _splitter.simd_level()


def test_hook_refuses_inconsistent_arrays():
    v, ix, goes_left = _case(np.random.default_rng(0), 40, 0.5)
    with pytest.raises(ValueError, match="lengths"):
        _splitter._stable_partition(v, ix, np.zeros(40, np.uint16), goes_left, 0, 41, 0)
    with pytest.raises(ValueError, match="bit"):
        _splitter._stable_partition(v, ix, np.zeros(40, np.uint16), goes_left[:0], 0, 40, 0)


FIT = """
import json, sys, zlib
import numpy as np
import dtree
from dtree import _splitter
rng = np.random.RandomState(0)
n = 3000
X = rng.rand(n, 6).astype(np.float32)
X[:, 5] = np.round(X[:, 5] * 4)                       # ties
X[:, 4] = np.round(X[:, 4] * 300) / 7                  # ties within blocks of cuts
X[rng.rand(n) < 0.1, 2] = np.nan                       # missing values go either way
y = (X[:, 0] + X[:, 1] * X[:, 3] + 0.3 * rng.rand(n) > 1).astype(int)
y3 = y + (X[:, 1] > 0.7)
t = X[:, 0] + np.sin(6 * X[:, 1]) + 0.2 * rng.rand(n)
whole = rng.randint(0, 4, n).astype(float)
real = rng.rand(n) * 3
cases = [
    ("class", dtree.DecisionTreeClassifier(random_state=0), y, None),
    ("class ties", dtree.DecisionTreeClassifier(random_state=0), (X[:, 5] > 1).astype(int), None),
    ("class whole weights", dtree.DecisionTreeClassifier(random_state=0, n_jobs=2), y, whole),
    ("class leaves", dtree.DecisionTreeClassifier(random_state=0, min_samples_leaf=7,
                                                   min_weight_fraction_leaf=0.01), y, whole),
    ("class best-first", dtree.DecisionTreeClassifier(random_state=0, max_leaf_nodes=40), y, None),
    ("regression", dtree.DecisionTreeRegressor(random_state=0), t, None),
    ("regression weights", dtree.DecisionTreeRegressor(random_state=0, min_samples_leaf=3), t, real),
    ("regression huge", dtree.DecisionTreeRegressor(random_state=0, max_depth=8), t * 1e300, None),
    ("regression tiny", dtree.DecisionTreeRegressor(random_state=0, max_depth=8), t * 1e-300, None),
    ("friedman", dtree.DecisionTreeRegressor(criterion="friedman_mse", random_state=0), t, None),
    ("monotonic", dtree.DecisionTreeRegressor(random_state=0, monotonic_cst=[1, 0, 0, 0, 0, 0]),
     t, None),
    ("forest class", dtree.RandomForestClassifier(n_estimators=3, random_state=0), y, None),
    ("forest regression", dtree.RandomForestRegressor(n_estimators=3, random_state=0), t, None),
    # the random splitter's row mode (``_row_kernels.h``), each kind of sums
    ("extra regression", dtree.ExtraTreesRegressor(n_estimators=2, random_state=0), t, None),
    ("extra regression weights", dtree.ExtraTreesRegressor(n_estimators=2, random_state=0),
     t * 1e300, real),
    ("extra two classes", dtree.ExtraTreesClassifier(n_estimators=2, max_features=None,
                                                     random_state=0), y, None),
    ("extra classes weights", dtree.ExtraTreesClassifier(
        n_estimators=2, max_features=None, bootstrap=True, random_state=0), y3, None),
    ("extra classes", dtree.ExtraTreeClassifier(max_features=None, random_state=0), y3, None),
    # a drawn feature's cut at a time (``_score_sides``: two classes on vector lanes)
    ("extra two classes drawn", dtree.ExtraTreesClassifier(n_estimators=2, random_state=0),
     y, None),
]
# a wide X: the row kernels take 32 features per pass over the rows
wide = np.hstack([X] * 7)
wide[:, 6:] += rng.rand(n, 36).astype(np.float32)
cases += [(name + " wide", est, target, weight, wide) for name, est, target, weight in [
    ("extra regression", dtree.ExtraTreeRegressor(random_state=0), t, real),
    ("extra classes", dtree.ExtraTreeClassifier(max_features=0.5, random_state=0), y3, whole)]]
out = {"level": _splitter.simd_level()}
for name, est, target, weight, *data in cases:
    est.fit(data[0] if data else X, target, sample_weight=weight)
    trees = getattr(est, "estimators_", [est])
    out[name] = [zlib.crc32(b"".join(np.ascontiguousarray(getattr(e.tree_, a)).tobytes()
                                     for a in ("feature", "threshold", "value",
                                               "children_left", "impurity")))
                 for e in trees]
print(json.dumps(out))
"""


def _fit_in(**switches):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DTREE_SIMD", "DTREE_FILTERED_SCANS")}
    env.update(switches)
    run = subprocess.run([sys.executable, "-c", FIT], capture_output=True, text=True,
                         env=env, timeout=240)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_same_trees_with_every_kernel():
    """Every vector level and the filtered scans grow the trees the scalar code
    (every cut offered, one by one) grows: ties, missing values, whole and real
    weights, leaf limits, best-first growth, targets near the ends of the
    doubles' range, monotonic constraints, forests."""
    plain = _fit_in(DTREE_SIMD="0", DTREE_FILTERED_SCANS="0")
    assert plain.pop("level") == 0
    runs = [({}, _splitter.simd_level()), ({"DTREE_SIMD": "0"}, 0)]
    if _splitter.simd_level() >= 2:
        runs.append(({"DTREE_SIMD": "1"}, 1))
    runs.append(({"DTREE_FILTERED_SCANS": "0"}, _splitter.simd_level()))
    for switches, level in runs:
        other = _fit_in(**switches)
        assert other.pop("level") == level
        assert other == plain, switches


def test_the_bench_compares_both_settings_on_the_same_trees():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, os.path.join(root, "bench", "vector_kernels.py"),
                          "--rows", "20000", "--rounds", "1"], capture_output=True,
                         text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line.endswith(("yes", "NO"))]
    assert len(rows) == 6 and all(line.endswith("yes") for line in rows), run.stdout
