// Shared pieces of the Python module graphcost._core: the objects Python holds (a collection
// and a graph of it) and the numpy <-> C++ conversions every binding file uses.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/collection.h"
#include "io/npy.h"

namespace graphcost::python {

namespace py = pybind11;

// A collection as Python holds it. Its graphs and every numpy view of their arrays keep it alive
// (a view's base object is the graph, which holds this). path is empty for a collection built
// from numpy arrays; load is how it was opened (scoring re-opens it when a run was pruned
// otherwise, as predict would have opened it).
struct PyCollection {
  std::unique_ptr<data::Collection> collection;
  std::string path;
  data::CollectionId id;
  std::string split;
  data::LoadOptions load;
};

// One graph of a collection, by index.
struct PyGraph {
  std::shared_ptr<PyCollection> owner;
  int64_t index = 0;
  const data::Graph& graph() const { return owner->collection->graph(index); }
  data::ConfigView configs() const { return owner->collection->configs(index); }
};

// A numpy array given by the user as an NpyArray (C order, little-endian), for the readers'
// checks. A dtype the readers do not know (object, complex, strings) is an Error naming
// "<where>: <key>".
io::NpyArray npy_from_numpy(const py::handle& value, const std::string& where,
                            const std::string& key);

// A 1-D array of numbers as doubles; anything else is an Error naming the argument.
std::vector<double> doubles_from_numpy(const py::handle& value, const std::string& name);

// A copy of graph g of a collection as an in-memory record (graph and configuration table).
data::GraphRecord copy_record(const data::Collection& c, int64_t g);

void bind_data(py::module_& m);
void bind_model(py::module_& m);
void bind_train(py::module_& m);
void bind_tune(py::module_& m);

}  // namespace graphcost::python
