// Random single-configuration reads: TpuGraphs .npz files (read as numpy users do, the whole
// node_config_feat key per read) against a pack (a pointer into the mapping). Builds a synthetic
// layout collection of its own, writes it both ways, then prints `figure: <name>: <value> <unit>`.
//   pack_bench [--graphs 20] [--configs 10000] [--min-nodes 5000] [--max-nodes 20000]
//              [--pack-reads 2000000] [--npz-seconds 20] [--stored-npz] [--dir DIR] [--keep]
//   quick run: pack_bench --graphs 4 --configs 2000
// --stored-npz writes the npz files uncompressed (numpy.savez): much faster to build, and reads
// then skip inflation, so the speedup it reports is a lower bound for the released (deflated)
// files.
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/npz.h"
#include "io/pack.h"
#include "io/tpugraphs_npz.h"

namespace {

using namespace graphcost;
using Clock = std::chrono::steady_clock;

struct Options {
  int64_t graphs = 20;
  int64_t configs = 10000;
  int64_t min_nodes = 5000;
  int64_t max_nodes = 20000;
  int64_t pack_reads = 2000000;
  double npz_seconds = 20;
  bool stored_npz = false;
  std::string dir;
  bool keep = false;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void figure(const std::string& name, double value, const std::string& unit) {
  std::printf("figure: %s: %.6g %s\n", name.c_str(), value, unit.c_str());
  std::fflush(stdout);
}

// A random DAG with realistic layout configurations: each configurable node has a tensor rank
// r in [1, 6] and 3 layouts (say operands and result) of 6 slots each: a permutation of 0..r-1
// padded with -1, as in the release.
data::GraphRecord build_graph(std::mt19937_64& rng, int64_t index, const Options& o) {
  const int64_t feature_width = 140, config_width = 18;
  data::GraphRecord r;
  data::Graph& g = r.graph;
  g.name = "synthetic_" + std::to_string(index);
  g.num_nodes = std::uniform_int_distribution<int64_t>(o.min_nodes, o.max_nodes)(rng);
  g.feature_width = feature_width;
  g.opcodes.resize(g.num_nodes);
  g.node_features.assign(g.num_nodes * feature_width, 0.0f);
  std::uniform_int_distribution<int> opcode(0, 119), sparse(0, 19);
  for (int64_t v = 0; v < g.num_nodes; ++v) {
    g.opcodes[v] = opcode(rng);
    for (int64_t f = 0; f < feature_width; ++f) {
      if (sparse(rng) == 0)
        g.node_features[v * feature_width + f] = static_cast<float>(rng() % 512);
    }
    const int operands = v == 0 ? 0 : 1 + static_cast<int>(rng() % 2);
    for (int k = 0; k < operands; ++k) {
      const int64_t back = 1 + static_cast<int64_t>(rng() % std::min<int64_t>(v, 64));
      g.edges.push_back(static_cast<int32_t>(v));
      g.edges.push_back(static_cast<int32_t>(v - back));
    }
    if (v % 20 == 7) g.configurable_nodes.push_back(static_cast<int32_t>(v));  // 5%
  }
  g.node_splits = {0, g.num_nodes / 3, 2 * g.num_nodes / 3};
  const int64_t nc = static_cast<int64_t>(g.configurable_nodes.size());

  std::vector<int> rank(nc);
  for (auto& x : rank) x = 1 + static_cast<int>(rng() % 6);
  data::ConfigTable& t = r.configs;
  t.kind = data::ConfigKind::Layout;
  t.count = o.configs;
  t.nodes = nc;
  t.width = config_width;
  t.layout.assign(o.configs * nc * config_width, -1);
  for (int64_t j = 0; j < o.configs; ++j) {
    for (int64_t c = 0; c < nc; ++c) {
      int8_t* row = &t.layout[(j * nc + c) * config_width];
      for (int group = 0; group < 3; ++group) {
        int8_t* slots = row + 6 * group;
        for (int k = 0; k < rank[c]; ++k) slots[k] = static_cast<int8_t>(k);
        std::shuffle(slots, slots + rank[c], rng);
      }
    }
  }
  t.runtimes.resize(o.configs);
  for (auto& x : t.runtimes) x = static_cast<double>(1000000 + rng() % 50000000);
  r.source = g.name + ".npz";
  return r;
}

// Sum of the uncompressed sizes of the archive's entries.
uint64_t uncompressed_zip_bytes(const std::string& path) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  if (!archive) throw Error(path, "", "cannot open archive");
  uint64_t total = 0;
  const zip_int64_t n = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (zip_stat_index(archive, i, 0, &st) == 0) total += st.size;
  }
  zip_close(archive);
  return total;
}

int run(const Options& o) {
  namespace fs = std::filesystem;
  const std::string dir =
      o.dir.empty()
          ? (fs::temp_directory_path() / ("graphcost_pack_bench_" + std::to_string(::getpid())))
                .string()
          : o.dir;
  fs::create_directories(dir);
  const std::string pack_path = dir + "/bench.gcpack";
  std::vector<std::string> npz_paths;
  uint64_t npz_compressed = 0, npz_uncompressed = 0;
  double npz_write_seconds = 0, pack_write_seconds = 0;

  std::mt19937_64 rng(2026);
  io::PackWriter writer(pack_path, {data::ConfigKind::Layout, "xla", "random"}, "train",
                        data::ConfigKind::Layout, 140, 18);
  for (int64_t g = 0; g < o.graphs; ++g) {
    data::GraphRecord record = build_graph(rng, g, o);
    io::RuntimeColumns runtimes;
    for (double x : record.configs.runtimes) runtimes.runtime_ns.push_back(static_cast<int64_t>(x));
    const std::string npz = dir + "/" + record.graph.name + ".npz";
    auto start = Clock::now();
    io::write_tpugraphs_npz(npz, record, runtimes, /*compress=*/!o.stored_npz);
    npz_write_seconds += seconds_since(start);
    start = Clock::now();
    writer.add(record);
    pack_write_seconds += seconds_since(start);
    npz_paths.push_back(npz);
    npz_compressed += fs::file_size(npz);
    npz_uncompressed += uncompressed_zip_bytes(npz);
    std::fprintf(stderr, "built %lld/%lld: %lld nodes, %lld configurable\n",
                 static_cast<long long>(g + 1), static_cast<long long>(o.graphs),
                 static_cast<long long>(record.graph.num_nodes),
                 static_cast<long long>(record.configs.nodes));
  }
  auto start = Clock::now();
  writer.commit();
  pack_write_seconds += seconds_since(start);
  const uint64_t pack_bytes = fs::file_size(pack_path);

  io::PackCollection pack(pack_path);
  // Each graph is checked once when first touched (both checksums, record validation); that
  // one-off cost is its own figure, and the random reads below are the steady state after it.
  start = Clock::now();
  for (int64_t g = 0; g < o.graphs; ++g) pack.configs(g);
  const double first_touch_seconds = seconds_since(start);
  std::uniform_int_distribution<int64_t> pick_graph(0, o.graphs - 1), pick_config(0, o.configs - 1);
  std::vector<int8_t> buffer(1 << 20);
  uint64_t checksum = 0;
  start = Clock::now();
  for (int64_t i = 0; i < o.pack_reads; ++i) {
    const data::ConfigView v = pack.configs(pick_graph(rng));
    const int64_t bytes = v.nodes * v.width;
    std::memcpy(buffer.data(), v.layout_config(pick_config(rng)), bytes);
    checksum += static_cast<uint8_t>(buffer[bytes / 2]);
  }
  const double pack_rate = o.pack_reads / seconds_since(start);

  // numpy-style: open the file and read the whole node_config_feat key, then take row j.
  int64_t npz_reads = 0, mismatches = 0;
  std::vector<float> row;
  start = Clock::now();
  while (npz_reads < 3 || seconds_since(start) < o.npz_seconds) {
    const int64_t g = pick_graph(rng), j = pick_config(rng);
    io::NpzReader reader(npz_paths[g]);
    const io::NpyArray feat = reader.read("node_config_feat");
    const int64_t stride = feat.dim(1) * feat.dim(2);
    const float* all = reinterpret_cast<const float*>(feat.data.data());
    row.assign(all + j * stride, all + (j + 1) * stride);
    const data::ConfigView v = pack.configs(g);
    for (int64_t k = 0; k < stride; ++k) mismatches += row[k] != v.layout_config(j)[k];
    ++npz_reads;
  }
  const double npz_rate = npz_reads / seconds_since(start);
  if (mismatches != 0) throw Error(pack_path, "", "pack and npz configurations differ");

  figure("pack_random_config_reads", pack_rate, "configs/s");
  figure("npz_random_config_reads", npz_rate, "configs/s");
  figure("pack_speedup_over_npz", pack_rate / npz_rate, "x");
  figure("pack_size", pack_bytes / 1e6, "MB");
  figure("npz_uncompressed_size", npz_uncompressed / 1e6, "MB");
  figure(o.stored_npz ? "npz_stored_file_size" : "npz_compressed_size", npz_compressed / 1e6, "MB");
  figure("pack_over_uncompressed_npz", static_cast<double>(pack_bytes) / npz_uncompressed, "ratio");
  figure("pack_write_time", pack_write_seconds, "s");
  figure("pack_first_touch_checks", first_touch_seconds, "s");
  figure(o.stored_npz ? "npz_stored_write_time" : "npz_compressed_write_time", npz_write_seconds,
         "s");
  start = Clock::now();
  pack.verify();
  figure("pack_verify_time", seconds_since(start), "s");
  std::fprintf(stderr, "graphs %lld, configs %lld each, npz reads %lld, checksum %llu\n",
               static_cast<long long>(o.graphs), static_cast<long long>(o.configs),
               static_cast<long long>(npz_reads), static_cast<unsigned long long>(checksum));
  if (!o.keep && o.dir.empty()) fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw graphcost::Error("pack_bench", arg, "needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--graphs")
        o.graphs = std::stoll(value());
      else if (arg == "--configs")
        o.configs = std::stoll(value());
      else if (arg == "--min-nodes")
        o.min_nodes = std::stoll(value());
      else if (arg == "--max-nodes")
        o.max_nodes = std::stoll(value());
      else if (arg == "--pack-reads")
        o.pack_reads = std::stoll(value());
      else if (arg == "--npz-seconds")
        o.npz_seconds = std::stod(value());
      else if (arg == "--dir")
        o.dir = value();
      else if (arg == "--keep")
        o.keep = true;
      else if (arg == "--stored-npz")
        o.stored_npz = true;
      else
        throw graphcost::Error("pack_bench", arg, "unknown option");
      if (o.graphs < 1 || o.configs < 1 || o.min_nodes < 20 || o.max_nodes < o.min_nodes) {
        throw graphcost::Error("pack_bench", arg, "out of range");
      }
    } catch (const std::logic_error&) {
      std::fprintf(stderr, "pack_bench: %s: not a number\n", arg.c_str());
      return 2;
    } catch (const graphcost::Error& e) {
      std::fprintf(stderr, "pack_bench: %s\n", e.what());
      return 2;
    }
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pack_bench: error: %s\n", e.what());
    return 1;
  }
}
