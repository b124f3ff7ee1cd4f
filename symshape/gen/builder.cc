#include <utility>

#include "symshape/gen/builder.h"

namespace symshape::gen {

void GraphWriter::dim(const std::string& name, int64_t min, int64_t max, int64_t hint) {
  dims_[name] = Json{{"min", min}, {"max", max}, {"hint", hint}};
}

std::string GraphWriter::placeholder(const std::string& name, const std::string& dtype,
                                     Json shape) {
  nodes_.push_back(
      Json{{"name", name}, {"op", "placeholder"}, {"dtype", dtype}, {"shape", std::move(shape)}});
  return name;
}

std::string GraphWriter::get_attr(const std::string& name, const std::string& target,
                                  const std::string& dtype, Json shape) {
  nodes_.push_back(Json{{"name", name},
                        {"op", "get_attr"},
                        {"target", target},
                        {"dtype", dtype},
                        {"shape", std::move(shape)}});
  return name;
}

std::string GraphWriter::call(const std::string& name, const std::string& target, Json args,
                              Json kwargs) {
  Json node{{"name", name}, {"op", "call_function"}, {"target", target}, {"args", std::move(args)}};
  if (!kwargs.is_null()) node["kwargs"] = std::move(kwargs);
  nodes_.push_back(std::move(node));
  return name;
}

void GraphWriter::output(const std::vector<std::string>& values) {
  Json list = Json::array();
  for (const std::string& v : values) list.push_back(ref(v));
  nodes_.push_back(Json{{"name", "output"}, {"op", "output"}, {"args", Json::array({list})}});
}

std::string GraphWriter::text() const {
  std::string out = "{\"format\": \"symshape-graph\", \"version\": 1,\n \"dims\": ";
  out += dims_.dump();
  out += ",\n \"nodes\": [\n";
  for (size_t i = 0; i < nodes_.size(); ++i) {
    out += "  ";
    out += nodes_[i].dump();
    out += i + 1 < nodes_.size() ? ",\n" : "]}\n";
  }
  if (nodes_.empty()) out += "]}\n";
  return out;
}

}  // namespace symshape::gen
