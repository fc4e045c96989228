#include "serve/rank_service.h"

#include <mutex>

#include "core/error.h"
#include "data/validate.h"
#include "eval/metrics.h"
#include "infer/stack.h"
#include "run/run_folder.h"
#include "serve/http_error.h"

namespace graphcost::serve {

namespace {

bool valid_model_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

// The run's config.json and the last line of its metrics.jsonl (null where absent or damaged:
// loading the model already checked what scoring needs).
nlohmann::json describe_run(const ServedModel& model, const std::string& run_dir) {
  const run::RunFolder folder(run_dir);
  nlohmann::json options = nullptr;
  try {
    if (const auto text = folder.config_text()) options = nlohmann::json::parse(*text);
  } catch (const std::exception&) {
  }
  const nlohmann::json training = folder.last_metrics();
  return {{"name", model.name},
          {"collection", model.collection.str()},
          {"model_type", infer::run_kind(model.run)},
          {"mc_dropout", model.mc_dropout},
          {"options", options},
          {"training", training}};
}

// The widths the model was trained on, which a request's graph must have.
void check_fits_model(const ServedModel& model, const data::GraphRecord& record) {
  const data::ConfigKind kind = model.collection.kind;
  if (record.configs.kind != kind) {
    throw HttpError(kBadRequest,
                    "model '" + model.name + "' ranks " + data::config_kind_name(kind) +
                        " configurations (" + model.collection.str() + "), the request holds " +
                        data::config_kind_name(record.configs.kind) + " ones");
  }
  int64_t node_width = 0, config_width = 0;
  // A stack's members all read the data it was fitted on: the first one's widths are its.
  const infer::TrainedModel& run = model.run.stack ? model.run.stack->members.front() : model.run;
  if (run.xgb) {
    node_width = run.xgb->options().features.node_feature_width;
    config_width = run.xgb->options().features.config_width;
  } else {
    node_width = run.ranker->options().node_feature_width;
    config_width = run.ranker->options().config_width;
  }
  if (record.graph.feature_width != node_width)
    throw HttpError(kBadRequest, "request: node_feat: " + std::to_string(record.graph.feature_width) +
                                     " feature columns, model '" + model.name + "' takes " +
                                     std::to_string(node_width));
  if (record.configs.width != config_width)
    throw HttpError(kBadRequest,
                    std::string("request: ") +
                        (kind == data::ConfigKind::Tile ? "config_feat" : "node_config_feat") +
                        ": " + std::to_string(record.configs.width) +
                        " configuration columns, model '" + model.name + "' takes " +
                        std::to_string(config_width));
}

}  // namespace

nlohmann::json to_json(const Ranking& ranking) {
  nlohmann::json out = {{"model", ranking.model},
                        {"graph", ranking.graph},
                        {"configurations", ranking.scores.size()},
                        {"scores", ranking.scores},
                        {"order", ranking.order}};
  if (!ranking.spread.empty()) out["spread"] = ranking.spread;
  return out;
}

RankService::RankService(const std::vector<std::pair<std::string, std::string>>& models) {
  for (const auto& [name, run_dir] : models) {
    check_data(valid_model_name(name), "--model", name,
               "a model name is 1 to 64 of A-Z a-z 0-9 . _ -");
    check_data(!models_.count(name), "--model", name, "given twice");
    ServedModel model;
    model.name = name;
    model.run = infer::load_run(run_dir);
    check_data(!model.run.collection.empty(), run_dir, "collection",
               "the run names no collection (config.json), so its kind is unknown");
    model.collection = data::CollectionId::parse(model.run.collection);
    model.load.merge_duplicates = false;  // as predict: indices are the request's own
    infer::apply_run_pruning({model.run}, {run_dir}, infer::kRunPruning, model.load);
    // Eval mode once for good: the scoring guards then restore eval mode, whoever finishes last.
    if (model.run.ranker) model.run.ranker->train(false);
    model.mc_dropout = model.run.ranker && model.run.ranker->options().dropout > 0;
    model.description = describe_run(model, run_dir);
    models_.emplace(name, std::move(model));
  }
}

std::vector<std::string> RankService::names() const {
  std::vector<std::string> out;
  for (const auto& entry : models_) out.push_back(entry.first);
  return out;
}

nlohmann::json RankService::describe() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& entry : models_) list.push_back(entry.second.description);
  return {{"models", list}};
}

void RankService::check_served(const std::string& name) const {
  if (models_.count(name)) return;
  std::string valid;
  for (const auto& entry : models_) valid += (valid.empty() ? "" : ", ") + entry.first;
  throw HttpError(kNotFound, "no model '" + name + "' (served: " + valid + ")");
}

Ranking RankService::rank(const std::string& name, RankRequest request) {
  check_served(name);
  ServedModel& model = models_.at(name);
  data::GraphRecord& record = request.record;
  check_fits_model(model, record);
  const std::string graph_name = record.graph.name;
  try {
    data::prepare_record(record, model.load);
  } catch (const Error& e) {
    throw HttpError(kBadRequest, e.what());
  }
  const int64_t mc_samples = request.options.mc_samples;
  if (mc_samples > 0 && !model.mc_dropout)
    throw HttpError(kBadRequest, "mc_samples: model '" + name +
                                     "' has no dropout (train it with --dropout for a spread)");
  std::vector<data::GraphRecord> records;
  records.push_back(std::move(record));
  const data::MemoryCollection collection(model.collection, "request", std::move(records));
  infer::Scorer scorer;  // predict's defaults: slate size, ensemble, anchors
  scorer.runs = {&model.run};
  scorer.mc_samples = mc_samples;
  scorer.seed = request.options.seed;
  std::vector<std::vector<double>> spreads;
  std::vector<eval::GraphScores> scores;
  try {
    // XGBoost has threads of its own; a stack sets its neural members' modes as it scores.
    if (mc_samples > 0 || !model.run.ranker) {
      std::unique_lock<std::shared_mutex> lock(exclusive_scoring_);
      scores = infer::score_collection(scorer, collection, 0, mc_samples > 0 ? &spreads : nullptr);
    } else {
      std::shared_lock<std::shared_mutex> lock(exclusive_scoring_);
      scores = infer::score_collection(scorer, collection, 0, nullptr);
    }
  } catch (const Error& e) {  // the model refused the graph (an opcode beyond its table...)
    throw HttpError(kBadRequest, e.what());
  }
  Ranking ranking;
  ranking.model = name;
  ranking.graph = graph_name;
  ranking.scores = std::move(scores.at(0).predicted);
  ranking.order = eval::rank_fastest_first(ranking.scores);
  if (!spreads.empty()) ranking.spread = std::move(spreads[0]);
  return ranking;
}

}  // namespace graphcost::serve
