#include "data/collection.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/error.h"
#include "data/dedup.h"
#include "data/prune.h"
#include "data/validate.h"
#include "io/kernel_tuner.h"
#include "io/npz.h"
#include "io/pack.h"
#include "io/tpugraphs_npz.h"
#include "io/tuning_records.h"

namespace graphcost::data {

namespace fs = std::filesystem;

std::string CollectionId::str() const {
  if (kind == ConfigKind::Tile) return "tile:" + space;
  return "layout:" + space + ":" + search;
}

std::string CollectionId::relative_dir() const {
  if (kind == ConfigKind::Tile) return "npz/tile/" + space;
  return "npz/layout/" + space + "/" + search;
}

std::vector<CollectionId> CollectionId::all() {
  return {{ConfigKind::Tile, "xla", ""},
          {ConfigKind::Layout, "xla", "default"},
          {ConfigKind::Layout, "xla", "random"},
          {ConfigKind::Layout, "nlp", "default"},
          {ConfigKind::Layout, "nlp", "random"}};
}

CollectionId CollectionId::parse(const std::string& text) {
  std::string valid;
  for (const CollectionId& id : all()) {
    if (id.str() == text) return id;
    valid += (valid.empty() ? "" : ", ") + id.str();
  }
  throw Error("unknown collection '" + text + "' (valid: " + valid + ")");
}

int64_t Collection::node_feature_width() const { return size() > 0 ? graph(0).feature_width : 0; }

int64_t Collection::config_width() const { return size() > 0 ? configs(0).width : 0; }

MemoryCollection::MemoryCollection(CollectionId id, std::string split,
                                   std::vector<GraphRecord> records)
    : id_(std::move(id)), split_(std::move(split)), records_(std::move(records)) {}

namespace {

bool is_record_file(const fs::path& p) { return p.extension() == ".npz" || p.extension() == ".pb"; }

// The graphs of one file: one for an .npz, one per module for a raw tuning record.
std::vector<GraphRecord> read_record_file(const std::string& file, const LoadOptions& options) {
  if (fs::path(file).extension() == ".pb") {
    // Unknown opcodes are warned about, once per file; `graphcost ingest --strict` refuses them.
    return io::read_tuning_records(
        file, options.extended_features ? io::FeatureSet::Extended : io::FeatureSet::Standard);
  }
  std::vector<GraphRecord> records;
  records.push_back(io::read_tpugraphs_npz(file));
  return records;
}

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
  io::NpzReader answers(answers_file);
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

}  // namespace

void prepare_record(GraphRecord& record, const LoadOptions& options) {
  validate_record(record);
  if (options.prune_hops >= 0)
    record = prune_to_config_neighbourhood(record, options.prune_hops, options.prune_seed_opcodes);
  if (options.merge_duplicates) record.duplicates_merged = merge_duplicate_configs(record.configs);
}

std::string dataset_root_of(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "root/npz/"
  if (fs::is_directory(p / "npz")) return p.string();
  if (p.filename() == "npz" && (fs::is_directory(p / "layout") || fs::is_directory(p / "tile"))) {
    const fs::path parent = p.parent_path();
    return parent.empty() ? std::string(".") : parent.string();
  }
  return "";
}

namespace {

bool is_split_name(const std::string& name) {
  return name == "train" || name == "valid" || name == "test";
}

}  // namespace

std::optional<CollectionId> collection_id_in_path(const std::string& path) {
  std::error_code error;
  const fs::path p = fs::absolute(fs::path(path), error).lexically_normal();
  if (error || !fs::is_directory(p)) return std::nullopt;
  std::vector<std::string> names;
  for (const fs::path& part : p) {
    if (!part.empty() && part != "/") names.push_back(part.string());
  }
  if (!names.empty() && is_split_name(names.back())) names.pop_back();
  for (const CollectionId& id : CollectionId::all()) {
    std::vector<std::string> want = {id.kind == ConfigKind::Tile ? "tile" : "layout", id.space};
    if (id.kind == ConfigKind::Layout) want.push_back(id.search);
    if (names.size() >= want.size() &&
        std::equal(want.begin(), want.end(), names.end() - static_cast<std::ptrdiff_t>(want.size())))
      return id;
  }
  return std::nullopt;
}

namespace {

// The id to read path as. A folder that names its collection (collection_id_in_path) is read as
// that one when the kind comes from the data; otherwise asking for another is an error, so that
// runs, reports and submissions never carry the wrong collection's name.
CollectionId id_for_path(const std::string& path, const CollectionId& id,
                         const LoadOptions& options) {
  if (!dataset_root_of(path).empty()) return id;
  const std::optional<CollectionId> named = collection_id_in_path(path);
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
  if (const std::string root = dataset_root_of(path); !root.empty()) {
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
    if (!split.empty() && name != split && is_split_name(name)) {
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

}  // namespace

std::vector<std::string> list_collection_files(const std::string& root, const CollectionId& id,
                                               const std::string& split) {
  return locate(root, id, split).files;
}

bool is_kernel_tuner_source(const std::string& path, const std::string& split) {
  const fs::path p(path);
  if (fs::is_regular_file(p)) return io::is_kernel_tuner_cache(path);
  if (!fs::is_directory(p) || !dataset_root_of(path).empty()) return false;
  if (!split.empty() && fs::is_directory(p / split)) return false;
  return record_files_in(p).empty() && io::is_kernel_tuner_folder(path);
}

namespace {

// Records as loaded, each either usable or with the error that stopped it.
struct Loaded {
  std::vector<GraphRecord> records;
  std::vector<std::string> errors;
  std::vector<char> ok;
};

bool excluded(const LoadOptions& options, const std::string& name) {
  return std::find(options.exclude.begin(), options.exclude.end(), name) != options.exclude.end();
}

// The files of a collection after options.exclude.
struct NpzSource {
  std::vector<std::string> files;
  fs::path root;
};

NpzSource npz_source(const std::string& path, const CollectionId& id, const std::string& split,
                     const LoadOptions& options) {
  Located located = locate(path, id, split);
  NpzSource source;
  source.root = located.root;
  for (const std::string& f : located.files) {
    if (!excluded(options, fs::path(f).stem().string())) source.files.push_back(f);
  }
  return source;
}

// Reads files [begin, end) of source in parallel.
Loaded load_npz_files(const NpzSource& source, int64_t begin, int64_t end,
                      const LoadOptions& options) {
  const std::vector<std::string>& files = source.files;
  const int64_t n = end - begin;
  std::vector<std::vector<GraphRecord>> per_file(n);
  std::vector<std::string> file_errors(n);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < n; ++i) {
    try {
      const std::string& file = files[begin + i];
      std::vector<GraphRecord> records = read_record_file(file, options);
      for (GraphRecord& record : records) {
        if (record.configs.runtimes.empty() && !source.root.empty()) {
          std::string answers = answers_path(source.root, file);
          if (fs::exists(answers)) attach_answers(record, answers);
        }
        prepare_record(record, options);
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

Loaded load_npz(const std::string& path, const CollectionId& id, const std::string& split,
                const LoadOptions& options) {
  const NpzSource source = npz_source(path, id, split, options);
  return load_npz_files(source, 0, static_cast<int64_t>(source.files.size()), options);
}

// Graph names ("<kernel>_<device>") play the part of file stems for options.exclude.
Loaded load_kernel_tuner(const std::string& path, const LoadOptions& options) {
  // The folder is read as a whole so that every device shares one feature layout.
  std::vector<GraphRecord> all = fs::is_regular_file(path)
                                     ? std::vector<GraphRecord>{io::read_kernel_tuner_cache(path)}
                                     : io::read_kernel_tuner_folder(path);
  Loaded loaded;
  for (GraphRecord& record : all) {
    if (!excluded(options, record.graph.name)) loaded.records.push_back(std::move(record));
  }
  loaded.errors.resize(loaded.records.size());
  loaded.ok.assign(loaded.records.size(), 0);
  for (size_t i = 0; i < loaded.records.size(); ++i) {
    try {
      prepare_record(loaded.records[i], options);
      loaded.ok[i] = 1;
    } catch (const std::exception& e) {
      loaded.errors[i] = e.what();
    }
  }
  return loaded;
}

}  // namespace

namespace {

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
      throw Error(r.source, "", "holds " + config_kind_name(r.configs.kind) +
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

}  // namespace

std::unique_ptr<Collection> open_collection(const std::string& path, const CollectionId& id,
                                            const std::string& split, const LoadOptions& options) {
  if (io::is_pack_file(path)) {
    // A pack was validated and merged when it was written; its id and split are its own.
    auto pack = std::make_unique<io::PackCollection>(path);
    if (!options.kind_from_data && pack->id().kind != id.kind) {
      throw Error(path, "", "pack holds " + pack->id().str() + ", but collection " + id.str() + " was asked");
    }
    // As a split folder: a training pack asked for its validation split is not read as one.
    check_data(split.empty() || pack->split() == split, path, "",
               "is a pack of split " + pack->split() + ", but split " + split +
                   " was asked (give the pack of that split)");
    // Pruning leaves configurations as they are, so they stay in the mapping.
    return prune_collection(std::move(pack), options.prune_hops, options.prune_seed_opcodes);
  }
  const bool kernel_tuner = is_kernel_tuner_source(path, split);
  const CollectionId path_id = kernel_tuner ? id : id_for_path(path, id, options);
  Loaded loaded = kernel_tuner ? load_kernel_tuner(path, options)
                               : load_npz(path, path_id, split, options);
  std::vector<GraphRecord> kept;
  RecordChecker checker(path_id, options);
  for (size_t i = 0; i < loaded.records.size(); ++i) {
    if (checker.keep(loaded, i)) kept.push_back(std::move(loaded.records[i]));
  }
  if (kept.empty()) throw Error(path, "", "no usable graphs for " + path_id.str() + " " + split);
  return std::make_unique<MemoryCollection>(checker.id(), split, std::move(kept));
}

CollectionId for_each_graph(const std::string& path, const CollectionId& id,
                            const std::string& split, const LoadOptions& options,
                            int64_t files_at_once, const GraphConsumer& consume) {
  if (io::is_pack_file(path) || is_kernel_tuner_source(path, split)) {
    // A pack is memory-mapped already; a Kernel Tuner folder is read as a whole (its devices
    // share one feature layout) and is small.
    const std::unique_ptr<Collection> c = open_collection(path, id, split, options);
    for (int64_t g = 0; g < c->size(); ++g) consume(c->graph(g), c->configs(g), c->source(g));
    return c->id();
  }
  const CollectionId path_id = id_for_path(path, id, options);
  const NpzSource source = npz_source(path, path_id, split, options);
  const int64_t files = static_cast<int64_t>(source.files.size());
  const int64_t step = std::max<int64_t>(1, files_at_once);
  RecordChecker checker(path_id, options);
  for (int64_t begin = 0; begin < files; begin += step) {
    Loaded loaded = load_npz_files(source, begin, std::min(files, begin + step), options);
    for (size_t i = 0; i < loaded.records.size(); ++i) {
      if (!checker.keep(loaded, i)) continue;
      const GraphRecord& r = loaded.records[i];
      consume(r.graph, r.configs.view(), r.source);
    }
  }
  if (checker.kept() == 0) throw Error(path, "", "no usable graphs for " + path_id.str() + " " + split);
  return checker.id();
}

}  // namespace graphcost::data
