// graphcost ingest INPUT --out DIR: raw TpuGraphs tuning records (.pb) become dataset .npz
// files: a ModuleTuningData file one layout .npz, a TuningData file one tile .npz per module.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "cli/commands.h"
#include "core/error.h"
#include "io/tpugraphs_npz.h"
#include "io/tuning_records.h"

namespace graphcost::cli {
namespace {

struct IngestOptions {
  std::string input;
  std::string out;
  std::string features = "standard";  // standard (140 columns) or extended (176)
  bool no_compress = false;           // store the .npy members instead of DEFLATE
  bool strict = false;                // refuse unknown opcodes instead of warning
};

// Module names like "fusion.232" are fine as file names; anything else is replaced so a name
// can never leave the output folder.
std::string file_stem_for(const std::string& name) {
  std::string stem;
  for (const char c : name) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    stem += keep ? c : '_';
  }
  if (stem.empty() || stem == "." || stem == "..") stem = "module" + stem;
  return stem;
}

void run_ingest(const IngestOptions& options) {
  const io::FeatureSet features = io::parse_feature_set(options.features);
  const io::TuningFile file = io::read_tuning_file(
      options.input, features,
      options.strict ? io::UnknownOpcodes::Refuse : io::UnknownOpcodes::Warn);
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(options.out, error);
  check_data(!error, options.out, "", "cannot create output folder: " + error.message());

  std::set<std::string> used;
  for (const io::TuningGraph& tuning : file.graphs) {
    // Two modules of one file may share a name; later ones get a numeric suffix.
    const std::string base = file_stem_for(tuning.record.graph.name);
    std::string stem = base;
    for (int k = 1; used.count(stem); ++k) stem = base + "." + std::to_string(k);
    used.insert(stem);
    const std::string path = (fs::path(options.out) / (stem + ".npz")).string();
    io::write_tpugraphs_npz(path, tuning.record, tuning.runtimes, !options.no_compress);
    const data::Graph& graph = tuning.record.graph;
    std::printf(
        "%s: %s, %lld nodes, %lld edges, %lld configurations (%lld runs, %lld errors, "
        "%lld unmeasured dropped)\n",
        path.c_str(), file.kind == io::TuningFileKind::Layout ? "layout" : "tile",
        static_cast<long long>(graph.num_nodes), static_cast<long long>(graph.num_edges()),
        static_cast<long long>(tuning.record.configs.count), static_cast<long long>(tuning.runs),
        static_cast<long long>(tuning.error_runs), static_cast<long long>(tuning.unmeasured_runs));
  }
  if (file.modules_without_runs > 0) {
    std::printf("%s: skipped %lld modules without runs\n", options.input.c_str(),
                static_cast<long long>(file.modules_without_runs));
  }
}

}  // namespace

void add_ingest_command(CLI::App& app) {
  auto options = std::make_shared<IngestOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ingest",
      "Turn raw TpuGraphs tuning records (.pb) into dataset .npz files "
      "(ModuleTuningData: one layout file; TuningData: one tile file per module)");
  cmd->add_option("input", options->input, "a ModuleTuningData or TuningData .pb file")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", options->out, "output folder (created if missing)")->required();
  cmd->add_option("--features", options->features,
                  "node feature set: standard (the release's 140 columns) or extended (176)")
      ->capture_default_str()
      ->check(CLI::IsMember({"standard", "extended"}));
  cmd->add_flag("--no-compress", options->no_compress,
                "store the arrays uncompressed (default: DEFLATE)");
  cmd->add_flag("--strict", options->strict,
                "refuse an instruction whose opcode the dataset does not know (default: give it "
                "opcode id 0 and warn once per file)");
  cmd->callback([options] { run_ingest(*options); });
}

}  // namespace graphcost::cli
