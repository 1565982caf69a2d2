"""
rpart-style pruning with the CP table
=====================================

rpart grows a large tree, cross-validates every subtree of its pruning sequence,
and keeps the simplest one within one standard error of the best
(``printcp`` and ``plotcp`` show the table). dtree does the same with
``ccp_alpha="cv"``, misclassification as the risk (``prune_risk``), and rpart's
default control (``minsplit=20``, ``minbucket=7``).
"""

# %%
# Kyphosis, rpart's own example
# -----------------------------

import matplotlib.pyplot as plt

from dtree import DecisionTreeClassifier
from dtree.datasets import load_Xy
from dtree.export import plot_tree

X, y = load_Xy("kyphosis")
rpart_like = dict(min_samples_split=20, min_samples_leaf=7,
                  prune_risk="misclassification", ccp_alpha="cv", random_state=0)
kyphosis = DecisionTreeClassifier(**rpart_like).fit(X, y)
print(kyphosis.cp_table_)          # rpart's printcp

# %%
# On kyphosis the one-standard-error rule keeps the root alone: no subtree's
# cross-validated error beats the root's by more than one standard error.
#
# A larger table: German credit
# -----------------------------
#
# The credit-g data (1,000 applicants, 20 features, 13 of them text) gives a
# longer pruning sequence.

X, y = load_Xy("credit_g")
credit = DecisionTreeClassifier(**rpart_like).fit(X, y)
print(credit.cp_table_)
print("alpha chosen:", credit.ccp_alpha_, "leaves:", credit.get_n_leaves())

# %%
# ``cp_table_.plot()`` is rpart's ``plotcp``: the cross-validated relative error
# of each subtree with its standard error, against the complexity parameter
# (the tree sizes along the top), and the line one standard error above the
# minimum.

ax = credit.cp_table_.plot()
ax.figure.tight_layout()

# %%
# The tree the rule chose:

fig, ax = plt.subplots(figsize=(11, 5))
_ = plot_tree(credit, feature_names=list(X.columns), filled=True, ax=ax, fontsize=7)

# %%
# Pruning by hand
# ---------------
#
# The pruning sequence is also available on any fitted tree:
# ``cost_complexity_pruning_path`` gives scikit-learn's path (here with
# scikit-learn's risk, the leaves' impurity), and ``prune`` returns a pruned
# copy.

full = DecisionTreeClassifier(min_samples_split=20, min_samples_leaf=7,
                              random_state=0).fit(X, y)
path = full.cost_complexity_pruning_path(X, y)
sizes = [full.prune(alpha).get_n_leaves() for alpha in path.ccp_alphas]
fig, ax = plt.subplots(figsize=(6, 3))
ax.step(path.ccp_alphas, sizes, where="post")
ax.set_xlabel("ccp_alpha")
ax.set_ylabel("leaves")
ax.set_title("size of the pruned tree")
fig.tight_layout()
