#include "io/collection_readers.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "data/prune.h"
#include "data/validate.h"
#include "io/kernel_tuner.h"
#include "io/npz.h"
#include "io/pack.h"
#include "io/tpugraphs_npz.h"
#include "io/tuning_records.h"

namespace graphcost::io {

namespace fs = std::filesystem;
using data::CollectionId;
using data::ConfigKind;
using data::GraphRecord;
using data::LoadOptions;

namespace {

std::vector<GraphRecord> read_npz_file(const std::string& file, const LoadOptions&) {
  std::vector<GraphRecord> records;
  records.push_back(read_tpugraphs_npz(file));
  return records;
}

std::vector<GraphRecord> read_pb_file(const std::string& file, const LoadOptions& options) {
  // Unknown opcodes are warned about, once per file; `graphcost ingest --strict` refuses them.
  return read_tuning_records(file,
                             options.extended_features ? FeatureSet::Extended : FeatureSet::Standard);
}

const RecordFileFormat* record_file_format(const fs::path& p) {
  for (const RecordFileFormat& format : record_file_formats()) {
    if (p.extension() == format.extension) return &format;
  }
  return nullptr;
}

bool is_record_file(const fs::path& p) { return record_file_format(p) != nullptr; }

std::vector<std::string> record_files_in(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && is_record_file(entry.path())) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The answers file of a test file written by `graphcost synth`: ROOT/answers/<path below npz/>.
std::string answers_path(const fs::path& root, const fs::path& file) {
  return (root / "answers" / fs::relative(file, root / "npz")).string();
}

// An answers file holds config_runtime (and config_runtime_normalizers for tile) only.
void attach_answers(GraphRecord& record, const std::string& answers_file) {
  NpzReader answers(answers_file);
  std::vector<double> runtimes = answers.read("config_runtime").to_vector<double>(answers_file + ": config_runtime");
  check_data(runtimes.size() == static_cast<size_t>(record.configs.count), answers_file, "config_runtime",
             "answers hold " + std::to_string(runtimes.size()) + " runtimes for " +
                 std::to_string(record.configs.count) + " configurations");
  if (answers.has("config_runtime_normalizers")) {
    std::vector<double> normalizers = answers.read("config_runtime_normalizers")
                                          .to_vector<double>(answers_file + ": config_runtime_normalizers");
    check_data(normalizers.size() == runtimes.size(), answers_file, "config_runtime_normalizers",
               "one normaliser per runtime expected");
    for (size_t j = 0; j < runtimes.size(); ++j) {
      check_data(normalizers[j] > 0, answers_file, "config_runtime_normalizers", "must be positive");
      runtimes[j] /= normalizers[j];
    }
  }
  record.configs.runtimes = std::move(runtimes);
}

// The id to read path as. A folder that names its collection (collection_id_in_path) is read as
// that one when the kind comes from the data; otherwise asking for another is an error, so that
// runs, reports and submissions never carry the wrong collection's name.
CollectionId id_for_path(const std::string& path, const CollectionId& id,
                         const LoadOptions& options) {
  if (!data::dataset_root_of(path).empty()) return id;
  const std::optional<CollectionId> named = data::collection_id_in_path(path);
  if (!named) return id;
  if (options.kind_from_data) return *named;
  if (!(*named == id)) {
    throw Error(path, "", "is a folder of collection " + named->str() + ", but collection " +
                              id.str() + " was asked");
  }
  return id;
}

struct Located {
  std::vector<std::string> files;
  fs::path root;  // dataset root when known (for answers files)
};

Located locate(const std::string& path, const CollectionId& id, const std::string& split) {
  fs::path p(path);
  if (!fs::exists(p)) throw Error(path, "", "no such file or folder");
  Located located;
  if (fs::is_regular_file(p)) {
    if (!is_record_file(p)) throw Error(path, "", "not an .npz or .pb file, a pack or a folder of them");
    located.files.push_back(path);
    return located;
  }
  fs::path dir;
  bool chosen = false;  // whether the collection id or split chose the folder
  if (const std::string root = data::dataset_root_of(path); !root.empty()) {
    located.root = root;
    dir = located.root / id.relative_dir() / split;
    chosen = true;
  } else if (fs::is_directory(p / split)) {
    dir = p / split;
    chosen = !split.empty();
  } else {
    // A split's own folder asked for another split would be read as that split: validation on
    // the training configurations, say. An error instead.
    fs::path own = p.lexically_normal();
    if (own.filename().empty()) own = own.parent_path();
    const std::string name = own.filename().string();
    if (!split.empty() && name != split && data::is_split_name(name)) {
      throw Error(path, "", "is a " + name + " split folder, but split " + split +
                                " was asked (give the folder that holds the splits)");
    }
    dir = p;
  }
  // Which collection and split were looked for matters only where the path chose the folder.
  const std::string asked =
      chosen ? " (collection " + id.str() + ", split " + split + ")" : std::string();
  if (!fs::is_directory(dir)) {
    if (asked.empty())
      throw Error(path, "", "not an .npz or .pb file, a pack or a folder of them");
    throw Error(dir.string(), "", "no such folder" + asked);
  }
  located.files = record_files_in(dir);
  if (located.files.empty())
    throw Error(chosen ? dir.string() : path, "", "no .npz or .pb files" + asked);
  return located;
}

// Records as loaded, each either usable or with the error that stopped it.
struct Loaded {
  std::vector<GraphRecord> records;
  std::vector<std::string> errors;
  std::vector<char> ok;
};

bool excluded(const LoadOptions& options, const std::string& name) {
  return std::find(options.exclude.begin(), options.exclude.end(), name) != options.exclude.end();
}

// The record files of a collection after options.exclude.
struct RecordFiles {
  std::vector<std::string> files;
  fs::path root;
};

RecordFiles record_files(const std::string& path, const CollectionId& id,
                         const std::string& split, const LoadOptions& options) {
  Located located = locate(path, id, split);
  RecordFiles source;
  source.root = located.root;
  for (const std::string& f : located.files) {
    if (!excluded(options, fs::path(f).stem().string())) source.files.push_back(f);
  }
  return source;
}

// Reads files [begin, end) of source in parallel.
Loaded load_record_files(const RecordFiles& source, int64_t begin, int64_t end,
                         const LoadOptions& options) {
  const std::vector<std::string>& files = source.files;
  const int64_t n = end - begin;
  std::vector<std::vector<GraphRecord>> per_file(n);
  std::vector<std::string> file_errors(n);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < n; ++i) {
    try {
      const std::string& file = files[begin + i];
      std::vector<GraphRecord> records = record_file_format(file)->read(file, options);
      for (GraphRecord& record : records) {
        if (record.configs.runtimes.empty() && !source.root.empty()) {
          std::string answers = answers_path(source.root, file);
          if (fs::exists(answers)) attach_answers(record, answers);
        }
        data::prepare_record(record, options);
      }
      per_file[i] = std::move(records);
    } catch (const std::exception& e) {
      file_errors[i] = e.what();
    }
  }
  Loaded loaded;
  for (int64_t i = 0; i < n; ++i) {
    if (!file_errors[i].empty()) {
      loaded.records.emplace_back();
      loaded.errors.push_back(file_errors[i]);
      loaded.ok.push_back(0);
      continue;
    }
    for (GraphRecord& record : per_file[i]) {
      if (excluded(options, record.graph.name)) continue;
      loaded.records.push_back(std::move(record));
      loaded.errors.emplace_back();
      loaded.ok.push_back(1);
    }
  }
  return loaded;
}

// Graph names ("<kernel>_<device>") play the part of file stems for options.exclude.
Loaded load_kernel_tuner(const std::string& path, const LoadOptions& options) {
  // The folder is read as a whole so that every cache shares one configuration layout.
  std::vector<GraphRecord> all =
      fs::is_regular_file(path) ? std::vector<GraphRecord>{read_kernel_tuner_cache(path, options)}
                                : read_kernel_tuner_folder(path, options);
  Loaded loaded;
  for (GraphRecord& record : all) {
    if (!excluded(options, record.graph.name)) loaded.records.push_back(std::move(record));
  }
  loaded.errors.resize(loaded.records.size());
  loaded.ok.assign(loaded.records.size(), 0);
  for (size_t i = 0; i < loaded.records.size(); ++i) {
    try {
      data::prepare_record(loaded.records[i], options);
      loaded.ok[i] = 1;
    } catch (const std::exception& e) {
      loaded.errors[i] = e.what();
    }
  }
  return loaded;
}

// What open_collection checks of each loaded record, record by record: failures (skipped with a
// warning under skip_invalid), the kind, and the widths against the first kept record.
class RecordChecker {
 public:
  RecordChecker(const CollectionId& id, const LoadOptions& options) : id_(id), options_(options) {}

  // True when record i of loaded is to be kept; an Error when it must stop the load.
  bool keep(const Loaded& loaded, size_t i) {
    if (!loaded.ok[i]) {
      if (!options_.skip_invalid) throw Error(loaded.errors[i]);
      std::fprintf(stderr, "graphcost: warning: skipping %s\n", loaded.errors[i].c_str());
      return false;
    }
    const GraphRecord& r = loaded.records[i];
    if (options_.kind_from_data && kept_ == 0 && r.configs.kind != id_.kind) {
      id_ = r.configs.kind == ConfigKind::Tile ? CollectionId{ConfigKind::Tile, "xla", ""}
                                               : CollectionId{ConfigKind::Layout, "xla", "default"};
    }
    if (r.configs.kind != id_.kind) {
      throw Error(r.source, "", "holds " + data::config_kind_name(r.configs.kind) +
                                    " configurations, but collection " + id_.str() + " was asked");
    }
    if (kept_ > 0) {
      check_data(r.graph.feature_width == feature_width_, r.source, "node_feat",
                 std::to_string(r.graph.feature_width) + " feature columns, but " +
                     first_source_ + " has " + std::to_string(feature_width_));
      check_data(r.configs.width == config_width_, r.source,
                 id_.kind == ConfigKind::Tile ? "config_feat" : "node_config_feat",
                 std::to_string(r.configs.width) + " configuration columns, but " +
                     first_source_ + " has " + std::to_string(config_width_));
    } else {
      feature_width_ = r.graph.feature_width;
      config_width_ = r.configs.width;
      first_source_ = r.source;
    }
    ++kept_;
    return true;
  }
  const CollectionId& id() const { return id_; }
  int64_t kept() const { return kept_; }

 private:
  CollectionId id_;
  const LoadOptions& options_;
  int64_t kept_ = 0;
  int64_t feature_width_ = 0, config_width_ = 0;
  std::string first_source_;
};

// The records of loaded that pass checker, as an in-memory collection.
std::unique_ptr<data::Collection> memory_collection(Loaded& loaded, const std::string& path,
                                                    const CollectionId& path_id,
                                                    const std::string& split,
                                                    const LoadOptions& options) {
  std::vector<GraphRecord> kept;
  RecordChecker checker(path_id, options);
  for (size_t i = 0; i < loaded.records.size(); ++i) {
    if (checker.keep(loaded, i)) kept.push_back(std::move(loaded.records[i]));
  }
  if (kept.empty()) throw Error(path, "", "no usable graphs for " + path_id.str() + " " + split);
  return std::make_unique<data::MemoryCollection>(checker.id(), split, std::move(kept));
}

// The collection formats' entries.

bool probe_pack(const std::string& path, const std::string&) { return is_pack_file(path); }

std::unique_ptr<data::Collection> open_pack(const std::string& path, const CollectionId& id,
                                            const std::string& split, const LoadOptions& options) {
  // A pack was validated and merged when it was written; its id and split are its own.
  auto pack = std::make_unique<PackCollection>(path);
  if (!options.kind_from_data && pack->id().kind != id.kind) {
    throw Error(path, "", "pack holds " + pack->id().str() + ", but collection " + id.str() + " was asked");
  }
  // As a split folder: a training pack asked for its validation split is not read as one.
  check_data(split.empty() || pack->split() == split, path, "",
             "is a pack of split " + pack->split() + ", but split " + split +
                 " was asked (give the pack of that split)");
  // options.exclude names graphs, as it names file stems in a folder.
  std::unique_ptr<data::Collection> kept = std::move(pack);
  if (!options.exclude.empty()) {
    std::vector<int64_t> indices;
    for (int64_t g = 0; g < kept->size(); ++g)
      if (!excluded(options, kept->graph(g).name)) indices.push_back(g);
    if (indices.empty()) throw Error(path, "", "every graph of the pack is excluded");
    kept = data::select_graphs(std::move(kept), std::move(indices));
  }
  // Pruning leaves configurations as they are, so they stay in the mapping.
  return data::prune_collection(std::move(kept), options.prune_hops, options.prune_seed_opcodes);
}

std::unique_ptr<data::Collection> open_kernel_tuner(const std::string& path,
                                                    const CollectionId& id,
                                                    const std::string& split,
                                                    const LoadOptions& options) {
  // Every Kernel Tuner cache holds tile configurations: another kind is refused before the
  // caches are read (a folder of them takes seconds), with the message the first one would give.
  if (!options.kind_from_data && id.kind != ConfigKind::Tile) {
    throw Error(path, "", "holds " + data::config_kind_name(ConfigKind::Tile) +
                              " configurations, but collection " + id.str() + " was asked");
  }
  Loaded loaded = load_kernel_tuner(path, options);
  return memory_collection(loaded, path, id, split, options);
}

bool probe_record_files(const std::string&, const std::string&) { return true; }

std::unique_ptr<data::Collection> open_record_files(const std::string& path,
                                                    const CollectionId& id,
                                                    const std::string& split,
                                                    const LoadOptions& options) {
  const CollectionId path_id = id_for_path(path, id, options);
  const RecordFiles source = record_files(path, path_id, split, options);
  Loaded loaded = load_record_files(source, 0, static_cast<int64_t>(source.files.size()), options);
  return memory_collection(loaded, path, path_id, split, options);
}

CollectionId stream_record_files(const std::string& path, const CollectionId& id,
                                 const std::string& split, const LoadOptions& options,
                                 int64_t files_at_once, const data::GraphConsumer& consume) {
  const CollectionId path_id = id_for_path(path, id, options);
  const RecordFiles source = record_files(path, path_id, split, options);
  const int64_t files = static_cast<int64_t>(source.files.size());
  const int64_t step = std::max<int64_t>(1, files_at_once);
  RecordChecker checker(path_id, options);
  for (int64_t begin = 0; begin < files; begin += step) {
    Loaded loaded = load_record_files(source, begin, std::min(files, begin + step), options);
    for (size_t i = 0; i < loaded.records.size(); ++i) {
      if (!checker.keep(loaded, i)) continue;
      const GraphRecord& r = loaded.records[i];
      consume(r.graph, r.configs.view(), r.source);
    }
  }
  if (checker.kept() == 0) throw Error(path, "", "no usable graphs for " + path_id.str() + " " + split);
  return checker.id();
}

const CollectionFormat& format_of(const std::string& path, const std::string& split) {
  for (const CollectionFormat& format : collection_formats()) {
    if (format.probe(path, split)) return format;
  }
  return collection_formats().back();  // record files: it names what it expected
}

}  // namespace

const std::vector<RecordFileFormat>& record_file_formats() {
  static const std::vector<RecordFileFormat> formats = {{".npz", read_npz_file},
                                                        {".pb", read_pb_file}};
  return formats;
}

const std::vector<CollectionFormat>& collection_formats() {
  static const std::vector<CollectionFormat> formats = {
      {"pack", probe_pack, open_pack, nullptr},
      {"Kernel Tuner", is_kernel_tuner_source, open_kernel_tuner, nullptr},
      {"record files", probe_record_files, open_record_files, stream_record_files}};
  return formats;
}

bool is_kernel_tuner_source(const std::string& path, const std::string& split) {
  const fs::path p(path);
  if (fs::is_regular_file(p)) return is_kernel_tuner_cache(path);
  if (!fs::is_directory(p) || !data::dataset_root_of(path).empty()) return false;
  if (!split.empty() && fs::is_directory(p / split)) return false;
  return record_files_in(p).empty() && is_kernel_tuner_folder(path);
}

std::vector<std::string> list_collection_files(const std::string& root, const CollectionId& id,
                                               const std::string& split) {
  return locate(root, id, split).files;
}

std::unique_ptr<data::Collection> open_collection(const std::string& path, const CollectionId& id,
                                                  const std::string& split,
                                                  const LoadOptions& options) {
  return format_of(path, split).open(path, id, split, options);
}

CollectionId for_each_graph(const std::string& path, const CollectionId& id,
                            const std::string& split, const LoadOptions& options,
                            int64_t files_at_once, const data::GraphConsumer& consume) {
  const CollectionFormat& format = format_of(path, split);
  if (format.stream != nullptr)
    return format.stream(path, id, split, options, files_at_once, consume);
  const std::unique_ptr<data::Collection> c = format.open(path, id, split, options);
  for (int64_t g = 0; g < c->size(); ++g) consume(c->graph(g), c->configs(g), c->source(g));
  return c->id();
}

}  // namespace graphcost::io
