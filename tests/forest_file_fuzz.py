"""Hostile forest model files (formats 6 to 8: compact members, deflated; leaf
tables, thresholds from ranges, byte planes), mutated at random: every file
loads or raises ``dtree.ModelFileError``; nothing else (no other exception,
crash or hang).

    python tests/forest_file_fuzz.py [--cases 300] [--seed 0]

A mutation takes one member of a forest's file and changes its values (a few
entries set to odd numbers: 0, -1, huge, NaN, inf), its length (cut or
doubled), its dtype (cast to another), or drops it, or edits the header's
``derived``, ``format_version`` or a member's ``byte_planes`` entry. Run by ``tests/test_forests.py`` in a
subprocess, so that a crash is a finding and not a lost suite.
"""
import argparse
import io
import json
import sys

import numpy as np

import dtree
from model_files import arrays, deflated, file_bytes

ODD = [0, 1, -1, 2, 7, -2, 2 ** 31 - 1, 2 ** 62, -2 ** 62, 1e300, -1e300, np.nan, np.inf,
       -np.inf, 0.5]
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.float32, np.float64]


def _forests():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(150, 4))
    X[rng.rand(*X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=150) > 0).astype(int)
    yr = np.nan_to_num(X[:, 1]) + rng.normal(size=150)
    return [
        (dtree.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y), X),
        (dtree.ExtraTreesRegressor(n_estimators=3, random_state=0).fit(X, yr), X),
        (dtree.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, yr), X),
        (dtree.RandomForestClassifier(n_estimators=2, random_state=0,
                                      handle_missing="surrogate").fit(X, y), X),
        (dtree.RandomForestClassifier(n_estimators=2, random_state=1, max_depth=3).fit(
            X, np.stack([y, 1 - y], axis=1)), X),
    ]


def _members(forest):
    return arrays(file_bytes(forest))


_packed = deflated


def mutate(members, rng):
    members = {k: v.copy() for k, v in members.items()}
    names = sorted(k for k in members if k != "header")
    kind = rng.randint(8)
    if kind == 7:
        # a compact member swapped for a whole column of its name
        parts = [k for k in names if k.endswith(("_at_splits", "_at_leaves"))]
        if not parts:
            return members, "no compact member"
        part = parts[rng.randint(len(parts))]
        whole = part.rsplit("_at_", 1)[0]
        n_nodes = int(members["tree_nodes"][-1]) if "tree_nodes" in members else 1
        del members[part]
        members[whole] = np.full(n_nodes, [0, -2, 1, np.nan][rng.randint(4)])
        return members, f"whole {whole} for {part}"
    if kind == 6:
        header = json.loads(members["header"].tobytes())
        planes = header.get("byte_planes")
        if not planes:
            return members, "no byte planes"
        name = sorted(planes)[rng.randint(len(planes))]
        planes[name] = [[["<f8", [3]], ["<i4", planes[name][1]], ["<f16", [1]], ["|O", [1]],
                         [planes[name][0], [planes[name][1][0] + 1]], [planes[name][0], [-1]],
                         [planes[name][0], [2 ** 70]], None, [">f8", planes[name][1]],
                         [[planes[name][0]], planes[name][1]], [planes[name][0], [1] * 70],
                         [planes[name][0], []]][rng.randint(12)]][0]
        if rng.randint(4) == 0:
            planes["missing"] = ["<f8", [1]]
        members["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
        return members, f"byte planes {name} {planes[name]!r}"
    if kind == 5:
        header = json.loads(members["header"].tobytes())
        header[rng.choice(["derived", "format_version"])] = [
            ["impurity"], [], "impurity", ["x"], None, 5, 6, 7, 8, 6.0][rng.randint(10)]
        members["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
        return members, f"header {header.get('derived')!r} {header.get('format_version')!r}"
    name = names[rng.randint(len(names))]
    column = members[name]
    if kind == 0 and column.size:
        wide = column.astype(np.float64 if column.dtype.kind == "f" else np.int64)
        for _ in range(1 + rng.randint(3)):
            value = ODD[rng.randint(len(ODD))]
            at = tuple(rng.randint(s) for s in column.shape)
            if wide.dtype.kind == "i" and not (isinstance(value, int) and
                                               -2 ** 63 <= value < 2 ** 63):
                continue
            wide[at] = value
        members[name] = wide
    elif kind == 1:
        members[name] = column[: rng.randint(column.shape[0] + 1)]
    elif kind == 2:
        members[name] = np.concatenate([column, column])
    elif kind == 3:
        with np.errstate(all="ignore"):
            members[name] = column.astype(DTYPES[rng.randint(len(DTYPES))])
    else:
        del members[name]
    return members, f"{['values', 'cut', 'doubled', 'dtype', 'dropped'][kind]} {name}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.RandomState(args.seed)
    bases = [(_members(forest), X) for forest, X in _forests()]
    findings = loaded = 0
    for case in range(args.cases):
        members, X = bases[case % len(bases)]
        mutated, what = mutate(members, rng)
        try:
            with np.errstate(all="raise"):
                model = dtree.load(io.BytesIO(_packed(mutated)))
            model.predict(X)
            loaded += 1
        except dtree.ModelFileError:
            pass
        except Exception as exc:       # anything else is a finding
            findings += 1
            print(f"case {case}: {what}: {type(exc).__name__}: {exc}")
    print(f"{args.cases} cases, {findings} findings ({loaded} loaded, the rest refused)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
