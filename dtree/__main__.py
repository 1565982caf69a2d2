"""Command line: ``python -m dtree {fit,predict,show,eval} ...``.

    dtree fit data.csv --target COL [--criterion gini --max-depth 5] -o model.dtree
    dtree predict model.dtree data.csv [-o predictions.csv] [--proba]
    dtree show model.dtree [--format text|dot|rules|compact|sql]
                           [--table t] [--dialect sqlite|duckdb|postgres|ansi]
    dtree eval model.dtree data.csv --target COL

(``dtree`` is the console script; ``python -m dtree`` is the same.) CSV files
are read with pandas when it is installed, else with the standard library: the
separator is sniffed (comma, semicolon, tab, bar; ``--sep`` says it), the text
is UTF-8, or Latin-1 when it is not (``--encoding`` says it). Text columns are
split by sets of categories (the model keeps the categories; a category unseen
at fit is treated as missing), except identifier-like ones (most rows holding a
value of their own), which are left out unless ``--categorical-features`` lists
them; ``--categorical none`` refuses text columns instead, and ``--drop`` leaves
columns out. Every error (a missing, truncated or badly encoded file, a bad
parameter, a corrupt model) is reported on one line with exit status 2; a
closed pipe (``dtree predict ... | head``) ends quietly.
"""
import argparse
import contextlib
import csv
import gzip
import io
import os
import sys
import time
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
SEPARATORS = ",;\t|"
# fit prints a progress line first for data of this many cells or more (and forests,
# and ccp_alpha='cv'): a fit that may take seconds
LONG_FIT_CELLS = 250_000
SNIFF_BYTES = 1 << 16


def _raw_bytes(path):
    """The file's first SNIFF_BYTES bytes, decompressed for .gz."""
    with open_regular(path, "the data file") as raw:
        if str(path).endswith(".gz"):
            with gzip.open(raw, "rb") as fh:
                return fh.read(SNIFF_BYTES)
        return raw.read(SNIFF_BYTES)


def sniff_format(path, sep=None, encoding=None):
    """(separator, encoding) of a CSV file: the ones given, else the separator the
    header line splits most by among SEPARATORS, and UTF-8 unless the start of
    the file does not decode as it (then Latin-1, with a warning)."""
    head = _raw_bytes(path)
    if encoding is None:
        try:
            head.decode("utf-8")
            encoding = "utf-8"
        except UnicodeDecodeError as exc:
            # (a multi-byte character cut at the end of the sample is still UTF-8)
            if exc.start >= len(head) - 3:
                encoding = "utf-8"
            else:
                encoding = "latin-1"
                warnings.warn(f"{path} is not UTF-8 text: read as Latin-1 (--encoding "
                              "names another)")
    if sep is None:
        text = head.decode(encoding, errors="replace")
        first = text.splitlines()[0] if text.strip() else ""
        counts = {s: first.count(s) for s in SEPARATORS}
        sep = max(SEPARATORS, key=lambda s: (counts[s], s == ","))
        if counts[sep] == 0:
            sep = ","
    return sep, encoding


def _open_text(path, encoding):
    raw = open_regular(path, "the data file")
    if str(path).endswith(".gz"):
        return gzip.open(raw, "rt", newline="", encoding=encoding)
    return io.TextIOWrapper(raw, newline="", encoding=encoding)


def read_csv(path, sep=None, encoding=None):
    """(column names, dict of column -> 1-D array) for a CSV file."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    try:
        sep, encoding = sniff_format(path, sep, encoding)
        if pd is not None:
            with open_regular(path, "the data file") as fh:
                try:
                    frame = pd.read_csv(fh, sep=sep, encoding=encoding,
                                        compression="gzip" if str(path).endswith(".gz")
                                        else None)
                except pd.errors.EmptyDataError:
                    raise CLIError(f"cannot read {path}: the file is empty") from None
            if frame.shape[0] == 0:
                raise CLIError(f"{path} has no data rows (only a header)")
            return list(map(str, frame.columns)), {str(c): frame[c].to_numpy()
                                                   for c in frame.columns}
        with _open_text(path, encoding) as fh:
            rows = list(csv.reader(fh, delimiter=sep))
    except FileNotFoundError:
        raise CLIError(f"no such file: {path}") from None
    except NotRegularFileError as exc:
        raise CLIError(str(exc)) from None
    except LookupError:
        raise CLIError(f"--encoding {encoding!r} is not an encoding Python knows") from None
    except (OSError, EOFError, zlib.error, csv.Error, UnicodeDecodeError, ValueError) as exc:
        # truncated or corrupt gzip, bad encoding, malformed CSV
        raise CLIError(f"cannot read {path}: {type(exc).__name__}: {exc}") from None
    if not rows:
        raise CLIError(f"cannot read {path}: the file is empty")
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


def _number(text, option):
    """A label written in an option, as the number it names (int when whole)."""
    try:
        value = float(text)
    except ValueError:
        raise CLIError(f"{option}: the target's labels are numbers; got {text!r}") from None
    return int(value) if value.is_integer() else value


def _names(text, option):
    """A comma-separated list of column names (an option's value)."""
    names = [n.strip() for n in text.split(",") if n.strip()] if text else []
    if text is not None and not names:
        raise CLIError(f"{option} takes column names separated by commas")
    return names


def _is_numeric(values):
    return np.asarray(values).dtype.kind in "biuf"


def _features(header, columns, target, categorical, expected=None, drop=()):
    """Feature table (a DataFrame with pandas, else an object array) and its names.

    ``expected`` (the model's columns) selects and orders the columns at
    predict time; ``drop`` lists columns left out at fit.
    """
    unknown = [n for n in drop if n not in columns]
    if unknown:
        raise CLIError(f"--drop names columns the file does not have: {unknown} "
                       f"(columns: {header})")
    names = list(expected) if expected is not None else \
        [c for c in header if c != target and c not in drop]
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
    header, columns = read_csv(args.data, args.sep, args.encoding)
    if args.target not in columns:
        raise CLIError(f"target column {args.target!r} is not in {args.data} "
                       f"(columns: {header})")
    y = _complete_target(columns[args.target], args.target, args.data)
    task = args.task
    if task == "auto":
        task = "regression" if _is_numeric(y) and np.unique(y).shape[0] > 20 else \
            "classification"
    listed = _names(args.categorical_features, "--categorical-features")
    if listed and args.categorical == "none":
        raise CLIError("--categorical none refuses text columns; --categorical-features "
                       "lists some to split by category: choose one")
    categorical = "auto" if args.algorithm != "cart" or listed else args.categorical
    X, names = _features(header, columns, args.target, categorical,
                         drop=_names(args.drop, "--drop"))
    unknown = [n for n in listed if n not in names]
    if unknown:
        raise CLIError(f"--categorical-features names columns that are not features: "
                       f"{unknown} (features: {names})")
    params = dict(max_depth=args.max_depth, min_samples_leaf=args.min_samples_leaf,
                  min_samples_split=args.min_samples_split, random_state=args.random_state,
                  categorical_features=listed or ("auto" if categorical == "auto" else None),
                  handle_unknown="missing")
    for option in ("max_features", "class_weight", "n_jobs", "splitter"):
        if getattr(args, option) is not None:
            params[option] = getattr(args, option)
    if args.class_weight is not None and task != "classification":
        raise CLIError("--class-weight weighs the classes of a classification tree")
    if isinstance(args.class_weight, dict) and _is_numeric(y):
        # numeric labels: the weights' keys as the numbers they name
        params["class_weight"] = {_number(k, "--class-weight"): w
                                  for k, w in args.class_weight.items()}
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
    kind = "tree" if args.forest == "none" else f"{args.forest} forest"
    if not args.quiet and (X.shape[0] * X.shape[1] >= LONG_FIT_CELLS or args.forest != "none"
                           or args.ccp_alpha == "cv"):
        # a progress line: such a fit can take seconds
        print(f"fitting a {task} {kind} on {X.shape[0]} rows x {X.shape[1]} features ...",
              file=sys.stderr, flush=True)
    started = time.perf_counter()
    est.fit(X, y)
    took = time.perf_counter() - started
    est.save(args.output)    # its OSError names the file
    if args.forest == "none":
        grown = f"tree ({est.get_n_leaves()} leaves, depth {est.get_depth()})"
    else:
        nodes = sum(t.tree_.node_count for t in est.estimators_)
        grown = f"{args.forest} forest ({len(est.estimators_)} trees, {nodes} nodes)"
    print(f"fitted a {task} {grown} on {X.shape[0]} rows x {X.shape[1]} features in "
          f"{took:.2f} s; saved to {args.output}")


def _load(path):
    try:
        return load(path)
    except FileNotFoundError:
        raise CLIError(f"no such model file: {path}") from None
    except ModelFileError as exc:
        raise CLIError(f"{path}: {exc}") from None


def _model_inputs(model, data, target=None, sep=None, encoding=None):
    header, columns = read_csv(data, sep, encoding)
    names = [str(n) for n in getattr(model, "feature_names_in_", [])]
    if not names:
        names = [c for c in header if c != target][: model.n_features_in_]
    X, names = _features(header, columns, target, "auto", expected=names)
    return X, names, columns


def cmd_predict(args):
    model = _load(args.model)
    X, names, _ = _model_inputs(model, args.data, sep=args.sep, encoding=args.encoding)
    pred = model.predict(X)
    header, rows = _prediction_table(model, X, pred, args.proba)
    out = sys.stdout if args.output in (None, "-") else None
    with _writing(args.output or "standard output"):
        fh = out or open(args.output, "w", newline="", encoding="utf-8")
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
        if out is None:
            fh.close()
        else:
            fh.flush()      # (a full standard output fails here, inside the block)
    if out is None:
        print(f"wrote {pred.shape[0]} predictions to {args.output}")


def _prediction_table(model, X, pred, proba):
    """(header, rows) of predict's CSV: the predictions (a column per output), and
    with ``proba`` each class's probability beside them (one output)."""
    if pred.ndim == 2:   # several outputs: a column each
        if proba:
            raise CLIError("--proba writes one output's class probabilities; this model "
                           f"predicts {pred.shape[1]} outputs")
        return [f"prediction_{k}" for k in range(pred.shape[1])], \
            (row.tolist() for row in pred)
    if not proba:
        return ["prediction"], ([value] for value in pred.tolist())
    if not hasattr(model, "predict_proba"):
        raise CLIError("--proba needs a classifier; this model predicts numbers")
    probabilities = model.predict_proba(X)
    header = ["prediction"] + [f"proba_{c}" for c in model.classes_]
    return header, ([value] + [float(f"{p:.6g}") for p in row]
                    for value, row in zip(pred.tolist(), probabilities))


@contextlib.contextmanager
def _writing(path):
    """Turns a failed write (a full disk, a directory, no permission) into an error
    naming the file written."""
    try:
        yield
    except BrokenPipeError:
        raise                  # the reader left: main ends quietly
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
    X, names, columns = _model_inputs(model, args.data, target=args.target, sep=args.sep,
                                      encoding=args.encoding)
    if args.target not in columns:
        raise CLIError(f"target column {args.target!r} is not in {args.data}")
    y = _complete_target(columns[args.target], args.target, args.data)
    frame = X
    if hasattr(model, "classes_"):
        y = np.asarray(y).astype(model.classes_.dtype) if model.classes_.dtype.kind == "U" \
            else y
        pred = model.predict(frame)
        print(f"accuracy: {np.mean(pred == y):.4f}")
        print(confusion_text(y, pred, model.classes_), end="")
    else:
        print(f"R2: {model.score(frame, _numeric_target(y, args.target, args.data)):.4f}")


def confusion_text(y, pred, classes):
    """The confusion matrix as aligned text: a row per true label (the model's
    classes, then labels it never saw, marked), a column per class it predicts."""
    unseen = [c for c in np.unique(y) if c not in set(classes.tolist())]
    rows = list(classes) + unseen
    table = [[int(np.sum((y == true) & (pred == p))) for p in classes] for true in rows]
    labels = [str(c) for c in classes]
    row_labels = [str(c) + (" (unseen at fit)" if c in unseen else "") for c in rows]
    corner = "true \\ predicted"
    first = max(len(s) for s in row_labels + [corner])
    width = max([len(s) for s in labels] + [len(str(n)) for row in table for n in row]) + 2
    lines = ["confusion matrix (rows: true, columns: predicted)",
             f"{corner:<{first}}" + "".join(f"{s:>{width}}" for s in labels)]
    lines += [f"{label:<{first}}" + "".join(f"{n:>{width}}" for n in row)
              for label, row in zip(row_labels, table)]
    if unseen:
        lines.append(f"{len(unseen)} label(s) of the data were unseen at fit: "
                     + ", ".join(map(str, unseen)))
    return "\n".join(lines) + "\n"


def _complete_target(y, target, data):
    """The target column, refused when a row has none (an empty cell, NaN): a
    missing label would otherwise read as a class of its own ('nan')."""
    values = np.asarray(y)
    if values.dtype.kind == "f":
        missing = np.isnan(values)
    elif values.dtype.kind == "O":
        missing = np.array([v is None or v == "" or (isinstance(v, float) and v != v)
                            for v in values], dtype=bool)
    else:
        missing = np.zeros(values.shape[0], dtype=bool)
    if missing.any():
        rows = np.flatnonzero(missing)
        shown = ", ".join(str(r + 1) for r in rows[:5]) + (", ..." if rows.size > 5 else "")
        raise CLIError(f"target column {target!r} of {data} is empty in {rows.size} of "
                       f"{values.shape[0]} data rows ({shown}): every row needs a target "
                       "(drop those rows, or fill them in)")
    return y


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


def _max_features(text):
    """--max-features: an int, a float in (0, 1], sqrt, log2 or none."""
    if text in ("sqrt", "log2"):
        return text
    if text == "none":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an int, a float, sqrt, log2 or none; got "
                                         f"{text!r}") from None


def _class_weight(text):
    """--class-weight: balanced, or label=weight pairs separated by commas."""
    if text == "balanced":
        return text
    weights = {}
    for pair in text.split(","):
        label, _, weight = pair.partition("=")
        try:
            weights[label.strip()] = float(weight)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"balanced, or label=weight pairs such as yes=2,no=1; got {text!r}") from None
    return weights


def _reading_options(command):
    command.add_argument("--sep", help="the CSV separator (default: sniffed from the "
                         "header among , ; tab |)")
    command.add_argument("--encoding", help="the text encoding (default: UTF-8, or "
                         "Latin-1 for a file that is not UTF-8)")


def build_parser():
    from ._version import __version__

    # (the console script is "dtree"; run as a module, usage says so)
    as_module = os.path.basename(sys.argv[0]) in ("__main__.py", "-m")
    parser = argparse.ArgumentParser(prog="python -m dtree" if as_module else "dtree",
                                     description="Fit, inspect and apply decision trees.")
    parser.add_argument("--version", action="version", version=f"dtree {__version__}")
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
                     help="auto (default): split text columns by sets of categories, "
                          "identifier-like ones left out; none: refuse them")
    fit.add_argument("--categorical-features", metavar="COLS",
                     help="the columns to split by category, by name, separated by "
                          "commas (identifier-like columns included)")
    fit.add_argument("--drop", metavar="COLS",
                     help="columns to leave out, by name, separated by commas")
    fit.add_argument("--splitter", choices=registry.names("splitter"))
    fit.add_argument("--max-features", type=_max_features,
                     help="features drawn per split: an int, a fraction, sqrt, log2 or none")
    fit.add_argument("--class-weight", type=_class_weight,
                     help="balanced, or label=weight pairs (yes=2,no=1)")
    fit.add_argument("--n-jobs", type=int, help="threads (-1: every core)")
    fit.add_argument("-q", "--quiet", action="store_true",
                     help="no progress line on standard error")
    fit.add_argument("--algorithm", choices=registry.names("algorithm"), default="cart",
                     help="preset (see DecisionTreeClassifier); id3 and c4.5 split text "
                          "columns by category")
    fit.add_argument("--forest", choices=["none", "random", "extra"], default="none",
                     help="grow a forest: random (RandomForest*) or extra (ExtraTrees*)")
    fit.add_argument("--n-estimators", type=int, default=None,
                     help="trees in the forest (default 100)")
    fit.add_argument("--random-state", type=int, default=0)
    fit.add_argument("-o", "--output", required=True, help="model file to write")
    _reading_options(fit)
    fit.set_defaults(func=cmd_fit)

    predict = sub.add_parser("predict", help="predict a CSV file with a saved model")
    predict.add_argument("model")
    predict.add_argument("data")
    predict.add_argument("-o", "--output", help="CSV to write (default: standard output)")
    predict.add_argument("--proba", action="store_true",
                         help="each class's probability beside the prediction")
    _reading_options(predict)
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
    _reading_options(evaluate)
    evaluate.set_defaults(func=cmd_eval)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {_one_line(message)}", file=sys.stderr)


def main(argv=None):
    args = build_parser().parse_args(argv)
    warnings.showwarning = _show_warning  # one line each, no source excerpt
    try:
        args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (dtree predict ... | head): stop quietly, and keep
        # Python's own flush at exit from failing again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
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
