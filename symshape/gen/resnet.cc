// The ResNet-style CNN generator (include/symshape/gen.h).
#include <string>
#include <utility>

#include "symshape/gen.h"
#include "symshape/gen/builder.h"

namespace symshape::gen {

namespace {

class ResNetWriter {
 public:
  explicit ResNetWriter(const ResNetOptions& o) : o_(o) {}

  std::string write() {
    b_.dim("batch", 1, 256, 2);
    // Five stride-2 steps take the input down by 32: at least 32 keeps every size positive.
    b_.dim("h", 32, 1024, 64);
    b_.dim("w", 32, 1024, 64);
    const std::string x = b_.placeholder("x", "float32", Json::array({"batch", 3, "h", "w"}));
    std::string y = conv_bn("stem", x, 3, o_.width, 7, 2, 3);
    y = b_.call("stem_relu", "aten.relu.default", Json::array({ref(y)}));
    y = b_.call(
        "stem_pool", "aten.max_pool2d.default",
        Json::array({ref(y), Json::array({3, 3}), Json::array({2, 2}), Json::array({1, 1})}));
    // The blocks spread over four stages; each later stage starts with stride 2.
    const int64_t per_stage = (o_.blocks + 3) / 4;
    int64_t channels = o_.width;
    for (int64_t i = 0; i < o_.blocks; ++i) {
      const int64_t stage = i / per_stage;
      const bool first_of_stage = i % per_stage == 0 && stage > 0;
      const int64_t out = o_.width << stage;
      y = block("b" + std::to_string(i), y, channels, out, first_of_stage ? 2 : 1);
      channels = out;
    }
    const std::string pooled =
        b_.call("avgpool", "aten.mean.dim", Json::array({ref(y), Json::array({-1, -2}), true}));
    const std::string bsz = b_.call("bsz", "aten.sym_size.int", Json::array({ref(x), 0}));
    const std::string flat = b_.call("flatten", "aten.view.default",
                                     Json::array({ref(pooled), Json::array({ref(bsz), channels})}));
    const std::string fc_w =
        b_.get_attr("fc_weight", "fc.weight", "float32", Json::array({o_.classes, channels}));
    const std::string fc_b =
        b_.get_attr("fc_bias", "fc.bias", "float32", Json::array({o_.classes}));
    const std::string fc_wt = b_.call("fc_wt", "aten.t.default", Json::array({ref(fc_w)}));
    const std::string logits =
        b_.call("fc", "aten.addmm.default", Json::array({ref(fc_b), ref(flat), ref(fc_wt)}));
    b_.output({logits});
    return b_.text();
  }

 private:
  static Json ref(const std::string& name) { return GraphWriter::ref(name); }

  // convolution (no bias) then inference batch norm; returns the normalized tensor.
  std::string conv_bn(const std::string& p, const std::string& x, int64_t in, int64_t out,
                      int64_t k, int64_t stride, int64_t pad) {
    const std::string w = b_.get_attr(p + "_conv_weight", p + ".conv.weight", "float32",
                                      Json::array({out, in, k, k}));
    const std::string c = b_.call(
        p + "_conv", "aten.convolution.default",
        Json::array({ref(x), ref(w), nullptr, Json::array({stride, stride}),
                     Json::array({pad, pad}), Json::array({1, 1}), false, Json::array({0, 0}), 1}));
    Json args = Json::array({ref(c)});
    for (const char* part : {"weight", "bias", "running_mean", "running_var"}) {
      args.push_back(
          ref(b_.get_attr(p + "_bn_" + part, p + ".bn." + part, "float32", Json::array({out}))));
    }
    args.push_back(0.1);
    args.push_back(1e-05);
    const std::string bn =
        b_.call(p + "_bn", "aten._native_batch_norm_legit_no_training.default", std::move(args));
    return b_.call(p + "_bn_out", "operator.getitem", Json::array({ref(bn), 0}));
  }

  std::string block(const std::string& p, const std::string& x, int64_t in, int64_t out,
                    int64_t stride) {
    std::string y = conv_bn(p + "_1", x, in, out, 3, stride, 1);
    y = b_.call(p + "_relu1", "aten.relu.default", Json::array({ref(y)}));
    y = conv_bn(p + "_2", y, out, out, 3, 1, 1);
    std::string skip = x;
    if (stride != 1 || in != out) skip = conv_bn(p + "_down", x, in, out, 1, stride, 0);
    const std::string sum =
        b_.call(p + "_add", "aten.add.Tensor", Json::array({ref(y), ref(skip)}));
    return b_.call(p + "_relu2", "aten.relu.default", Json::array({ref(sum)}));
  }

  const ResNetOptions& o_;
  GraphWriter b_;
};

}  // namespace

Expected<std::string> resnet_graph(const ResNetOptions& o) {
  using E = Expected<std::string>;
  if (o.blocks < 1 || o.blocks > 100000) return E::failure("resnet: blocks must be in [1, 100000]");
  if (o.width < 1 || o.width > 4096) return E::failure("resnet: width must be in [1, 4096]");
  if (o.classes < 1) return E::failure("resnet: classes must be positive");
  return ResNetWriter(o).write();
}

}  // namespace symshape::gen
