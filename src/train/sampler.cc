#include "train/sampler.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "core/error.h"
#include "train/options.h"

namespace graphcost::train {

SamplerOptions TrainOptions::sampler() const {
  SamplerOptions s;
  s.graphs_per_batch = graphs_per_batch;
  s.slate_size = slate_size;
  s.seed = seed;
  return s;
}


std::vector<int64_t> sample_without_replacement(Random& random, int64_t n, int64_t k) {
  std::vector<int64_t> out;
  if (n <= k) {
    for (int64_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  // Floyd: for j = n-k .. n-1 draw t in [0, j]; take t, or j when t is already taken. Every
  // k-subset is equally likely and it costs O(k) whatever n is.
  std::unordered_set<int64_t> taken;
  for (int64_t j = n - k; j < n; ++j) {
    const int64_t t = static_cast<int64_t>(random.below(static_cast<uint64_t>(j + 1)));
    const int64_t pick = taken.count(t) ? j : t;
    taken.insert(pick);
    out.push_back(pick);
  }
  return out;
}

int64_t Batch::configs() const {
  int64_t total = 0;
  for (const auto& slate : slates) total += static_cast<int64_t>(slate.config_indices.size());
  return total;
}

GraphTensorCache::GraphTensorCache(const data::Collection& collection,
                                   const model::GraphFeatureOptions& features)
    : collection_(collection), features_(features), slots_(new Slot[collection.size()]) {}

const model::GraphTensors& GraphTensorCache::get(int64_t g) {
  Slot& slot = slots_[g];
  std::call_once(slot.once, [&] {
    slot.tensors = std::make_unique<model::GraphTensors>(
        model::make_graph_tensors(collection_.graph(g), features_));
  });
  return *slot.tensors;
}

Sampler::Sampler(const data::Collection& collection, GraphTensorCache& cache,
                 const SamplerOptions& options, int64_t first_batch)
    : collection_(collection), cache_(cache), options_(options), next_index_(first_batch) {
  const std::string where = "sampler (" + collection.id().str() + " " + collection.split() + ")";
  check_data(options.graphs_per_batch > 0, where, "graphs_per_batch", "must be at least 1");
  check_data(options.slate_size > 1, where, "slate_size", "must be at least 2 to rank");
  for (int64_t g = 0; g < collection.size(); ++g) {
    const data::ConfigView configs = collection.configs(g);
    check_data(configs.has_runtimes(), where, collection.source(g), "no runtimes to train on");
    if (configs.count >= 2) eligible_.push_back(g);
  }
  check_data(!eligible_.empty(), where, "graphs", "no graph with at least 2 configurations");
  options_.prefetch = std::max<int64_t>(1, options_.prefetch);
  worker_ = std::thread([this] { produce(); });
}

Sampler::~Sampler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

Batch Sampler::make_batch(int64_t k) {
  Random random = random_stream(options_.seed, static_cast<uint64_t>(k));
  Batch batch;
  batch.index = k;
  for (int64_t i = 0; i < options_.graphs_per_batch; ++i) {
    const int64_t g = eligible_[random.below(eligible_.size())];
    const data::ConfigView configs = collection_.configs(g);
    std::vector<int64_t> chosen =
        sample_without_replacement(random, configs.count, options_.slate_size);
    model::Slate slate = model::make_slate(cache_.get(g), configs, chosen);
    slate.graph_index = g;
    batch.slates.push_back(std::move(slate));
  }
  return batch;
}

void Sampler::produce() {
  int64_t k = next_index_;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(
          lock, [&] { return stop_ || static_cast<int64_t>(ready_.size()) < options_.prefetch; });
      if (stop_) return;
    }
    try {
      Batch batch = make_batch(k++);
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.push_back(std::move(batch));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      failure_ = std::current_exception();
      changed_.notify_all();
      return;
    }
    changed_.notify_all();
  }
}

Batch Sampler::next() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || failure_; });
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (ready_.empty()) std::rethrow_exception(failure_);
  Batch batch = std::move(ready_.front());
  ready_.pop_front();
  ++next_index_;
  lock.unlock();
  changed_.notify_all();
  return batch;
}

}  // namespace graphcost::train
