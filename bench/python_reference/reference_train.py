#!/usr/bin/python3
"""Plain PyTorch reference of graphcost's default layout model, written the way the field's
TpuGraphs code is written: numpy loading of the .npz files, a batch of S copies of the full
graph per slate (one per configuration), index_add-based mean aggregation, ListMLE, Adam.

It trains for a fixed number of steps on a layout collection folder (the .npz files that
`graphcost synth` or the TpuGraphs release put under npz/layout/<space>/<search>/<split>/) and
prints `figure: reference_train_configs_per_s: X configs/s`. The model is the one of
src/model/ranker.{h,cc} with its defaults (docs/python-reference.md lists the correspondence).
"""
import argparse
import glob
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

LAYOUT_VALUES = 7  # one-hot over {-1, 0, ..., 5}


def load_graph(path):
    """One layout .npz as numpy arrays; node features compressed with sign(x) * log1p(|x|)."""
    with np.load(path) as z:
        feat = z["node_feat"].astype(np.float32)
        graph = {
            "name": os.path.basename(path)[:-4],
            "node_feat": np.sign(feat) * np.log1p(np.abs(feat)),
            "node_opcode": z["node_opcode"].astype(np.int64),
            "edge_index": z["edge_index"].astype(np.int64).reshape(-1, 2),
            "node_config_ids": z["node_config_ids"].astype(np.int64),
            "node_config_feat": z["node_config_feat"].astype(np.int8),
            "config_runtime": z["config_runtime"].astype(np.float64),
        }
    return graph


class SageLayer(nn.Module):
    """GraphSAGE: Linear(cat(self, mean over operands, mean over users)), leaky ReLU, residual
    when the widths match."""

    def __init__(self, width_in, width_out):
        super().__init__()
        self.linear = nn.Linear(3 * width_in, width_out)
        self.residual = width_in == width_out

    def forward(self, x, consumer, operand, operand_count, user_count):
        # edge (consumer, operand): the consumer reads the operand's output.
        operands = torch.zeros_like(x).index_add_(0, consumer, x[operand])
        users = torch.zeros_like(x).index_add_(0, operand, x[consumer])
        operands = operands / operand_count.clamp(min=1).unsqueeze(1)
        users = users / user_count.clamp(min=1).unsqueeze(1)
        h = F.leaky_relu(self.linear(torch.cat([x, operands, users], dim=1)), 0.01)
        return h + x if self.residual else h


class LayoutRanker(nn.Module):
    def __init__(self, node_feature_width, config_width, num_opcodes=256, opcode_embedding=12,
                 node_feature_dim=20, hidden=(146, 146, 146, 146)):
        super().__init__()
        self.opcode_embedding = nn.Embedding(num_opcodes, opcode_embedding)
        self.node_linear = nn.Linear(node_feature_width, node_feature_dim)
        # one-hot config values per column, plus the "is configured" flag
        self.config_input = config_width * LAYOUT_VALUES + 1
        width = opcode_embedding + node_feature_dim + self.config_input
        layers = []
        for h in hidden:
            layers.append(SageLayer(width, h))
            width = h
        self.layers = nn.ModuleList(layers)
        self.head = nn.Linear(width, 1)

    def forward(self, graph, config_feat):
        """Scores [S] of the S configurations config_feat [S, nc, Fc] of one graph: the full
        graph is copied once per configuration and run as one batch."""
        s = config_feat.shape[0]
        n = graph["opcode"].shape[0]
        node = torch.cat([self.opcode_embedding(graph["opcode"]),
                          self.node_linear(graph["node_feat"])], dim=1)  # [n, 32]
        one_hot = F.one_hot(config_feat.long() + 1, LAYOUT_VALUES).float().reshape(s, -1, self.config_input - 1)
        configured = torch.cat([one_hot, torch.ones(s, one_hot.shape[1], 1)], dim=2)
        config = torch.zeros(s, n, self.config_input)
        config[:, graph["config_ids"]] = configured
        x = torch.cat([node.unsqueeze(0).expand(s, n, node.shape[1]), config], dim=2)
        x = x.reshape(s * n, -1)
        # the batch of S copies: edges shifted by n per copy
        shift = (torch.arange(s) * n).unsqueeze(1)
        consumer = (graph["consumer"].unsqueeze(0) + shift).reshape(-1)
        operand = (graph["operand"].unsqueeze(0) + shift).reshape(-1)
        operand_count = graph["operand_count"].repeat(s)
        user_count = graph["user_count"].repeat(s)
        for layer in self.layers:
            x = layer(x, consumer, operand, operand_count, user_count)
        return self.head(x).reshape(s, n).sum(dim=1)


def to_torch(graph):
    edges = torch.from_numpy(graph["edge_index"])
    n = graph["node_opcode"].shape[0]
    consumer, operand = edges[:, 0].contiguous(), edges[:, 1].contiguous()
    return {
        "opcode": torch.from_numpy(graph["node_opcode"]),
        "node_feat": torch.from_numpy(graph["node_feat"]),
        "config_ids": torch.from_numpy(graph["node_config_ids"]),
        "consumer": consumer,
        "operand": operand,
        "operand_count": torch.bincount(consumer, minlength=n).float(),
        "user_count": torch.bincount(operand, minlength=n).float(),
    }


def list_mle(scores, runtimes, clip=100.0):
    """ListMLE as src/train/losses.cc: Plackett-Luce likelihood of the measured order (fastest
    first) under utilities -score; scores centred and scaled down when beyond clip."""
    s = scores - scores.mean()
    largest = s.abs().max()
    if largest.item() > clip:
        s = s * (clip / largest)
    order = torch.from_numpy(np.argsort(runtimes, kind="stable"))
    u = -s[order]
    tail = torch.logcumsumexp(u.flip(0), dim=0).flip(0)
    return (tail - u).sum()


def first_occurrences(config_feat):
    """Indices of the first copy of each distinct configuration, in file order."""
    flat = config_feat.reshape(config_feat.shape[0], -1)
    return np.sort(np.unique(flat, axis=0, return_index=True)[1])


def compare_with_run(model, graphs, tensors, run_dir):
    """Loads a graphcost run's weights (RUN_DIR/model.pt, same parameter names) and scores the
    configurations its valid_predictions.jsonl lists; returns the largest absolute difference."""
    saved = dict(torch.jit.load(os.path.join(run_dir, "model.pt")).named_parameters())
    renamed = {}
    for name in model.state_dict():
        source = name.replace("layers.", "sage").replace(".linear.", ".")
        renamed[name] = saved[source].detach()
    model.load_state_dict(renamed)
    by_name = {g["name"]: i for i, g in enumerate(graphs)}
    largest, compared = 0.0, 0
    with open(os.path.join(run_dir, "valid_predictions.jsonl")) as lines, torch.no_grad():
        for line in lines:
            record = json.loads(line)
            i = by_name[record["graph"]]
            # graphcost merges identical configurations on load, keeping the first of each, and
            # its indices count the distinct ones.
            distinct = first_occurrences(graphs[i]["node_config_feat"])
            chosen = distinct[np.array(record["config_indices"])]
            config_feat = torch.from_numpy(graphs[i]["node_config_feat"][chosen].astype(np.float32))
            scores = model(tensors[i], config_feat).double().numpy()
            expected = np.array(record["predicted"])
            largest = max(largest, float(np.max(np.abs(scores - expected) / np.maximum(1.0, np.abs(expected)))))
            compared += len(chosen)
    print(f"reference_train: {compared} scores compared with {run_dir}", file=sys.stderr)
    return largest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True,
                        help="layout collection folder of .npz files (e.g. ROOT/npz/layout/xla/random/train)")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--graphs-per-batch", type=int, default=4, help="G")
    parser.add_argument("--slate-size", type=int, default=10, help="S")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--grad-clip", type=float, default=1.0)
    parser.add_argument("--parameters-only", action="store_true",
                        help="print the parameter count for the data and exit")
    parser.add_argument("--compare-run", metavar="RUN_DIR",
                        help="score the configurations of RUN_DIR/valid_predictions.jsonl with "
                             "RUN_DIR/model.pt's weights, print the largest difference, and exit")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    paths = sorted(glob.glob(os.path.join(args.data, "*.npz")))
    if not paths:
        sys.exit(f"reference_train: error: no .npz files in {args.data}")
    graphs = [load_graph(p) for p in paths]
    graphs = [g for g in graphs if g["config_runtime"].shape[0] >= 2]
    if not graphs:
        sys.exit(f"reference_train: error: no graph in {args.data} has 2 configurations")
    tensors = [to_torch(g) for g in graphs]
    model = LayoutRanker(graphs[0]["node_feat"].shape[1], graphs[0]["node_config_feat"].shape[2])
    parameters = sum(p.numel() for p in model.parameters())
    print(f"reference_train: {len(graphs)} graphs, "
          f"{np.mean([g['node_opcode'].shape[0] for g in graphs]):.0f} nodes on average, "
          f"{parameters} parameters", file=sys.stderr)
    if args.parameters_only:
        print(f"figure: reference_parameters: {parameters}")
        return
    if args.compare_run:
        largest = compare_with_run(model, graphs, tensors, args.compare_run)
        print(f"figure: reference_vs_graphcost_max_relative_score_difference: {largest:.3g} ratio")
        return
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    configs = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    after_first = None  # (configs, wall, cpu) when the first step ended
    for step in range(args.steps):
        optimizer.zero_grad()
        total = 0.0
        for _ in range(args.graphs_per_batch):
            i = int(rng.integers(len(graphs)))
            count = graphs[i]["config_runtime"].shape[0]
            chosen = rng.choice(count, size=min(count, args.slate_size), replace=False)
            config_feat = torch.from_numpy(graphs[i]["node_config_feat"][chosen].astype(np.float32))
            scores = model(tensors[i], config_feat)
            total = total + list_mle(scores, graphs[i]["config_runtime"][chosen])
            configs += len(chosen)
        loss = total / args.graphs_per_batch
        loss.backward()
        if args.grad_clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        optimizer.step()
        print(f"reference_train: step {step + 1}/{args.steps} loss {loss.item():.4f} "
              f"({time.perf_counter() - start:.1f} s)", file=sys.stderr)
        if step == 0:
            after_first = (configs, time.perf_counter(), time.process_time())
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    print(f"figure: reference_train_configs_per_s: {configs / seconds:.3f} configs/s")
    # On a loaded machine wall time depends on the neighbours; CPU time much less so.
    print(f"figure: reference_train_configs_per_cpu_s: {configs / cpu_seconds:.3f} configs/cpu-s")
    if args.steps >= 2:
        # Without the first step, whose fresh memory costs a page fault per 4 KiB page (about
        # 10 us each on a virtual machine): the reference's best rate.
        steady = configs - after_first[0]
        print(f"figure: reference_train_steady_configs_per_s: "
              f"{steady / (time.perf_counter() - after_first[1]):.3f} configs/s")
        print(f"figure: reference_train_steady_configs_per_cpu_s: "
              f"{steady / (time.process_time() - after_first[2]):.3f} configs/cpu-s")


if __name__ == "__main__":
    main()
