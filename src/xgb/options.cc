// The field tables of XgbOptions and FeatureOptions.
#include "xgb/options.h"

#include <string>

#include "core/error.h"

namespace graphcost::xgb {

namespace {

constexpr const char* kXgbOptionsWhere = "xgboost options";
constexpr const char* kFeatureOptionsWhere = "xgboost features";

using X = XgbOptions;
using F = FeatureOptions;

std::string at_least(int64_t value, int64_t low) {
  return value >= low
             ? ""
             : "must be at least " + std::to_string(low) + ", got " + std::to_string(value);
}
std::string unit_interval(double value, bool zero_allowed) {
  const bool ok = (zero_allowed ? value >= 0.0 : value > 0.0) && value <= 1.0;
  return ok ? "" : zero_allowed ? "must be in [0, 1]" : "must be in (0, 1]";
}

// The configuration kind is stored by its name ("tile" or "layout").
nlohmann::json get_kind(const F& o) { return data::config_kind_name(o.kind); }
void set_kind(const nlohmann::json& value, F& o) {
  std::string kind;
  read_option_value(value, kind, kFeatureOptionsWhere, "kind");
  check_data(kind == "tile" || kind == "layout", kFeatureOptionsWhere, "kind",
             "expected \"tile\" or \"layout\", got \"" + kind + "\"");
  o.kind = kind == "tile" ? data::ConfigKind::Tile : data::ConfigKind::Layout;
}

const OptionField<F> kFeatureFields[] = {
    {"kind", "", OptionAccessor<F>{get_kind, set_kind}, "Configuration kind (from the data)"},
    {"node_feature_width", "", &F::node_feature_width, "Node feature columns (from the data)",
     [](const F& o) { return at_least(o.node_feature_width, 0); }},
    {"config_width", "", &F::config_width, "Configuration columns (from the data)",
     [](const F& o) { return at_least(o.config_width, 0); }},
    {"num_opcodes", "--num-opcodes", &F::num_opcodes, "Opcode histogram bins",
     [](const F& o) { return at_least(o.num_opcodes, 1); }},
    {"layout_nodes", "--layout-nodes", &F::layout_nodes,
     "Configurable nodes whose values are features of their own (layout)",
     [](const F& o) { return at_least(o.layout_nodes, 0); }},
};

// The features are a group of their own, nested in the JSON.
nlohmann::json get_features(const X& o) {
  nlohmann::json j;
  to_json(j, o.features);
  return j;
}
void set_features(const nlohmann::json& value, X& o) { from_json(value, o.features); }

const OptionField<X> kFields[] = {
    {"rounds", "--rounds", &X::rounds, "Boosting rounds (trees)",
     [](const X& o) { return at_least(o.rounds, 1); }},
    {"max_depth", "--max-depth", &X::max_depth, "Tree depth",
     [](const X& o) { return at_least(o.max_depth, 1); }},
    {"eta", "--eta", &X::eta, "Learning rate",
     [](const X& o) { return unit_interval(o.eta, true); }},
    {"subsample", "--subsample", &X::subsample, "Row subsample per tree",
     [](const X& o) { return unit_interval(o.subsample, false); }},
    {"colsample", "--colsample", &X::colsample, "Column subsample per tree",
     [](const X& o) { return unit_interval(o.colsample, false); }},
    // Recorded, not a flag: the relevance labels (how many configurations of the graph are
    // slower) suit rank:pairwise only; NDCG-style gains need small integer labels.
    {"objective", "", &X::objective, "XGBoost ranking objective",
     [](const X& o) {
       return o.objective == "rank:pairwise"
                  ? std::string()
                  : "\"" + o.objective +
                        "\" is not supported (only rank:pairwise suits the labels)";
     }},
    {"max_configs_per_graph", "--max-configs-per-graph,--max-configs", &X::max_configs_per_graph,
     "Seeded sample of configurations per graph (0: all)",
     [](const X& o) { return at_least(o.max_configs_per_graph, 0); }},
    {"seed", "--seed", &X::seed, "Random seed"},
    {"threads", "--threads", &X::threads, "Threads for XGBoost (<= 0: all cores)"},
    {"features", "", OptionAccessor<X>{get_features, set_features},
     "Feature rows (xgb/features.h)"},
};

}  // namespace

OptionTable<XgbOptions> xgb_option_fields() { return kFields; }
OptionTable<FeatureOptions> feature_option_fields() { return kFeatureFields; }

void check_xgb_options(const XgbOptions& options) {
  check_option_fields(xgb_option_fields(), options, kXgbOptionsWhere);
  check_option_fields(feature_option_fields(), options.features, kFeatureOptionsWhere);
}

void to_json(nlohmann::json& j, const XgbOptions& options) {
  j = nlohmann::json::object();
  write_option_fields(j, xgb_option_fields(), options);
}

void from_json(const nlohmann::json& j, XgbOptions& options) {
  read_option_fields(xgb_option_fields(), j, options, kXgbOptionsWhere);
}

void to_json(nlohmann::json& j, const FeatureOptions& options) {
  j = nlohmann::json::object();
  write_option_fields(j, feature_option_fields(), options);
}

void from_json(const nlohmann::json& j, FeatureOptions& options) {
  read_option_fields(feature_option_fields(), j, options, kFeatureOptionsWhere);
}

}  // namespace graphcost::xgb
