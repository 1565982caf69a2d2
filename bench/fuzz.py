"""The long fuzz campaign (issue 33): thousands of probes over every area.

    python bench/fuzz.py --probes 10000 --seed 0          # about 30-40 minutes on 2 cores
    python bench/fuzz.py --probes 500 --areas cli,model_files
    python bench/fuzz.py --replay model_files:1234         # one probe again, with its trace
    python bench/fuzz.py --replay '{"area": "params", ...}' # a (minimised) case as printed

Probes are drawn area by area with fixed weights (``fuzz_probes.WEIGHTS``); probe
``i`` of seed ``s`` is ``fuzz_probes.generate(area, s * 1000003 + i)``, so a run is
reproducible and any probe can be replayed alone. Each probe runs in one of
``--workers`` worker processes (``tests/fuzz_worker.py``) under a time limit and an
address-space limit. The report gives the counts per outcome (ok, clear error,
unnamed error, wrong answer, crash, hang, memory) and per area, then every finding
(any outcome but ok and clear error) grouped by cause (area, outcome, exception
type or oracle, message pattern, dtree function), each with a minimised repro. The
exit status is 1 when there is any finding.

The probes, oracles and outcome rules are in ``tests/fuzz_probes.py`` (shared with
the short campaign, ``tests/test_fuzz.py``).
"""
import argparse
import collections
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)

import fuzz_probes as fp  # noqa: E402
from fuzz_worker import Pool, Worker  # noqa: E402

SEED_STRIDE = 1_000_003


def schedule(n, seed, areas):
    """(area, probe seed) for each of n probes."""
    rng = random.Random(f"schedule:{seed}")
    names = [a for a in fp.WEIGHTS if a in areas]
    weights = [fp.WEIGHTS[a] for a in names]
    return [(rng.choices(names, weights)[0], seed * SEED_STRIDE + i) for i in range(n)]


def parse_case(text):
    text = text.strip()
    if text.startswith("{"):
        return json.loads(text)
    area, seed = text.rsplit(":", 1)
    return fp.generate(area, int(seed))


def replay(text, timeout):
    case = parse_case(text)
    print(fp.describe(case))
    print("case:", json.dumps(case))
    worker = Worker(timeout=timeout)
    try:
        result = worker.run(case)
    finally:
        worker.close()
    print(f"outcome in a worker: {result['outcome']}  "
          f"{result.get('check') or ''} {result.get('type', '')}: {result.get('message', '')}")
    if result.get("where"):
        print("at", result["where"])
    if result["outcome"] in ("crash", "hang", "memory"):
        print(result.get("trace", ""))
        return 1
    print("\nreplayed here, exceptions raised:")
    fp.replay(case)
    print("no exception")
    return 0 if result["outcome"] in fp.ACCEPTED else 1


def shrink(pool, case, key, budget_end, max_rounds=12):
    """A smaller case with the same finding key (greedy, one change at a time)."""
    rounds = 0
    while rounds < max_rounds and time.monotonic() < budget_end:
        candidates = fp.shrink_candidates(case)
        if not candidates:
            break
        results = pool.run(candidates)
        for cand, res in zip(candidates, results):
            if res["outcome"] not in fp.ACCEPTED and fp.finding_key(cand, res) == key:
                case = cand
                break
        else:
            break
        rounds += 1
    return case


def table(rows, header):
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(str(v).rjust(w) if i else str(v).ljust(w)  # noqa: E731
                               for i, (v, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header)] + [line(r) for r in rows])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--probes", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per probe")
    ap.add_argument("--memory", type=int, default=4 << 30,
                    help="address-space limit of a worker, bytes")
    ap.add_argument("--areas", default=",".join(fp.WEIGHTS))
    ap.add_argument("--replay", help="AREA:SEED or a case's JSON")
    ap.add_argument("--shrink-seconds", type=float, default=300.0,
                    help="time to spend minimising the findings' repros (0: none)")
    ap.add_argument("--json", help="write every case and result to this file")
    args = ap.parse_args(argv)
    if args.replay:
        return replay(args.replay, args.timeout)
    areas = set(args.areas.split(","))
    unknown = areas - set(fp.WEIGHTS)
    if unknown:
        ap.error(f"unknown areas {sorted(unknown)}; known: {sorted(fp.WEIGHTS)}")

    plan = schedule(args.probes, args.seed, areas)
    cases = [fp.generate(area, seed) for area, seed in plan]
    counts = collections.Counter()
    t0 = time.monotonic()
    step = max(args.probes // 20, 50)

    def progress(i, case, result):
        counts[result["outcome"]] += 1
        done = sum(counts.values())
        if done % step == 0 or done == len(cases):
            rate = done / max(time.monotonic() - t0, 1e-9)
            print(f"  {done}/{len(cases)} probes, {time.monotonic() - t0:.0f} s "
                  f"({rate:.1f}/s): " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
                  flush=True)

    print(f"fuzz campaign: {len(cases)} probes, seed {args.seed}, {args.workers} workers, "
          f"{args.timeout:.0f} s and {args.memory / 2**30:.1f} GiB per probe", flush=True)
    pool = Pool(args.workers, timeout=args.timeout, memory=args.memory)
    try:
        results = pool.run(cases, progress=progress)
        wall = time.monotonic() - t0

        # ---------------------------------------------------------------- counts
        print(f"\n{len(cases)} probes in {wall:.0f} s ({wall / 60:.1f} min), "
              f"{pool.starts} worker starts")
        skipped = sum(1 for r in results if (r.get("info") or {}).get("skipped"))
        print("\noutcomes:")
        total = collections.Counter(r["outcome"] for r in results)
        print(table([(o, total.get(o, 0)) for o in fp.OUTCOMES], ("outcome", "probes")))
        if skipped:
            print(f"(ok includes {skipped} probes skipped: data the probe could not build "
                  "or a probe that did not apply)")
        by_area = collections.defaultdict(collections.Counter)
        for c, r in zip(cases, results):
            by_area[c["area"]][r["outcome"]] += 1
        print("\nper area:")
        print(table([(a,) + tuple(by_area[a].get(o, 0) for o in fp.OUTCOMES)
                     + (sum(by_area[a].values()),) for a in fp.WEIGHTS if a in by_area],
                    ("area",) + fp.OUTCOMES + ("total",)))

        # ---------------------------------------------------------------- findings
        groups = collections.OrderedDict()
        harness = []
        for c, r in zip(cases, results):
            if r.get("harness"):
                harness.append((c, r))
                continue
            if r["outcome"] in fp.ACCEPTED:
                continue
            groups.setdefault(fp.finding_key(c, r), []).append((c, r))
        order = {o: i for i, o in enumerate(fp.OUTCOMES)}
        keys = sorted(groups, key=lambda k: (order[k[1]], k[0], -len(groups[k])))
        budget_end = time.monotonic() + args.shrink_seconds
        print(f"\nfindings: {sum(len(v) for v in groups.values())} probes, "
              f"{len(groups)} distinct causes")
        report = []
        for n, key in enumerate(keys, 1):
            members = groups[key]
            case, result = min(members, key=lambda cr: len(json.dumps(cr[0])))
            small = shrink(pool, case, key, budget_end) if args.shrink_seconds > 0 else case
            area, outcome = key[0], key[1]
            what = result.get("check") or f"{result.get('type', '')}: {result.get('message', '')}"
            print(f"\n[{n}] {outcome} in {area} ({len(members)} probes): {what[:300]}")
            if result.get("where"):
                print(f"    at {result['where']} ({result.get('stage', '')})")
            elif result.get("stage"):
                print(f"    at {result['stage']}")
            print(f"    repro: {fp.describe(small)[:500]}")
            print(f"    replay: python bench/fuzz.py --replay {case['area']}:{case['seed_id']}")
            if small is not case:
                print(f"    minimised case: {json.dumps(small)[:1500]}")
            report.append({"key": list(key), "count": len(members), "case": small,
                           "result": result})
        if harness:
            print(f"\nthe campaign's own code failed on {len(harness)} probes (not dtree's "
                  "findings; fix the probe):")
            for c, r in harness[:10]:
                print(f"  {c['area']}:{c['seed_id']} {r.get('type')}: {r.get('message', '')[:200]}")
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"probes": len(cases), "seed": args.seed, "wall_seconds": wall,
                           "counts": dict(total), "per_area": {a: dict(c) for a, c in
                                                               by_area.items()},
                           "findings": report,
                           "results": [{"case": c, "result": r}
                                       for c, r in zip(cases, results)]}, fh, default=repr)
        bad = sum(v for o, v in total.items() if o not in fp.ACCEPTED)
        return 1 if bad or harness else 0
    finally:
        pool.close()


if __name__ == "__main__":
    sys.exit(main())
