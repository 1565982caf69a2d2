"""dtree.dask against the local hist tree, xgboost.dask and LightGBM's Dask estimator.

    python bench/dask_scale.py [--rows 1e6,1e7,4e7] [--depth 8] [--features 10]
                               [--workers 2] [--chunk 1000000] [--no-peers]
                               [--memory-limit 1GiB] [--persist]

A LocalCluster of worker processes (one thread each) on this machine; the data
(``dtree.bench``'s synthetic classification: Gaussian features, a label from a
noisy interaction) is generated lazily on the workers, chunk by chunk, and
never gathered. Per row count it prints the fit's wall time and rows per
second for: dtree.dask (2 workers, and 1 worker), the local
``DecisionTreeClassifier(splitter="hist")`` on the same rows in this process
(one thread, the data generated here first), xgboost.dask with one boosting
round (depth-wise, ``tree_method="hist"``, the same depth) and LightGBM's
``DaskLGBMClassifier`` (one round, ``num_leaves`` = 2**depth) when they run
here; then the peak resident memory of each dask worker during the dtree fit
and the slope of time against rows (log-log) for each. ``--memory-limit``
caps each worker (Dask's own limit: a worker past it is paused, then
restarted), to show that data larger than a worker's memory fits (then only
``--workers`` workers run).
``--persist`` keeps the generated data in the workers' memory before each fit
is timed (every library then reads it from there), instead of generating it
while fitting (dtree.dask reads X twice: its summaries, then its codes).
"""
import argparse
import math
import threading
import time

import numpy as np


def make_data(n_rows, n_features, chunk, seed=0):
    """Lazy features (float32) and labels, chunked along rows."""
    import dask.array as da
    rs = da.random.RandomState(seed)
    X = rs.normal(size=(n_rows, n_features), chunks=(chunk, n_features)).astype(np.float32)
    noise = rs.normal(size=n_rows, chunks=chunk)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] + noise) > 0).astype(np.int32)
    return X, y


class PeakMemory:
    """The largest resident memory each worker reports while the block runs."""

    def __init__(self, client, every=0.2):
        self.client, self.every, self.peak = client, every, {}
        self._stop = threading.Event()

    def _poll(self):
        import psutil
        while not self._stop.is_set():
            try:
                rss = self.client.run(lambda: psutil.Process().memory_info().rss)
            except Exception:
                rss = {}
            for w, v in rss.items():
                self.peak[w] = max(self.peak.get(w, 0), v)
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def run(rows_list, depth, n_features, n_workers, chunk, peers, memory_limit="auto",
        persist=False):
    from distributed import Client, LocalCluster

    from dtree import DecisionTreeClassifier
    from dtree.dask import DaskDecisionTreeClassifier

    results = {}
    counts = [n_workers] if memory_limit != "auto" else sorted({n_workers, 1}, reverse=True)
    for workers in counts:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40,
                               memory_limit=memory_limit)
        client = Client(cluster)
        for n in rows_list:
            X, y = make_data(n, n_features, chunk)
            if persist:
                from distributed import wait
                X, y = client.persist([X, y])
                wait([X, y])
            with PeakMemory(client) as mem:
                t, est = timed(lambda: DaskDecisionTreeClassifier(
                    max_depth=depth, random_state=0).fit(X, y))
            peak = max(mem.peak.values()) / 2**20 if mem.peak else float("nan")
            results[("dtree.dask", workers, n)] = (t, peak, est.tree_.node_count)
            print(f"dtree.dask  workers={workers} rows={n:>10,d}  fit {t:7.2f} s  "
                  f"{n / t:12,.0f} rows/s  peak/worker {peak:7.0f} MB  "
                  f"nodes {est.tree_.node_count}", flush=True)
            if peers and workers == n_workers:
                for name, fit in _peers(client, depth):
                    try:
                        t, _ = timed(lambda: fit(X, y))
                    except Exception as exc:   # a peer that does not run here
                        print(f"{name:<11} rows={n:>10,d}  did not run: "
                              f"{type(exc).__name__}: {str(exc)[:120]}", flush=True)
                        continue
                    results[(name, workers, n)] = (t, float("nan"), 0)
                    print(f"{name:<11} workers={workers} rows={n:>10,d}  fit {t:7.2f} s  "
                          f"{n / t:12,.0f} rows/s", flush=True)
        client.close()
        cluster.close()
    if peers:
        for n in rows_list:
            X, y = make_data(n, n_features, chunk)
            Xl, yl = X.compute(), y.compute()   # the local fit's data, in this process
            t, est = timed(lambda: DecisionTreeClassifier(
                splitter="hist", max_depth=depth, random_state=0, n_jobs=1).fit(Xl, yl))
            results[("local hist", 1, n)] = (t, float("nan"), est.tree_.node_count)
            print(f"local hist  1 thread    rows={n:>10,d}  fit {t:7.2f} s  "
                  f"{n / t:12,.0f} rows/s  nodes {est.tree_.node_count}", flush=True)
            del Xl, yl
    print("\nslope of log(time) against log(rows):")
    for key in sorted({k[:2] for k in results}):
        pts = [(math.log(n), math.log(results[key + (n,)][0])) for n in rows_list
               if key + (n,) in results]
        if len(pts) >= 2:
            slope = np.polyfit(*zip(*pts), 1)[0]
            print(f"  {key[0]:<11} workers={key[1]}: {slope:.2f}")
    return results


def _peers(client, depth):
    out = []
    try:
        import xgboost as xgb
        import xgboost.dask  # noqa: F401  (a submodule: imported on its own)

        def fit_xgb(X, y):
            m = xgb.dask.DaskXGBClassifier(n_estimators=1, max_depth=depth,
                                           tree_method="hist", learning_rate=1.0,
                                           grow_policy="depthwise", nthread=1)
            m.client = client
            return m.fit(X, y)
        out.append(("xgboost", fit_xgb))
    except ImportError:
        pass
    try:
        import lightgbm as lgb

        def fit_lgb(X, y):
            m = lgb.DaskLGBMClassifier(n_estimators=1, num_leaves=2 ** depth,
                                       max_depth=depth, learning_rate=1.0, n_jobs=1,
                                       verbose=-1, client=client)
            return m.fit(X, y)
        out.append(("lightgbm", fit_lgb))
    except ImportError:
        pass
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1e6,1e7,4e7")
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=1_000_000)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--persist", action="store_true")
    parser.add_argument("--memory-limit", default="auto",
                        help="each worker's memory limit (Dask's syntax: 1GiB, ...)")
    args = parser.parse_args()
    rows = [int(float(v)) for v in args.rows.split(",")]
    run(rows, args.depth, args.features, args.workers, args.chunk, not args.no_peers,
        args.memory_limit, args.persist)


if __name__ == "__main__":
    main()
