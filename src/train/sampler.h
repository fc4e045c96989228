// The training sampler: seeded batches of G graphs (uniform over graphs, with replacement),
// each with a slate of S distinct configurations (uniform without replacement; all of them when
// a graph has fewer than S), as model::Slate. A background thread prepares the next batches
// while the current one trains. Batch k depends only on (seed, k), so the sequence is the same
// for any thread count and a run resumes exactly from the index of its next batch.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/random.h"
#include "data/collection.h"
#include "model/forward/graph_tensors.h"

namespace graphcost::train {

using graphcost::Random;  // core/random.h
using graphcost::random_stream;

// k distinct indices drawn uniformly from [0, n) (Floyd's algorithm), in draw order; all of
// [0, n) in order when n <= k.
std::vector<int64_t> sample_without_replacement(Random& random, int64_t n, int64_t k);

struct SamplerOptions {
  int64_t graphs_per_batch = 4;  // G
  int64_t slate_size = 10;       // S
  uint64_t seed = 0;
  int64_t prefetch = 2;  // batches prepared ahead (1 or 2 is enough)
};

struct Batch {
  int64_t index = 0;  // k: the batch's position in the sequence
  std::vector<model::Slate> slates;
  int64_t configs() const;  // total configurations over the slates
};

// Builds and caches each graph's tensors once, with the run's feature options; thread-safe.
class GraphTensorCache {
 public:
  explicit GraphTensorCache(const data::Collection& collection,
                            const model::GraphFeatureOptions& features = {});
  const model::GraphTensors& get(int64_t g);

 private:
  // Each graph's tensors are built once, on the first get(g), by the thread that asks first;
  // threads asking for other graphs meanwhile do not wait (validation builds them one per core).
  struct Slot {
    std::once_flag once;
    std::unique_ptr<model::GraphTensors> tensors;
  };
  const data::Collection& collection_;
  model::GraphFeatureOptions features_;
  std::unique_ptr<Slot[]> slots_;
};

class Sampler {
 public:
  // The collection must outlive the sampler and carry runtimes; graphs with fewer than 2
  // configurations are never drawn (an Error when none is left).
  Sampler(const data::Collection& collection, GraphTensorCache& cache,
          const SamplerOptions& options, int64_t first_batch = 0);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // The next batch, waiting for the background thread when it is not ready yet.
  Batch next();
  // The index of the batch next() returns next: the sampler's whole state, for checkpoints.
  int64_t next_index() const { return next_index_; }
  // Seconds next() spent waiting for data so far.
  double wait_seconds() const { return wait_seconds_; }
  // Batch k computed directly on the calling thread (what next() returns for k).
  Batch make_batch(int64_t k);

 private:
  void produce();

  const data::Collection& collection_;
  GraphTensorCache& cache_;
  SamplerOptions options_;
  std::vector<int64_t> eligible_;  // graphs with at least 2 configurations
  int64_t next_index_ = 0;
  double wait_seconds_ = 0;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;
  std::exception_ptr failure_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace graphcost::train
