"""
One tree on a Dask cluster
==========================

``dtree.dask`` grows a histogram tree on data spread over a Dask cluster: the
rows stay on the workers, and only histograms cross the network. On the same
bins the tree is the one a local ``splitter="hist"`` fit grows, node for node.

This example starts a small local cluster (two workers inside this process, to
stay quick); on real data you would connect to a scheduler with
``Client("tcp://HOST:8786")`` instead.
"""

# %%
# A cluster and some partitioned data
# -----------------------------------

import time

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster

from dtree import DecisionTreeClassifier
from dtree.dask import DaskDecisionTreeClassifier

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                       dashboard_address=None)
client = Client(cluster)

# 200,000 rows of 8 integer-valued features (at most 200 distinct values each),
# in four partitions
rng = np.random.RandomState(0)
X_local = rng.randint(0, 200, size=(200_000, 8)).astype("float32")
signal = (X_local[:, 0] - 100) + (X_local[:, 1] - 100) * (X_local[:, 2] - 100) / 50
y_local = (signal + rng.normal(0, 30, size=200_000) > 0).astype("int32")
X = da.from_array(X_local, chunks=(50_000, 8))
y = da.from_array(y_local, chunks=50_000)

# %%
# Fit on the cluster
# ------------------

start = time.perf_counter()
clf = DaskDecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
print(f"distributed fit: {time.perf_counter() - start:.2f} s")
print("first predictions (lazy, computed on the workers):", clf.predict(X)[:5].compute())

# %%
# The same tree as a local fit
# ----------------------------
#
# ``to_local()`` returns the fitted tree as an ordinary
# ``DecisionTreeClassifier(splitter="hist")``. With at most 255 distinct values
# per feature, the histogram tree is also the exact tree.

tree = clf.to_local()
local_hist = DecisionTreeClassifier(splitter="hist", max_depth=6, random_state=0)
exact = DecisionTreeClassifier(max_depth=6, random_state=0)
for name, model in (("local hist", local_hist), ("local exact", exact)):
    model.fit(X_local, y_local)
    same = (np.array_equal(tree.tree_.feature, model.tree_.feature)
            and np.array_equal(tree.tree_.threshold, model.tree_.threshold))
    print(f"same tree as the {name} fit: {same}")

fig, ax = plt.subplots(figsize=(6, 3))
positions = np.arange(X_local.shape[1])
ax.bar(positions - 0.2, tree.feature_importances_, width=0.4, label="Dask fit")
ax.bar(positions + 0.2, exact.feature_importances_, width=0.4, label="local exact fit")
ax.set_xticks(positions)
ax.set_xlabel("feature")
ax.set_ylabel("importance")
ax.legend()
fig.tight_layout()

# %%
# The local tree saves, exports, converts to ONNX and prunes as any other.

client.close()
cluster.close()
