// The ranking service behind the HTTP layer: the models loaded once at start-up, and one
// request's graph scored through the scoring API exactly as `predict` scores a file (the same
// validation, pruning and Scorer defaults), so the scores are bitwise the same.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "infer/scoring.h"
#include "data/collection.h"
#include "serve/rank_request.h"

namespace graphcost::serve {

// One model the service answers for: a trained run folder loaded under a name.
struct ServedModel {
  std::string name;
  infer::TrainedModel run;
  data::CollectionId collection;  // the collection the run was trained on
  data::LoadOptions load;         // predict's: the run's pruning, no duplicate merging
  bool mc_dropout = false;        // a neural run trained with dropout: MC dropout applies
  nlohmann::json description;     // what GET /v1/models says of it
};

// A graph's ranking: a score per configuration (lower = faster, as predict ranks them), the
// configuration indices fastest first, and with MC dropout each score's standard deviation.
struct Ranking {
  std::string model;
  std::string graph;
  std::vector<double> scores;
  std::vector<int64_t> order;
  std::vector<double> spread;  // empty without mc_samples
};
nlohmann::json to_json(const Ranking& ranking);

class RankService {
 public:
  // Loads every (name, run folder) pair. A name used twice or not of [A-Za-z0-9._-], a run that
  // cannot be loaded or that names no collection is an Error naming it.
  explicit RankService(const std::vector<std::pair<std::string, std::string>>& models);

  std::vector<std::string> names() const;
  // An HttpError 404 naming the served models when no model is called `name`.
  void check_served(const std::string& name) const;
  // {"models": [{"name", "collection", "model_type", "mc_dropout", "options", "training"}]}.
  nlohmann::json describe() const;
  // Scores the request's graph with model `name`. An unknown model is an HttpError 404; a graph
  // of the wrong kind or widths for the model, one that fails validation, or options the model
  // cannot honour (mc_samples without dropout) an HttpError 400. Safe to call from several
  // threads: MC-dropout and XGBoost scoring, which switch the model's mode or share a random
  // generator, run one at a time; the rest run in parallel.
  Ranking rank(const std::string& name, RankRequest request);

 private:
  std::map<std::string, ServedModel> models_;
  std::shared_mutex exclusive_scoring_;
};

}  // namespace graphcost::serve
