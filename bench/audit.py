"""What the audit features cost: competitors, surrogates, training ranges, honest
leaves, and SQL scoring in SQLite and DuckDB.

    python bench/audit.py [--rows 1000000] [--repeat 3]

On the shipped adult (48,842 x 14, categories and missing values) and
california housing (20,640 x 8) data and a synthetic numeric set of ``--rows``
x 10: fit times with ``keep_competitors=4`` and with ``handle_missing=
"surrogate"`` (5 surrogates) against a plain fit (and scikit-learn's), what
the pass recording the splits' training ranges costs where the splitter does
not record them as it grows (sparse X, hist, C4.5), predict_interval
and outside_training_range against predict, and export_sql's query run in
SQLite and DuckDB against predict, with the rows whose prediction agrees.
One thread; best of ``--repeat``.
"""
import argparse
import sqlite3
import time

import numpy as np
import pandas as pd

import dtree
from dtree._input.encode import encode_predict_X
from dtree._model.leaves import feature_ranges
from dtree.datasets import load_Xy
from dtree.export import export_sql


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def datasets(rows):
    X, y = load_Xy("adult")
    yield "adult", X, y, True
    X, y = load_Xy("california_housing")
    yield "california", X, y, False
    rng = np.random.default_rng(0)
    Xs = pd.DataFrame(rng.normal(size=(rows, 10)).astype(np.float32),
                      columns=[f"x{i}" for i in range(10)])
    ys = (Xs["x0"] + Xs["x1"] * Xs["x2"] + rng.normal(size=rows) > 0).astype(int)
    yield f"synthetic {rows:.0e}", Xs, ys, True


def fit_costs(name, X, y, classify, repeat):
    cls = dtree.DecisionTreeClassifier if classify else dtree.DecisionTreeRegressor
    base = dict(random_state=0, min_samples_leaf=5, n_jobs=1)
    t_plain, model = best(lambda: cls(**base).fit(X, y), repeat)
    t_comp, _ = best(lambda: cls(keep_competitors=4, **base).fit(X, y), repeat)
    t_surr, _ = best(lambda: cls(handle_missing="surrogate", **base).fit(X, y), repeat)
    Xv = encode_predict_X(model, X)
    t_range, _ = best(lambda: feature_ranges(model.tree_, Xv, None), repeat)
    line = (f"{name:18s} nodes {model.tree_.node_count:6d}  plain fit {t_plain:7.3f} s  "
            f"competitors x{t_comp / t_plain:5.2f}  surrogates x{t_surr / t_plain:5.2f}  "
            f"ranges' pass (sparse, hist, C4.5 fits) {100 * t_range / t_plain:4.1f}% of the fit")
    if X.select_dtypes(exclude="number").shape[1] == 0:
        from sklearn import tree as sk
        sk_cls = sk.DecisionTreeClassifier if classify else sk.DecisionTreeRegressor
        t_sk, _ = best(lambda: sk_cls(random_state=0, min_samples_leaf=5).fit(X, y), 1)
        line += f"  (scikit-learn plain fit {t_sk:.3f} s)"
    print(line, flush=True)
    return model


def reader_costs(name, model, X, repeat):
    t_pred, _ = best(lambda: model.predict(X), repeat)
    t_out, _ = best(lambda: model.outside_training_range(X), repeat)
    line = f"{name:18s} predict {t_pred:6.3f} s  outside_training_range x{t_out / t_pred:5.1f}"
    if hasattr(model, "classes_"):
        t_int, _ = best(lambda: model.predict_interval(X), repeat)
        line += f"  predict_interval x{t_int / t_pred:5.1f}"
    print(line, flush=True)


def sql_costs(name, model, X):
    import duckdb
    want = model.predict(X)
    t_gen, query = best(lambda: export_sql(model, table="t", dialect="sqlite"), 1)
    con = sqlite3.connect(":memory:")
    X.to_sql("t", con, index=False)
    t_lite, rows = best(lambda: con.execute(query).fetchall(), 1)
    got_lite = np.array([r[0] for r in rows], dtype=want.dtype)
    duck = duckdb.connect()
    duck.register("frame", X)
    duck.execute("CREATE TABLE t AS SELECT * FROM frame")
    query_d = export_sql(model, table="t", dialect="duckdb")
    t_duck, rows = best(lambda: duck.execute(query_d).fetchall(), 1)
    got_duck = np.array([r[0] for r in rows], dtype=want.dtype)
    print(f"{name:18s} SQL {len(query) / 1e6:5.2f} MB (written in {t_gen:.2f} s)  "
          f"SQLite {t_lite:6.2f} s, {int((got_lite == want).sum())}/{len(want)} rows agree  "
          f"DuckDB {t_duck:6.2f} s, {int((got_duck == want).sum())}/{len(want)} rows agree",
          flush=True)
    try:
        t_pg, got_pg = postgres_run(model, X)
    except ImportError:
        return
    print(f"{name:18s} PostgreSQL {t_pg:6.2f} s, {int((got_pg == want).sum())}/{len(want)} "
          "rows agree", flush=True)


def postgres_run(model, X):
    """The query in a PostgreSQL server of its own (pgserver), ordered by a row id."""
    import io
    import tempfile

    import pgserver
    import psycopg2
    server = pgserver.get_server(tempfile.mkdtemp(), cleanup_mode="stop")
    con = psycopg2.connect(server.get_uri())
    frame = X.assign(row_id=np.arange(X.shape[0]))
    kinds = {"f": "DOUBLE PRECISION", "i": "BIGINT", "u": "BIGINT"}
    columns = ", ".join(f'"{c}" {kinds.get(frame[c].dtype.kind, "TEXT")}' for c in frame)
    with con.cursor() as cur:
        cur.execute(f"CREATE TABLE t ({columns})")
        buf = io.StringIO()
        frame.to_csv(buf, index=False, header=False, na_rep="\\N")
        buf.seek(0)
        cur.copy_expert("COPY t FROM STDIN WITH (FORMAT csv, NULL '\\N')", buf)
        query = export_sql(model, table="t", dialect="postgres", keep_columns=["row_id"])
        t, rows = best(lambda: (cur.execute(f'SELECT * FROM ({query}) q ORDER BY "row_id"'),
                                cur.fetchall())[1], 1)
    con.close()
    return t, np.array([r[1] for r in rows], dtype=model.predict(X[:1]).dtype)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for name, X, y, classify in datasets(args.rows):
        model = fit_costs(name, X, y, classify, args.repeat)
        reader_costs(name, model, X, args.repeat)
        if len(X) <= 100_000:
            sql_costs(name, model, X)


if __name__ == "__main__":
    main()
