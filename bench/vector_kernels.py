"""The exact splitter's vector kernels against its scalar code, in one run.

Each setting runs in its own process (the switches are read at import):
the default (the machine's vector level, filtered scans) and the scalar code
(``DTREE_SIMD=0 DTREE_FILTERED_SCANS=0``), alternately, ``--rounds`` times;
each fit's best time is kept, and the trees are checked to be the same.

    python bench/vector_kernels.py [--rows 1000000] [--rounds 2]
"""
import argparse
import json
import os
import subprocess
import sys

WORKER = r"""
import json, sys, time, zlib
import dtree
from dtree import _splitter
from dtree.bench import make_data
rows = int(sys.argv[1])
out = {"level": _splitter.simd_level(), "fits": []}
fits = []
for task in ("classification", "regression"):
    X, y = make_data(task, rows, 10)
    est = dtree.DecisionTreeClassifier if task == "classification" else dtree.DecisionTreeRegressor
    for depth in (10, None):
        fits.append((f"{task}, {rows:.0e} x 10, depth {depth or 'full'}",
                     lambda est=est, depth=depth, X=X, y=y:
                     est(max_depth=depth, n_jobs=1, random_state=0).fit(X, y)))
for name, task in (("RandomForestClassifier", "classification"),
                   ("RandomForestRegressor", "regression")):
    X, y = make_data(task, rows // 10, 20)
    fits.append((f"{name}, 10 trees, {rows // 10:.0e} x 20",
                 lambda name=name, X=X, y=y: getattr(dtree, name)(
                     n_estimators=10, n_jobs=1, random_state=0).fit(X, y)))
for name, fit in fits:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        model = fit()
        best = min(best, time.perf_counter() - start)
    trees = getattr(model, "estimators_", [model])
    digest = zlib.crc32(b"".join(t.tree_.threshold.tobytes() + t.tree_.value.tobytes()
                                 for t in trees))
    out["fits"].append([name, best, digest])
print(json.dumps(out))
"""

SETTINGS = {"vector": {}, "scalar": {"DTREE_SIMD": "0", "DTREE_FILTERED_SCANS": "0"}}


def run(setting, rows):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DTREE_SIMD", "DTREE_FILTERED_SCANS")}
    env.update(SETTINGS[setting])
    done = subprocess.run([sys.executable, "-c", WORKER, str(rows)], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    best, digests, level = {}, {}, None
    for _ in range(args.rounds):
        for setting in SETTINGS:
            result = run(setting, args.rows)
            if setting == "vector":
                level = result["level"]
            for name, seconds, digest in result["fits"]:
                key = (setting, name)
                best[key] = min(best.get(key, float("inf")), seconds)
                digests.setdefault(name, set()).add(digest)
    print(f"vector level {level} (0 none, 1 AVX2, 2 AVX-512); one thread, best of "
          f"{3 * args.rounds}")
    print(f"{'fit':<46s}{'scalar s':>9s}{'vector s':>9s}{'ratio':>7s}  same trees")
    for name in digests:
        scalar, vector = best[("scalar", name)], best[("vector", name)]
        print(f"{name:<46s}{scalar:9.3f}{vector:9.3f}{vector / scalar:7.2f}  "
              f"{'yes' if len(digests[name]) == 1 else 'NO'}")
    if any(len(d) != 1 for d in digests.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
