// Writes a graph in the JSON format node by node: the shared helper of the graph generators.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace symshape::gen {

using Json = nlohmann::ordered_json;

class GraphWriter {
 public:
  // A named dim: {"min", "max", "hint"} in the graph's "dims".
  void dim(const std::string& name, int64_t min, int64_t max, int64_t hint);
  // Each adds one node and returns its name (the reference to use in later arguments).
  std::string placeholder(const std::string& name, const std::string& dtype, Json shape);
  std::string get_attr(const std::string& name, const std::string& target, const std::string& dtype,
                       Json shape);
  std::string call(const std::string& name, const std::string& target, Json args,
                   Json kwargs = nullptr);
  void output(const std::vector<std::string>& values);

  // The document: the header, the dims, then one node per line.
  std::string text() const;

  // {"node": name}: a reference to an earlier node.
  static Json ref(const std::string& name) { return Json{{"node", name}}; }

 private:
  Json dims_ = Json::object();
  std::vector<Json> nodes_;
};

}  // namespace symshape::gen
