"""
An audited tree, scored in SQL
==============================

Before a tree scores rows in a database, an auditor wants to see the splits that
nearly won, how rows with missing values are routed, and how much training data
stands behind each leaf; and then to check that the SQL gives exactly the
model's answers. This example does all four on the adult census data, which has
text columns and missing values.
"""

# %%
# Competitors and surrogates, as rpart reports them
# -------------------------------------------------
#
# ``keep_competitors`` keeps the best splits on other features at every node;
# ``handle_missing="surrogate"`` keeps rpart's surrogate splits and routes a row
# missing a node's feature by them.

import sqlite3

import matplotlib.pyplot as plt
import numpy as np

import dtree
from dtree.datasets import load_Xy
from dtree.export import export_sql

X, y = load_Xy("adult")
clf = dtree.DecisionTreeClassifier(max_depth=4, min_samples_leaf=20, keep_competitors=2,
                                   handle_missing="surrogate", random_state=0).fit(X, y)
report = clf.summary(file=False)            # rpart's summary()
print(report.split("Node number 1:")[0])

# %%
# Honest leaves
# -------------
#
# ``leaf_support`` counts the training rows behind each prediction, and
# ``predict_interval`` gives the Wilson interval of each class fraction.
# ``outside_training_range`` flags rows beyond the training range of a split
# on their path.

leaves = clf.apply(X)
first_rows = np.unique(leaves, return_index=True)[1]   # one row per leaf
support = clf.leaf_support(X.iloc[first_rows])
lower, upper = clf.predict_interval(X.iloc[first_rows], confidence=0.95)
share = clf.predict_proba(X.iloc[first_rows])[:, 1]
print("rows outside the training range:", int(clf.outside_training_range(X).sum()))

order = np.argsort(share)
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.errorbar(np.arange(len(order)), share[order],
            yerr=[share[order] - lower[order, 1], upper[order, 1] - share[order]],
            fmt="o", capsize=2)
for i, k in enumerate(order):
    ax.annotate(str(support[k]), (i, upper[k, 1]), textcoords="offset points",
                xytext=(0, 3), ha="center", fontsize=6)
ax.set_xlabel("leaves, by their share of >50K")
ax.set_ylabel("P(>50K), 95% Wilson interval")
ax.set_title("each leaf's estimate, and the training rows behind it")
fig.tight_layout()

# %%
# The tree as one SQL query
# -------------------------
#
# ``export_sql`` writes one ``SELECT``: categories as ``IN`` lists, thresholds
# written so that a DOUBLE column compares as dtree does, NULL routed by the
# surrogates. ``keep_columns`` returns the table's key first.

query = export_sql(clf, table="people", dialect="sqlite", keep_columns=["row_id"])
print(query[:600], "...")

table = X.assign(row_id=np.arange(len(X)))
con = sqlite3.connect(":memory:")
table.to_sql("people", con, index=False)
rows = con.execute(f'SELECT * FROM ({query}) AS "q" ORDER BY "row_id"').fetchall()

predicted = np.array([r[1] for r in rows])
proba = np.array([r[2:] for r in rows])
print("SQLite: same predictions:", bool((predicted == clf.predict(X)).all()),
      "| largest probability difference:", np.abs(proba - clf.predict_proba(X)).max())

# %%
# The same in DuckDB, if it is installed:

try:
    import duckdb
except ImportError:
    print("duckdb is not installed: skipped")
else:
    duck = duckdb.connect()
    duck.register("people_frame", table)
    duck.execute("CREATE TABLE people AS SELECT * FROM people_frame")
    query = export_sql(clf, table="people", dialect="duckdb", keep_columns=["row_id"])
    rows = duck.execute(f'SELECT * FROM ({query}) AS "q" ORDER BY "row_id"').fetchall()
    print("DuckDB: same predictions:",
          bool((np.array([r[1] for r in rows]) == clf.predict(X)).all()))

# %%
# See :doc:`/guide/auditing` and :doc:`/guide/export` for the details, and the
# PostgreSQL dialect.
