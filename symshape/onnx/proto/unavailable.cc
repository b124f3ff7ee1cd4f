// The ONNX entry points of a build without libonnx: each says so.
#include "symshape/onnx.h"

namespace symshape::onnx {

namespace {
const char* const kUnavailable =
    "this symshape was built without ONNX support (install libonnx-dev and libprotobuf-dev, "
    "then reconfigure)";
}  // namespace

bool import_available() { return false; }

Expected<Graph> read_model(std::string_view, const std::string& origin, const ImportOptions&) {
  return Expected<Graph>::failure(origin + ": " + kUnavailable);
}

Expected<Graph> read_model_file(const std::string& path, const ImportOptions&) {
  return Expected<Graph>::failure(path + ": " + kUnavailable);
}

Expected<std::string> write_inferred(std::string_view, const Graph&, const Propagation&,
                                     ShapeEnv&) {
  return Expected<std::string>::failure(kUnavailable);
}

}  // namespace symshape::onnx
