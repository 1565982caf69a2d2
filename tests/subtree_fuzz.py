"""Differential fuzz of the subtrees grown and replayed on threads: a tree fitted
with n_jobs=2 must equal the one fitted with n_jobs=1, every array of ``tree_``.

Each case draws a classifier or regressor, a criterion, features (continuous,
rounded, small integers, mixed; missing values, duplicated rows, constant
columns), weights (none, whole, real, near 1e-300 and 1e300), one to three
outputs, stopping rules and, from seed 100000, balanced binary columns whose
ties reach the top nodes. The thresholds are lowered (``subtree_tuning``) so that
fits of a few thousand rows take the threaded path. Each case runs in a
subprocess (a crash or a hang is a finding); the n_jobs=2 fit runs twice.

    python tests/subtree_fuzz.py run START COUNT [--timeout S] [--budget SECONDS] [--log FILE]
    python tests/subtree_fuzz.py case SEED          (one case, as JSON)
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

FIELDS = ("children_left", "children_right", "feature", "threshold", "impurity",
          "n_node_samples", "weighted_n_node_samples", "value", "missing_go_to_left",
          "categorical_set")

CLF_CRIT = ["gini", "entropy", "log_loss"]
REG_CRIT = ["squared_error", "squared_error", "friedman_mse", "poisson", "absolute_error"]


def make_params(seed):
    r = np.random.default_rng(seed)
    p = {}
    p["clf"] = bool(r.random() < 0.45)
    p["criterion"] = str(r.choice(CLF_CRIT if p["clf"] else REG_CRIT))
    # absolute_error is slow (and never threaded): keep it small
    big = 20000 if p["criterion"] != "absolute_error" else 5000
    p["N"] = int(r.integers(3000, big + 1))
    p["d"] = int(r.integers(3, 21))
    if r.random() < 0.85 and big == 20000:
        # enough work (N * d >= 2 * PARALLEL_WORK) for the plan to give the fit 2 threads
        p["N"] = int(r.integers(7000, 20001))
        p["d"] = int(r.integers(-(-131072 // p["N"]), 21))
    p["feat"] = str(r.choice(["continuous", "rounded", "smallint", "mixed"],
                             p=[0.3, 0.25, 0.2, 0.25]))
    p["nan"] = float(r.choice([0.0, 0.0, 0.02, 0.1, 0.3]))
    p["dup"] = float(r.choice([0.0, 0.0, 0.1, 0.5]))
    p["const_cols"] = int(r.choice([0, 0, 1, 2]))
    p["weights"] = str(r.choice(["none", "none", "int", "real", "tiny", "huge"]))
    p["outputs"] = int(r.choice([1, 1, 1, 2, 3]))
    p["yeq"] = bool(r.random() < 0.3)     # y with many equal values
    p["max_depth"] = [None, None, 3, 8][int(r.integers(4))]
    p["min_samples_leaf"] = int(r.choice([1, 1, 3]))
    p["min_samples_split"] = [2, 2, 2, 5, 0.001][int(r.integers(5))]
    p["min_impurity_decrease"] = float(r.choice([0.0, 0.0, 0.0, 1e-5, 1e-3]))
    p["min_weight_fraction_leaf"] = float(r.choice([0.0] * 6 + [0.001]))
    p["value_tolerance"] = float(r.choice([0.0] * 6 + [1e-7, 0.05]))
    p["random_state"] = int(r.integers(0, 2**31 - 1))
    p["pandas_cat"] = bool(r.random() < 0.2) and p["outputs"] == 1
    p["ncat"] = int(r.choice([3, 10, 30]))
    p["data_seed"] = int(r.integers(0, 2**31 - 1))
    # exact ties between features at large (top) nodes: a balanced binary design
    # in the first columns, integer targets
    p["factorial"] = int(r.choice([0, 0, 0, 0, 2, 3])) if seed >= 100000 else 0
    return p


def make_data(p):
    r = np.random.default_rng(p["data_seed"])
    N, d = p["N"], p["d"]
    kinds = []
    cols = []
    for j in range(d):
        k = p["feat"] if p["feat"] != "mixed" else str(
            r.choice(["continuous", "rounded", "smallint", "tinyint"]))
        if k == "continuous":
            c = r.normal(size=N)
        elif k == "rounded":
            c = np.round(r.normal(size=N), 1)
        elif k == "tinyint":
            c = r.integers(0, 2, N).astype(float)
        else:
            c = r.integers(0, int(r.integers(2, 8)), N).astype(float)
        kinds.append(k)
        cols.append(c)
    X = np.column_stack(cols)
    for j in r.choice(d, size=min(p["const_cols"], d), replace=False):
        X[:, j] = float(r.choice([0.0, 1.5]))
    if p["nan"] > 0:
        ncols = int(r.integers(1, d + 1))
        for j in r.choice(d, size=ncols, replace=False):
            X[r.random(N) < p["nan"], j] = np.nan
    if p["dup"] > 0:
        n_dup = int(N * p["dup"])
        src = r.integers(0, N, n_dup)
        dst = r.choice(N, n_dup, replace=False)
        X[dst] = X[src]
    if p.get("factorial"):
        import itertools
        q = min(p["factorial"], d)
        combos = np.array(list(itertools.product([0.0, 1.0], repeat=q)))
        X[:, :q] = combos[np.arange(N) % len(combos)]
    Z = np.nan_to_num(X)
    base = Z[:, 0] + 0.5 * Z[:, 1 % d] ** 2 - Z[:, 2 % d] * (Z[:, 0] > 0)
    ys = []
    for o in range(p["outputs"]):
        noise = r.normal(size=N) * float(r.choice([0.1, 1.0]))
        v = base * (1 + o) + noise + o * Z[:, (3 + o) % d]
        if p["clf"]:
            ncls = int(r.integers(2, 5))
            qs = np.quantile(v, np.linspace(0, 1, ncls + 1)[1:-1])
            yc = np.searchsorted(qs, v)
            if p["yeq"]:
                yc = np.where(r.random(N) < 0.7, 0, yc)
            ys.append(yc)
        else:
            if p["criterion"] == "poisson":
                yv = r.poisson(np.exp(np.clip(v * 0.3, -3, 3))).astype(float)
            else:
                yv = v
                if p["yeq"]:
                    yv = np.round(yv)
                    yv[r.random(N) < 0.5] = 0.0
            if p.get("factorial") and p["criterion"] != "poisson":
                q = min(p["factorial"], d)
                yv = 10 * X[:, :q].sum(1) + r.integers(0, 3, N)
            ys.append(yv)
    y = ys[0] if p["outputs"] == 1 else np.column_stack(ys)
    w = None
    if p["weights"] == "int":
        w = r.integers(1, 5, N).astype(float)
    elif p["weights"] == "real":
        w = r.random(N) * 3 + 0.01
    elif p["weights"] == "tiny":
        w = (r.random(N) + 0.1) * 1e-300
    elif p["weights"] == "huge":
        w = (r.random(N) + 0.1) * 1e300
    Xf = X
    if p["pandas_cat"]:
        import pandas as pd
        Xf = pd.DataFrame(X, columns=[f"c{i}" for i in range(d)])
        letters = [f"k{i}" for i in range(p["ncat"])]
        g = r.choice(letters, N)
        catcol = pd.Categorical(g)
        Xf["group"] = catcol
        if p["nan"] > 0:
            Xf.loc[r.random(N) < p["nan"], "group"] = np.nan
        bump = np.isin(g, letters[::3]).astype(float) * 2
        if p["clf"]:
            if y.ndim == 1:
                y = np.where(r.random(N) < 0.3, (bump > 0).astype(int), y)
            else:
                y[:, 0] = np.where(r.random(N) < 0.3, (bump > 0).astype(int), y[:, 0])
        elif p["criterion"] != "poisson":
            if y.ndim == 1:
                y = y + bump
            else:
                y[:, 0] = y[:, 0] + bump
    return Xf, y, w


def run_case(seed):
    import warnings
    warnings.simplefilter("ignore")
    import dtree
    from dtree._grow import subtree_tuning
    subtree_tuning(work=1000, shares=8)
    p = make_params(seed)
    X, y, w = make_data(p)
    Est = dtree.DecisionTreeClassifier if p["clf"] else dtree.DecisionTreeRegressor
    kw = dict(criterion=p["criterion"], max_depth=p["max_depth"],
              min_samples_leaf=p["min_samples_leaf"], min_samples_split=p["min_samples_split"],
              min_impurity_decrease=p["min_impurity_decrease"],
              min_weight_fraction_leaf=p["min_weight_fraction_leaf"],
              value_tolerance=p["value_tolerance"], random_state=p["random_state"])
    t0 = time.time()
    before = subtree_tuning()
    try:
        one = Est(n_jobs=1, **kw).fit(X, y, sample_weight=w)
    except ValueError as e:
        # e.g. poisson with an all-zero output: both must refuse alike
        err1 = repr(e)
        try:
            Est(n_jobs=2, **kw).fit(X, y, sample_weight=w)
            err2 = None
        except ValueError as e2:
            err2 = repr(e2)
        return {"status": "ok" if err1 == err2 else "mismatch", "refused": err1,
                "detail": None if err1 == err2 else f"n_jobs=1 {err1} vs n_jobs=2 {err2}"}
    mid = subtree_tuning()
    two = Est(n_jobs=2, **kw).fit(X, y, sample_weight=w)
    after = subtree_tuning()
    threaded = after[2] - mid[2]
    diffs = compare(one.tree_, two.tree_)
    if not diffs:
        # again: a race shows now and then
        diffs = ["(2nd n_jobs=2 fit) " + x for x in
                 compare(one.tree_, Est(n_jobs=2, **kw).fit(X, y, sample_weight=w).tree_)]
    return {"status": "mismatch" if diffs else "ok", "detail": diffs,
            "nodes": int(one.tree_.node_count), "threaded": int(threaded),
            "searched": int(after[3] - mid[3]), "resplit": int(after[4] - mid[4]),
            "wrong": int(after[5] - mid[5]) if len(after) > 5 else -1, "secs": round(time.time() - t0, 2)}


def compare(ta, tb):
    diffs = []
    if ta.node_count != tb.node_count:
        diffs.append(f"node_count {ta.node_count} vs {tb.node_count}")
    for name in FIELDS:
        a, b = getattr(ta, name, None), getattr(tb, name, None)
        if a is None and b is None:
            continue
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            diffs.append(f"{name}: shape {a.shape} vs {b.shape}")
            continue
        eq = (a == b) | ((a != a) & (b != b)) if a.dtype.kind == "f" else (a == b)
        if not np.all(eq):
            bad = np.argwhere(~eq)
            diffs.append(f"{name}: {len(bad)} differ, first at {bad[0].tolist()}")
    return diffs


def driver(start, count, timeout, budget, log):
    here = os.path.abspath(__file__)
    env = dict(os.environ)
    # (the checkout this script sits in, unless PYTHONPATH names another build)
    env.setdefault("PYTHONPATH", os.path.dirname(os.path.dirname(here)))
    t_begin = time.time()
    stats = {"ok": 0, "mismatch": 0, "crash": 0, "timeout": 0, "threaded": 0, "wrong": 0,
             "searched": 0}
    failures = []
    n = 0
    with open(log, "a") as lf:
        for seed in range(start, start + count):
            if time.time() - t_begin > budget:
                break
            n += 1
            t0 = time.time()
            try:
                cp = subprocess.run([sys.executable, here, "case", str(seed)], env=env,
                                    capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                stats["timeout"] += 1
                failures.append((seed, "timeout"))
                line = f"seed {seed}: TIMEOUT (>{timeout}s) params={make_params(seed)}"
                print(line, flush=True)
                lf.write(line + "\n")
                continue
            if cp.returncode != 0:
                stats["crash"] += 1
                failures.append((seed, f"rc={cp.returncode}"))
                line = (f"seed {seed}: CRASH rc={cp.returncode} params={make_params(seed)}\n"
                        f"  stderr tail: {cp.stderr[-2000:]}")
                print(line, flush=True)
                lf.write(line + "\n")
                continue
            res = json.loads(cp.stdout.strip().splitlines()[-1])
            stats[res["status"]] += 1
            stats["threaded"] += res.get("threaded", 0) > 0
            stats["wrong"] += res.get("wrong", 0)
            stats["searched"] += res.get("searched", 0)
            line = f"seed {seed}: {res['status']} {json.dumps(res)} ({time.time() - t0:.1f}s)"
            if res["status"] != "ok":
                failures.append((seed, res["detail"]))
                line += f"\n  params={make_params(seed)}"
                print(line, flush=True)
            lf.write(line + "\n")
            lf.flush()
    print(f"cases run: {n}, {stats}, elapsed {time.time() - t_begin:.0f}s")
    for s, f in failures:
        print(f"FAIL seed={s}: {f}\n  reproduce: python {here} case {s}")


if __name__ == "__main__":
    if sys.argv[1] == "case":
        print(json.dumps(run_case(int(sys.argv[2]))))
    else:
        args = sys.argv[2:]
        start, count = int(args[0]), int(args[1])
        timeout = float(args[args.index("--timeout") + 1]) if "--timeout" in args else 300
        budget = float(args[args.index("--budget") + 1]) if "--budget" in args else 1e9
        log = args[args.index("--log") + 1] if "--log" in args else "subtree_fuzz.log"
        driver(start, count, timeout, budget, log)
