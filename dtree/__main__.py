"""Command line: ``python -m dtree {fit,predict,show,eval} ...``.

    python -m dtree fit data.csv --target COL [--criterion gini --max-depth 5] -o model.dtree
    python -m dtree predict model.dtree data.csv [-o predictions.csv]
    python -m dtree show model.dtree [--format text|dot|rules|compact|sql]
                                     [--table t] [--dialect sqlite|duckdb|postgres|ansi]
    python -m dtree eval model.dtree data.csv --target COL

CSV files are read with pandas when it is installed, else with the standard
library. Text columns are split by sets of categories (the model keeps the
categories; a category unseen at fit is treated as missing); ``--categorical
none`` refuses them instead. Every error (a missing, truncated or badly
encoded file, a bad parameter, a corrupt model) is reported on one line with
exit status 2.
"""
import argparse
import contextlib
import csv
import gzip
import io
import os
import sys
import warnings
import zlib

import numpy as np

from . import export
from ._input.files import NotRegularFileError, open_regular
from ._plan import registry
from . import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier,
               ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor)
from ._deploy.model_file import ModelFileError, load


class CLIError(Exception):
    """A user error: printed without a traceback."""


# ------------------------------------------------------------------ CSV
def _open_text(path):
    raw = open_regular(path, "the data file")
    if str(path).endswith(".gz"):
        return gzip.open(raw, "rt", newline="", encoding="utf-8")
    return io.TextIOWrapper(raw, newline="", encoding="utf-8")


def read_csv(path):
    """(column names, dict of column -> 1-D array) for a CSV file."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    try:
        if pd is not None:
            with open_regular(path, "the data file") as fh:
                frame = pd.read_csv(fh, compression="gzip" if str(path).endswith(".gz")
                                    else None)
            if frame.shape[0] == 0:
                raise CLIError(f"{path} has no data rows (only a header)")
            return list(map(str, frame.columns)), {str(c): frame[c].to_numpy()
                                                   for c in frame.columns}
        with _open_text(path) as fh:
            rows = list(csv.reader(fh))
    except FileNotFoundError:
        raise CLIError(f"no such file: {path}") from None
    except NotRegularFileError as exc:
        raise CLIError(str(exc)) from None
    except (OSError, EOFError, zlib.error, csv.Error, UnicodeDecodeError, ValueError) as exc:
        # truncated or corrupt gzip, bad encoding, malformed CSV
        raise CLIError(f"cannot read {path}: {type(exc).__name__}: {exc}") from None
    if not rows:
        raise CLIError(f"{path} is empty")
    header, body = rows[0], rows[1:]
    if not body:
        raise CLIError(f"{path} has no data rows (only a header)")
    columns = {}
    for j, name in enumerate(header):
        cells = [r[j] if j < len(r) else "" for r in body]
        try:
            columns[name] = np.array([float(c) if c != "" else np.nan for c in cells])
        except ValueError:
            columns[name] = np.array(cells, dtype=object)
    return header, columns


def _is_numeric(values):
    return np.asarray(values).dtype.kind in "biuf"


def _features(header, columns, target, categorical, expected=None):
    """Feature table (a DataFrame with pandas, else an object array) and its names.

    ``expected`` (the model's columns) selects and orders the columns at
    predict time.
    """
    names = list(expected) if expected is not None else [c for c in header if c != target]
    if not names:
        raise CLIError("the file has no feature columns")
    missing = [n for n in names if n not in columns]
    if missing:
        raise CLIError(f"the data lacks the model's columns {missing}")
    if categorical != "auto":
        for name in names:
            if not _is_numeric(columns[name]):
                raise CLIError(f"column {name!r} is not numeric, and --categorical none "
                               "refuses text columns (leave it out to split them by "
                               "category)")
    try:
        import pandas as pd
    except ImportError:
        table = np.empty((len(columns[names[0]]), len(names)), dtype=object)
        for j, name in enumerate(names):
            table[:, j] = columns[name]
        return table, names
    return pd.DataFrame({name: columns[name] for name in names}), names


# ------------------------------------------------------------- commands
def cmd_fit(args):
    header, columns = read_csv(args.data)
    if args.target not in columns:
        raise CLIError(f"target column {args.target!r} is not in {args.data} "
                       f"(columns: {header})")
    y = columns[args.target]
    task = args.task
    if task == "auto":
        task = "regression" if _is_numeric(y) and np.unique(y).shape[0] > 20 else \
            "classification"
    categorical = "auto" if args.algorithm != "cart" else args.categorical
    X, names = _features(header, columns, args.target, categorical)
    params = dict(max_depth=args.max_depth, min_samples_leaf=args.min_samples_leaf,
                  min_samples_split=args.min_samples_split, random_state=args.random_state,
                  categorical_features="auto" if categorical == "auto" else None,
                  handle_unknown="missing")
    if args.ccp_alpha is not None:
        params["ccp_alpha"] = args.ccp_alpha
    if args.algorithm != "cart":
        if task != "classification":
            raise CLIError(f"--algorithm {args.algorithm} grows classification trees")
        params["algorithm"] = args.algorithm
    if args.criterion:
        params["criterion"] = args.criterion
    if args.forest != "none":
        if args.algorithm != "cart":
            raise CLIError(f"--forest grows CART trees; --algorithm {args.algorithm} is for "
                           "a single tree")
        params["n_estimators"] = 100 if args.n_estimators is None else args.n_estimators
    elif args.n_estimators is not None:
        raise CLIError("--n-estimators is the size of a forest: add --forest random or "
                       "--forest extra")
    kinds = {("none", "classification"): DecisionTreeClassifier,
             ("none", "regression"): DecisionTreeRegressor,
             ("random", "classification"): RandomForestClassifier,
             ("random", "regression"): RandomForestRegressor,
             ("extra", "classification"): ExtraTreesClassifier,
             ("extra", "regression"): ExtraTreesRegressor}
    est = kinds[args.forest, task](**params)
    if task == "classification":
        y = np.asarray(y).astype(str) if not _is_numeric(y) else y
    else:
        y = _numeric_target(y, args.target, args.data)
    est.fit(X, y)
    est.save(args.output)    # its OSError names the file
    if args.forest == "none":
        grown = f"tree ({est.get_n_leaves()} leaves, depth {est.get_depth()})"
    else:
        nodes = sum(t.tree_.node_count for t in est.estimators_)
        grown = f"{args.forest} forest ({len(est.estimators_)} trees, {nodes} nodes)"
    print(f"fitted a {task} {grown} on {X.shape[0]} rows x {X.shape[1]} features; saved to "
          f"{args.output}")


def _load(path):
    try:
        return load(path)
    except FileNotFoundError:
        raise CLIError(f"no such model file: {path}") from None
    except ModelFileError as exc:
        raise CLIError(f"{path}: {exc}") from None


def _model_inputs(model, data, target=None):
    header, columns = read_csv(data)
    names = [str(n) for n in getattr(model, "feature_names_in_", [])]
    if not names:
        names = [c for c in header if c != target][: model.n_features_in_]
    X, names = _features(header, columns, target, "auto", expected=names)
    return X, names, columns


def cmd_predict(args):
    model = _load(args.model)
    X, names, _ = _model_inputs(model, args.data)
    pred = model.predict(X)
    out = sys.stdout if args.output in (None, "-") else None
    with _writing(args.output or "standard output"):
        fh = out or open(args.output, "w", newline="", encoding="utf-8")
        writer = csv.writer(fh)
        if pred.ndim == 2:   # several outputs: a column each
            writer.writerow([f"prediction_{k}" for k in range(pred.shape[1])])
            writer.writerows(row.tolist() for row in pred)
        else:
            writer.writerow(["prediction"])
            for value in pred:
                writer.writerow([value])
        if out is None:
            fh.close()
        else:
            fh.flush()      # (a full standard output fails here, inside the block)
    if out is None:
        print(f"wrote {pred.shape[0]} predictions to {args.output}")


@contextlib.contextmanager
def _writing(path):
    """Turns a failed write (a full disk, a directory, no permission) into an error
    naming the file written."""
    try:
        yield
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror or exc}") from None


def cmd_show(args):
    model = _load(args.model)
    trees = getattr(model, "estimators_", None)
    if trees is not None:
        # a forest is shown one tree at a time
        if args.tree is None:
            raise CLIError(f"{args.model} holds a forest of {len(trees)} trees: show one "
                           f"with --tree K (0 to {len(trees) - 1})")
        if not 0 <= args.tree < len(trees):
            raise CLIError(f"--tree {args.tree}: {args.model} has trees 0 to {len(trees) - 1}")
        model = trees[args.tree]
    elif args.tree is not None:
        raise CLIError(f"--tree picks a tree of a forest; {args.model} holds one tree")
    formats = {"text": export.export_text, "dot": export.export_graphviz,
               "rules": export.export_rules, "compact": export.export_compact,
               "sql": lambda m: export.export_sql(m, table=args.table, dialect=args.dialect)
               + ";\n"}
    print(formats[args.format](model), end="" if args.format != "compact" else "\n")


def cmd_eval(args):
    model = _load(args.model)
    if model.n_outputs_ > 1:
        raise CLIError(f"eval compares one target column; {args.model} predicts "
                       f"{model.n_outputs_} outputs (use predict and compare each)")
    X, names, columns = _model_inputs(model, args.data, target=args.target)
    if args.target not in columns:
        raise CLIError(f"target column {args.target!r} is not in {args.data}")
    y = columns[args.target]
    frame = X
    if hasattr(model, "classes_"):
        y = np.asarray(y).astype(model.classes_.dtype) if model.classes_.dtype.kind == "U" \
            else y
        pred = model.predict(frame)
        print(f"accuracy: {np.mean(pred == y):.4f}")
        labels = model.classes_
        width = max(len(str(c)) for c in labels) + 2
        print("confusion matrix (rows: true, columns: predicted)")
        print(" " * width + "".join(f"{str(c):>{width}}" for c in labels))
        for true in labels:
            counts = [int(np.sum((y == true) & (pred == p))) for p in labels]
            print(f"{str(true):>{width}}" + "".join(f"{c:>{width}}" for c in counts))
    else:
        print(f"R2: {model.score(frame, _numeric_target(y, args.target, args.data)):.4f}")


def _numeric_target(y, target, data):
    """A regression target column as floats, or an error naming the column."""
    if not _is_numeric(y):
        raise CLIError(f"target column {target!r} of {data} is not numeric: a regression "
                       "tree needs numbers (--task classification splits by its labels)")
    return np.asarray(y, dtype=float)


def _alpha(text):
    """--ccp-alpha's value: 'cv' or a float (argparse names the option when this fails)."""
    if text == "cv":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a float or 'cv'; got {text!r}") from None


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m dtree",
                                     description="Fit, inspect and apply decision trees.")
    sub = parser.add_subparsers(dest="command", required=True)

    fit = sub.add_parser("fit", help="fit a tree on a CSV file and save it")
    fit.add_argument("data", help="CSV file (optionally .gz) with a header row")
    fit.add_argument("--target", required=True, help="name of the target column")
    fit.add_argument("--task", choices=["auto", "classification", "regression"],
                     default="auto", help="auto: regression for a numeric target with "
                     "more than 20 distinct values")
    fit.add_argument("--criterion", help=(
        ", ".join(registry.criteria(registry.CLASSIFICATION)) + " (classification) or "
        + ", ".join(registry.criteria(registry.REGRESSION)) + " (regression)"))
    fit.add_argument("--max-depth", type=int, default=None)
    fit.add_argument("--min-samples-leaf", type=int, default=1)
    fit.add_argument("--min-samples-split", type=int, default=2)
    fit.add_argument("--ccp-alpha", type=_alpha,
                     help="a float, or 'cv' to choose it by cross-validation")
    fit.add_argument("--categorical", choices=["none", "auto"], default="auto",
                     help="auto (default): split text columns by sets of categories; "
                          "none: refuse them")
    fit.add_argument("--algorithm", choices=registry.names("algorithm"), default="cart",
                     help="preset (see DecisionTreeClassifier); id3 and c4.5 split text "
                          "columns by category")
    fit.add_argument("--forest", choices=["none", "random", "extra"], default="none",
                     help="grow a forest: random (RandomForest*) or extra (ExtraTrees*)")
    fit.add_argument("--n-estimators", type=int, default=None,
                     help="trees in the forest (default 100)")
    fit.add_argument("--random-state", type=int, default=0)
    fit.add_argument("-o", "--output", required=True, help="model file to write")
    fit.set_defaults(func=cmd_fit)

    predict = sub.add_parser("predict", help="predict a CSV file with a saved model")
    predict.add_argument("model")
    predict.add_argument("data")
    predict.add_argument("-o", "--output", help="CSV to write (default: standard output)")
    predict.set_defaults(func=cmd_predict)

    show = sub.add_parser("show", help="print a saved model")
    show.add_argument("model")
    show.add_argument("--format", choices=["text", "dot", "rules", "compact", "sql"],
                      default="text")
    show.add_argument("--tree", type=int, default=None,
                      help="a forest's tree to show (its index in estimators_)")
    show.add_argument("--table", default="t", help="the table --format sql scores")
    show.add_argument("--dialect", default="sqlite",
                      choices=["sqlite", "duckdb", "postgres", "ansi"],
                      help="SQL dialect of --format sql")
    show.set_defaults(func=cmd_show)

    evaluate = sub.add_parser("eval", help="accuracy (and confusion matrix) or R2 on a CSV")
    evaluate.add_argument("model")
    evaluate.add_argument("data")
    evaluate.add_argument("--target", required=True)
    evaluate.set_defaults(func=cmd_eval)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {_one_line(message)}", file=sys.stderr)


def main(argv=None):
    args = build_parser().parse_args(argv)
    warnings.showwarning = _show_warning  # one line each, no source excerpt
    try:
        args.func(args)
    except (CLIError, ValueError, TypeError, OSError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # anything else still ends in one line, not a traceback
        if os.environ.get("DTREE_DEBUG"):
            raise
        print(f"error: {type(exc).__name__}: {_one_line(exc)}", file=sys.stderr)
        return 2
    return 0


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
