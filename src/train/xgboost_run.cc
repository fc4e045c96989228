#include "train/xgboost_run.h"

#include <cstdio>

#include "core/error.h"
#include "core/option_table.h"
#include "io/collection_readers.h"
#include "xgb/run_writer.h"

namespace graphcost::train {

void run_xgboost(const XgboostRunRequest& r) {
  auto name = [&](const std::string& key) { return r.as_flags ? flag_of_key(key) : key; };
  const std::string gnn = r.as_flags ? "--model gnn" : "model='gnn'";
  const std::string why =
      r.requested == "auto"
          ? "Kernel Tuner records train XGBoost by default; add " + gnn +
                " for the neural model, or use `graphcost xgb train` for XGBoost's own options"
          : "not an option of XGBoost here; use `graphcost xgb train` for XGBoost's own options";
  const std::vector<std::string> refused = keys_not_for_xgboost(r.given);
  if (!refused.empty())
    throw Error("train", name(refused.front()), "a neural model's option: " + why);
  const bool tabular = io::is_kernel_tuner_source(r.options.data, r.options.split);
  xgb::XgbOptions options = xgboost_options(r.options);
  if (tabular) {
    // The setting the held-out-device protocol chose on 6 of its 8 folds (docs/xgboost.md).
    options.eta = 0.3;
    options.subsample = 0.8;
  }
  if (r.requested == "auto")
    std::fprintf(stderr,
                 "train: Kernel Tuner records: training XGBoost (%lld rounds, depth %lld, eta %g, "
                 "subsample %g), which ranks a device held out of the training data better than "
                 "the neural model does (docs/kernel-tuner.md); %s for the neural model\n",
                 static_cast<long long>(options.rounds), static_cast<long long>(options.max_depth),
                 options.eta, options.subsample, gnn.c_str());
  // Not named: a collection folder's own, else tile:xla for Kernel Tuner records (the kind their
  // reader gives), else the default.
  data::CollectionId id = data::CollectionId::parse(r.options.collection);
  if (!r.collection_given) {
    if (const auto named = data::collection_id_in_path(r.options.data)) {
      id = *named;
    } else if (tabular) {
      id = data::CollectionId::parse(tabular_defaults().collection);
    }
  }
  xgb::train_run(r.options, id, options, r.out, r.overwrite, r.writer, "train");
}

}  // namespace graphcost::train
