"""Fit on a busy machine: the default n_jobs against one thread and every core.

    python bench/busy_machine.py [--rows 1000000] [--busy 1] [--rounds 3]

Starts ``--busy`` other processes that keep a core each at work (a loop), then
fits one tree per mode (classification and regression, depth 10 and full) with
``n_jobs=1``, ``n_jobs=-1`` and the default, in turns, and prints the median
seconds of ``--rounds`` fits each. The default must never be slower than one
thread (issue 36): it takes no more threads than the cores the other work
leaves free (``dtree._plan.machine.busy_cores``), since a tree's growth waits
for every thread at each large node and a thread that shares its core arrives
late.
"""
import argparse
import subprocess
import sys
import time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--busy", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    import dtree
    from dtree._plan.machine import available_cores
    from dtree.bench import make_data
    try:
        from dtree._plan.machine import busy_cores
    except ImportError:     # (a build before it: no count to show)
        def busy_cores():
            return "-"

    others = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
              for _ in range(args.busy)]
    try:
        time.sleep(0.5)
        print(f"{available_cores()} cores, {args.busy} busy processes started, "
              f"busy cores seen: {busy_cores()}; {args.rows} rows x 10, median of "
              f"{args.rounds} fits, seconds")
        print(f"{'mode':<22}{'n_jobs=1':>10}{'n_jobs=-1':>11}{'default':>10}{'default/1':>11}")
        for task, estimator in (("classification", dtree.DecisionTreeClassifier),
                                ("regression", dtree.DecisionTreeRegressor)):
            X, y = make_data(task, args.rows, 10)
            for depth in (10, None):
                times = {1: [], -1: [], None: []}
                for _ in range(args.rounds):
                    for jobs in times:
                        start = time.perf_counter()
                        estimator(max_depth=depth, n_jobs=jobs, random_state=0).fit(X, y)
                        times[jobs].append(time.perf_counter() - start)
                med = {jobs: sorted(t)[len(t) // 2] for jobs, t in times.items()}
                mode = f"{task[:5]} depth {depth or 'full'}"
                print(f"{mode:<22}{med[1]:>10.3f}{med[-1]:>11.3f}{med[None]:>10.3f}"
                      f"{med[None] / med[1]:>11.2f}", flush=True)
    finally:
        for p in others:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
