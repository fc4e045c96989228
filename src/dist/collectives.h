// What training and scoring exchange between the ranks of a Group: a batch's gradients in one
// flat buffer, the initial weights, per-graph results, and a check that every rank was started
// with the same options and data. Nothing else crosses the network: every rank reads its data
// from its own copy.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "data/collection.h"
#include "dist/group.h"

namespace graphcost::dist {

// The items [first, end) of `count` that a rank computes: contiguous, disjoint, covering all,
// differing in size by at most one (ranks past the count get none).
std::pair<int64_t, int64_t> share_of(int64_t count, int rank, int world_size);

// Sums, over the ranks, each rank's share of a batch's loss (a scalar) and the parameters'
// gradients, in one flat allreduce; `stop` travels with them, and the result says whether any
// rank asked to stop, so that every rank stops after the same step. A gradient left undefined
// on every rank stays undefined (the optimiser then skips that parameter, as in one process).
bool sum_loss_and_gradients(Group& group, torch::Tensor& loss,
                            const std::vector<torch::Tensor>& parameters, bool stop);

// Copies rank 0's values of the tensors (parameters, buffers) to every rank, in one flat buffer.
void broadcast_from_leader(Group& group, const std::vector<torch::Tensor>& tensors);

// rows[i] is computed by rank group.owner(i) only; afterwards every rank holds every row (the
// doubles travel as their bytes, so each row is exactly its owner's).
void all_gather_rows(Group& group, std::vector<std::vector<double>>& rows);

// An Error on every rank when `text` is not the same on all of them: "what" names it
// ("options", "data") and the message lists the ranks that differ from rank 0.
void check_same_on_every_rank(Group& group, const std::string& what, const std::string& text);

// A fingerprint of a collection's contents: graph names, sizes, features, configurations and
// runtimes (FNV-1a over their bytes); two ranks with the same fingerprint read the same data.
std::string collection_digest(const data::Collection& collection);
// The same fingerprint of any bytes (a model file).
std::string bytes_digest(const std::string& bytes);

}  // namespace graphcost::dist
