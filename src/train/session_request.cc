// The rules a session applies to what a front-end gives it (train/session.h): the resume rule,
// the new-folder check, the collection a folder names, and the option checks.
#include <algorithm>
#include <cstdio>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/option_table.h"
#include "io/collection_readers.h"
#include "train/checkpoint.h"
#include "train/session.h"

namespace graphcost::train {

namespace {

// An option as the front-end's user gave it: "--valid-data" or "valid_data".
std::string option_name(OptionNames names, const std::string& key) {
  return names == OptionNames::Flags ? flag_of_key(key) : key;
}

// "--valid-data" -> "valid_data".
std::string key_of_flag(std::string flag) {
  flag = flag.substr(flag.find_first_not_of('-'));
  std::replace(flag.begin(), flag.end(), '-', '_');
  return flag;
}

// A --config file's options over `base`; sets collection_named when it names the collection.
TrainOptions read_config_file(const std::string& path, bool& collection_named,
                              const TrainOptions& base) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, "", std::string("not valid JSON: ") + e.what());
  }
  collection_named = j.is_object() && j.contains("collection");
  TrainOptions options = base;
  try {
    from_json(j, options);
  } catch (const Error& e) {
    throw Error(path, "", e.what());  // "<file>: train options: <key>: <problem>"
  }
  return options;
}

// The kind of configurations a new run reads: the collection named (flag or --config), else the
// one the data's folder names, else the default id's. A collection that does not parse is left
// to the option checks below, which name it.
data::ConfigKind run_kind(const TrainOptions& options, bool collection_named) {
  if (!collection_named)
    if (const auto named = data::collection_id_in_path(options.data)) return named->kind;
  try {
    return data::CollectionId::parse(options.collection).kind;
  } catch (const Error&) {
    return data::ConfigKind::Layout;
  }
}

}  // namespace

TrainOptions resolve_session_options(const SessionRequest& request, const run::RunFolder& folder,
                                     bool leader, const data::Collection* given_data) {
  const OptionNames names = request.names;
  auto name = [&](const char* key) { return option_name(names, key); };
  TrainOptions options;
  bool collection_named = request.collection_given;
  // Which defaults the data chose, said once the options have passed their checks (a refusal is
  // one line).
  std::string defaults_note;
  if (request.resume) {
    check_data(request.config_file.empty() || request.restarted, "train", name("config"),
               "not with " + name("resume") + " (the run keeps its stored options)");
    check_data(!request.overwrite, "train", name("overwrite"), "not with " + name("resume"));
    check_data(folder.has_checkpoint(), folder.checkpoint_path(), "",
               "no checkpoint to resume from");
    const TrainOptions stored = read_checkpoint_options(folder.checkpoint_path());
    options = stored;
    if (request.apply_given) request.apply_given(options);
    std::string changed, free;
    for (const std::string& key : options_fixed_on_resume_that_differ(stored, options))
      changed += (changed.empty() ? "" : ", ") + key;
    for (const std::string& flag : resume_free_flags())
      free += (free.empty() ? "" : ", ") +
              (names == OptionNames::Flags ? flag : key_of_flag(flag));
    check_data(changed.empty(), folder.dir(), name("resume"),
               "the run keeps its stored options, but these were given otherwise: " + changed +
                   " (only " + free + " may change)");
  } else {
    // Defaults, then the --config file, then the options given. Tabular records (Kernel Tuner
    // caches) and tile data start from defaults of their own, which only the data (and the
    // collection) the options name can tell.
    auto resolve = [&](const TrainOptions& base) {
      TrainOptions resolved = base;
      if (!request.config_file.empty()) {
        bool in_config = false;
        resolved = read_config_file(request.config_file, in_config, base);
        collection_named = collection_named || in_config;
      }
      if (request.apply_given) request.apply_given(resolved);
      return resolved;
    };
    options = resolve(TrainOptions{});
    if (given_data == nullptr && !options.data.empty() &&
        io::is_kernel_tuner_source(options.data, options.split)) {
      options = resolve(tabular_defaults());
      defaults_note = "train: Kernel Tuner records: the defaults for tabular data (" +
                      tabular_defaults_text(names == OptionNames::Flags) +
                      "; docs/kernel-tuner.md); options given override them";
    } else if (given_data == nullptr &&
               run_kind(options, collection_named) == data::ConfigKind::Tile) {
      options = resolve(tile_defaults());
      defaults_note = "train: tile data: the defaults for tile configurations (" +
                      tile_defaults_text(names == OptionNames::Flags) +
                      "; docs/quality.md); options given override them";
    }
    // Here, or in a study's trial whose base options came from tile_defaults().
    finish_tile_defaults(options);
  }
  if (given_data == nullptr)
    check_data(!options.data.empty(), "train", name("data"),
               names == OptionNames::Flags
                   ? "no dataset path given (--data or \"data\" in --config)"
                   : "no dataset path given");
  // Rank 0 alone owns the run folder (the others may share its storage).
  if (!request.resume && !request.reuse_folder && leader)
    folder.check_new(request.overwrite, true);
  // Not named anywhere: a collection folder's own (npz/layout/xla/default), not the default id.
  if (!request.resume && !collection_named && given_data == nullptr) {
    if (const auto named = data::collection_id_in_path(options.data))
      options.collection = named->str();
  }
  // The model's checks depend on the kind (the architecture); the widths come with the data.
  TrainOptions checked = options;
  checked.model.kind = given_data ? given_data->id().kind
                                  : data::CollectionId::parse(options.collection).kind;
  try {
    check_train_options(checked);
  } catch (const Error& e) {
    if (request.config_file.empty()) throw;
    throw Error(request.config_file, "", e.what());  // "<file>: train options: <key>: <problem>"
  }
  if (leader && !defaults_note.empty()) std::fprintf(stderr, "%s\n", defaults_note.c_str());
  return options;
}

}  // namespace graphcost::train
