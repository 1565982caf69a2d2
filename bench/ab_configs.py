"""A/B: fit and predict times of the dtree this interpreter imports, as JSON.

Run it with two interpreters (say a venv with the old version installed, and
this checkout) alternately, several times, and compare the minima: the
machine is shared, so one run of each proves nothing.

    /tmp/venv_old/bin/python bench/ab_configs.py > old.json   # from outside the checkout
    python bench/ab_configs.py > new.json
"""
import json
import time

import numpy as np
from dtree.bench import make_data, kdd_data
from dtree import DecisionTreeClassifier as C, DecisionTreeRegressor as R

configs = [
    ("clf full 200k", "classification", C, {}),
    ("reg full 200k", "regression", R, {}),
    ("clf hist full 200k", "classification", C, {"splitter": "hist"}),
    ("reg hist full 200k", "regression", R, {"splitter": "hist"}),
    ("clf best-first 2000 leaves", "classification", C, {"max_leaf_nodes": 2000}),
    ("reg hist best-first 2000", "regression", R, {"splitter": "hist", "max_leaf_nodes": 2000}),
    ("reg depth 10, max_features 3", "regression", R, {"max_depth": 10, "max_features": 3, "random_state": 0}),
]
out = {}
for name, task, cls, kw in configs:
    X, y = make_data(task, 200000)[:2]
    est = cls(n_jobs=1, **kw)
    times, ptimes = [], []
    for _ in range(5):
        t = time.perf_counter(); est.fit(X, y); times.append(time.perf_counter() - t)
        t = time.perf_counter(); est.predict(X); ptimes.append(time.perf_counter() - t)
    out[name] = (min(times), min(ptimes), est.tree_.node_count)
Xk, yk = kdd_data()[:2]
est = C(n_jobs=1)
times = []
for _ in range(3):
    t = time.perf_counter(); est.fit(Xk, yk); times.append(time.perf_counter() - t)
out["KDD exact"] = (min(times), 0.0, est.tree_.node_count)
print(json.dumps(out))
