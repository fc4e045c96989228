// Parsing and checking a rank request's body into a graph record, before any model sees it.
// Two encodings of the same TpuGraphs arrays (node_feat, node_opcode, edge_index, and
// config_feat for tile or node_config_ids + node_config_feat [+ node_splits] for layout):
// a JSON object of nested arrays, or the raw bytes of an .npz file. Both end in
// io::read_tpugraphs_record, the checks `predict` applies to a file. Nothing in a request names
// a file: the arrays are the request.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "data/collection.h"

namespace graphcost::serve {

// What a request may ask for.
struct RequestLimits {
  int64_t max_configs = 100000;                // configurations in one request
  // Nodes and edges of the request's graph: scoring time and memory grow with them. The largest
  // released TpuGraphs graph has 43,615 nodes (docs/serve.md).
  int64_t max_nodes = 50000;
  int64_t max_edges = 200000;
  uint64_t max_array_bytes = uint64_t{1} << 30;  // declared uncompressed bytes of an .npz body
  int64_t max_mc_samples = 64;
};

// How to score, as the request asks (predict's --mc-samples and --seed).
struct RankOptions {
  int64_t mc_samples = 0;  // > 0: mean of this many MC-dropout passes, and their spread
  uint64_t seed = 0;
};

struct RankRequest {
  data::GraphRecord record;  // as read, not yet validated against a model (see rank_service.h)
  RankOptions options;
};

// {"node_feat": [[...]], ..., "name": "graph", "mc_samples": 0, "seed": 0}. Integers become
// int64 arrays and other numbers float64, then the reader's dtype and shape checks apply; an
// empty edge_index means no edges. Malformed JSON, a field of another type, a ragged or too
// deep array, an unknown field or a record the reader refuses is an HttpError 400 naming the
// field; a repeated field (at any depth) or a number beyond double's range is a 400 too; more
// configurations, nodes or edges than limits allow is a 413.
RankRequest parse_json_rank_request(const std::string& body, const RequestLimits& limits);

// An .npz file's bytes (read in memory, never written to disk); options come from the query
// (name, mc_samples, seed). A truncated or damaged archive, or one of the reader's errors, is an
// HttpError 400; an archive declaring more than limits.max_array_bytes uncompressed, or more
// configurations, nodes or edges than limits allow, is a 413.
RankRequest parse_npz_rank_request(const std::string& body,
                                   const std::map<std::string, std::string>& query,
                                   const RequestLimits& limits);

}  // namespace graphcost::serve
