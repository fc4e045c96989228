// Saving and loading a ranker: one LibTorch archive holding the weights and the options JSON.
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "io/npz.h"
#include "model/io/model_file.h"

namespace graphcost::model {

namespace {
const char* kOptionsKey = "graphcost_model_options";
}

void save_model(Ranker& model, const std::string& path) {
  torch::serialize::OutputArchive archive;
  model->save(archive);
  nlohmann::json options = model->options();
  archive.write(kOptionsKey, c10::IValue(options.dump()));
  std::ostringstream bytes;
  archive.save_to(bytes);
  write_file_atomically(path, bytes.str());
}

Ranker load_model(const std::string& path) {
  const std::string bytes = read_file(path);
  torch::serialize::InputArchive archive;
  try {
    std::istringstream stream(bytes);
    archive.load_from(stream);
  } catch (const c10::Error& e) {
    throw Error(path, "",
                std::string("not a graphcost model archive: ") + e.what_without_backtrace());
  }
  // LibTorch reads a damaged archive without checking its CRCs: garbage weights, no error.
  io::verify_zip_archive(path);
  c10::IValue options_text;
  check_data(archive.try_read(kOptionsKey, options_text) && options_text.isString(), path,
             kOptionsKey, "missing: not a graphcost model");
  ModelOptions options;
  try {
    options = nlohmann::json::parse(options_text.toStringRef()).get<ModelOptions>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, kOptionsKey, std::string("malformed JSON: ") + e.what());
  }
  Ranker model(options);
  try {
    model->load(archive);
  } catch (const c10::Error& e) {
    throw Error(path, "weights", std::string(e.what_without_backtrace()));
  }
  return model;
}

}  // namespace graphcost::model
