// A trained ranker on disk: its options (as JSON) and weights in one LibTorch archive.
#pragma once

#include <string>

#include "model/forward/ranker.h"

namespace graphcost::model {

// Saves options (as JSON) and weights in one LibTorch archive, written atomically.
void save_model(Ranker& model, const std::string& path);
// Loads a model saved by save_model; a missing or malformed file is an Error naming it.
Ranker load_model(const std::string& path);

}  // namespace graphcost::model
