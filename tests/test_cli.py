"""python -m dtree fit / show / predict / eval, end to end in a subprocess."""
import csv
import subprocess
import sys
import tempfile

import pytest

import dtree
from dtree.datasets import load, path


def run(*args, check=True):
    # outside the source tree, so "-m dtree" finds the installed (compiled) package
    proc = subprocess.run([sys.executable, "-m", "dtree", *map(str, args)],
                          capture_output=True, text=True, timeout=300,
                          cwd=tempfile.gettempdir())
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_fit_show_predict_eval_on_a_real_dataset(tmp_path):
    data = path("car_evaluation")
    model = tmp_path / "car.dtree"
    out = run("fit", data, "--target", "class", "--categorical", "auto",
              "--min-samples-leaf", "2", "-o", model)
    assert "fitted a classification tree" in out.stdout and model.exists()
    loaded = dtree.load(model)
    assert loaded.categorical_features_.all()  # every car column is a category
    assert list(loaded.categories_[-1]) == ["high", "low", "med"]
    for fmt, marker in [("text", "|--- "), ("dot", "digraph Tree"), ("rules", "if "),
                        ("compact", "Branch(")]:
        assert marker in run("show", model, "--format", fmt).stdout
    predictions = tmp_path / "pred.csv"
    run("predict", model, data, "-o", predictions)
    with open(predictions, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["prediction"] and len(rows) == 1729
    assert set(r[0] for r in rows[1:]) <= {"unacc", "acc", "good", "vgood"}
    report = run("eval", model, data, "--target", "class").stdout
    accuracy = float(report.split("accuracy: ")[1].split()[0])
    assert accuracy > 0.95 and "confusion matrix" in report


def test_regression_and_cross_validated_pruning(tmp_path):
    # car.test.frame without its name column (an identifier, not a feature)
    header, rows = load("car_test_frame", as_frame=False)
    keep = [j for j, name in enumerate(header) if name != "Model"]
    data = tmp_path / "cars.csv"
    with open(data, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([header[j] for j in keep])
        writer.writerows([[row[j] for j in keep] for row in rows])
    model = tmp_path / "cars.dtree"
    run("fit", data, "--target", "Mileage", "--task", "regression", "--categorical", "auto",
        "--min-samples-leaf", "7", "--ccp-alpha", "cv", "-o", model)
    report = run("eval", model, data, "--target", "Mileage").stdout
    assert report.startswith("R2: ") and 0.3 < float(report.split()[1]) <= 1.0
    assert dtree.load(model).get_n_leaves() >= 1


def test_errors_are_one_line_with_status_2(tmp_path):
    model = tmp_path / "k.dtree"
    run("fit", path("kyphosis"), "--target", "Kyphosis", "-o", model)
    cases = [
        (("fit", path("kyphosis"), "--target", "Missing", "-o", model), "target column"),
        (("fit", path("car_evaluation"), "--target", "class", "--categorical", "none",
          "-o", model), "not numeric"),
        (("fit", tmp_path / "none.csv", "--target", "x", "-o", model), "no such file"),
        (("fit", path("kyphosis"), "--target", "Kyphosis", "-o",
          tmp_path / "no" / "dir" / "m"), "cannot write"),
        (("predict", path("kyphosis"), path("kyphosis")), "not a dtree model"),
        (("predict", model, path("car_evaluation")), "lacks the model's columns"),
        (("predict", model, path("kyphosis"), "-o", tmp_path / "no" / "p.csv"),
         "cannot write"),
    ]
    for args, message in cases:
        proc = run(*args, check=False)
        assert proc.returncode == 2, args
        assert message in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["fit", "predict", "show", "eval"])
def test_every_command_has_help(command):
    out = run(command, "--help").stdout
    assert out.startswith("usage: python -m dtree " + command)


def test_csv_reader_works_without_pandas(monkeypatch, tmp_path):
    from dtree import __main__ as cli

    data = tmp_path / "small.csv"
    data.write_text("a,b,label\n1.5,,x\n2.5,3,y\n")
    monkeypatch.setitem(sys.modules, "pandas", None)  # "import pandas" now fails
    header, columns = cli.read_csv(data)
    assert header == ["a", "b", "label"]
    assert columns["a"].tolist() == [1.5, 2.5]
    assert columns["b"][0] != columns["b"][0] and columns["b"][1] == 3.0  # empty -> NaN
    assert columns["label"].tolist() == ["x", "y"]
    X, names = cli._features(header, columns, "label", "none")
    assert names == ["a", "b"] and X.shape == (2, 2) and X.dtype == object


def test_fit_with_the_c45_preset(tmp_path):
    model = tmp_path / "mushroom.dtree"
    run("fit", path("mushroom"), "--target", "class", "--algorithm", "c4.5", "-o", model)
    loaded = dtree.load(model)
    assert loaded.algorithm == "c4.5" and loaded.tree_.fractional_missing
    assert loaded.feature_names_in_[loaded.tree_.feature[0]] == "odor"
    report = run("eval", model, path("mushroom"), "--target", "class").stdout
    assert "accuracy: 1.0" in report
    refused = run("fit", path("california_housing"), "--target", "median_house_value",
                  "--algorithm", "id3", "-o", tmp_path / "x.dtree", check=False)
    assert refused.returncode == 2 and "classification" in refused.stderr


def test_text_columns_are_categories_by_default(tmp_path):
    model = tmp_path / "titanic.dtree"
    proc = run("fit", path("titanic"), "--target", "Survived", "--max-depth", "4",
               "-o", model)
    loaded = dtree.load(model)
    names = list(loaded.feature_names_in_)
    assert loaded.categorical_features_[names.index("Sex")]
    assert not loaded.categorical_features_[names.index("Age")]
    # the Name column is flagged as an identifier, on one line
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert any("'Name'" in line and "identifier" in line for line in warnings)
    assert "Traceback" not in proc.stderr and "est.fit" not in proc.stderr


@pytest.mark.parametrize("content, message", [
    ("truncated", "EOFError"),
    ("not gzip", "BadGzipFile"),
    ("latin-1", "UnicodeDecodeError"),
    ("empty", "cannot read"),
])
def test_unreadable_inputs_end_in_one_line(tmp_path, content, message):
    import gzip

    raw = gzip.decompress(path("titanic").read_bytes())
    target = tmp_path / ("data.csv.gz" if content in ("truncated", "not gzip") else "data.csv")
    if content == "truncated":
        target.write_bytes(gzip.compress(raw)[:2000])
    elif content == "not gzip":
        target.write_bytes(b"definitely not gzip\n" * 10)
    elif content == "latin-1":
        target.write_bytes("a,b,y\ncaf\xe9,1,0\nthé,2,1\n".encode("latin-1"))
    else:
        target.write_bytes(b"")
    # (a file that is not UTF-8 is read as Latin-1 unless UTF-8 is asked for)
    said = ("--encoding", "utf-8") if content == "latin-1" else ()
    proc = run("fit", target, "--target", "y", "-o", tmp_path / "m.dtree", *said, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]


@pytest.mark.parametrize("flag, value, fits", [
    ("--max-depth", 2**63, True), ("--min-samples-split", 2**63, True),
    ("--min-samples-leaf", 2**62, True), ("--max-depth", 0, False),
    ("--random-state", -1, False),
])
def test_huge_or_bad_integers_from_the_shell(tmp_path, flag, value, fits):
    proc = run("fit", path("kyphosis"), "--target", "Kyphosis", flag, value,
               "-o", tmp_path / "m.dtree", check=False)
    if fits:
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and f"'{flag[2:].replace('-', '_')}' parameter" \
            in proc.stderr


def test_special_files_as_models_end_in_one_line(tmp_path):
    import os

    special = "/dev/zero" if os.path.exists("/dev/zero") else tmp_path
    proc = run("show", special, check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "error:" in proc.stderr and "Traceback" not in proc.stderr


def test_predict_with_a_model_of_several_outputs(tmp_path):
    # fitted in Python (the CLI fits one target), predicted from the shell
    import numpy as np

    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 2))
    y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0.5]).astype(int)
    model = dtree.DecisionTreeClassifier(max_depth=3).fit(X, y)
    model.save(tmp_path / "two.dtree")
    data = tmp_path / "x.csv"
    with open(data, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b"])
        writer.writerows(X.tolist())
    out = tmp_path / "pred.csv"
    run("predict", tmp_path / "two.dtree", data, "-o", out)
    with open(out) as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["prediction_0", "prediction_1"]
    np.testing.assert_array_equal(np.array(rows[1:], dtype=int), model.predict(X))


def test_odd_files_and_values_are_named(tmp_path):
    import os
    good = tmp_path / "g.csv"
    good.write_text("a,b,t\n1,2,0\n3,4,1\n5,6,0\n")
    header = tmp_path / "h.csv"
    header.write_text("a,b,t\n")
    model = tmp_path / "m.dtree"
    out = run("fit", str(header), "--target", "t", "-o", str(model), check=False)
    assert out.returncode == 2 and "no data rows" in out.stderr and "h.csv" in out.stderr
    out = run("fit", str(good), "--target", "t", "-o", str(model), "--ccp-alpha", "abc",
              check=False)
    assert out.returncode == 2 and "--ccp-alpha" in out.stderr and "'abc'" in out.stderr
    run("fit", str(good), "--target", "t", "-o", str(model), "--ccp-alpha", "0.01")
    out = run("eval", str(model), str(header), "--target", "t", check=False)
    assert out.returncode == 2 and "no data rows" in out.stderr
    if os.path.exists("/dev/full"):
        out = run("predict", str(model), str(good), "-o", "/dev/full", check=False)
        assert out.returncode == 2 and "cannot write /dev/full" in out.stderr
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "dtree", "predict", str(model),
                                   str(good)], stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=120)
        assert done.returncode == 2 and "cannot write standard output" in done.stderr


def test_a_text_target_for_regression_is_named(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,t\n1,x\n2,y\n3,x\n")
    out = run("fit", str(data), "--target", "t", "--task", "regression", "-o",
              str(tmp_path / "m.dtree"), check=False)
    assert out.returncode == 2 and "target column 't'" in out.stderr
    good = tmp_path / "g.csv"
    good.write_text("a,t\n1,1.5\n2,2.5\n3,0.5\n")
    run("fit", str(good), "--target", "t", "--task", "regression", "-o", str(tmp_path / "r"))
    out = run("eval", str(tmp_path / "r"), str(data), "--target", "t", check=False)
    assert out.returncode == 2 and "target column 't'" in out.stderr


@pytest.mark.parametrize("forest, cls", [("random", "RandomForestClassifier"),
                                         ("extra", "ExtraTreesClassifier")])
def test_fit_a_forest_and_read_it(tmp_path, forest, cls):
    data = path("car_evaluation")
    model = tmp_path / "car-forest.dtree"
    out = run("fit", data, "--target", "class", "--forest", forest, "--n-estimators", "7",
              "-o", model)
    assert f"fitted a classification {forest} forest (7 trees" in out.stdout
    loaded = dtree.load(model)
    assert type(loaded).__name__ == cls and len(loaded.estimators_) == 7
    assert "|--- " in run("show", model, "--tree", "6").stdout
    refused = run("show", model, check=False)
    assert refused.returncode == 2 and "show one with --tree K (0 to 6)" in refused.stderr
    assert "trees 0 to 6" in run("show", model, "--tree", "7", check=False).stderr
    report = run("eval", model, data, "--target", "class").stdout
    assert float(report.split("accuracy: ")[1].split()[0]) > 0.9
    # the default forest size is scikit-learn's
    reg = tmp_path / "reg.dtree"
    run("fit", path("kyphosis"), "--target", "Age", "--task", "regression", "--forest",
        "random", "--max-depth", "2", "-o", reg)
    assert len(dtree.load(reg).estimators_) == 100


def test_forest_options_need_a_forest(tmp_path):
    out = run("fit", path("kyphosis"), "--target", "Kyphosis", "--n-estimators", "5",
              "-o", tmp_path / "m.dtree", check=False)
    assert out.returncode == 2 and "--forest random or --forest extra" in out.stderr
    tree = tmp_path / "t.dtree"
    run("fit", path("kyphosis"), "--target", "Kyphosis", "-o", tree)
    assert "--tree picks a tree of a forest" in run("show", tree, "--tree", "0",
                                                    check=False).stderr


def _titanic_file(tmp_path, name, **to_csv):
    pd = pytest.importorskip("pandas")
    frame = load("titanic")
    if "encoding" in to_csv:
        frame.loc[0, "Name"] = "Müller, Mr. Jürgen"
    file = tmp_path / name
    frame.to_csv(file, index=False, **to_csv)
    return file, pd


@pytest.mark.parametrize("name, options", [("semicolon.csv", {"sep": ";"}),
                                           ("tabs.tsv", {"sep": "\t"}),
                                           ("latin.csv", {"encoding": "latin-1"})])
def test_real_files_are_read_as_they_are_written(tmp_path, name, options):
    data, pd = _titanic_file(tmp_path, name, **options)
    model = tmp_path / "m.dtree"
    proc = run("fit", data, "--target", "Survived", "--max-depth", "3", "-o", model)
    # every column found (not one column named "PassengerId;Pclass;...")
    assert "on 891 rows x 11 features" in proc.stdout
    assert ("not UTF-8" in proc.stderr) == ("encoding" in options)
    # identifier-like text columns are left out, saying so
    assert "'Name'" in proc.stderr and "leaves it out" in proc.stderr
    # the separator and encoding can be said too
    said = run("fit", data, "--target", "Survived", "--max-depth", "3", "-q", "-o", model,
               "--sep", options.get("sep", ","), "--encoding",
               options.get("encoding", "utf-8"))
    assert "891 rows x 11 features" in said.stdout and "not UTF-8" not in said.stderr


def test_fit_options_drop_categorical_and_tree_parameters(tmp_path):
    data, pd = _titanic_file(tmp_path, "t.csv")
    model = tmp_path / "m.dtree"
    run("fit", data, "--target", "Survived", "--drop", "Name,Ticket,Cabin,PassengerId",
        "--categorical-features", "Sex,Embarked", "--max-features", "sqrt",
        "--class-weight", "0=1,1=3", "--n-jobs", "1", "--splitter", "random",
        "--criterion", "entropy", "--max-depth", "4", "-q", "-o", model)
    fitted = dtree.load(model)
    assert list(fitted.feature_names_in_) == ["Pclass", "Sex", "Age", "SibSp", "Parch",
                                              "Fare", "Embarked"]
    assert fitted.max_features == "sqrt" and fitted.splitter == "random"
    assert fitted.class_weight == {0: 1.0, 1: 3.0} and fitted.criterion == "entropy"
    assert fitted.categorical_features_.tolist() == [False, True, False, False, False,
                                                     False, True]
    # a listed identifier column is split by category after all
    run("fit", data, "--target", "Survived", "--categorical-features", "Name,Sex",
        "--drop", "Ticket,Cabin,Embarked", "-q", "-o", model)
    assert len(dtree.load(model).categories_[2]) == 891
    for args, message in [(("--drop", "Nope"), "--drop names columns"),
                          (("--categorical-features", "Nope"), "not features"),
                          (("--max-features", "many"), "an int, a float"),
                          (("--class-weight", "heavy"), "label=weight")]:
        proc = run("fit", data, "--target", "Survived", "-o", model, *args, check=False)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)


def test_predict_probabilities_version_and_a_closed_pipe(tmp_path):
    model = tmp_path / "a.dtree"
    run("fit", path("adult"), "--target", "income", "--max-depth", "3", "-q", "-o", model)
    # a long fit says so on standard error first (-q: not)
    proc = run("fit", path("adult"), "--target", "income", "--max-depth", "3", "-o", model)
    assert proc.stderr.startswith("fitting a classification tree on 48842 rows x 14 "
                                  "features ...\n")
    out = run("predict", model, path("adult"), "--proba").stdout.splitlines()
    assert out[0] == "prediction,proba_<=50K,proba_>50K" and len(out) == 48843
    first = out[1].split(",")
    assert abs(float(first[1]) + float(first[2]) - 1) < 1e-5
    assert run("--version").stdout.strip() == f"dtree {dtree.__version__}"
    # `dtree predict ... | head -1`: the reader leaves early; no error, status 0
    proc = subprocess.Popen([sys.executable, "-m", "dtree", "predict", str(model),
                             str(path("adult"))], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
    assert proc.stdout.readline().strip() == b"prediction"
    proc.stdout.close()
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == b""


def test_eval_aligns_its_matrix_and_lists_unseen_labels(tmp_path):
    data, pd = _titanic_file(tmp_path, "t.csv")
    model = tmp_path / "m.dtree"
    run("fit", data, "--target", "Survived", "--max-depth", "3", "-q", "-o", model)
    frame = pd.read_csv(data)
    frame.loc[:4, "Survived"] = 7
    frame.to_csv(tmp_path / "unseen.csv", index=False)
    lines = run("eval", model, tmp_path / "unseen.csv", "--target", "Survived").stdout \
        .splitlines()
    table = lines[lines.index("confusion matrix (rows: true, columns: predicted)") + 1:]
    assert table[0].split() == ["true", "\\", "predicted", "0", "1"]
    assert table[3].startswith("7 (unseen at fit)") and sum(map(int, table[3].split()[-2:])) == 5
    # the columns line up: each count ends where its class's label ends
    ends = {len(table[0].rstrip())} | {len(row.rstrip()) for row in table[1:4]}
    assert len(ends) == 1
    assert "1 label(s) of the data were unseen at fit: 7" in lines[-1]
    header_only = tmp_path / "header.csv"
    header_only.write_text("a,b,Survived\n")
    proc = run("fit", header_only, "--target", "Survived", "-o", model, check=False)
    assert proc.returncode == 2 and "no data rows" in proc.stderr


def test_the_dtree_console_script_is_declared_and_runs():
    import importlib
    import pathlib

    try:
        import tomllib
    except ImportError:          # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml")
                            .read_text(encoding="utf-8"))
    target = project["project"]["scripts"]["dtree"]
    module, _, function = target.partition(":")
    main = getattr(importlib.import_module(module), function)
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0


def test_a_target_with_empty_cells_is_refused_not_learnt_as_a_class(tmp_path):
    # an empty label once read as a class of its own ('nan'); an empty number
    # reached the estimator's unnamed "Input y contains NaN"
    labels = tmp_path / "labels.csv"
    labels.write_text("a,b,t\n1,2,yes\n2,3,no\n3,4,\n4,5,yes\n5,6,no\n6,7,\n")
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("a,b,t\n1,2,1.5\n2,3,\n3,4,2.5\n")
    model = tmp_path / "m.dtree"
    for data, task in ((labels, "auto"), (numbers, "regression")):
        out = run("fit", data, "--target", "t", "--task", task, "-o", model, check=False)
        assert out.returncode == 2 and not model.exists(), out.stderr
        assert "target column 't'" in out.stderr and data.name in out.stderr
    assert "empty in 2 of 6 data rows (3, 6)" in \
        run("fit", labels, "--target", "t", "-o", model, check=False).stderr
    good = tmp_path / "good.csv"
    good.write_text("a,b,t\n1,2,yes\n2,3,no\n4,5,yes\n5,6,no\n")
    run("fit", good, "--target", "t", "-o", model)
    out = run("eval", model, labels, "--target", "t", check=False)
    assert out.returncode == 2 and "empty in 2 of 6 data rows" in out.stderr
