#!/usr/bin/python3
"""graphcost's search strategies against every Kernel Tuner strategy, inside the real Kernel Tuner
(#38; docs/tune.md, "Against Kernel Tuner's strategies").

Every campaign is Kernel Tuner's own `tune_kernel` in simulation mode, replaying one shared cache
(shared/data/kernel_tuner/KERNEL/DEVICE.json.gz) with the kernel's restrictions (space.json's
Conditions), so the space is the kernel's whole space, failed configurations included (they are
replayed as failures and count as measurements). Measurements are counted as Kernel Tuner counts
them: a configuration the simulation runner serves for the first time. A campaign ends at the
budget or once it has measured the space's optimum, after which no figure can change
(--stop-within P ends it within P percent instead, for quick looks).

    KERNEL_TUNER_SRC=/tmp/kt:/tmp/pc PYTHONPATH=build/python \
        python3 bench/kt_compare.py run WORK [--jobs 2] [--seeds 10] [--budget 1000]
    python3 bench/kt_compare.py report WORK > WORK/table.md

Kernel Tuner is not part of the project: KERNEL_TUNER_SRC names the folders to put on the Python
path (a Kernel Tuner checkout, python-constraint's where it is not installed), as for
tests/python/test_kernel_tuner_real.py. `run` is resumable: a task (space x strategy, all its seeds)
whose result file exists is skipped; results are written to a temporary file and renamed.

Each campaign is held out from any prior: the plain caches of a kernel are written into one folder
(WORK/caches/KERNEL), so `graphcost_model`, graphcost's default, takes the other three devices'
caches beside the target's as its prior (graphcost.kernel_tuner.caches_at_hand, which never takes
the target's own device); each campaign's record names the caches its prior used.
`graphcost_model_noprior` is the same search with pretrained="none"."""

import argparse
import ast
import gzip
import json
import math
import os
import random
import re
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "data", "kernel_tuner")
KERNELS = ("convolution", "dedispersion")
DEVICES = ("A100", "A4000", "A6000", "W6600")

# Kernel Tuner 1.4's single-objective strategies that run here (skopt, pyatf and the pymoo ones
# need packages Debian does not ship; brute_force is not a search).
KT_STRATEGIES = ("random_sample", "genetic_algorithm", "dual_annealing", "simulated_annealing",
                 "basinhopping", "pso", "bayes_opt", "mls", "greedy_ils", "greedy_mls",
                 "ordered_greedy_mls", "diff_evo", "firefly_algorithm", "minimize")
# graphcost's, as the Python strategy (graphcost.kernel_tuner.Strategy) runs them.
GC_STRATEGIES = ("graphcost_model", "graphcost_model_noprior", "graphcost_genetic")


def kernel_tuner_path(work):
    """Put KERNEL_TUNER_SRC on sys.path; give a source checkout the package metadata that
    kernel_tuner/__init__.py reads for its version."""
    sources = [p for p in os.environ.get("KERNEL_TUNER_SRC", "").split(os.pathsep) if p]
    if not sources:
        sys.exit("kt_compare: KERNEL_TUNER_SRC is not set (docs/kernel-tuner.md says how to get "
                 "Kernel Tuner and python-constraint)")
    sys.path[:0] = sources
    import importlib.metadata as metadata
    try:
        metadata.version("kernel_tuner")
    except metadata.PackageNotFoundError:
        checkout = next((p for p in sources if os.path.isdir(os.path.join(p, "kernel_tuner"))),
                        None)
        if checkout is None:
            sys.exit(f"kt_compare: no kernel_tuner folder in KERNEL_TUNER_SRC={sources}")
        text = open(os.path.join(checkout, "pyproject.toml")).read()
        version = re.search(r'^version = "([^"]+)"', text, re.M).group(1)
        meta = os.path.join(work, "metadata", f"kernel_tuner-{version}.dist-info")
        os.makedirs(meta, exist_ok=True)
        with open(os.path.join(meta, "METADATA"), "w") as f:
            f.write(f"Metadata-Version: 2.1\nName: kernel_tuner\nVersion: {version}\n")
        sys.path.append(os.path.dirname(meta))
        metadata.version("kernel_tuner")


class Space:
    """One shared cache as Kernel Tuner replays it."""

    def __init__(self, kernel, device, work):
        self.kernel, self.device = kernel, device
        self.name = f"{kernel}/{device}"
        space = json.load(open(os.path.join(SHARED, kernel, "space.json")))["ConfigurationSpace"]
        source = os.path.join(SHARED, kernel, device + ".json.gz")
        with gzip.open(source, "rt") as f:
            cache = json.load(f)
        self.kernel_name = cache["kernel_name"]
        self.problem_size = tuple(cache["problem_size"])
        declared = {p["Name"]: ast.literal_eval(p["Values"]) for p in space["TuningParameters"]}
        self.tune_params = {k: declared[k] for k in cache["tune_params_keys"]}
        self.restrictions = [c["Expression"] for c in space["Conditions"]]
        times = [r["time"] for r in cache["cache"].values() if isinstance(r["time"], (int, float))]
        self.size = len(cache["cache"])
        self.optimum = min(times)
        # Kernel Tuner reads plain JSON only; a gunzipped copy of a cache it wrote is one. Every
        # device's, side by side: the others are the target's caches at hand.
        self.plain = os.path.join(work, "caches", kernel, device + ".json")
        for other in DEVICES:
            plain = os.path.join(work, "caches", kernel, other + ".json")
            if not os.path.exists(plain):
                os.makedirs(os.path.dirname(plain), exist_ok=True)
                with gzip.open(os.path.join(SHARED, kernel, other + ".json.gz"), "rb") as f, \
                        open(f"{plain}.{os.getpid()}.tmp", "wb") as out:
                    out.write(f.read())
                os.replace(f"{plain}.{os.getpid()}.tmp", plain)


def gpu_milliseconds(record):
    """What measuring a cache record cost on the GPU: its compile, verification and benchmark
    milliseconds (0 for those it lacks)."""
    return sum(float(record.get(k) or 0)
               for k in ("compile_time", "verification_time", "benchmark_time"))


class Recorder:
    """Patches Kernel Tuner's simulation runner and budget for the campaign under way: records
    each first-time measurement (its time, None when failed) and ends the campaign once one is
    within the stop target."""

    def __init__(self):
        self.reset(None)

    def reset(self, target):
        self.target, self.started = target, time.perf_counter()
        # Per measurement: the time (None: failed), the wall seconds since the campaign started
        # (the strategy's own time and Kernel Tuner's replay), and the cache's compile +
        # verification + benchmark milliseconds (what the measurement would have cost on the GPU).
        self.times, self.clock, self.cost = [], [], []
        self.seen, self.stop = set(), False

    def install(self):
        from kernel_tuner import util
        from kernel_tuner.runners.simulation import SimulationRunner
        recorder = self
        run, is_done, raise_if_done = (SimulationRunner.run, util.TuningBudget.is_done,
                                       util.TuningBudget.raise_exception_if_done)

        def recorded_run(runner, parameter_space, tuning_options):
            elements = list(parameter_space)
            results = run(runner, elements, tuning_options)
            for element, result in zip(elements, results):
                key = ",".join(str(v) for v in element)
                if result is None or key in recorder.seen or key not in runner.visited_results:
                    continue
                recorder.seen.add(key)
                t = result.get("time")
                ok = "__error__" not in result and isinstance(t, (int, float)) and math.isfinite(t)
                recorder.times.append(float(t) if ok else None)
                recorder.clock.append(time.perf_counter() - recorder.started)
                recorder.cost.append(gpu_milliseconds(result))
                if ok and t <= recorder.target:
                    recorder.stop = True
            return results

        def done(budget):
            return recorder.stop or is_done(budget)

        def raise_done(budget):
            if recorder.stop:
                raise util.StopCriterionReached("within the stop target")
            raise_if_done(budget)

        SimulationRunner.run = recorded_run
        util.TuningBudget.is_done = done
        util.TuningBudget.raise_exception_if_done = raise_done


def strategy_for(name, seed, space):
    """A strategy by its name in the tables; a graphcost one may carry options after '@'
    (graphcost_model@batch=5+explore=0.2), as graphcost.kernel_tuner.Strategy takes them."""
    import graphcost.kernel_tuner as gkt
    base, _, extra = name.partition("@")
    options = {}
    for item in filter(None, extra.split("+")):
        key, _, value = item.partition("=")
        options[key] = ast.literal_eval(value) if re.match(r"^[-+0-9.eE]+$", value) else value
    if base == "graphcost_model":  # the default: its prior, the other devices' caches at hand
        return gkt.Strategy("model", seed=seed, **{"threads": 1, **options})
    if base == "graphcost_model_noprior":
        return gkt.Strategy("model", seed=seed, **{"threads": 1, "pretrained": "none",
                                                   **options})
    if base == "graphcost_genetic":
        return gkt.Strategy("genetic", seed=seed, **options)
    if base in KT_STRATEGIES and not extra:
        return base
    raise SystemExit(f"kt_compare: unknown strategy {name}")


def run_task(args, work, kernel, device, strategy, out):
    import numpy as np
    import kernel_tuner
    space = Space(kernel, device, work)
    recorder = Recorder()
    recorder.install()
    campaigns = []
    for seed in range(args.seed, args.seed + args.seeds):
        recorder.reset(space.optimum * (1 + args.stop_within / 100))
        np.random.seed(seed)
        random.seed(seed)
        started = time.time()
        chosen = strategy_for(strategy, seed, space)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kernel_tuner.tune_kernel(
                space.kernel_name, "", space.problem_size, [], space.tune_params,
                restrictions=space.restrictions, cache=space.plain, simulation_mode=True,
                strategy=chosen, strategy_options={"max_fevals": args.budget}, quiet=True)
        prior = (getattr(chosen, "last_search", None) or {}).get("prior")
        campaigns.append(dict(seed=seed, times=recorder.times, clock=recorder.clock,
                              cost=recorder.cost, seconds=time.time() - started,
                              prior=[os.path.basename(p) for p in prior]
                              if isinstance(prior, list) else prior))
    record = dict(kernel=kernel, device=device, strategy=strategy, optimum=space.optimum,
                  size=space.size, budget=args.budget, stop_within=args.stop_within,
                  campaigns=campaigns)
    with open(out + ".tmp", "w") as f:
        json.dump(record, f)
    os.replace(out + ".tmp", out)


def task_file(work, kernel, device, strategy):
    return os.path.join(work, "runs", f"{kernel}_{device}_{strategy}.json")


def cmd_run(args):
    import subprocess
    work = os.path.abspath(args.work)
    os.makedirs(os.path.join(work, "runs"), exist_ok=True)
    if args.task:
        kernel_tuner_path(work)
        kernel, device, strategy = args.task.split(":")
        run_task(args, work, kernel, device, strategy, task_file(work, kernel, device, strategy))
        return
    strategies = args.strategies.split(",") if args.strategies else GC_STRATEGIES + KT_STRATEGIES
    tasks = [(k, d, s) for s in strategies for k in args.kernels.split(",")
             for d in args.devices.split(",")
             if not os.path.exists(task_file(work, k, d, s))]
    # One process per task: Kernel Tuner's modules hold state, and a crash loses one task only.
    running, done, failed, started = [], 0, [], time.time()
    base = [sys.executable, os.path.abspath(__file__), "run", work, "--seeds", str(args.seeds),
            "--seed", str(args.seed), "--budget", str(args.budget),
            "--stop-within", str(args.stop_within)]
    pending = list(tasks)
    while pending or running:
        while pending and len(running) < args.jobs:
            k, d, s = pending.pop(0)
            log = open(os.path.join(work, "runs", f"{k}_{d}_{s}.log"), "w")
            running.append(((k, d, s), subprocess.Popen(base + ["--task", f"{k}:{d}:{s}"],
                                                        stdout=log, stderr=subprocess.STDOUT)))
        time.sleep(0.5)
        for item in list(running):
            (k, d, s), proc = item
            if proc.poll() is None:
                continue
            running.remove(item)
            done += 1
            if proc.returncode != 0:
                failed.append(f"{k}/{d} {s} (see runs/{k}_{d}_{s}.log)")
            elapsed = time.time() - started
            rate = done / elapsed
            eta = (len(tasks) - done) / rate if rate else float("inf")
            print(f"kt_compare: {done}/{len(tasks)} tasks, {k}/{d} {s} "
                  f"{'failed' if proc.returncode else 'done'}; {rate * 60:.1f} tasks/min, "
                  f"ETA {eta / 60:.0f} min", file=sys.stderr, flush=True)
    if failed:
        sys.exit("kt_compare: failed tasks: " + "; ".join(failed))


def t_interval(diffs):
    """Mean and 95% t interval of paired differences."""
    from scipy import stats
    n = len(diffs)
    mean = statistics.fmean(diffs)
    if n < 2:
        return mean, float("nan"), float("nan")
    half = stats.t.ppf(0.975, n - 1) * statistics.stdev(diffs) / math.sqrt(n)
    return mean, mean - half, mean + half


class Methodology:
    """The score of Willemsen, van Nieuwpoort and van Werkhoven (2024), on the measurement axis,
    for one space. Of its valid configurations' times v_1 <= ... <= v_N (failed ones left out, as
    there), random search's expected best after k distinct measurements is
        b(k) = v_1 + sum_j (v_{j+1} - v_j) C(N - j, k) / C(N, k)
    (exact; the reference implementation approximates it by the value at rank (N+1)/(k+1)). The
    range is [F(0.5), F(0.96)], the budgets at which b first comes within target(p) = opt +
    (median - opt)(1 - p), p the share of the median-to-optimum gap closed (the paper's
    experiment: cutoff_percentile_start 0.5, cutoff_percentile 0.96). A campaign's curve c(k) is
    its best time after k measurements, held once it ends (the reference holds its curves the
    same way); before its first success it stands at the space's mean valid time, b(1). Its score
    is the mean over the range of (c(k) - b(k)) / (opt - b(k)): 0 is random search, 1 the optimum
    from the start. A strategy's score on a space is the mean over its seeds (the reference's
    central curve is a bagged isotonic fit of ranks; the mean keeps one score per seed, so scores
    pair by seed), its aggregate the mean over spaces."""

    def __init__(self, values, budget, costs=None):
        import numpy as np
        from scipy.special import gammaln
        v = np.sort(np.asarray(values, dtype=float))
        n = len(v)
        self.optimum, self.mean = v[0], v.mean()
        median = float(np.median(v))
        kmax = min(budget, n)
        j = np.arange(1, n)  # P(best of k > v_j) = C(n - j, k) / C(n, k)
        gaps = np.diff(v)
        self.baseline = np.empty(kmax + 1)
        self.baseline[0] = np.nan
        for k in range(1, kmax + 1):
            alive = n - j >= k
            logp = np.full(n - 1, -np.inf)
            m = n - j[alive]
            logp[alive] = gammaln(m + 1) - gammaln(m - k + 1) - gammaln(n + 1) + gammaln(n - k + 1)
            self.baseline[k] = v[0] + float(np.sum(gaps * np.exp(logp)))

        def cutoff(p):
            target = self.optimum + (median - self.optimum) * (1 - p)
            hits = np.nonzero(self.baseline[1:] <= target)[0]
            return int(hits[0]) + 1 if len(hits) else kmax
        self.start, self.end = cutoff(0.5), cutoff(0.96)
        # The time axis, which the reference's score uses: a measurement costs its record's
        # compile + verification + benchmark time (the GPU's) plus the strategy's own time.
        # costs: (valid seconds, failed seconds) per configuration of the space.
        self.grid = None
        if costs is not None:
            valid, failed = (np.asarray(c, dtype=float) for c in costs)
            share = len(failed) / (len(valid) + len(failed))
            # The reference's time per measurement of random search: the valid mean plus the
            # failed share times the failed mean.
            self.per_feval = valid.mean() + (share * failed.mean() if len(failed) else 0.0)
            median_cost = float(np.median(np.concatenate([valid, failed])))
            self.grid = np.linspace(self.start * median_cost, self.end * median_cost, 1000)
            self.kmax = kmax

    def time_score(self, times, costs, clock):
        """One campaign's score on the time axis: its best time at each point of the grid (a
        measurement counts from when it ends: the costs so far plus the wall clock), against
        random search's b(k) at k = round(t / per_feval)."""
        import numpy as np
        ends = np.cumsum(np.asarray(costs, dtype=float) / 1000.0) + np.asarray(clock, dtype=float)
        best, bests = self.mean, []
        for t in times:
            best = min(best, t) if t is not None else best
            bests.append(best)
        total, count = 0.0, 0
        for t in self.grid:
            i = int(np.searchsorted(ends, t, side="right"))
            c = bests[i - 1] if i > 0 else self.mean
            k = min(self.kmax, max(1, int(round(t / self.per_feval))))
            b = self.baseline[k]
            if b > self.optimum:
                total += (c - b) / (self.optimum - b)
                count += 1
        return total / count

    def score(self, times):
        """One campaign's score; times in the order measured, None for a failure."""
        best, total, count = self.mean, 0.0, 0
        for k in range(1, self.end + 1):
            if k <= len(times) and times[k - 1] is not None:
                best = min(best, times[k - 1])
            if k >= self.start and self.baseline[k] > self.optimum:
                total += (best - self.baseline[k]) / (self.optimum - self.baseline[k])
                count += 1
        return total / count


def to_within(times, optimum, percent, budget):
    """Measurements until one within `percent` of the optimum; budget + 1 for a miss."""
    for i, t in enumerate(times):
        if t is not None and t <= optimum * (1 + percent / 100):
            return i + 1
    return budget + 1


def cmd_report(args):
    import glob
    records = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(args.work, "runs",
                                                                         "*.json")))]
    if not records:
        sys.exit(f"kt_compare: {args.work}/runs holds no results")
    spaces = sorted({(r["kernel"], r["device"]) for r in records})
    order = {s: i for i, s in enumerate(GC_STRATEGIES + KT_STRATEGIES)}
    strategies = sorted({r["strategy"] for r in records}, key=lambda s: order.get(s, 99))
    by = {(r["kernel"], r["device"], r["strategy"]): r for r in records}
    budget = records[0]["budget"]
    out = []
    out.append(f"Budget {budget}, seeds {len(records[0]['campaigns'])}; cells: measurements to "
               f"come within 1% / 5% / 10% of the optimum, mean / median over seeds, a miss "
               f"counted as {budget + 1} (seeds that got there); score: the methodology's "
               f"(0 = random search, 1 = the optimum at once); s: the strategy's own wall "
               f"seconds per campaign on this machine, Kernel Tuner's replay included.\n")
    scores = {}  # strategy -> space -> per-seed scores
    time_scores = {}  # the same on the time axis
    pairs = {}  # space -> the paired difference of the best of each side, within 5%
    for kernel, device in spaces:
        with gzip.open(os.path.join(SHARED, kernel, device + ".json.gz"), "rt") as f:
            cache = json.load(f)["cache"]
        values = [r["time"] for r in cache.values() if isinstance(r["time"], (int, float))]
        costs = ([gpu_milliseconds(r) / 1000 for r in cache.values()
                  if isinstance(r["time"], (int, float))],
                 [gpu_milliseconds(r) / 1000 for r in cache.values()
                  if not isinstance(r["time"], (int, float))])
        method = Methodology(values, budget, costs)
        out.append(f"### {kernel} / {device} ({len(cache)} configurations, {len(values)} valid; "
                   f"score range {method.start}-{method.end} measurements)\n")
        out.append("| strategy | 1% | 5% | 10% | score | score (time) | s |")
        out.append("|---|---|---|---|---|---|---|")
        fives = {}
        for s in strategies:
            r = by.get((kernel, device, s))
            if r is None:
                continue
            cells = []
            for pct in (1, 5, 10):
                n = [to_within(c["times"], r["optimum"], pct, budget) for c in r["campaigns"]]
                if pct == 5:
                    fives[s] = n
                got = sum(x <= budget for x in n)
                cells.append(f"{statistics.fmean(n):.1f} / {statistics.median(n):g} "
                             f"({got}/{len(n)})")
            per_seed = [method.score(c["times"]) for c in r["campaigns"]]
            scores.setdefault(s, {})[(kernel, device)] = per_seed
            timed = [method.time_score(c["times"], c["cost"], c["clock"]) for c in r["campaigns"]]
            time_scores.setdefault(s, {})[(kernel, device)] = timed
            wall = statistics.fmean(c["seconds"] for c in r["campaigns"])
            out.append(f"| {s} | {' | '.join(cells)} | {statistics.fmean(per_seed):.3f} | "
                       f"{statistics.fmean(timed):.3f} | {wall:.2f} |")
        gc = [s for s in fives if s.startswith("graphcost")]
        kt = [s for s in fives if not s.startswith("graphcost")]
        if gc and kt:
            # graphcost's default against the best Kernel Tuner strategy of the space, picked
            # on these same seeds (which favours Kernel Tuner).
            best_gc = "graphcost_model" if "graphcost_model" in fives else \
                min(gc, key=lambda s: statistics.fmean(fives[s]))
            best_kt = min(kt, key=lambda s: statistics.fmean(fives[s]))
            mean, lo, hi = t_interval([a - b for a, b in zip(fives[best_gc], fives[best_kt])])
            bold = "**" if hi < 0 or lo > 0 else ""
            out.append(f"\nWithin 5%, {best_gc} minus {best_kt} (the best Kernel Tuner "
                       f"strategy here), paired by seed: {bold}{mean:+.1f} [{lo:+.1f}, "
                       f"{hi:+.1f}]{bold}\n")
            pairs[(kernel, device)] = (f"{bold}{mean:+.1f} [{lo:+.1f}, {hi:+.1f}]{bold} "
                                       f"({best_kt})")
    # The summary: within 5% per space (mean / median, seeds that got there) and the score.
    names = [f"{k[:4]}. {d}" for k, d in spaces]
    summary = ["| strategy | " + " | ".join(names) + " | score |",
               "|---|" + "---|" * (len(spaces) + 1)]
    for s in strategies:
        cells = []
        for kernel, device in spaces:
            r = by.get((kernel, device, s))
            if r is None:
                cells.append("")
                continue
            n = [to_within(c["times"], r["optimum"], 5, budget) for c in r["campaigns"]]
            cells.append(f"{statistics.fmean(n):.1f} / {statistics.median(n):g} "
                         f"({sum(x <= budget for x in n)})")
        total = (f"{statistics.fmean(statistics.fmean(v) for v in scores[s].values()):.3f}"
                 if len(scores.get(s, {})) == len(spaces) else "")
        summary.append(f"| {s} | " + " | ".join(cells) + f" | {total} |")
    summary.append("| graphcost_model minus the best Kernel Tuner, paired | " +
                   " | ".join(pairs.get(space, "") for space in spaces) + " | |")
    out[1:1] = ["### Within 5% of the optimum: mean / median (seeds that got there)\n"] + \
        summary + [""]
    out.append("### Aggregate (the methodology's score, mean over spaces)\n")
    complete = [s for s in strategies if len(scores.get(s, {})) == len(spaces)]
    ranked = sorted(complete, key=lambda s: -statistics.fmean(
        statistics.fmean(v) for v in scores[s].values()))
    out.append("| strategy | score | minus the best Kernel Tuner strategy, paired by seed | "
               "score (time) | minus the best Kernel Tuner strategy |")
    out.append("|---|---|---|---|---|")

    def seed_means(table, s):
        return [statistics.fmean(v[i] for v in table[s].values())
                for i in range(len(next(iter(table[s].values()))))]

    def against_best(table, s):
        # The best Kernel Tuner strategy by this table's own score.
        kt = [k for k in complete if not k.startswith("graphcost")]
        if not kt:
            return ""
        best = max(kt, key=lambda k: statistics.fmean(seed_means(table, k)))
        if s == best:
            return "baseline"
        mean, lo, hi = t_interval([a - b for a, b in zip(seed_means(table, s),
                                                         seed_means(table, best))])
        bold = "**" if hi < 0 or lo > 0 else ""
        return f"{bold}{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]{bold}"
    for s in ranked:
        out.append(f"| {s} | {statistics.fmean(seed_means(scores, s)):.3f} | "
                   f"{against_best(scores, s)} | "
                   f"{statistics.fmean(seed_means(time_scores, s)):.3f} | "
                   f"{against_best(time_scores, s)} |")
    print("\n".join(out))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the campaigns (resumable)")
    run.add_argument("work")
    run.add_argument("--kernels", default=",".join(KERNELS))
    run.add_argument("--devices", default=",".join(DEVICES))
    run.add_argument("--strategies", default="", help="comma-separated; default: all")
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--seed", type=int, default=0, help="the first seed")
    run.add_argument("--budget", type=int, default=1000)
    run.add_argument("--stop-within", type=float, default=0.0,
                     help="end a campaign once within this percent of the optimum (default 0: "
                          "once it has measured the optimum, after which nothing can change)")
    run.add_argument("--jobs", type=int, default=2)
    run.add_argument("--task", help=argparse.SUPPRESS)
    report = sub.add_parser("report", help="the tables, from a run's folder")
    report.add_argument("work")
    args = parser.parse_args(argv)
    if args.command == "run":
        cmd_run(args)
    else:
        cmd_report(args)


if __name__ == "__main__":
    main()
