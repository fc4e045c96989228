#include "io/tuning_records.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <utility>

#include "core/error.h"
#include "graphcost_tuning.pb.h"

namespace graphcost::io {
namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check_data(static_cast<bool>(in), path, "", "cannot open file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check_data(!in.bad(), path, "", "read failed");
  return bytes;
}

// A real HLO module has instructions and every instruction names its opcode. Bytes of the
// other message kind (or of a foreign file) that happen to parse never look like this.
bool plausible_module(const pb::HloModuleProto& module) {
  int64_t instructions = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation.instructions()) {
      if (instruction.opcode().empty()) return false;
      ++instructions;
    }
  }
  return instructions > 0;
}

bool plausible_module_tuning(const pb::ModuleTuningData& data) {
  return data.has_module() && plausible_module(data.module()) && data.runs_size() > 0;
}

bool plausible_tuning(const pb::TuningData& data) {
  if (data.modules_size() == 0) return false;
  for (const auto& module : data.modules()) {
    if (!module.has_module() || !plausible_module(module.module())) return false;
  }
  return true;
}

// Which runs a module keeps, in file order, and the normalizer (the default run's runtime).
struct KeptRuns {
  std::vector<int> indices;
  int64_t default_runtime_ns = 0;
  int64_t error_runs = 0;
  int64_t unmeasured_runs = 0;
};

KeptRuns keep_measured_runs(const pb::ModuleTuningData& data, const std::string& path,
                            const std::string& key) {
  KeptRuns kept;
  std::optional<int64_t> default_runtime;
  for (int i = 0; i < data.runs_size(); ++i) {
    const auto& run = data.runs(i);
    if (run.error()) {
      ++kept.error_runs;
      continue;
    }
    if (!run.has_profile() || run.profile().compute_time_ns() <= 0) {
      ++kept.unmeasured_runs;
      continue;
    }
    if (run.is_default() && !default_runtime) default_runtime = run.profile().compute_time_ns();
    kept.indices.push_back(i);
  }
  check_data(default_runtime.has_value(), path, key,
             "no measured run with is_default = true, so runtimes cannot be normalised (" +
                 std::to_string(data.runs_size()) + " runs, " + std::to_string(kept.error_runs) +
                 " errors)");
  kept.default_runtime_ns = *default_runtime;
  return kept;
}

void append_bounds(std::vector<float>& out,
                   const google::protobuf::RepeatedField<int64_t>& values) {
  for (int i = 0; i < 6; ++i)
    out.push_back(i < values.size() ? static_cast<float>(values[i]) : 0.0f);
  out.push_back(static_cast<float>(wrapping_sum(values)));
  // Unlike node features, an empty bound list gives product 0 (as in the release).
  out.push_back(values.empty() ? 0.0f : static_cast<float>(wrapping_product(values)));
}

// What layout and tile graphs share once their configurations are read: run counts, adjacency,
// and the graph itself moved into the record.
void finish_graph(TuningGraph& result, FeaturizedModule& featurized,
                  const pb::ModuleTuningData& data, const KeptRuns& kept,
                  const std::string& path) {
  data::Graph& graph = featurized.graph;
  result.unknown_opcodes = featurized.unknown_opcodes;
  result.first_unknown_opcode = featurized.first_unknown_opcode;
  result.first_unknown_instruction = featurized.first_unknown_instruction;
  result.runs = data.runs_size();
  result.error_runs = kept.error_runs;
  result.unmeasured_runs = kept.unmeasured_runs;
  graph.build_adjacency();
  result.record.graph = std::move(graph);
  result.record.source = path;
}

TuningGraph layout_graph(const pb::ModuleTuningData& data, const std::string& path,
                         FeatureSet features) {
  const std::string key = "module " + data.module().name();
  TuningGraph result;
  FeaturizedModule featurized = featurize_hlo_module(data.module(), features, path);
  data::Graph& graph = featurized.graph;
  graph.name = std::filesystem::path(path).stem().string();

  check_data(data.config_index_to_node_size() > 0, path, key,
             "config_index_to_node is empty: a layout record needs configurable nodes");
  // The entries are node positions in featurizer order (checked on the released file: they
  // pick exactly its convolutions and reshapes), not HLO instruction ids.
  for (int i = 0; i < data.config_index_to_node_size(); ++i) {
    const uint64_t node = data.config_index_to_node(i);
    check_data(node < static_cast<uint64_t>(graph.num_nodes), path,
               "config_index_to_node[" + std::to_string(i) + "]",
               "node " + std::to_string(node) + " is out of range (the module has " +
                   std::to_string(graph.num_nodes) + " nodes)");
    graph.configurable_nodes.push_back(static_cast<int32_t>(node));
  }

  const KeptRuns kept = keep_measured_runs(data, path, key);
  const auto nodes = static_cast<int64_t>(graph.configurable_nodes.size());
  data::ConfigTable& configs = result.record.configs;
  configs.kind = data::ConfigKind::Layout;
  configs.count = static_cast<int64_t>(kept.indices.size());
  configs.nodes = nodes;
  configs.width = kLayoutConfigWidth;
  configs.layout.assign(configs.count * nodes * kLayoutConfigWidth, int8_t{-1});
  for (int64_t j = 0; j < configs.count; ++j) {
    const int run_index = kept.indices[j];
    const auto& run = data.runs(run_index);
    const std::string run_key = "runs[" + std::to_string(run_index) + "]";
    check_data(run.has_module_config(), path, run_key, "has no layout configuration");
    const auto& layout = run.module_config().layout_config();
    check_data(layout.nodes_size() == nodes, path, run_key,
               "configures " + std::to_string(layout.nodes_size()) + " nodes but " +
                   "config_index_to_node lists " + std::to_string(nodes));
    int8_t* row = configs.layout.data() + j * nodes * kLayoutConfigWidth;
    for (int64_t n = 0; n < nodes; ++n) {
      const auto& tensors = layout.nodes(static_cast<int>(n)).tensors();
      check_data(tensors.size() <= 3, path, run_key,
                 "a node has " + std::to_string(tensors.size()) + " tensor layouts (at most 3)");
      for (int t = 0; t < tensors.size(); ++t) {
        const auto& dims = tensors[t].dims();
        // Six columns per tensor: a longer layout cannot be stored, and cutting it would
        // make two different layouts look the same.
        check_data(dims.size() <= 6, path, run_key,
                   "configurable node " + std::to_string(n) + ", tensor " + std::to_string(t) +
                       ": a layout of " + std::to_string(dims.size()) +
                       " dimensions (the layout features hold at most 6)");
        for (int d = 0; d < dims.size(); ++d) {
          check_data(dims[d] >= -128 && dims[d] <= 127, path, run_key,
                     "layout dimension " + std::to_string(dims[d]) + " is out of int8 range");
          row[n * kLayoutConfigWidth + t * 6 + d] = static_cast<int8_t>(dims[d]);
        }
      }
    }
    const int64_t runtime = run.profile().compute_time_ns();
    result.runtimes.runtime_ns.push_back(runtime);
    configs.runtimes.push_back(static_cast<double>(runtime));
  }

  finish_graph(result, featurized, data, kept, path);
  return result;
}

TuningGraph tile_graph(const pb::ModuleTuningData& data, const std::string& path,
                       FeatureSet features) {
  const std::string key = "module " + data.module().name();
  TuningGraph result;
  FeaturizedModule featurized = featurize_hlo_module(data.module(), features, path);
  data::Graph& graph = featurized.graph;
  graph.name = data.module().name();

  const KeptRuns kept = keep_measured_runs(data, path, key);
  data::ConfigTable& configs = result.record.configs;
  configs.kind = data::ConfigKind::Tile;
  configs.count = static_cast<int64_t>(kept.indices.size());
  configs.width = kTileConfigWidth;
  configs.tile.reserve(configs.count * kTileConfigWidth);
  for (const int run_index : kept.indices) {
    const auto& run = data.runs(run_index);
    // A run without a tile size configuration featurizes as empty bounds (all zero).
    const auto& tile = run.op_config().tile_size_config();
    append_bounds(configs.tile, tile.kernel_bounds());
    append_bounds(configs.tile, tile.output_bounds());
    append_bounds(configs.tile, tile.input_bounds());
    const int64_t runtime = run.profile().compute_time_ns();
    result.runtimes.runtime_ns.push_back(runtime);
    result.runtimes.normalizer_ns.push_back(kept.default_runtime_ns);
    configs.runtimes.push_back(static_cast<double>(runtime) /
                               static_cast<double>(kept.default_runtime_ns));
  }

  finish_graph(result, featurized, data, kept, path);
  return result;
}

// Warns about (or refuses) the file's unknown opcodes, once for the whole file.
void check_opcodes(TuningFile& file, const std::string& path, UnknownOpcodes unknown) {
  const TuningGraph* first = nullptr;
  for (const TuningGraph& graph : file.graphs) {
    file.unknown_opcodes += graph.unknown_opcodes;
    if (!first && graph.unknown_opcodes > 0) first = &graph;
  }
  if (!first) return;
  const std::string example = "'" + first->first_unknown_opcode + "' (instruction " +
                              first->first_unknown_instruction + ")";
  check_data(unknown != UnknownOpcodes::Refuse, path, "",
             "opcode " + example + " is not in the dataset's opcode table");
  std::fprintf(stderr,
               "graphcost: warning: %s: %lld instruction(s) with opcodes the dataset does not "
               "know, e.g. %s; they get opcode id 0 (--strict refuses them)\n",
               path.c_str(), static_cast<long long>(file.unknown_opcodes), example.c_str());
}


TuningFile read_tuning_messages(const std::string& path, FeatureSet features) {
  const std::string bytes = read_bytes(path);
  check_data(!bytes.empty(), path, "", "file is empty");
  // The two messages share field 1 (a module, or a list of module records), so a file can
  // parse as both; the one whose HLO modules look real wins. Details in docs/ingest.md.
  TuningFile file;
  pb::ModuleTuningData module_tuning;
  if (module_tuning.ParseFromString(bytes) && plausible_module_tuning(module_tuning)) {
    file.kind = TuningFileKind::Layout;
    file.graphs.push_back(layout_graph(module_tuning, path, features));
    return file;
  }
  pb::TuningData tuning;
  if (tuning.ParseFromString(bytes) && plausible_tuning(tuning)) {
    file.kind = TuningFileKind::Tile;
    for (const auto& module : tuning.modules()) {
      if (module.runs_size() == 0) {
        ++file.modules_without_runs;
        continue;
      }
      file.graphs.push_back(tile_graph(module, path, features));
    }
    return file;
  }
  throw Error(path, "",
              "not a TpuGraphs tuning record (neither a ModuleTuningData nor a TuningData "
              "message with HLO modules); the file may be truncated or of another format");
}

}  // namespace

TuningFile read_tuning_file(const std::string& path, FeatureSet features, UnknownOpcodes unknown) {
  TuningFile file = read_tuning_messages(path, features);
  check_opcodes(file, path, unknown);
  return file;
}

std::vector<data::GraphRecord> read_tuning_records(const std::string& path, FeatureSet features,
                                                   UnknownOpcodes unknown) {
  TuningFile file = read_tuning_file(path, features, unknown);
  std::vector<data::GraphRecord> records;
  records.reserve(file.graphs.size());
  for (auto& graph : file.graphs) records.push_back(std::move(graph.record));
  return records;
}

}  // namespace graphcost::io
