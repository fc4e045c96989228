// Collections and graphs: graphcost.open over every source the CLI reads, graphs built from
// numpy arrays with the readers' checks, and each graph's arrays as read-only numpy views.
#include <filesystem>
#include <optional>

#include <pybind11/stl.h>

#include "core/error.h"
#include "data/prune.h"
#include "data/validate.h"
#include "io/array_archive.h"
#include "io/collection_readers.h"
#include "io/tpugraphs_npz.h"
#include "python/src/bindings.h"

namespace graphcost::python {

namespace {

namespace fs = std::filesystem;

// A read-only numpy view of count * ... elements owned by what base keeps alive: no copy.
template <typename T>
py::array view(const T* data, std::vector<py::ssize_t> shape, py::handle base) {
  py::array_t<T> out;
  py::ssize_t size = 1;
  for (py::ssize_t d : shape) size *= d;
  if (size == 0 || data == nullptr) {
    out = py::array_t<T>(shape);  // nothing to share; numpy wants a real pointer
  } else {
    out = py::array_t<T>(shape, data, base);
  }
  out.attr("setflags")(py::arg("write") = false);
  return out;
}

io::DType dtype_of(const py::dtype& dtype, const std::string& where, const std::string& key) {
  const char kind = dtype.kind();
  const py::ssize_t size = dtype.itemsize();
  if (kind == 'b') return io::DType::Bool;
  if (kind == 'i' || kind == 'u') {
    const bool s = kind == 'i';
    switch (size) {
      case 1: return s ? io::DType::Int8 : io::DType::UInt8;
      case 2: return s ? io::DType::Int16 : io::DType::UInt16;
      case 4: return s ? io::DType::Int32 : io::DType::UInt32;
      case 8: return s ? io::DType::Int64 : io::DType::UInt64;
    }
  }
  if (kind == 'f') {
    if (size == 2) return io::DType::Float16;
    if (size == 4) return io::DType::Float32;
    if (size == 8) return io::DType::Float64;
  }
  throw Error(where, key,
              "unsupported dtype " + py::str(py::handle(dtype)).cast<std::string>() +
                  " (expected bool, an integer or a float dtype)");
}

std::optional<std::string> none_or_string(const py::object& value) {
  if (value.is_none()) return std::nullopt;
  return value.cast<std::string>();
}

// The split asked for when none is given: "train" where the path holds splits (a dataset root or
// a collection folder), else "" (a file, a split folder, a pack or a Kernel Tuner source).
std::string default_split(const std::string& path) {
  if (!data::dataset_root_of(path).empty()) return "train";
  if (fs::is_directory(path) && fs::is_directory(fs::path(path) / "train")) return "train";
  return "";
}

std::shared_ptr<PyCollection> open(const std::string& path, const py::object& collection,
                                   const py::object& split, int prune, const std::string& prune_seeds,
                                   bool merge_duplicates, bool skip_invalid,
                                   const std::vector<std::string>& exclude, bool extended_features,
                                   const std::string& devices, const std::string& device_name) {
  auto out = std::make_shared<PyCollection>();
  out->path = path;
  data::LoadOptions& load = out->load;
  load.merge_duplicates = merge_duplicates;
  load.skip_invalid = skip_invalid;
  load.exclude = exclude;
  load.prune_hops = prune;
  load.prune_seed_opcodes = data::parse_prune_seeds(prune_seeds);
  load.extended_features = extended_features;
  load.devices = devices;
  load.device_name = device_name;
  data::CollectionId id;
  if (auto named = none_or_string(collection)) {
    id = data::CollectionId::parse(*named);
  } else if (auto in_path = data::collection_id_in_path(path)) {
    id = *in_path;
  } else {
    load.kind_from_data = true;
  }
  const std::string s = none_or_string(split).value_or(default_split(path));
  {
    py::gil_scoped_release release;
    out->collection = io::open_collection(path, id, s, load);
  }
  out->id = out->collection->id();
  out->split = out->collection->split();
  return out;
}

// A graph from numpy arrays keyed as in a TpuGraphs .npz, checked as the reader and the loader
// check a file; configuration indices are kept (no duplicates merged).
PyGraph graph_from_arrays(const std::string& name, const py::dict& arrays,
                          const py::object& collection) {
  io::ArrayMap archive(name);
  for (const auto& [key, value] : arrays) {
    if (value.is_none()) continue;
    const std::string k = py::str(key).cast<std::string>();
    archive.add(k, npy_from_numpy(value, name, k));
  }
  auto out = std::make_shared<PyCollection>();
  out->load.merge_duplicates = false;
  data::GraphRecord record;
  {
    py::gil_scoped_release release;
    // As a file is read (serve reads a request's arrays the same way).
    record = io::read_tpugraphs_record(archive);
    record.source = name;
    data::prepare_record(record, out->load);
  }
  data::CollectionId id;
  if (auto named = none_or_string(collection)) {
    id = data::CollectionId::parse(*named);
    check_data(id.kind == record.configs.kind, name, "",
               "holds " + data::config_kind_name(record.configs.kind) +
                   " configurations, but collection " + id.str() + " was asked");
  } else {
    id = data::CollectionId::parse(record.configs.kind == data::ConfigKind::Tile
                                       ? "tile:xla"
                                       : "layout:xla:default");
  }
  std::vector<data::GraphRecord> records;
  records.push_back(std::move(record));
  out->collection = std::make_unique<data::MemoryCollection>(id, "", std::move(records));
  out->id = id;
  return PyGraph{out, 0};
}

PyGraph graph_at(const std::shared_ptr<PyCollection>& c, int64_t g) {
  const int64_t n = c->collection->size();
  if (g < 0) g += n;
  if (g < 0 || g >= n) throw py::index_error("graph index out of range");
  return PyGraph{c, g};
}

}  // namespace

io::NpyArray npy_from_numpy(const py::handle& value, const std::string& where,
                            const std::string& key) {
  py::array given = py::array::ensure(value);
  if (!given) throw Error(where, key, "expected a numpy array");
  io::NpyArray out;
  out.dtype = dtype_of(given.dtype(), where, key);
  // C order, little-endian (every machine this builds on), one contiguous copy.
  py::array c = py::array::ensure(given, py::array::c_style);
  for (py::ssize_t d = 0; d < c.ndim(); ++d) out.shape.push_back(c.shape(d));
  const auto* bytes = static_cast<const uint8_t*>(c.data());
  out.data.assign(bytes, bytes + c.nbytes());
  return out;
}

std::vector<double> doubles_from_numpy(const py::handle& value, const std::string& name) {
  const io::NpyArray a = npy_from_numpy(value, "argument", name);
  check_data(a.shape.size() == 1, "argument", name,
             "expected a 1-D array, got shape " + io::shape_text(a.shape));
  check_data(a.dtype != io::DType::Bool, "argument", name, "expected numbers, got bool");
  return a.to_vector<double>("argument: " + name);
}

data::GraphRecord copy_record(const data::Collection& c, int64_t g) {
  data::GraphRecord record;
  record.graph = c.graph(g);
  record.source = c.source(g);
  const data::ConfigView v = c.configs(g);
  data::ConfigTable& t = record.configs;
  t.kind = v.kind;
  t.count = v.count;
  t.nodes = v.nodes;
  t.width = v.width;
  if (v.kind == data::ConfigKind::Tile) {
    t.tile.assign(v.tile, v.tile + v.count * v.width);
  } else {
    t.layout.assign(v.layout, v.layout + v.count * v.nodes * v.width);
  }
  if (v.runtimes) t.runtimes.assign(v.runtimes, v.runtimes + v.count);
  if (v.failed) t.failed.assign(v.failed, v.failed + v.count);
  t.default_config = v.default_config;
  return record;
}

void bind_data(py::module_& m) {
  py::class_<PyCollection, std::shared_ptr<PyCollection>>(m, "Collection",
      "The graphs of one collection and split, opened by graphcost.open")
      .def_property_readonly("id", [](const PyCollection& c) { return c.id.str(); })
      .def_property_readonly("kind", [](const PyCollection& c) { return data::config_kind_name(c.id.kind); })
      .def_property_readonly("split", [](const PyCollection& c) { return c.split; })
      .def_property_readonly("path", [](const PyCollection& c) { return c.path; })
      .def("__len__", [](const PyCollection& c) { return c.collection->size(); })
      .def("__getitem__", &graph_at)
      .def("__repr__", [](const PyCollection& c) {
        return "<graphcost.Collection " + c.id.str() + " " + c.split + ": " +
               std::to_string(c.collection->size()) + " graphs>";
      });

  py::class_<PyGraph>(m, "Graph",
      "One graph and its configurations; arrays are read-only views (no copy) kept alive by it")
      .def_property_readonly("collection", [](const PyGraph& g) { return g.owner; })
      .def_property_readonly("index", [](const PyGraph& g) { return g.index; })
      .def_property_readonly("name", [](const PyGraph& g) { return g.graph().name; })
      .def_property_readonly("source", [](const PyGraph& g) { return g.owner->collection->source(g.index); })
      .def_property_readonly("kind", [](const PyGraph& g) { return data::config_kind_name(g.configs().kind); })
      .def_property_readonly("num_nodes", [](const PyGraph& g) { return g.graph().num_nodes; })
      .def_property_readonly("num_configs", [](const PyGraph& g) { return g.configs().count; })
      .def_property_readonly("node_feat", [](py::object self) {
        const data::Graph& gr = self.cast<PyGraph&>().graph();
        return view(gr.node_features.data(), {gr.num_nodes, gr.feature_width}, self);
      })
      .def_property_readonly("node_opcode", [](py::object self) {
        const data::Graph& gr = self.cast<PyGraph&>().graph();
        return view(gr.opcodes.data(), {gr.num_nodes}, self);
      })
      .def_property_readonly("edge_index", [](py::object self) {
        const data::Graph& gr = self.cast<PyGraph&>().graph();
        return view(gr.edges.data(), {gr.num_edges(), 2}, self);
      })
      .def_property_readonly("node_splits", [](py::object self) {
        const data::Graph& gr = self.cast<PyGraph&>().graph();
        return view(gr.node_splits.data(), {static_cast<py::ssize_t>(gr.node_splits.size())}, self);
      })
      .def_property_readonly("node_config_ids", [](py::object self) -> py::object {
        const PyGraph& g = self.cast<PyGraph&>();
        if (g.configs().kind == data::ConfigKind::Tile) return py::none();
        const data::Graph& gr = g.graph();
        return view(gr.configurable_nodes.data(),
                    {static_cast<py::ssize_t>(gr.configurable_nodes.size())}, self);
      })
      .def_property_readonly("config_feat", [](py::object self) -> py::object {
        const data::ConfigView v = self.cast<PyGraph&>().configs();
        if (v.kind != data::ConfigKind::Tile) return py::none();
        return view(v.tile, {v.count, v.width}, self);
      })
      .def_property_readonly("node_config_feat", [](py::object self) -> py::object {
        const data::ConfigView v = self.cast<PyGraph&>().configs();
        if (v.kind != data::ConfigKind::Layout) return py::none();
        return view(v.layout, {v.count, v.nodes, v.width}, self);
      })
      .def_property_readonly("runtimes", [](py::object self) -> py::object {
        const data::ConfigView v = self.cast<PyGraph&>().configs();
        if (!v.runtimes) return py::none();
        return view(v.runtimes, {v.count}, self);
      })
      .def_property_readonly("failed", [](py::object self) -> py::object {
        const data::ConfigView v = self.cast<PyGraph&>().configs();
        if (!v.failed) return py::none();
        return view(reinterpret_cast<const bool*>(v.failed), {v.count}, self);
      })
      .def_property_readonly("default_config", [](const PyGraph& g) { return g.configs().default_config; })
      .def("__repr__", [](const PyGraph& g) {
        return "<graphcost.Graph " + g.graph().name + ": " + std::to_string(g.graph().num_nodes) +
               " nodes, " + std::to_string(g.configs().count) + " " +
               data::config_kind_name(g.configs().kind) + " configurations>";
      });

  m.def("open", &open, py::arg("path"), py::arg("collection") = py::none(),
        py::arg("split") = py::none(), py::arg("prune") = -1, py::arg("prune_seeds") = "all",
        py::arg("merge_duplicates") = false, py::arg("skip_invalid") = false,
        py::arg("exclude") = std::vector<std::string>{}, py::arg("extended_features") = false,
        py::arg("devices") = "", py::arg("device_name") = "");
  m.def("_graph_from_arrays", &graph_from_arrays, py::arg("name"), py::arg("arrays"),
        py::arg("collection") = py::none());
}

}  // namespace graphcost::python
