#include "run/run_config.h"

#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "run/run_folder.h"

namespace graphcost::run {

namespace fs = std::filesystem;

namespace {

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 16: syntax error
// while parsing value - unexpected end of input; ..." without its prefix.
std::string first_reason(const std::string& what) {
  const size_t dash = what.find(" - ");
  return dash == std::string::npos ? what : what.substr(dash + 3);
}

const char* kRetrain =
    "retrain it with this graphcost (`graphcost train`, or `graphcost xgb train` for an XGBoost "
    "run) or read it with the graphcost that wrote it";

// The format version and model type an options object states, checked against what this build
// reads.
void read_header(const nlohmann::json& config, const std::string& where, int& version,
                 ModelType& type) {
  version = 0;
  if (config.contains("format_version")) {
    check_data(config["format_version"].is_number_integer(), where, "format_version",
               "expected an integer");
    version = config["format_version"].get<int>();
    check_data(version >= 1, where, "format_version", "must be at least 1");
    check_data(version <= kRunFormatVersion, where, "format_version",
               "format " + std::to_string(version) + " is newer than this graphcost reads (" +
                   std::to_string(kRunFormatVersion) + "): " + kRetrain);
  }
  type = ModelType::Gnn;
  if (config.contains("model_type")) {
    check_data(config["model_type"].is_string(), where, "model_type", "expected a string");
    const std::string name = config["model_type"].get<std::string>();
    if (name == "xgboost") {
      type = ModelType::XGBoost;
    } else if (name == "stack") {
      type = ModelType::Stack;
    } else {
      check_data(name == "gnn", where, "model_type",
                 "unknown model type \"" + name + "\" (known: gnn, xgboost, stack): " + kRetrain);
    }
  }
}

}  // namespace

const char* model_type_name(ModelType type) {
  return type == ModelType::XGBoost ? "xgboost" : type == ModelType::Stack ? "stack" : "gnn";
}

void write_run_config(const std::string& run_dir, ModelType type, const nlohmann::json& options) {
  nlohmann::json config = {{"format_version", kRunFormatVersion},
                           {"model_type", model_type_name(type)}};
  for (const auto& [key, value] : options.items()) config[key] = value;
  write_file_atomically(RunFolder(run_dir).config_path(), config.dump(2) + "\n");
}

nlohmann::json trained_data_keys(const data::DataOptions& source, const data::CollectionId& id) {
  return {{"data", source.data},
          {"collection", id.str()},
          {"split", source.split},
          {"exclude", source.exclude},
          {"skip_invalid", source.skip_invalid}};
}

RunConfig load_run_config(const std::string& run_dir) {
  RunConfig run;
  const std::string path = RunFolder(run_dir).config_path();
  if (!fs::exists(path)) {
    run.format_version = 0;
    return run;
  }
  nlohmann::json& config = run.options;
  try {
    config = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path, "", "not valid JSON (truncated or damaged?): byte " +
                              std::to_string(e.byte) + ": " + first_reason(e.what()));
  }
  check_data(config.is_object(), path, "", "not a JSON object");
  read_header(config, path, run.format_version, run.model_type);
  for (const auto& field : data::data_option_fields()) {
    if (config.contains(field.key))
      read_option_field(data::data_option_fields(), field.key, config[field.key], run.data, path);
  }
  if (config.contains("slate_size")) {
    check_data(config["slate_size"].is_number_integer() && config["slate_size"].get<int64_t>() > 0,
               path, "slate_size", "expected a positive integer");
    run.slate_size = config["slate_size"].get<int64_t>();
  }
  return run;
}

nlohmann::json strip_run_header(const nlohmann::json& options, ModelType expected,
                                const std::string& where) {
  if (!options.is_object()) return options;  // the options reader names the problem
  int version = 0;
  ModelType type = ModelType::Gnn;
  read_header(options, where, version, type);
  check_data(type == expected, where, "model_type",
             std::string(model_type_name(type)) + " run options, but these are read as " +
                 model_type_name(expected) + " options");
  nlohmann::json out = options;
  out.erase("format_version");
  out.erase("model_type");
  return out;
}

}  // namespace graphcost::run
