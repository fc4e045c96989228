// Opening a path as a collection, whatever its format: the formats are one table of readers
// (probe, read), tried in order, so adding a format is adding an entry. Every reader produces
// data::GraphRecords (or, for a pack, a data::Collection over its mapping); what is done to every
// record (validation, pruning, duplicate merging) is data::prepare_record.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/collection.h"

namespace graphcost::io {

// A format of one graph file, read alone or as one file of a folder.
struct RecordFileFormat {
  const char* extension;  // ".npz", ".pb"
  // The graphs of the file: one for an .npz, one per module for a raw tuning record (.pb).
  std::vector<data::GraphRecord> (*read)(const std::string& file,
                                         const data::LoadOptions& options);
};

// The record file formats: TpuGraphs .npz (io/tpugraphs_npz.h), raw tuning records .pb
// (io/tuning_records.h).
const std::vector<RecordFileFormat>& record_file_formats();

// A format of a whole collection.
struct CollectionFormat {
  const char* name;  // "pack", "Kernel Tuner", "record files"
  // True when path (asked for split) is read in this format.
  bool (*probe)(const std::string& path, const std::string& split);
  // open_collection for a path the probe accepted.
  std::unique_ptr<data::Collection> (*open)(const std::string& path, const data::CollectionId& id,
                                            const std::string& split,
                                            const data::LoadOptions& options);
  // for_each_graph for such a path; null: the collection is opened whole and handed over graph
  // by graph (a pack is memory-mapped already; a Kernel Tuner folder is small and read as a
  // whole so that its devices share one feature layout).
  data::CollectionId (*stream)(const std::string& path, const data::CollectionId& id,
                               const std::string& split, const data::LoadOptions& options,
                               int64_t files_at_once, const data::GraphConsumer& consume);
};

// The collection formats in the order they are tried, the first whose probe accepts a path
// reading it: a pack (io/pack.h), Kernel Tuner caches (io/kernel_tuner.h), then record files (a
// dataset root, collection or split folder, or a single file, of the record file formats), which
// accepts every path and names what it expected when it finds none.
const std::vector<CollectionFormat>& collection_formats();

// True when open_collection reads path as Kernel Tuner records: a cache file, or a folder of
// them that is not a TpuGraphs dataset root, collection or split folder (asked for `split`).
bool is_kernel_tuner_source(const std::string& path, const std::string& split);

// The files of a split of a collection under a dataset root, sorted by name.
std::vector<std::string> list_collection_files(const std::string& root,
                                               const data::CollectionId& id,
                                               const std::string& split);

// Opens path as a collection. path may be a dataset root (then id and split pick the folder),
// a collection folder (containing train/valid/test), a split folder, a single .npz or raw
// TpuGraphs protobuf record (.pb, one graph per module), or a pack file (then id and split
// come from the pack). It may also be a Kernel Tuner cache (.json or
// .json.gz) or a folder of them without .npz files: a tile collection (ask for tile:xla, or set
// kind_from_data) with one graph per cache named "<kernel>_<device>" (see io/kernel_tuner.h);
// exclude then names graphs rather than file stems.
std::unique_ptr<data::Collection> open_collection(const std::string& path,
                                                  const data::CollectionId& id,
                                                  const std::string& split,
                                                  const data::LoadOptions& options);

// The graphs open_collection(path, id, split, options) would hold, in the same order and
// checked the same way, handed to consume one by one while reading only files_at_once files
// at a time (in parallel), so memory holds a few graphs rather than the whole split. Returns
// the collection id (as kind_from_data resolves it). Packs and Kernel Tuner caches are opened
// whole (a pack is memory-mapped).
data::CollectionId for_each_graph(const std::string& path, const data::CollectionId& id,
                                  const std::string& split, const data::LoadOptions& options,
                                  int64_t files_at_once, const data::GraphConsumer& consume);

}  // namespace graphcost::io
