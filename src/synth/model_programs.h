// Model-like XLA training-step programs for the layout collections: a convolutional network
// (the xla collections) or a transformer (the nlp collections), forward pass, backward pass
// and optimizer updates gathered by one root tuple.
#pragma once

#include <cstdint>
#include <vector>

#include "synth/hlo.h"

namespace graphcost::synth {

enum class ProgramFamily { Convolutional, Transformer };

struct LayoutProgram {
  Program program;
  std::vector<int32_t> configurable;  // global node ids, ascending (convolution, dot, reshape,
                                      // transpose)
};

// Smallest node count build_layout_program accepts.
constexpr int64_t kMinLayoutProgramNodes = 128;

// Builds a program of exactly `nodes` nodes whose configurable nodes are about
// configurable_fraction of all nodes (at least one; fewer when the program has fewer candidate
// nodes). Deterministic in seed. nodes < kMinLayoutProgramNodes or a fraction outside (0, 1]
// is an Error.
LayoutProgram build_layout_program(uint64_t seed, ProgramFamily family, int64_t nodes,
                                   double configurable_fraction);

}  // namespace graphcost::synth
