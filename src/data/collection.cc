#include "data/collection.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/error.h"
#include "data/dedup.h"
#include "data/prune.h"
#include "data/validate.h"

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

bool is_split_name(const std::string& name) {
  return name == "train" || name == "valid" || name == "test";
}

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

class SelectedCollection : public Collection {
 public:
  SelectedCollection(std::unique_ptr<Collection> base, std::vector<int64_t> kept)
      : base_(std::move(base)), kept_(std::move(kept)) {}
  const CollectionId& id() const override { return base_->id(); }
  const std::string& split() const override { return base_->split(); }
  int64_t size() const override { return static_cast<int64_t>(kept_.size()); }
  const Graph& graph(int64_t g) const override { return base_->graph(kept_[g]); }
  ConfigView configs(int64_t g) const override { return base_->configs(kept_[g]); }
  const std::string& source(int64_t g) const override { return base_->source(kept_[g]); }

 private:
  std::unique_ptr<Collection> base_;
  std::vector<int64_t> kept_;
};

}  // namespace

std::unique_ptr<Collection> select_graphs(std::unique_ptr<Collection> base,
                                          std::vector<int64_t> kept) {
  for (int64_t g : kept)
    check_data(g >= 0 && g < base->size(), "select_graphs", "kept",
               "graph " + std::to_string(g) + " out of range");
  return std::make_unique<SelectedCollection>(std::move(base), std::move(kept));
}

}  // namespace graphcost::data
