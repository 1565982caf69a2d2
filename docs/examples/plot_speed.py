"""
Speed against scikit-learn and LightGBM
=======================================

A small version of ``python -m dtree.bench``: one depth-10 classification tree,
fitted on one thread by dtree (exact and histogram splitters), scikit-learn, and
LightGBM configured to grow a single comparable tree (skipped if LightGBM is not
installed). The sizes are kept small so that the example runs in seconds; the
gap grows with the number of rows (see :doc:`/guide/speed` for the benchmark's
figures at a million rows).
"""

# %%
# The contenders
# --------------

import time

import matplotlib.pyplot as plt
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from dtree import DecisionTreeClassifier
from dtree.bench import make_data

try:
    import lightgbm
except ImportError:
    lightgbm = None
    print("LightGBM is not installed: its line is skipped")

DEPTH = 10


def lightgbm_tree(n_leaves):
    """One LightGBM round that grows a single unregularised tree (as the bench does)."""
    return lightgbm.LGBMClassifier(
        n_estimators=1, learning_rate=1.0, num_leaves=max(2, n_leaves), max_depth=DEPTH,
        min_child_samples=1, min_child_weight=0.0, min_split_gain=0.0, reg_lambda=0.0,
        reg_alpha=0.0, subsample=1.0, colsample_bytree=1.0, max_bin=255, n_jobs=1,
        verbose=-1)


def best_fit_seconds(make, X, y, repeat=2):
    best = float("inf")
    for _ in range(repeat):
        model = make()
        start = time.perf_counter()
        model.fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best, model


# %%
# Fit times against the number of rows
# ------------------------------------

sizes = [5_000, 20_000, 60_000]
times = {"dtree exact": [], "dtree hist": [], "scikit-learn": []}
if lightgbm is not None:
    times["LightGBM (one tree)"] = []

for n in sizes:
    X, y = make_data("classification", n)
    t, ours = best_fit_seconds(lambda: DecisionTreeClassifier(max_depth=DEPTH, n_jobs=1), X, y)
    times["dtree exact"].append(t)
    t, _ = best_fit_seconds(
        lambda: DecisionTreeClassifier(max_depth=DEPTH, splitter="hist", n_jobs=1), X, y)
    times["dtree hist"].append(t)
    t, theirs = best_fit_seconds(lambda: SklearnTree(max_depth=DEPTH, random_state=0), X, y)
    times["scikit-learn"].append(t)
    if lightgbm is not None:
        t, _ = best_fit_seconds(lambda: lightgbm_tree(ours.get_n_leaves()), X, y)
        times["LightGBM (one tree)"].append(t)

print(f"{'rows':>8s}" + "".join(f"{name:>22s}" for name in times))
for i, n in enumerate(sizes):
    print(f"{n:8d}" + "".join(f"{times[name][i]:21.3f}s" for name in times))
print("scikit-learn / dtree exact:",
      ", ".join(f"{s / d:.1f}x" for s, d in zip(times["scikit-learn"], times["dtree exact"])))

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for name, values in times.items():
    ax.loglog(sizes, values, "o-", label=name)
ax.set_xlabel("rows (10 features)")
ax.set_ylabel("fit seconds, one thread (best of 2)")
ax.set_title(f"one classification tree, max_depth={DEPTH}")
ax.legend()
fig.tight_layout()

# %%
# Prediction
# ----------
#
# A depth-10 tree's first levels are laid out as a complete tree that blocks of
# rows step through without branches. The trees of the largest size above:

for name, model in (("dtree", ours), ("scikit-learn", theirs)):
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        model.predict(X)
        best = min(best, time.perf_counter() - start)
    print(f"{name:13s} predicts {X.shape[0] / best / 1e6:6.1f} million rows per second")
