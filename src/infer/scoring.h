// The inference layer: one interface for scoring configurations with a trained run (a neural
// ranker, an XGBoost ranker, or an ensemble of them) or a baseline. The strategy a neural run
// scores by (plain slates, anchored attention, test-time augmentation, MC dropout, segments) is
// chosen here, and so is how a collection's graphs are spread over the cores. eval, predict,
// training's validation and tune's model-guided search all score through this layer; the CLI
// keeps only flags and printing (cli/scoring.h: add_scoring_options).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/collection.h"
#include "dist/group.h"
#include "eval/summary.h"
#include "infer/scoring_options.h"
#include "model/forward/ranker.h"
#include "model/forward/segments.h"
#include "run/run_config.h"
#include "xgb/ranker.h"

namespace graphcost::infer {

struct StackModel;  // infer/stack.h

// A trained model loaded from a run folder (run::RunFolder, the files on disk): the model (a
// neural ranker, an XGBoost ranker when config.json says "model_type": "xgboost", or a stack of
// member runs for "stack") and the data settings it was trained with.
struct TrainedModel {
  model::Ranker ranker{nullptr};
  std::shared_ptr<const xgb::XgbRanker> xgb;  // set instead of ranker for XGBoost runs
  std::shared_ptr<StackModel> stack;          // set instead of ranker for stacked runs
  std::string collection;  // the collection id the run was trained on ("" when unknown)
  int prune_hops = -1;      // the pruning the run trained with (-1: none)
  std::string prune_seeds = "all";
  int64_t slate_size = 0;  // the training slate size from config.json (0 when unknown)
  std::string dir;         // the run folder, for messages
};

// Loads RUN_DIR/model.pt (RUN_DIR/model.xgb for an XGBoost run, the members and meta-learner
// for a stacked run: infer/stack.h) and, from RUN_DIR/config.json (run/run_config.h), the
// collection id and pruning.
TrainedModel load_run(const std::string& run_dir);

// "neural", "xgboost" or "stack": what a loaded run is, for descriptions.
const char* run_kind(const TrainedModel& run);

// An Error naming the run when a run was trained on configurations of another kind than
// collection `id` holds (a tile model asked to score layout:xla:random).
void check_runs_kind(const std::vector<TrainedModel>& runs, const std::vector<std::string>& run_dirs,
                     const data::CollectionId& id);

// An Error naming `where` (the graph's file) and the run when a graph's node features or
// configurations are not as wide as the run's model was trained on: the check the model's own
// input checks would make later, without the file's name.
void check_run_fits(const TrainedModel& run, const data::Graph& graph, const data::ConfigView& configs,
                    const std::string& where);

// Sets load's pruning to the runs' (which must agree), or to prune_hops when it is not
// kRunPruning.
void apply_run_pruning(const std::vector<TrainedModel>& runs, const std::vector<std::string>& run_dirs,
                       int prune_hops, data::LoadOptions& load);

// Loads several runs (an ensemble) and returns them with the collection they agree on ("" when
// none names one); runs trained on different collections are an Error naming both.
std::vector<TrainedModel> load_runs(const std::vector<std::string>& run_dirs, std::string& collection);

// A neural model file for tuning: RUN_DIR/model.pt, or the .pt file itself. An XGBoost run is
// an Error (it has no weights to fine-tune).
model::Ranker load_neural_model(const std::string& path);

// How to score: one or several runs (an ensemble, see eval/ensemble.h), or a baseline
// ("random", or "default" for tile: the compiler's default configuration first, i.e. the one
// whose runtime equals its normaliser).
struct Scorer : ScoringOptions {
  Scorer() = default;
  // Scores with every run of runs (which must outlive the scorer) as options say.
  Scorer(const ScoringOptions& options, std::vector<TrainedModel>& runs) : ScoringOptions(options) {
    for (TrainedModel& run : runs) this->runs.push_back(&run);
  }
  std::vector<TrainedModel*> runs;
  std::string baseline;
  // Across processes (docs/distributed.md): each rank scores the graphs it owns and every rank
  // returns every graph's scores, the same as one process's. Null: this process scores all.
  dist::Group* group = nullptr;
};

// Which configurations of a collection score_collection scores, and how it reads them: the
// defaults are eval's; validation during training (train/session.h) sets the others.
struct CollectionScoring {
  // A seeded sample of at most max_configs configurations per graph, drawn in graph order from
  // the scorer's seed (0 = all).
  int64_t max_configs = 0;
  // Instead: each graph's configurations, sorted, one list per graph; a graph with none is not
  // scored (its GraphScores hold only its name).
  const std::vector<std::vector<int64_t>>* chosen = nullptr;
  // Neural runs draw graph g's anchor sample and TTA groupings from stream stream_base + g;
  // unset: a base mixed from the scorer's seed.
  std::optional<uint64_t> stream_base;
  // A neural run's tensors of graph g where they are at hand (training's cache); null: built
  // from the graph.
  std::function<const model::GraphTensors&(int64_t)> tensors;
  bool progress = true;  // the "score" progress line
};

// Scores every graph of the collection as `what` says. Shows a progress line. With
// mc_samples > 0 and spreads given, (*spreads)[g][i] is the MC-dropout standard deviation of
// configuration i of graph g (averaged over the neural runs; 0 for XGBoost runs).
std::vector<eval::GraphScores> score_collection(const Scorer& scorer, const data::Collection& c,
                                                const CollectionScoring& what,
                                                std::vector<std::vector<double>>* spreads = nullptr);
// All configurations, or a seeded sample of at most max_configs per graph (0 = all).
inline std::vector<eval::GraphScores> score_collection(
    const Scorer& scorer, const data::Collection& c, int64_t max_configs,
    std::vector<std::vector<double>>* spreads = nullptr) {
  CollectionScoring what;
  what.max_configs = max_configs;
  return score_collection(scorer, c, what, spreads);
}

// One graph's scores: a score per listed configuration (lower = faster), and with MC dropout
// the spread (standard deviation over the passes, averaged over the neural runs; empty
// otherwise).
struct GraphScoring {
  std::vector<double> scores;
  std::vector<double> spread;
};

// Scores configurations `indices` of one graph (all when empty) with the scorer's runs,
// combined as scorer.ensemble, or its baseline. `stream` numbers the graph among those scored
// with one seed (its index in a collection): it seeds the graph's anchor sample and TTA
// groupings. The same call score_collection makes per graph, so a graph alone (stream 0) scores
// exactly as the first graph of a collection does. For the Python module and the HTTP service.
GraphScoring score_graph(const Scorer& scorer, const data::Graph& graph,
                         const data::ConfigView& configs, const std::vector<int64_t>& indices,
                         int64_t stream = 0);

// How one neural model scores one graph, once the strategy is chosen.
struct NeuralScoring {
  int64_t slate_size = 256;  // configurations per forward pass
  int64_t anchors = 0;       // > 0, attention models: each configuration against these anchors
  int64_t tta = 0;           // > 0: mean over this many random slate groupings
  int64_t mc_samples = 0;    // > 0: mean (and spread) of this many MC-dropout passes
  uint64_t stream_seed = 0;  // the graph's anchor sample and TTA groupings
  uint64_t mc_seed = 0;      // the MC-dropout masks
};

// The anchors an attention model with the score head scores against by default: the
// training slate size - 1 (0: not anchored; not for pairwise heads or models trained by
// segments, nor when the training slate size is unknown).
int64_t default_anchors(const model::ModelOptions& options, int64_t training_slate_size,
                        bool segmented);

// A neural model's scores of one graph's listed configurations (all when empty) by `how`; with
// MC dropout, adds each configuration's spread to (*spread)[i] when spread is given. Segments:
// the graph as the model was trained by segments (null: whole). The caller sets eval mode and
// no-grad (MC dropout sets train mode itself).
std::vector<double> score_neural(model::Ranker& ranker, const model::GraphTensors& tensors,
                                 const model::SegmentedGraph* segments,
                                 const data::ConfigView& configs,
                                 const std::vector<int64_t>& indices, const NeuralScoring& how,
                                 std::vector<double>* spread = nullptr);

// MC dropout for a search loop: each listed configuration scored `samples` times, the copies
// sharing one slate (dropout draws its mask per element, so copies are independent passes), at
// most slate_size / samples configurations per forward pass, from LibTorch's default generator
// as it stands. Returns per configuration the mean and the population standard deviation.
std::pair<std::vector<double>, std::vector<double>> mc_dropout_in_slates(
    model::Ranker& ranker, const model::GraphTensors& graph, const data::ConfigView& configs,
    const std::vector<int64_t>& config_indices, int64_t samples, int64_t slate_size);

}  // namespace graphcost::infer
