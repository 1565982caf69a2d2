"""
Switching from scikit-learn
===========================

dtree's estimators take scikit-learn's parameters under the same names, with
the same defaults, so switching is a change of import. With the same
``random_state`` the tree is scikit-learn's, node for node (wherever every sum is
exact, as here), and it is grown several times faster.
"""

# %%
# Change the import
# -----------------
#
# The same data and parameters, once with scikit-learn's class and once with
# dtree's.

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier as SklearnTree
from sklearn.tree import plot_tree as sklearn_plot_tree

from dtree import DecisionTreeClassifier
from dtree.export import plot_tree

X, y = load_breast_cancer(return_X_y=True)
names = list(load_breast_cancer().feature_names)

theirs = SklearnTree(random_state=0).fit(X, y)
ours = DecisionTreeClassifier(random_state=0).fit(X, y)

# %%
# The same tree
# -------------
#
# Both expose the flat node arrays in scikit-learn's layout (``tree_``), so the
# two trees can be compared array by array.

for name in ("children_left", "children_right", "feature", "threshold"):
    same = np.array_equal(getattr(theirs.tree_, name), getattr(ours.tree_, name))
    print(f"{name:15s} identical: {same}")
print("nodes:", theirs.tree_.node_count, ours.tree_.node_count)
print("same predictions:", np.array_equal(theirs.predict(X), ours.predict(X)))

# %%
# Drawn side by side, the top of the two trees reads the same.

fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
sklearn_plot_tree(theirs, max_depth=2, feature_names=names, filled=True, ax=axes[0],
                  fontsize=7)
axes[0].set_title("scikit-learn")
plot_tree(ours, max_depth=2, feature_names=names, filled=True, ax=axes[1], fontsize=7)
axes[1].set_title("dtree")
fig.tight_layout()

# %%
# Faster
# ------
#
# On a larger synthetic table (the benchmark's own generator), both libraries
# fit the same full-depth tree on one thread; dtree's presorted columns make it
# several times faster.

from dtree.bench import make_data

X_big, y_big = make_data("classification", 100_000)


def seconds(model):
    start = time.perf_counter()
    model.fit(X_big, y_big)
    return time.perf_counter() - start, model


sk_time, sk_model = seconds(SklearnTree(random_state=0))
dt_time, dt_model = seconds(DecisionTreeClassifier(random_state=0, n_jobs=1))
print(f"scikit-learn {sk_time:.2f} s, dtree {dt_time:.2f} s "
      f"({sk_time / dt_time:.1f}x faster), "
      f"same tree: {np.array_equal(sk_model.tree_.threshold, dt_model.tree_.threshold)}")

fig, ax = plt.subplots(figsize=(5, 2.5))
ax.barh(["scikit-learn", "dtree"], [sk_time, dt_time], color=["tab:gray", "tab:blue"])
ax.set_xlabel("fit seconds, 100,000 rows x 10 features, one thread")
fig.tight_layout()

# %%
# Everything else carries over: ``predict_proba``, ``apply``,
# ``decision_path``, ``cost_complexity_pruning_path``, ``get_params`` and
# ``set_params``, pipelines and searches. See :doc:`/guide/integrations`.
