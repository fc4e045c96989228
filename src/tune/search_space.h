// The search space of a tuning campaign: the recorded configurations of one graph, each seen as
// an assignment of values to tunable parameters, with the recorded times to replay.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/collection.h"
#include "io/kernel_tuner.h"

namespace graphcost::tune {

// One tunable parameter: its values ("levels") in order, as text for a command line.
struct TuneParameter {
  std::string name;
  std::vector<std::string> labels;
  bool ordered = true;  // numeric levels, sorted ascending; false for categorical (one-hot)
};

struct SearchSpace {
  std::string name;  // the graph's name
  int64_t count = 0;
  std::vector<TuneParameter> parameters;
  std::vector<int32_t> levels;    // count x parameters: the level index of each value
  std::vector<double> runtimes;   // count recorded times; empty when unknown
  std::vector<uint8_t> failed;    // count, 1 = the recorded measurement failed

  int64_t parameter_count() const { return static_cast<int64_t>(parameters.size()); }
  const int32_t* config_levels(int64_t j) const { return levels.data() + j * parameter_count(); }
  bool has_runtimes() const { return !runtimes.empty(); }
  // The best recorded time of a configuration that did not fail; NaN when none is known.
  double optimum() const;
  // "name=value name=value ..." for configuration j.
  std::string assignment(int64_t j) const;
  // The value of each parameter of configuration j, as text.
  std::vector<std::string> values(int64_t j) const;
};

// Builds a space from a graph's configurations. With a Kernel Tuner layout the parameters are
// the kernel's (one-hot columns decoded to their value); without one each configuration column
// is a numeric parameter "c<k>" whose levels are its distinct values.
SearchSpace make_search_space(const std::string& name, const data::ConfigView& configs,
                              const std::vector<io::KernelTunerParameter>& layout = {});

// Records opened for tuning: every graph of the source, and which one is the target.
struct TuneRecords {
  std::unique_ptr<data::Collection> collection;
  std::vector<io::KernelTunerParameter> layout;  // empty unless a Kernel Tuner source
  int64_t target = 0;
};

// Opens path (anything io::open_collection reads; a Kernel Tuner cache or folder keeps its
// parameter layout) without picking a target (target stays 0); no graph is an Error. load's
// Kernel Tuner device options (devices, device_name) describe the caches' devices.
TuneRecords open_tune_source(const std::string& path, const std::string& split,
                             const data::LoadOptions& load = {});

// Opens path (anything io::open_collection reads; a Kernel Tuner cache or folder keeps its
// parameter layout) and picks the target graph: the only one, or the one whose name equals
// `graph`, or the one whose name contains `device`. No or several matches are an Error listing
// the graph names.
TuneRecords open_tune_records(const std::string& path, const std::string& split,
                              const std::string& graph, const std::string& device,
                              const data::LoadOptions& load = {});

}  // namespace graphcost::tune
