"""
Native categories and missing values
====================================

The adult census data has eight text columns and empty fields in three of them.
dtree fits it as read: text columns are split by sets of categories, and each
split learns where missing values go. scikit-learn needs the text one-hot
encoded first.
"""

# %%
# The data, as read
# -----------------

import time

import matplotlib.pyplot as plt
from sklearn.compose import make_column_transformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from dtree import DecisionTreeClassifier
from dtree.datasets import load
from dtree.export import export_text

frame = load("adult")                      # a pandas DataFrame: text and empty fields
y = frame.pop("income")
text_columns = [c for c in frame.columns if frame[c].dtype.kind not in "iuf"]
print("text columns:", text_columns)
print("missing values per column:")
print(frame.isna().sum()[frame.isna().sum() > 0])

# adult's own split: the first 32,561 rows train, the rest test
X_train, X_test = frame.iloc[:32561], frame.iloc[32561:]
y_train, y_test = y.iloc[:32561], y.iloc[32561:]

# %%
# dtree on the frame as it is
# ---------------------------
#
# ``categorical_features="auto"`` (the default) makes every text column a
# categorical feature.

start = time.perf_counter()
ours = DecisionTreeClassifier(min_samples_leaf=20, random_state=0).fit(X_train, y_train)
ours_time = time.perf_counter() - start
print("categorical columns:", list(frame.columns[ours.categorical_features_]))
print(f"dtree: test accuracy {ours.score(X_test, y_test):.3f}, "
      f"{ours.get_n_leaves()} leaves, {ours.n_features_in_} features, {ours_time:.2f} s")

# %%
# scikit-learn on one-hot columns
# -------------------------------

encoder = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), text_columns),
                                  remainder="passthrough")
start = time.perf_counter()
theirs = make_pipeline(encoder, SklearnTree(min_samples_leaf=20, random_state=0))
theirs.fit(X_train, y_train)
theirs_time = time.perf_counter() - start
print(f"scikit-learn: test accuracy {theirs.score(X_test, y_test):.3f}, "
      f"{theirs[-1].get_n_leaves()} leaves, {theirs[-1].n_features_in_} features, "
      f"{theirs_time:.2f} s")

# %%
fig, axes = plt.subplots(1, 3, figsize=(10, 3))
labels = ["dtree\ncategories", "scikit-learn\none-hot"]
colours = ["tab:blue", "tab:gray"]
axes[0].bar(labels, [ours.score(X_test, y_test), theirs.score(X_test, y_test)], color=colours)
axes[0].set_ylim(0.8, 0.86)
axes[0].set_title("test accuracy")
axes[1].bar(labels, [ours.get_n_leaves(), theirs[-1].get_n_leaves()], color=colours)
axes[1].set_title("leaves")
axes[2].bar(labels, [ours_time, theirs_time], color=colours)
axes[2].set_title("fit seconds")
fig.tight_layout()

# %%
# What a category split looks like
# --------------------------------
#
# A split sends a set of categories left. ``show_missing=True`` marks the
# side each split sends missing values to (``occupation`` has 2,809 empty
# fields).

small = DecisionTreeClassifier(max_depth=2, random_state=0)
small.fit(X_train[["occupation", "workclass", "age"]], y_train)
print(export_text(small, show_missing=True))

# %%
# Up to 12 categories at a node, every subset is tried; above that, Breiman's
# ordering finds the best subset exactly for two classes. See
# :doc:`/guide/categories` for the split shapes (``category_splits``) and the
# identifier-column warning.
