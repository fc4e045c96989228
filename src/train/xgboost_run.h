// `train` on Kernel Tuner records, or with --model xgboost: an XGBoost run instead of the neural
// model, for the CLI and Python front-ends alike (train::choose_model decides which).
#pragma once

#include <string>
#include <vector>

#include "train/options.h"

namespace graphcost::train {

struct XgboostRunRequest {
  TrainOptions options;            // the data options, seed and threads are used
  std::vector<std::string> given;  // config.json keys given (model options by their own key)
  bool collection_given = false;
  std::string requested = "auto";  // the model asked for: auto or xgboost
  bool as_flags = true;            // errors name options as flags, else as keyword arguments
  std::string out;
  bool overwrite = false;
  std::string writer;  // who holds the folder's lock
};

// Refuses (an Error naming the first) the options given that XGBoost cannot take, says on stderr
// why XGBoost when auto chose it, and trains XGBoost's defaults into the run folder.
void run_xgboost(const XgboostRunRequest& request);

}  // namespace graphcost::train
