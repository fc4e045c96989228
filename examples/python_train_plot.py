#!/usr/bin/env python3
"""Train a tile cost model on the demo data from Python, then plot predicted against measured
runtime on the validation split (matplotlib; the plot is skipped where it is not installed).

    make demo                                   # or: build/graphcost synth --out demo-out/data --scale small
    PYTHONPATH=build/python /usr/bin/python3 examples/python_train_plot.py --data demo-out/data

Writes OUT/run (the training run) and OUT/predicted_vs_measured.png.
"""
import argparse
import os
import sys

import numpy as np

import graphcost


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="demo-out/data", help="dataset root (graphcost synth)")
    parser.add_argument("--out", default="demo-out/python-example")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()

    run = os.path.join(args.out, "run")
    every = max(1, args.iterations // 10)

    def progress(iteration, total, metrics):
        if metrics is not None and iteration % every == 0:
            print(f"iteration {iteration}/{total}: loss {metrics['loss']:.4f}", flush=True)

    graphcost.train(data=args.data, collection="tile:xla", out=run, overwrite=True,
                    iterations=args.iterations, graphs_per_batch=8, slate_size=16,
                    loss="diffmat:1,mape:0.1", log_every=every, validate_every=0,
                    threads=args.threads, seed=1, progress=progress)
    model = graphcost.load(run)
    valid = graphcost.open(args.data, "tile:xla", "valid")
    scores = model.score(valid, threads=args.threads)
    taus = [graphcost.kendall_tau(s, g.runtimes) for g, s in zip(valid, scores)]
    print(f"{len(valid)} validation graphs: mean Kendall tau {np.nanmean(taus):.3f}")
    best = [g.runtimes[model.rank(g, threads=args.threads)[0]] / g.runtimes.min() for g in valid]
    print(f"model's top choice is {np.mean(best):.3f}x the best runtime on average")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: python3-matplotlib): no plot", file=sys.stderr)
        return 0
    fig, ax = plt.subplots(figsize=(5, 5))
    for g, s in zip(valid, scores):
        # Scores rank within a graph; standardise them per graph to share one axis.
        ax.scatter(g.runtimes, (s - s.mean()) / (s.std() or 1), s=4, alpha=0.5)
    ax.set_xscale("log")
    ax.set_xlabel("measured runtime (normalised to the default configuration)")
    ax.set_ylabel("predicted cost (standardised per graph)")
    ax.set_title(f"tile:xla valid, mean Kendall tau {np.nanmean(taus):.3f}")
    path = os.path.join(args.out, "predicted_vs_measured.png")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
