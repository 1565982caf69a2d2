"""export_sql run in real databases (SQLite, DuckDB): every row equals predict."""
import sqlite3
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import dtree
from dtree.datasets import load_Xy
from dtree.export import export_sql
from dtree._deploy.sql import float32_bound

import duckdb   # (a test extra)
DIALECTS = ["sqlite", "duckdb"]


def _run(query, frame, table, dialect):
    if dialect == "sqlite":
        con = sqlite3.connect(":memory:")
        frame.to_sql(table, con, index=False)
        return con.execute(query).fetchall()
    con = duckdb.connect()
    con.register("frame_view", frame)
    con.execute(f'CREATE TABLE "{table.replace(chr(34), chr(34) * 2)}" AS '
                "SELECT * FROM frame_view")
    return con.execute(query).fetchall()


def _check_classifier(clf, X, table, dialect):
    rows = _run(export_sql(clf, table=table, dialect=dialect), X, table, dialect)
    assert len(rows) == X.shape[0]
    labels = np.array([r[0] for r in rows], dtype=object)
    proba = np.array([r[1:] for r in rows], dtype=float)
    np.testing.assert_array_equal(labels, clf.predict(X).astype(object))
    np.testing.assert_allclose(proba, clf.predict_proba(X), rtol=0, atol=1e-12)
    return int((labels == clf.predict(X)).sum())


@pytest.fixture(scope="module")
def adult():
    X, y = load_Xy("adult")
    return X, y


@pytest.mark.parametrize("dialect", DIALECTS)
def test_adult_every_row_equals_predict(adult, dialect):
    X, y = adult
    assert X.isna().any().any()          # missing categories are routed too
    clf = dtree.DecisionTreeClassifier(min_samples_leaf=3, random_state=0).fit(X, y)
    assert clf.tree_.max_depth > 2 * 6    # several layers of the query
    assert _check_classifier(clf, X, "adult", dialect) == X.shape[0]


def _blanked(adult):
    """6,000 adult rows with a fifth of four columns (numbers and text) missing."""
    X, y = adult
    X = X.iloc[:6000].copy()
    rng = np.random.default_rng(0)
    for col in ("age", "hours_per_week", "education", "occupation"):
        X.loc[rng.random(X.shape[0]) < 0.2, col] = np.nan
    return X, y.iloc[:6000]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_adult_surrogate_routing_in_sql(adult, dialect):
    X, y = _blanked(adult)
    clf = dtree.DecisionTreeClassifier(max_depth=8, handle_missing="surrogate",
                                       random_state=0).fit(X, y)
    assert (clf.tree_.other_splits.kind == 1).sum() > 10
    # predict differs from the plain rule on some rows, and SQL follows predict
    plain = dtree.DecisionTreeClassifier(max_depth=8, random_state=0).fit(X, y)
    assert (plain.predict_proba(X) != clf.predict_proba(X)).any()
    _check_classifier(clf, X, "adult", dialect)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_california_housing_every_row_equals_predict(dialect):
    X, y = load_Xy("california_housing")
    reg = dtree.DecisionTreeRegressor(min_samples_leaf=2, random_state=0).fit(X, y)
    rows = _run(export_sql(reg, table="houses", dialect=dialect), X, "houses", dialect)
    got = np.array([r[0] for r in rows], dtype=float)
    np.testing.assert_allclose(got, reg.predict(X), rtol=1e-12, atol=0)
    assert (got == reg.predict(X)).all()


def test_thresholds_compare_as_float32():
    # doubles right at the float32 rounding boundary of a threshold
    for t in (0.1, 1.5000001, -3.25, 1e-30, 3.0e38, 16777217.0):
        bound, inclusive = float32_bound(t)
        below = np.nextafter(bound, -np.inf)
        above = np.nextafter(bound, np.inf)
        # float(): compare in double, as dtree's kernels do (numpy would round t)
        assert float(np.float32(below)) <= t
        assert (float(np.float32(bound)) <= t) == inclusive
        assert not float(np.float32(above)) <= t


@pytest.mark.parametrize("dialect", DIALECTS)
def test_values_on_float32_rounding_edges(dialect):
    rng = np.random.default_rng(1)
    x = rng.normal(size=400).astype(np.float32).astype(np.float64)
    y = (x > 0.1).astype(int)
    clf = dtree.DecisionTreeClassifier(random_state=0).fit(pd.DataFrame({"feature_0": x}), y)
    # probe with doubles next to each threshold's float32 rounding boundary
    probes = []
    for t in clf.tree_.threshold[clf.tree_.children_left >= 0]:
        bound, _ = float32_bound(t)
        probes += [np.nextafter(bound, -np.inf), bound, np.nextafter(bound, np.inf)]
    frame = pd.DataFrame({"feature_0": np.r_[x, probes]})
    _check_classifier(clf, frame, "t", dialect)


HOSTILE = ['a"; DROP TABLE t; --', "b' OR '1'='1", "c /* x */", 'd""e', "é\n;"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_hostile_names_and_values_cannot_break_the_query(dialect):
    rng = np.random.default_rng(2)
    n = 600
    X = pd.DataFrame({
        HOSTILE[0]: rng.normal(size=n),
        HOSTILE[1]: rng.choice(HOSTILE, size=n),
        HOSTILE[2]: rng.choice(["x';--", 'y"', "z"], size=n),
    })
    X.loc[rng.random(n) < 0.1, HOSTILE[1]] = None
    y = np.where((X[HOSTILE[0]] > 0) ^ (X[HOSTILE[1]] == HOSTILE[1]), HOSTILE[3], HOSTILE[4])
    clf = dtree.DecisionTreeClassifier(random_state=0, max_depth=6).fit(X, y)
    table = 'tbl"; DELETE FROM x; --'
    assert _check_classifier(clf, X, table, dialect) == n
    # the table is still whole and nothing else ran
    query = export_sql(clf, table=table, dialect=dialect)
    rows = _run(query, X, table, dialect)
    assert len(rows) == n


def test_refusals():
    X = np.random.default_rng(0).normal(size=(60, 2))
    y = np.c_[np.arange(60) % 2, np.arange(60) % 3]
    with pytest.raises(ValueError, match="one prediction column"):
        export_sql(dtree.DecisionTreeClassifier().fit(X, y))
    with pytest.raises(ValueError, match="dialect"):
        export_sql(dtree.DecisionTreeClassifier().fit(X, y[:, 0]), dialect="oracle")
    with pytest.raises(ValueError, match="NUL"):
        export_sql(dtree.DecisionTreeClassifier().fit(X, y[:, 0]), table="a\x00b")


def test_cli_show_format_sql(tmp_path):
    X, y = load_Xy("kyphosis")
    clf = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    clf.save(tmp_path / "m.dtree")
    out = subprocess.run([sys.executable, "-m", "dtree", "show", str(tmp_path / "m.dtree"),
                          "--format", "sql", "--table", "kyph", "--dialect", "duckdb"],
                         capture_output=True, text=True, check=True).stdout
    assert out == export_sql(clf, table="kyph", dialect="duckdb") + ";\n"
    rows = _run(out, X, "kyph", "duckdb")
    assert [r[0] for r in rows] == clf.predict(X).tolist()


def test_the_guide_audit_example_runs_as_written(tmp_path):
    # the user guide's auditing page (docs/guide/auditing.md; it was the README's section)
    from pathlib import Path
    page = Path(__file__).resolve().parents[1] / "docs" / "guide" / "auditing.md"
    text = page.read_text(encoding="utf-8")
    section = text[text.index("# Auditing a tree"):]
    block, rest = section.split("```python\n", 1)[1].split("```", 1)
    printed = rest.split("```\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "example.py"
    script.write_text(block)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith(printed.rstrip("\n")), out.stdout[:1500]


@pytest.fixture(scope="module")
def postgres(tmp_path_factory):
    """A PostgreSQL server of its own (pgserver) and a psycopg2 connection to it."""
    pgserver = pytest.importorskip("pgserver", reason="pgserver has wheels for CPython "
                                   "3.10-3.12 on Linux x86-64 only")
    import psycopg2
    server = pgserver.get_server(str(tmp_path_factory.mktemp("pg")), cleanup_mode="stop")
    con = psycopg2.connect(server.get_uri())
    con.autocommit = True
    yield con
    con.close()


def _run_postgres(con, model, frame, table, dialect="postgres"):
    """export_sql run in PostgreSQL, rows in the frame's order (a parallel scan
    interleaves them: the query keeps a row id to order by)."""
    import io as _io
    frame = frame.assign(row_id=np.arange(frame.shape[0]))
    query = export_sql(model, table=table, dialect=dialect, keep_columns=["row_id"])
    query = f'SELECT * FROM ({query}) AS "q" ORDER BY "row_id"'
    quoted = '"' + table.replace('"', '""') + '"'
    columns = []
    for name, col in frame.items():
        kind = ("DOUBLE PRECISION" if col.dtype.kind == "f" else
                "BIGINT" if col.dtype.kind in "iu" else "TEXT")
        columns.append('"' + str(name).replace('"', '""') + f'" {kind}')
    with con.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {quoted}")
        cur.execute(f"CREATE TABLE {quoted} ({', '.join(columns)})")
        buf = _io.StringIO()
        frame.to_csv(buf, index=False, header=False, na_rep="\\N")
        buf.seek(0)
        cur.copy_expert(f"COPY {quoted} FROM STDIN WITH (FORMAT csv, NULL '\\N')", buf)
        cur.execute(query)
        return [row[1:] for row in cur.fetchall()]


@pytest.mark.parametrize("dialect", ["postgres", "ansi"])
def test_postgres_every_row_equals_predict(postgres, adult, dialect):
    X, y = adult
    clf = dtree.DecisionTreeClassifier(min_samples_leaf=3, random_state=0).fit(X, y)
    rows = _run_postgres(postgres, clf, X, "adult", dialect)
    labels = np.array([r[0] for r in rows], dtype=object)
    proba = np.array([r[1:] for r in rows], dtype=float)
    np.testing.assert_array_equal(labels, clf.predict(X).astype(object))
    np.testing.assert_allclose(proba, clf.predict_proba(X), rtol=0, atol=1e-12)
    Xh, yh = load_Xy("california_housing")
    reg = dtree.DecisionTreeRegressor(min_samples_leaf=2, random_state=0).fit(Xh, yh)
    rows = _run_postgres(postgres, reg, Xh, "houses", dialect)
    assert (np.array([r[0] for r in rows], dtype=float) == reg.predict(Xh)).all()


def test_postgres_surrogates_and_hostile_names(postgres, adult):
    X, y = _blanked(adult)
    X.columns = [c if i % 3 else c + HOSTILE[i % len(HOSTILE)] for i, c in enumerate(X.columns)]
    clf = dtree.DecisionTreeClassifier(max_depth=8, handle_missing="surrogate",
                                       random_state=0).fit(X, y)
    table = HOSTILE[0]
    rows = _run_postgres(postgres, clf, X, table)
    assert [r[0] for r in rows] == clf.predict(X).tolist()
