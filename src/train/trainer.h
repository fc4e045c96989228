// Training a run in one call: a training session (train/session.h) stepped to its end, for code
// that holds its options and data already (tests, benchmarks). The front-ends build a
// SessionRequest and drive the session themselves.
#pragma once

#include <string>

#include "data/collection.h"
#include "dist/group.h"
#include "train/interrupt.h"
#include "train/options.h"
#include "train/session.h"

namespace graphcost::train {

// Trains on train_set, validating on valid_set (may be null), writing into run_dir (created when
// missing; whatever it holds is written over). resume: continue from run_dir's checkpoint with its
// stored options; only the resume-free ones (iterations, threads, share_rows, the data paths) are
// taken from options, so a finished run can be extended, on other threads, from data that has
// moved. group and observer: as Session and train(Session&, observer).
TrainResult train(const TrainOptions& options, const data::Collection& train_set,
                  const data::Collection* valid_set, const std::string& run_dir, bool resume,
                  dist::Group* group = nullptr, const IterationObserver& observer = nullptr);

}  // namespace graphcost::train
