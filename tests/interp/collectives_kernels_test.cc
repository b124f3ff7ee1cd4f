// Collective kernels, simulated over W ranks: hand-computed values (more in run_test.cc), and the
// op cases for the shape property test.
#include <gtest/gtest.h>

#include "tests/interp/interp_test_util.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

interp::RunResult run_ranks(const std::vector<std::pair<std::string, interp::Tensor>>& inputs,
                            const std::vector<Call>& calls, size_t world) {
  interp::RunOptions o;
  o.world_size = world;
  interp::RunResult r = run_calls(inputs, calls, o);
  EXPECT_TRUE(r.ok) << r.error;
  return r;
}

TEST(CollectiveKernels, CoalescedAllReduceAndGather) {
  interp::Tensor a = tensor_of(DType::Float32, {2}, {0.5, -1});
  interp::Tensor b = tensor_of(DType::Int32, {1, 2}, {3, 4});
  interp::RunResult r = run_ranks({{"a", a}, {"b", b}},
                                  {{"op",
                                    "_c10d_functional.all_reduce_coalesced.default",
                                    {List({T("a"), T("b")}), S("avg"), S("g")}}},
                                  3);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.output().str(), "(float32[2], int32[1, 2])");
  EXPECT_EQ(values_of(r.output().items[0].tensor), (std::vector<double>{0.5, -1}));
  EXPECT_EQ(values_of(r.output().items[1].tensor), (std::vector<double>{3, 4}));
  r = run_ranks({{"a", a}, {"b", b}},
                {{"op",
                  "_c10d_functional.all_gather_into_tensor_coalesced.default",
                  {List({T("a"), T("b")}), I(2), S("g")}}},
                2);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.output().str(), "(float32[4], int32[2, 2])");
  EXPECT_EQ(values_of(r.output().items[1].tensor), (std::vector<double>{3, 4, 3, 4}));
}

TEST(CollectiveKernels, ReduceOps) {
  interp::Tensor x = tensor_of(DType::Int64, {3}, {6, -3, 5});
  for (auto [op, want] :
       std::vector<std::pair<std::string, std::vector<double>>>{{"sum", {12, -6, 10}},
                                                                {"product", {36, 9, 25}},
                                                                {"min", {6, -3, 5}},
                                                                {"band", {6, -3, 5}},
                                                                {"bxor", {0, 0, 0}},
                                                                {"avg", {6, -3, 5}}}) {
    interp::RunResult r = run_ranks(
        {{"x", x}}, {{"op", "_c10d_functional.all_reduce.default", {T("x"), S(op), S("g")}}}, 2);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(values_of(r.output().tensor), want) << op;
  }
  interp::RunResult bad =
      run_calls({{"x", tensor_of(DType::Float32, {1}, {1})}},
                {{"op", "_c10d_functional.all_reduce.default", {T("x"), S("band"), S("g")}}});
  EXPECT_FALSE(bad.ok);
  interp::RunResult unknown = run_calls(
      {{"x", x}}, {{"op", "_c10d_functional.all_reduce.default", {T("x"), S("mean"), S("g")}}});
  EXPECT_FALSE(unknown.ok);
  EXPECT_TRUE(Contains(unknown.error, "unknown reduce op 'mean'")) << unknown.error;
}

TEST(CollectiveKernels, LegacyAllGatherAndInPlaceBroadcast) {
  interp::Tensor x = tensor_of(DType::Int64, {1, 2}, {7, 8});
  interp::RunResult r = run_ranks({{"x", x}},
                                  {{"op",
                                    "c10d_functional.all_gather_into_tensor.default",
                                    {T("x"), S(""), Ints({0, 1, 2}), I(3)}},
                                   {"w", "c10d_functional.wait_tensor.default", {T("op")}}},
                                  3);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.output().str(), "int64[3, 2]");
  EXPECT_EQ(values_of(r.output().tensor), (std::vector<double>{7, 8, 7, 8, 7, 8}));
  // broadcast_ from rank 1 writes rank 1's tensor into every rank's input.
  interp::RunOptions o;
  o.world_size = 2;
  Graph g = graph_of({{"x", DType::Int64, {"3"}}},
                     {{"op", "_c10d_functional.broadcast_.default", {T("x"), I(1), S("g")}}});
  interp::RunResult b = interp::run(g, o);
  ASSERT_TRUE(b.ok) << b.error;
  std::vector<double> from_rank1 = values_of(b.ranks[1][1].tensor);
  EXPECT_EQ(values_of(b.ranks[0][0].tensor), from_rank1);  // rank 0's input now holds rank 1's
  EXPECT_TRUE(b.ranks[0][1].tensor.shares_storage(b.ranks[0][0].tensor));
}

}  // namespace

std::vector<OpCase> collectives_cases() {
  const DType F32 = DType::Float32, BF16 = DType::BFloat16;
  std::vector<OpCase> cases;
  const std::vector<std::pair<std::string, DimDecl>> w_dim = {Dim("W", 2, 1, 4)};
  for (const char* prefix : {"_c10d_functional.", "c10d_functional."}) {
    const std::string p = prefix;
    const bool legacy = p == "c10d_functional.";
    // The trailing arguments: native (group_name) or legacy (tag, ranks, group_size).
    auto tail = [&](int group) {
      if (!legacy) return std::vector<Arg>{S("g")};
      std::vector<long> ranks;
      for (int k = 0; k < group; ++k) ranks.push_back(k);
      return std::vector<Arg>{S(""), Ints(ranks), I(group)};
    };
    auto args = [](std::vector<Arg> head, const std::vector<Arg>& rest) {
      head.insert(head.end(), rest.begin(), rest.end());
      return head;
    };
    auto wait = [&](const std::string& of) {
      return Call{"w", p + "wait_tensor.default", {T(of)}};
    };
    const std::vector<Input> x = {{"x", F32, {"a", "b"}}};
    const std::vector<Input> xy = {{"x", F32, {"a", "b"}}, {"y", BF16, {"c"}}};
    for (const char* variant : {"all_reduce", "all_reduce_"}) {
      cases.push_back(
          {p + variant,
           x,
           {{"op", p + variant + ".default", args({T("x"), S("sum")}, tail(2))}, wait("op")}});
    }
    cases.push_back({p + "all_reduce.max_w3",
                     x,
                     {{"op", p + "all_reduce.default", args({T("x"), S("max")}, tail(3))}}});
    for (const char* variant : {"all_reduce_coalesced", "all_reduce_coalesced_"}) {
      cases.push_back(
          {p + variant,
           xy,
           {{"op", p + variant + ".default", args({List({T("x"), T("y")}), S("avg")}, tail(2))}}});
    }
    if (legacy) {
      cases.push_back(
          {p + "all_gather_into_tensor",
           x,
           {{"op", p + "all_gather_into_tensor.default", args({T("x")}, tail(2))}, wait("op")}});
      cases.push_back({p + "all_gather_into_tensor_coalesced",
                       xy,
                       {{"op", p + "all_gather_into_tensor_coalesced.default",
                         args({List({T("x"), T("y")})}, tail(3))}}});
      cases.push_back(
          {p + "reduce_scatter_tensor",
           {{"x", F32, {"2*a", "b"}}},
           {{"op", p + "reduce_scatter_tensor.default", args({T("x"), S("sum")}, tail(2))},
            wait("op")}});
      cases.push_back({p + "reduce_scatter_tensor_coalesced",
                       {{"x", F32, {"4*a"}}, {"y", BF16, {"2*c", "b"}}},
                       {{"op", p + "reduce_scatter_tensor_coalesced.default",
                         args({List({T("x"), T("y")}), S("sum")}, tail(2))}}});
    } else {
      cases.push_back(
          {p + "all_gather_into_tensor.W",
           x,
           {{"op", p + "all_gather_into_tensor.default", {T("x"), E("W"), S("g")}}, wait("op")},
           w_dim});
      cases.push_back({p + "all_gather_into_tensor_coalesced",
                       xy,
                       {{"op",
                         p + "all_gather_into_tensor_coalesced.default",
                         {List({T("x"), T("y")}), I(2), S("g")}}}});
      // dim 0 divisible by the group size is a guard: random sizes test both sides of it.
      cases.push_back(
          {p + "reduce_scatter_tensor.guard",
           {{"x", F32, {"n", "b"}}},
           {{"op", p + "reduce_scatter_tensor.default", {T("x"), S("sum"), I(2), S("g")}},
            wait("op")},
           {Dim("n", 4, 2, 7)}});
      cases.push_back(
          {p + "reduce_scatter_tensor.W",
           {{"x", F32, {"W*a", "b"}}},
           {{"op", p + "reduce_scatter_tensor.default", {T("x"), S("avg"), E("W"), S("g")}}},
           w_dim});
      cases.push_back({p + "reduce_scatter_tensor_coalesced",
                       {{"x", F32, {"4*a"}}, {"y", BF16, {"2*c", "b"}}},
                       {{"op",
                         p + "reduce_scatter_tensor_coalesced.default",
                         {List({T("x"), T("y")}), S("sum"), I(2), S("g")}}}});
    }
    // all_to_all_single and broadcast carry no group size: a gather first makes W = 2.
    const Call gather =
        legacy ? Call{"ag", p + "all_gather_into_tensor.default", args({T("x")}, tail(2))}
               : Call{"ag", p + "all_gather_into_tensor.default", {T("x"), I(2), S("g")}};
    std::vector<Arg> a2a_tail = legacy ? tail(2) : std::vector<Arg>{S("g")};
    cases.push_back(
        {p + "all_to_all_single",
         x,
         {gather,
          {"op", p + "all_to_all_single.default", args({T("ag"), None(), None()}, a2a_tail)}}});
    cases.push_back(
        {p + "all_to_all_single.splits",
         x,
         {gather,
          {"op", p + "all_to_all_single.default",
           args({T("ag"), List({E("a"), E("a")}), List({E("a"), E("a")})}, a2a_tail)}}});
    for (const char* variant : {"broadcast", "broadcast_"}) {
      cases.push_back({p + variant,
                       x,
                       {gather, {"op", p + variant + ".default", args({T("ag"), I(1)}, tail(2))}}});
    }
  }
  return cases;
}

}  // namespace symshape::testing
