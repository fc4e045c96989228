// The XGBoost ranker's options (`xgb train`, the "xgboost" object of an XGBoost run's
// config.json) as option field tables (core/option_table.h): one row per field, from which its
// JSON, its check and its `xgb train` flag are derived. The feature part (xgb/features.h) is a
// group of its own, stored nested under "features".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/option_table.h"
#include "xgb/features.h"

namespace graphcost::xgb {

struct XgbOptions {
  int64_t rounds = 200;  // boosting rounds (trees)
  int64_t max_depth = 6;
  double eta = 0.1;  // learning rate
  double subsample = 1.0;
  double colsample = 1.0;  // colsample_bytree
  std::string objective = "rank:pairwise";
  int64_t max_configs_per_graph = 4000;  // seeded sample per query group (0 = all)
  uint64_t seed = 0;
  int threads = 0;          // 0: all cores
  FeatureOptions features;  // kind and widths are filled from the data when training
};

OptionTable<XgbOptions> xgb_option_fields();
OptionTable<FeatureOptions> feature_option_fields();

// Checks every field (the features' too); the first bad one is an Error("xgboost options", key,
// problem).
void check_xgb_options(const XgbOptions& options);

void to_json(nlohmann::json& j, const XgbOptions& options);
// Reads the keys present over the current values; an unknown key or a wrong type is an Error
// naming the key. Values are checked by check_xgb_options, not here.
void from_json(const nlohmann::json& j, XgbOptions& options);

void to_json(nlohmann::json& j, const FeatureOptions& options);
void from_json(const nlohmann::json& j, FeatureOptions& options);

}  // namespace graphcost::xgb
