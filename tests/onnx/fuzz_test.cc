// Damaged models never crash the importer, the rules or the writer: a valid model truncated at
// every length, with bits flipped, and with its protobuf fields changed at random (dims, element
// types, initializers' storage, attributes, inputs, op types, opsets, subgraphs) is read,
// propagated and written back; each either works or fails with a message. The sanitizer build
// runs this too (keep it well under 10 s there).
#include <random>

#include "tests/onnx/onnx_builder.h"

namespace symshape::onnx::testing {
namespace {

// A model touching most of what the importer reads: dim_params, unnamed dims, int64 and float
// initializers (repeated fields and raw_data), a Constant node, attributes of every kind, a node
// with two outputs, shape arithmetic into Reshape, and an If with subgraphs reading outer names.
::onnx::ModelProto valid_model() {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "3", "H", "W"}).input("t", 7, {"?"});
  m.weight("w", {4, 3, 3, 3});
  m.floats("b", {0, 0, 0, 0});
  m.ints("axes", {0}).ints("zero", {0}, {}).ints("minus_one", {-1}).ints("split", {2, 2});
  m.node("Conv", {"x", "w", "b"}, {"c"},
         {attr_ints("pads", {1, 1, 1, 1}), attr_ints("strides", {2, 2}),
          attr_string("auto_pad", "NOTSET")});
  m.node("Relu", {"c"}, {"r"});
  m.node("Split", {"r", "split"}, {"s0", "s1"}, {attr_int("axis", 1)});
  m.node("Add", {"s0", "s1"}, {"a"});
  m.node("Shape", {"a"}, {"shape"});
  m.node("Gather", {"shape", "zero"}, {"n"}, {attr_int("axis", 0)});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  m.node("Concat", {"n1", "minus_one"}, {"target"}, {attr_int("axis", 0)});
  m.node("Reshape", {"a", "target"}, {"flat"});
  m.node("Cast", {"t"}, {"tf"}, {attr_int("to", 1)});
  ::onnx::TensorProto k;
  k.set_data_type(1);
  k.add_dims(1);
  k.add_float_data(0.5f);
  ::onnx::AttributeProto value;
  value.set_name("value");
  value.set_type(::onnx::AttributeProto::TENSOR);
  *value.mutable_t() = k;
  m.node("Constant", {}, {"half"}, {value});
  m.node("Mul", {"flat", "half"}, {"y"}, {attr_floats("unused", {1.5f})});
  m.node("Greater", {"n", "zero"}, {"cond"});
  GraphBuilder then_branch, else_branch;
  then_branch.node("Identity", {"y"}, {"then_out"}).output("then_out");
  else_branch.node("Neg", {"y"}, {"else_out"}).output("else_out");
  m.node(
      "If", {"cond"}, {"z"},
      {attr_graph("then_branch", then_branch.graph), attr_graph("else_branch", else_branch.graph)});
  m.output("y", 1, {"N", "?"}).output("z").output("tf");
  ::onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(m.bytes()));
  return model;
}

std::string serialize(const ::onnx::ModelProto& model) {
  std::string out;
  model.SerializeToString(&out);
  return out;
}

// Reads, propagates and writes back; checks only that failures carry a message (crashes and
// undefined behaviour are the sanitizers' to find). Returns whether the model imported.
bool exercise(const std::string& bytes) {
  Expected<Graph> g = read_model(bytes, "<fuzz>");
  if (!g) {
    EXPECT_FALSE(g.error().empty());
    EXPECT_TRUE(is_utf8(g.error())) << g.error();
    return false;
  }
  ShapeEnv env;
  PropagateOptions options;
  options.registry = &registry();
  Propagation p = propagate(*g, env, options);
  if (!p.ok()) {
    EXPECT_FALSE(p.error.empty());
    EXPECT_TRUE(is_utf8(p.error)) << p.error;  // names from the file may hold any bytes
    return true;
  }
  Expected<std::string> out = write_inferred(bytes, *g, p, env);
  if (out) {
    // What symshape writes, it reads.
    Expected<Graph> again = read_model(*out, "<written>");
    EXPECT_TRUE(again) << again.error();
  }
  return true;
}

TEST(OnnxFuzz, TheUndamagedModelImportsAndPropagates) {
  const std::string bytes = serialize(valid_model());
  Expected<Graph> g = read_model(bytes, "<fuzz>");
  ASSERT_TRUE(g) << g.error();
  EXPECT_TRUE(exercise(bytes));
}

TEST(OnnxFuzz, EveryTruncationIsAnErrorOrAModel) {
  const std::string bytes = serialize(valid_model());
  size_t imported = 0;
  for (size_t n = 0; n < bytes.size(); ++n) imported += exercise(bytes.substr(0, n));
  // Most prefixes cut a field short; a few end between fields and parse as smaller models.
  EXPECT_LT(imported, bytes.size());
}

TEST(OnnxFuzz, FlippedBitsAreErrorsOrModels) {
  const std::string bytes = serialize(valid_model());
  std::mt19937 rng(18);
  // One flipped bit at every byte, then a few bytes overwritten at random.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string b = bytes;
    b[i] = static_cast<char>(b[i] ^ (1u << (i % 8)));
    exercise(b);
  }
  std::uniform_int_distribution<size_t> pos(0, bytes.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255), count(2, 6);
  for (int round = 0; round < 300; ++round) {
    std::string b = bytes;
    for (int k = count(rng); k > 0; --k) b[pos(rng)] = static_cast<char>(byte(rng));
    exercise(b);
  }
}

// Changes one field of the model at random, to values a writer could produce by mistake.
class Mutator {
 public:
  explicit Mutator(uint32_t seed) : rng_(seed) {}

  void mutate(::onnx::ModelProto& model) {
    auto* g = model.mutable_graph();
    switch (pick(9)) {
      case 0: mutate_dims(g); break;
      case 1: mutate_initializer(g); break;
      case 2: mutate_attribute(g); break;
      case 3: mutate_inputs(g); break;
      case 4: mutate_op(g); break;
      case 5: {
        auto* o = model.mutable_opset_import(0);
        o->set_version(extreme(true) % 30);
        if (pick(4) == 0) o->set_domain(pick(2) ? "ai.onnx.ml" : "nonsense");
        break;
      }
      case 6:
        if (g->node_size() > 0) {
          // Delete a node (its outputs become undefined) or duplicate one (defined twice).
          const int k = pick(g->node_size());
          if (pick(2)) {
            g->mutable_node()->DeleteSubrange(k, 1);
          } else {
            *g->add_node() = g->node(k);
          }
        }
        break;
      case 7:
        if (g->output_size() > 0) {
          auto* o = g->mutable_output(pick(g->output_size()));
          if (pick(2)) {
            o->set_name(pick(2) ? "x" : "nowhere");
          } else {
            set_type(o, static_cast<int>(extreme(false) % 25), {"N", "7", "?"});
          }
        }
        break;
      default: mutate_subgraph(g); break;
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // A value from the edges: 0, ±1, small, huge, the int64 extremes.
  int64_t extreme(bool allow_negative) {
    static const int64_t kValues[] = {0,
                                      1,
                                      2,
                                      3,
                                      7,
                                      64,
                                      1 << 20,
                                      int64_t{1} << 40,
                                      -1,
                                      -2,
                                      -7,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min()};
    int64_t v = kValues[pick(static_cast<int>(std::size(kValues)))];
    return allow_negative || v >= 0 ? v : -(v + 1);
  }

  void mutate_dims(::onnx::GraphProto* g) {
    if (g->input_size() == 0) return;
    auto* v = g->mutable_input(pick(g->input_size()));
    auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
    switch (pick(5)) {
      case 0:
        if (shape->dim_size() > 0)
          shape->mutable_dim(pick(shape->dim_size()))->set_dim_value(extreme(true));
        break;
      case 1:
        if (shape->dim_size() > 0) {
          static const char* const kParams[] = {"", "N", "H", "1x", "a b", "x_dim0", "\xff"};
          shape->mutable_dim(pick(shape->dim_size()))->set_dim_param(kParams[pick(7)]);
        }
        break;
      case 2: shape->add_dim()->set_dim_value(pick(4)); break;
      case 3:
        if (shape->dim_size() > 0) shape->mutable_dim()->RemoveLast();
        break;
      default:
        v->mutable_type()->mutable_tensor_type()->set_elem_type(
            static_cast<int>(extreme(false) % 25));
        break;
    }
  }

  void mutate_tensor(::onnx::TensorProto* t) {
    switch (pick(6)) {
      case 0:
        if (t->dims_size() > 0) t->set_dims(pick(t->dims_size()), extreme(true));
        break;
      case 1: t->add_dims(pick(2) ? 0 : extreme(false)); break;
      case 2: t->set_data_type(static_cast<int>(extreme(false) % 25)); break;
      case 3: t->set_raw_data(std::string(static_cast<size_t>(pick(40)), '\x01')); break;
      case 4:
        t->clear_int64_data();
        t->clear_float_data();
        t->clear_raw_data();
        break;
      default:
        t->add_int64_data(extreme(true));
        t->add_int32_data(static_cast<int32_t>(extreme(true)));
        break;
    }
  }

  void mutate_initializer(::onnx::GraphProto* g) {
    if (g->initializer_size() == 0) return;
    mutate_tensor(g->mutable_initializer(pick(g->initializer_size())));
  }

  void mutate_attribute(::onnx::GraphProto* g) {
    if (g->node_size() == 0) return;
    auto* n = g->mutable_node(pick(g->node_size()));
    if (n->attribute_size() == 0 || pick(4) == 0) {
      static const char* const kNames[] = {"axis",     "axes",    "pads",         "to",    "perm",
                                           "keepdims", "strides", "kernel_shape", "value", "split"};
      auto* a = n->add_attribute();
      a->set_name(kNames[pick(10)]);
      a->set_type(::onnx::AttributeProto::INT);
      a->set_i(extreme(true));
      return;
    }
    auto* a = n->mutable_attribute(pick(n->attribute_size()));
    switch (pick(5)) {
      case 0: a->set_i(extreme(true)); break;
      case 1: a->add_ints(extreme(true)); break;
      case 2: a->clear_ints(); break;
      case 3: a->set_type(static_cast<::onnx::AttributeProto::AttributeType>(pick(15))); break;
      default:
        if (a->has_t()) {
          mutate_tensor(a->mutable_t());
        } else {
          a->set_s(pick(2) ? "SAME_UPPER" : "");
        }
        break;
    }
  }

  void mutate_inputs(::onnx::GraphProto* g) {
    if (g->node_size() == 0) return;
    auto* n = g->mutable_node(pick(g->node_size()));
    static const char* const kNames[] = {"", "x", "t", "zero", "shape", "undefined", "y", "w"};
    switch (pick(3)) {
      case 0:
        if (n->input_size() > 0) n->set_input(pick(n->input_size()), kNames[pick(8)]);
        break;
      case 1: n->add_input(kNames[pick(8)]); break;
      default:
        if (n->input_size() > 0) n->mutable_input()->RemoveLast();
        break;
    }
  }

  void mutate_op(::onnx::GraphProto* g) {
    if (g->node_size() == 0) return;
    static const char* const kOps[] = {
        "Reshape",         "Expand", "Tile",   "Slice", "Squeeze",   "Unsqueeze", "Concat",
        "Split",           "Gather", "Range",  "Pad",   "Transpose", "Flatten",   "Resize",
        "MaxPool",         "Conv",   "MatMul", "Gemm",  "TopK",      "NonZero",   "ReduceSum",
        "ConstantOfShape", "Shape",  "Size",   "Where", "Loop",      "Scan",      "If",
        "Einsum",          "OneHot", "Nope"};
    auto* n = g->mutable_node(pick(g->node_size()));
    n->set_op_type(kOps[pick(static_cast<int>(std::size(kOps)))]);
    if (pick(8) == 0) n->set_domain("com.microsoft");
  }

  void mutate_subgraph(::onnx::GraphProto* g) {
    for (auto& n : *g->mutable_node()) {
      for (auto& a : *n.mutable_attribute()) {
        if (!a.has_g()) continue;
        auto* sub = a.mutable_g();
        switch (pick(3)) {
          case 0: sub->clear_output(); break;
          case 1:
            if (sub->node_size() > 0) sub->mutable_node(0)->set_input(0, pick(2) ? "n" : "gone");
            break;
          default: sub->add_output()->set_name("y"); break;
        }
        return;
      }
    }
  }

  std::mt19937 rng_;
};

TEST(OnnxFuzz, ChangedFieldsAreErrorsOrModels) {
  const ::onnx::ModelProto base = valid_model();
  Mutator mutator(2026);
  size_t imported = 0;
  constexpr int kModels = 600;
  for (int round = 0; round < kModels; ++round) {
    ::onnx::ModelProto model = base;
    for (int k = 1 + round % 3; k > 0; --k) mutator.mutate(model);
    imported += exercise(serialize(model));
  }
  // Many changes leave a model symshape can read (its rules then judge it).
  EXPECT_GT(imported, size_t{kModels / 10});
}

}  // namespace
}  // namespace symshape::onnx::testing
