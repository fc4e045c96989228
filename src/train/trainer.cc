#include "train/trainer.h"

namespace graphcost::train {

TrainResult train(const TrainOptions& options, const data::Collection& train_set,
                  const data::Collection* valid_set, const std::string& run_dir, bool resume,
                  dist::Group* group, const IterationObserver& observer) {
  SessionRequest request;
  request.run_dir = run_dir;
  request.resume = resume;
  request.reuse_folder = true;
  request.collection_given = true;
  request.apply_given = [&](TrainOptions& given) {
    if (resume) {
      apply_resume_changes(options, given);
    } else {
      given = options;
    }
  };
  Session session(request, train_set, valid_set, group);
  return train(session, observer);
}

}  // namespace graphcost::train
