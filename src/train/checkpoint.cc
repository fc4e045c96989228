#include "train/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>

#include <exception>
#include <mutex>

#include "core/atomic_file.h"
#include "core/error.h"
#include "io/npz.h"

namespace graphcost::train {

namespace {


void save_archive(torch::serialize::OutputArchive& archive, const std::string& path) {
  AtomicFile file(path);
  // LibTorch's zip writer must not see an exception (a full disk): one thrown through it leaves
  // the writer inconsistent and its destructor aborts the process ("unexpected pos"). The first
  // failed write is kept, the rest of the archive is skipped, and the error is raised once the
  // writer is done; AtomicFile then removes the temporary file.
  std::exception_ptr failed;
  archive.save_to([&](const void* data, size_t bytes) {
    if (!failed) {
      try {
        file.write(data, bytes);
      } catch (...) {
        failed = std::current_exception();
      }
    }
    return bytes;
  });
  if (failed) std::rethrow_exception(failed);
  file.commit();
}

void load_archive(torch::serialize::InputArchive& archive, const std::string& path) {
  try {
    archive.load_from(path);
  } catch (const c10::Error& e) {
    throw Error(path, "", "cannot read as a graphcost checkpoint or model: " + e.msg());
  }
  // LibTorch reads a damaged archive without checking its CRCs: garbage weights, no error.
  io::verify_zip_archive(path);
}

std::string read_string(torch::serialize::InputArchive& archive, const std::string& key,
                        const std::string& path) {
  c10::IValue value;
  check_data(archive.try_read(key, value) && value.isString(), path, key,
             "missing or not a string");
  return value.toStringRef();
}

int64_t read_int(torch::serialize::InputArchive& archive, const std::string& key,
                 const std::string& path) {
  c10::IValue value;
  check_data(archive.try_read(key, value) && value.isInt(), path, key, "missing or not an integer");
  return value.toInt();
}

nlohmann::json parse_json(const std::string& text, const std::string& path,
                          const std::string& key) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, key, std::string("not valid JSON: ") + e.what());
  }
}

void load_model_weights(torch::serialize::InputArchive& archive, model::Ranker& model,
                        const std::string& path) {
  torch::serialize::InputArchive weights;
  check_data(archive.try_read("model", weights), path, "model", "missing");
  try {
    model->load(weights);
  } catch (const c10::Error& e) {
    throw Error(path, "model", "weights do not match the model options: " + e.msg());
  }
}

}  // namespace

void save_checkpoint(const std::string& path, model::Ranker& model,
                     torch::optim::Optimizer& optimizer, const CheckpointState& state,
                     const WeightAverage* average, const SegmentTrainer* segments) {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive weights, optimizer_state;
  model->save(weights);
  optimizer.save(optimizer_state);
  archive.write("model", weights);
  archive.write("optimizer", optimizer_state);
  archive.write("iteration", c10::IValue(state.iteration));
  archive.write("next_batch", c10::IValue(state.next_batch));
  nlohmann::json options = state.options;
  archive.write("options", c10::IValue(options.dump()));
  if (average) average->save(archive);
  if (segments) segments->save(archive);
  {
    // Dropout draws from LibTorch's default generator: without its state a resumed run with
    // dropout would diverge from an uninterrupted one.
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write("torch_rng", generator.get_state(), /*is_buffer=*/true);
  }
  save_archive(archive, path);
}

TrainOptions read_checkpoint_options(const std::string& path) {
  torch::serialize::InputArchive archive;
  load_archive(archive, path);
  TrainOptions options;
  from_json(parse_json(read_string(archive, "options", path), path, "options"), options);
  return options;
}

CheckpointState load_checkpoint(const std::string& path, model::Ranker& model,
                                torch::optim::Optimizer& optimizer, WeightAverage* average,
                                SegmentTrainer* segments) {
  torch::serialize::InputArchive archive;
  load_archive(archive, path);
  CheckpointState state;
  from_json(parse_json(read_string(archive, "options", path), path, "options"), state.options);
  state.iteration = read_int(archive, "iteration", path);
  state.next_batch = read_int(archive, "next_batch", path);
  load_model_weights(archive, model, path);
  torch::serialize::InputArchive optimizer_state;
  check_data(archive.try_read("optimizer", optimizer_state), path, "optimizer", "missing");
  try {
    optimizer.load(optimizer_state);
  } catch (const c10::Error& e) {
    throw Error(path, "optimizer", "state does not match the optimizer: " + e.msg());
  }
  if (average) average->load(archive, path);
  if (segments) segments->load(archive, path);
  torch::Tensor rng;
  if (archive.try_read("torch_rng", rng, /*is_buffer=*/true)) {
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(rng);
  }
  return state;
}


}  // namespace graphcost::train
