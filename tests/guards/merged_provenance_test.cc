// Guards that merge several nodes' requirements (lower bounds of one dim from each window op)
// keep each requirement's provenance: the range line cites the node that decides its bound, the
// printers list all of them, and the checker names the node whose requirement failed.
#include <gtest/gtest.h>

#include "tests/guards/guard_test_util.h"

namespace symshape::testing {
namespace {

// Conv2d (kernel k, no padding) then MaxPool2d (kernel p, stride 1, padding pad) over an image
// [1, 3, H, 40].
Produced conv_then_pool(int k, int p, int pad) {
  auto list = [](int a) { return "[" + std::to_string(a) + ", " + std::to_string(a) + "]"; };
  return produce(
      R"({"H": {"hint": 24}})",
      nodes(
          {input("img", R"([1, 3, "H", 40])"),
           R"({"name": "w", "op": "get_attr", "target": "w", "dtype": "float32", "shape": [8, 3, )" +
               std::to_string(k) + ", " + std::to_string(k) + "]}",
           call(
               "conv", "aten.convolution.default",
               R"([{"node": "img"}, {"node": "w"}, null, [1, 1], [0, 0], [1, 1], false, [0, 0], 1])"),
           call("pool", "aten.max_pool2d.default",
                R"([{"node": "conv"}, )" + list(p) + ", [1, 1], " + list(pad) + "]"),
           output("pool")}));
}

// The source values of a contiguous img of height h.
std::vector<Int> img_values(const GuardSet& set, long h) {
  const long sizes[] = {1, 3, h, 40};
  const long strides[] = {3 * h * 40, h * 40, 40, 1};
  std::vector<Int> values;
  for (const Source& s : set.sources) {
    EXPECT_EQ(s.input, "img");
    values.push_back(s.kind == Source::Kind::Size ? sizes[s.dim] : strides[s.dim]);
  }
  return values;
}

const ProducedGuard& height_range(const GuardSet& set) {
  for (const ProducedGuard& g : set.guards) {
    if (g.kind == ProducedGuard::Kind::Range) return g;
  }
  throw std::runtime_error("no range line in\n" + print_python(set));
}

TEST(MergedProvenance, ConvThenPoolBlamesThePoolForItsBound) {
  Produced p = conv_then_pool(5, 3, 0);
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  const ProducedGuard& range = height_range(p.set);
  EXPECT_EQ(python_text(p.set, range.cond), "7 <= L['img'].size()[2]");
  EXPECT_EQ(range.where.node, "pool");
  ASSERT_EQ(range.merged.size(), 2u) << print_verbose(p.set);
  EXPECT_EQ(range.merged[0].where.node, "conv");
  EXPECT_EQ(range.merged[1].where.node, "pool");

  std::string verbose = print_verbose(p.set);
  EXPECT_NE(verbose.find("7 <= L['img'].size()[2]  # node pool (aten.max_pool2d.default"),
            std::string::npos)
      << verbose;
  EXPECT_NE(verbose.find("also node conv (aten.convolution.default"), std::string::npos) << verbose;
  nlohmann::ordered_json j = to_json(p.set);
  const auto& line = j["guards"].back();
  EXPECT_EQ(line["provenance"]["node"], "pool");
  ASSERT_EQ(line["merged"].size(), 2u) << line.dump();
  EXPECT_EQ(line["merged"][0]["provenance"]["node"], "conv");
  EXPECT_EQ(line["merged"][1]["provenance"]["node"], "pool");

  GuardChecker checker(p.set);
  std::optional<CheckFailure> at5 = checker.check(img_values(p.set, 5));
  ASSERT_TRUE(at5.has_value());
  EXPECT_EQ(at5->where.node, "pool") << at5->str();  // the conv accepts 5
  std::optional<CheckFailure> at4 = checker.check(img_values(p.set, 4));
  ASSERT_TRUE(at4.has_value());
  EXPECT_EQ(at4->where.node, "conv") << at4->str();  // the conv already rejects 4
  EXPECT_FALSE(checker.check(img_values(p.set, 7)).has_value());
}

// Over kernels and paddings: the range's bound is the largest requirement, its provenance the
// first node (in graph order) that requires exactly it, and a failing height names the first
// node whose own requirement it breaks.
TEST(MergedProvenance, BlameFollowsTheRequirementsOverKernelsAndPaddings) {
  for (int k = 1; k <= 6; ++k) {
    for (int pk = 1; pk <= 5; ++pk) {
      for (int pad = 0; pad <= pk / 2; ++pad) {
        SCOPED_TRACE("conv k=" + std::to_string(k) + ", pool k=" + std::to_string(pk) +
                     " pad=" + std::to_string(pad));
        Produced p = conv_then_pool(k, pk, pad);
        ASSERT_TRUE(p.result.ok()) << p.result.error;
        // PyTorch's rules: the conv needs H - k + 1 >= 1, the pool H - k + 1 + 2*pad >= pk.
        const long conv_min = k, pool_min = k - 1 + pk - 2 * pad;
        const long lo = std::max({2L, conv_min, pool_min});
        const ProducedGuard& range = height_range(p.set);
        EXPECT_EQ(python_text(p.set, range.cond), std::to_string(lo) + " <= L['img'].size()[2]");
        std::string decider = conv_min == lo && conv_min > 2   ? "conv"
                              : pool_min == lo && pool_min > 2 ? "pool"
                                                               : "";
        EXPECT_EQ(range.where.node, decider) << print_verbose(p.set);
        GuardChecker checker(p.set);
        for (long h = 1; h <= lo + 1; ++h) {
          std::optional<CheckFailure> f = checker.check(img_values(p.set, h));
          ASSERT_EQ(f.has_value(), h < lo) << h;
          if (!f) continue;
          // A requirement the default range (H >= 2) already meets is never recorded.
          std::string blamed = h < conv_min && conv_min > 2   ? "conv"
                               : h < pool_min && pool_min > 2 ? "pool"
                                                              : "";
          EXPECT_EQ(f->where.node, blamed) << "H = " << h << ": " << f->str();
        }
      }
    }
  }
}

}  // namespace
}  // namespace symshape::testing
