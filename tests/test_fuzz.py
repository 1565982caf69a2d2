"""The short fuzz campaign (issue 33): a few hundred probes over every area.

Each probe runs in a worker subprocess (``fuzz_worker.py``) with a time limit and
an address-space limit, so a crash, a hang or a runaway allocation fails the probe
instead of the run. A probe passes when it ends ``ok`` (fitted, loaded or run, and
every oracle agreed) or in a ``clear_error`` (the right exception type with a
message naming its cause); any other outcome (unnamed error, wrong answer, crash,
hang, memory) fails its area's test, which lists every failing probe with its case
and the command that replays it. What the probes do and how outcomes are judged:
``fuzz_probes.py``. The long campaign: ``python bench/fuzz.py``.

``DTREE_FUZZ_EXAMPLES`` sets the number of probes (default 500, shared among the
areas in fixed proportions); ``DTREE_FUZZ_SEED`` picks another set of them;
``DTREE_FUZZ_REPORT`` names a JSON file for the counts of outcomes per area.
"""
import json
import os
from pathlib import Path

import pytest

import fuzz_probes as fp
from fuzz_worker import Pool, Worker

DEFAULT_TOTAL = 500
TOTAL = int(os.environ.get("DTREE_FUZZ_EXAMPLES", str(DEFAULT_TOTAL)))
SEED = int(os.environ.get("DTREE_FUZZ_SEED", "0"))
# probes per area at the default size (the cheap areas get more)
SHORT = {"params": 70, "inputs": 55, "scale": 35, "sklearn": 15, "model_files": 60,
         "cli": 25, "methods": 35, "threads": 8, "dask": 5, "export": 12}
CASE_TIMEOUT = 25.0
COUNTS = {}


def n_probes(area):
    return max(1, round(SHORT[area] * TOTAL / sum(SHORT.values())))


def seed_of(area, i):
    return SEED * 1_000_003 + i


@pytest.fixture(scope="module")
def pool():
    workers = Pool(2, timeout=CASE_TIMEOUT)
    yield workers
    workers.close()
    report = os.environ.get("DTREE_FUZZ_REPORT")
    if report:
        Path(report).write_text(json.dumps(COUNTS, indent=1, sort_keys=True))


def _failure_text(case, result):
    lines = [f"[{result['outcome']}] {case['area']}:{case['seed_id']} "
             f"{fp.describe(case)[:400]}"]
    what = (f"{result['check']}: " if result.get("check") else f"{result.get('type', '')}: ") \
        + result.get("message", "")
    lines.append(f"    at {result.get('stage', '')}: {what[:400]}"
                 + (f"  ({result['where']})" if result.get("where") else ""))
    if result.get("harness"):
        lines.append("    (the campaign's own code failed:)\n" + result.get("trace", "")[-1200:])
    lines.append(f"    replay: python bench/fuzz.py --replay {case['area']}:{case['seed_id']}")
    lines.append(f"    case: {json.dumps(case)[:3000]}")
    return "\n".join(lines)


@pytest.mark.parametrize("area", list(SHORT))
def test_fuzz_area(pool, area):
    cases = [fp.generate(area, seed_of(area, i)) for i in range(n_probes(area))]
    results = pool.run(cases)
    counts = COUNTS.setdefault(area, {})
    for r in results:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    failures = [(c, r) for c, r in zip(cases, results)
                if r["outcome"] not in fp.ACCEPTED or r.get("harness")]
    if failures:
        pytest.fail(f"{len(failures)} of {len(cases)} {area} probes failed "
                    f"(outcomes {counts}):\n"
                    + "\n".join(_failure_text(c, r) for c, r in failures), pytrace=False)


# probes that once found a fault (each fixed at its cause, most also tested on
# its own elsewhere): replayed in every run
FOUND = ["inputs:23", "model_files:11", "methods:19", "methods:47", "cli:2358", "cli:7110",
         "cli:8548", "inputs:7284", "inputs:2160", "methods:2807", "methods:9205",
         "methods:9080", "methods:5787", "methods:8098", "methods:2149", "methods:4602",
         "methods:6832", "methods:7742", "methods:9084", "model_files:5915",
         "model_files:5474", "inputs:5172", "inputs:2181", "model_files:6420",
         "methods:1082", "cli:1000013", "dask:1004826", "inputs:1001980", "methods:1002575",
         "methods:1004132", "params:1009874", "cli:2009481", "inputs:2008453",
         "model_files:2003273", "params:2000626", "methods:2004872", "params:1008498",
         "methods:3002547", "methods:4001465", "inputs:4003331", "model_files:5005130",
         "methods:5006189", "params:7001773", "params:7001768", "params:6008764",
         "inputs:6009413", "inputs:7006761", "model_files:10004422"]


def test_probes_that_once_found_a_fault(pool):
    cases = [fp.generate(*key.split(":")[:1], int(key.split(":")[1])) for key in FOUND]
    results = pool.run(cases)
    failures = [(c, r) for c, r in zip(cases, results)
                if r["outcome"] not in fp.ACCEPTED or r.get("harness")]
    if failures:
        pytest.fail(f"{len(failures)} of {len(cases)} probes failed again:\n"
                    + "\n".join(_failure_text(c, r) for c, r in failures), pytrace=False)


def test_outcome_rules():
    """The judge itself: what counts as a clear error, and what does not."""
    names = ["max_depth", "X", "sample_weight"]
    assert fp.is_clear("The 'max_depth' parameter must be an int; got -1", names)
    assert fp.is_clear("Input X contains NaN in column 0", names)
    assert not fp.is_clear("math range error", names)
    assert not fp.is_clear("'Series' object has no attribute 'columns'", None)
    assert not fp.is_clear("index 7 is out of bounds for axis 0 with size 3", names)
    assert not fp.is_clear("a quantile level must lie in (0, 1); got 1.0", ["confidence"])
    assert not fp.is_clear("", names)
    assert fp.classify(OverflowError("sample_weight too large"), names) == fp.UNNAMED
    assert fp.classify(ValueError("sample_weight must be finite"), names) == fp.CLEAR
    assert fp.classify(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), None) == fp.UNNAMED
    assert fp.classify(MemoryError("Unable to allocate 3 GiB"), names) == fp.MEMORY
    # cases are reproducible from (area, seed) and survive JSON
    for area in SHORT:
        case = fp.generate(area, 12345)
        assert case == fp.generate(area, 12345) == json.loads(json.dumps(case))
    assert fp.D(fp.E({0: b"x", 1: (1, 2**1100), 2: complex(1, 2)})) == \
        {0: b"x", 1: (1, 2**1100), 2: complex(1, 2)}


def test_worker_reports_crash_hang_memory_and_recovers():
    """The worker's parent turns a signal, a silence and an allocation beyond the limit
    into outcomes, and the next case runs in a fresh worker."""
    worker = Worker(timeout=6, memory=4 << 30)
    try:
        outcomes = [worker.run({"area": "selftest", "kind": kind})["outcome"]
                    for kind in ("segfault", "ok", "abort", "hang", "memory", "exit", "ok")]
    finally:
        worker.close()
    assert outcomes == ["crash", "ok", "crash", "hang", "memory", "crash", "ok"]


def test_cross_validated_pruning_where_a_step_rounds_below_zero():
    """Found by probe params:7001773: a pruning step whose alpha rounded to -7.8e-18
    made its CP row's geometric mean NaN; the folds pruned at NaN scored near 0 and
    the 1-SE rule chose that row, with ccp_alpha_ NaN. Such a step prunes at 0."""
    import numpy as np
    import dtree
    case = fp.generate("params", 7001773)
    X, y, w, _ = fp.make_data(case["data"])
    model = dtree.DecisionTreeRegressor(ccp_alpha="cv").fit(X, y, sample_weight=w)
    table = model.cp_table_
    assert np.isfinite(table.alpha[1:]).all() and np.isfinite(table.xerror).all()
    assert not np.isnan(model.ccp_alpha_)
    assert model.tree_.node_count == 2 * table.nsplit[table.selected] + 1
    assert table.selected == int(np.flatnonzero(
        table.xerror <= (table.xerror.min() + table.xstd[np.argmin(table.xerror)])
        * (1 + 1e-12))[0])
