// Stand-in for io::write_tpugraphs_npz, linked only while src/io/tpugraphs_npz.cc is not in
// the tree (see CMakeLists.txt): `graphcost ingest` then fails with one clear line instead of
// the whole program failing to link. Delete this file once the .npz writer has landed.
#include "core/error.h"
#include "io/tpugraphs_npz.h"

namespace graphcost::io {

void write_tpugraphs_npz(const std::string& path, const data::GraphRecord&, const RuntimeColumns&,
                         bool) {
  throw Error(path, "", "this build has no .npz writer yet (src/io/tpugraphs_npz.cc is missing)");
}

}  // namespace graphcost::io
