#include "dist/collectives.h"

#include <cstdio>
#include <cstring>

#include "core/error.h"

namespace graphcost::dist {

std::pair<int64_t, int64_t> share_of(int64_t count, int rank, int world_size) {
  const int64_t first = count * rank / world_size;
  const int64_t end = count * (rank + 1) / world_size;
  return {first, end};
}

bool sum_loss_and_gradients(Group& group, torch::Tensor& loss,
                            const std::vector<torch::Tensor>& parameters, bool stop) {
  torch::NoGradGuard no_grad;
  // One buffer, one allreduce: [gradients..., one "defined" count per parameter, loss, stop].
  int64_t gradient_values = 0;
  for (const torch::Tensor& p : parameters) gradient_values += p.numel();
  const int64_t tail = static_cast<int64_t>(parameters.size()) + 2;
  torch::Tensor flat = torch::zeros({gradient_values + tail}, torch::kFloat32);
  float* values = flat.data_ptr<float>();
  int64_t at = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const torch::Tensor& grad = parameters[i].grad();
    const int64_t n = parameters[i].numel();
    if (grad.defined()) {
      flat.narrow(0, at, n).copy_(grad.reshape({-1}));
      values[gradient_values + static_cast<int64_t>(i)] = 1;
    }
    at += n;
  }
  values[gradient_values + tail - 2] = loss.defined() ? loss.item<float>() : 0.0f;
  values[gradient_values + tail - 1] = stop ? 1.0f : 0.0f;
  group.allreduce_sum(flat);
  at = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const int64_t n = parameters[i].numel();
    if (values[gradient_values + static_cast<int64_t>(i)] > 0) {
      const torch::Tensor summed = flat.narrow(0, at, n).view(parameters[i].sizes());
      torch::Tensor& grad = parameters[i].mutable_grad();
      if (grad.defined()) {
        grad.copy_(summed);
      } else {
        grad = summed.clone();
      }
    }
    at += n;
  }
  loss = torch::tensor(values[gradient_values + tail - 2], torch::kFloat32);
  return values[gradient_values + tail - 1] > 0;
}

void broadcast_from_leader(Group& group, const std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> pieces;
  for (const torch::Tensor& t : tensors) pieces.push_back(t.detach().to(torch::kFloat64).reshape({-1}));
  if (pieces.empty()) return;
  // Doubles hold every float32 and int64 value a model keeps (counts stay far below 2^53).
  torch::Tensor flat = torch::cat(pieces);
  group.broadcast(flat, 0);
  int64_t at = 0;
  for (const torch::Tensor& t : tensors) {
    torch::Tensor target = t.detach();
    target.copy_(flat.narrow(0, at, t.numel()).view(t.sizes()));
    at += t.numel();
  }
}

void all_gather_rows(Group& group, std::vector<std::vector<double>>& rows) {
  // Each rank's payload: for each row it owns, in order, the row's length then its values.
  std::string mine;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (group.owner(static_cast<int64_t>(i)) != group.rank()) continue;
    const uint64_t length = rows[i].size();
    mine.append(reinterpret_cast<const char*>(&length), sizeof length);
    mine.append(reinterpret_cast<const char*>(rows[i].data()), length * sizeof(double));
  }
  const std::vector<std::string> all = group.allgather(mine);
  std::vector<size_t> offsets(all.size(), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    const int owner = group.owner(static_cast<int64_t>(i));
    const std::string& payload = all[static_cast<size_t>(owner)];
    size_t& at = offsets[static_cast<size_t>(owner)];
    uint64_t length = 0;
    check_data(at + sizeof length <= payload.size(), "distributed",
               "rank " + std::to_string(owner), "sent fewer rows than it owns");
    std::memcpy(&length, payload.data() + at, sizeof length);
    at += sizeof length;
    check_data(at + length * sizeof(double) <= payload.size(), "distributed",
               "rank " + std::to_string(owner), "sent a truncated row");
    rows[i].resize(length);
    std::memcpy(rows[i].data(), payload.data() + at, length * sizeof(double));
    at += length * sizeof(double);
  }
}

void check_same_on_every_rank(Group& group, const std::string& what, const std::string& text) {
  const std::vector<std::string> all = group.allgather(text);
  std::string differing;
  for (size_t r = 1; r < all.size(); ++r) {
    if (all[r] != all[0]) differing += (differing.empty() ? "" : ", ") + std::to_string(r);
  }
  check_data(differing.empty(), "distributed", what,
             "rank(s) " + differing + " were started with other " + what +
                 " than rank 0; every rank must run the same command on the same data");
}

namespace {

struct Fnv1a {
  uint64_t hash = 1469598103934665603ULL;
  void add(const void* bytes, size_t size) {
    const auto* p = static_cast<const unsigned char*>(bytes);
    for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 1099511628211ULL;
  }
  template <typename T>
  void add_value(const T& value) {
    add(&value, sizeof value);
  }
  template <typename T>
  void add_vector(const std::vector<T>& values) {
    add_value(values.size());
    add(values.data(), values.size() * sizeof(T));
  }
};

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::string collection_digest(const data::Collection& collection) {
  // Everything small in full; of the large arrays (node features, configuration features) the
  // first and last rows, which catch another file, another pruning or another feature set
  // without reading gigabytes at start.
  Fnv1a fnv;
  const std::string id = collection.id().str() + "/" + collection.split();
  fnv.add(id.data(), id.size());
  fnv.add_value(collection.size());
  for (int64_t g = 0; g < collection.size(); ++g) {
    const data::Graph& graph = collection.graph(g);
    fnv.add(graph.name.data(), graph.name.size());
    fnv.add_value(graph.num_nodes);
    fnv.add_value(graph.feature_width);
    fnv.add_vector(graph.opcodes);
    fnv.add_vector(graph.edges);
    fnv.add_vector(graph.configurable_nodes);
    if (graph.num_nodes > 0) {
      fnv.add(graph.features(0), graph.feature_width * sizeof(float));
      fnv.add(graph.features(graph.num_nodes - 1), graph.feature_width * sizeof(float));
    }
    const data::ConfigView configs = collection.configs(g);
    fnv.add_value(configs.count);
    fnv.add_value(configs.nodes);
    fnv.add_value(configs.width);
    if (configs.runtimes) fnv.add(configs.runtimes, configs.count * sizeof(double));
    if (configs.count > 0) {
      for (int64_t j : {int64_t{0}, configs.count - 1}) {
        if (configs.tile) fnv.add(configs.tile_config(j), configs.width * sizeof(float));
        if (configs.layout) fnv.add(configs.layout_config(j), configs.nodes * configs.width);
      }
    }
  }
  return hex(fnv.hash);
}

std::string bytes_digest(const std::string& bytes) {
  Fnv1a fnv;
  fnv.add(bytes.data(), bytes.size());
  return hex(fnv.hash);
}

}  // namespace graphcost::dist
