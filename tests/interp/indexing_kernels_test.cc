// Kernel tests and property-test cases: indexing. Expected values are worked by hand (several
// are the examples of PyTorch's documentation).
#include <gtest/gtest.h>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using Sizes = std::vector<int64_t>;
using Reals = std::vector<double>;

Tensor bools(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
  return int_tensor(std::move(sizes), values, DType::Bool);
}

// self[indices...] through aten.index.Tensor; an empty tensor name stands for None.
Tensor indexed(const Tensor& self, const std::vector<std::pair<std::string, Tensor>>& indices) {
  std::vector<std::pair<std::string, Tensor>> inputs = {{"self", self}};
  std::vector<Arg> list;
  for (const auto& [name, t] : indices) {
    if (name.empty()) {
      list.push_back(None());
      continue;
    }
    inputs.push_back({name, t});
    list.push_back(T(name));
  }
  return call_tensor("aten.index.Tensor", inputs, {T("self"), List(std::move(list))});
}

std::string index_error(const Tensor& self, const Tensor& idx) {
  return run_error([&] { indexed(self, {{"i", idx}}); });
}

// ---- advanced indexing ----

TEST(IndexKernel, IndexTensorsBroadcastTogether) {
  Tensor x = iota({3, 4});
  // x[[[0], [2]], [1, 3]]: [2, 1] and [2] broadcast to [2, 2].
  Tensor r = indexed(x, {{"i", int_tensor({2, 1}, {0, 2})}, {"j", int_tensor({2}, {1, 3})}});
  EXPECT_EQ(r.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(ints_of(r), (Sizes{1, 3, 9, 11}));
  EXPECT_TRUE(Contains(run_error([&] {
                         indexed(x, {{"i", int_tensor({2}, {0, 1})}, {"j", iota({3})}});
                       }),
                       "shape mismatch: indexing tensors could not be broadcast together with "
                       "shapes [2], [3]"));
}

TEST(IndexKernel, NoneSkipsADimAndNegativeIndicesWrap) {
  Tensor x = iota({3, 4});
  // x[:, [0, -1]]
  Tensor r = indexed(x, {{"", Tensor()}, {"j", int_tensor({2}, {0, -1})}});
  EXPECT_EQ(r.sizes(), (Sizes{3, 2}));
  EXPECT_EQ(ints_of(r), (Sizes{0, 3, 4, 7, 8, 11}));
  EXPECT_EQ(ints_of(indexed(x, {{"i", int_tensor({1}, {-3})}})), (Sizes{0, 1, 2, 3}));
  EXPECT_TRUE(Contains(index_error(x, int_tensor({1}, {3})),
                       "index 3 is out of bounds for dimension 0 with size 3"));
  EXPECT_TRUE(Contains(index_error(x, int_tensor({1}, {-4})),
                       "index -4 is out of bounds for dimension 0 with size 3"));
  EXPECT_TRUE(Contains(run_error([&] {
                         indexed(x, {{"a", iota({1})}, {"b", iota({1})}, {"c", iota({1})}});
                       }),
                       "too many indices for tensor of dimension 2 (got 3)"));
}

TEST(IndexKernel, SeparatedIndexedDimsGoFirstAdjacentOnesStayInPlace) {
  Tensor x = iota({2, 3, 4});  // x[a, b, c] = 12a + 4b + c
  // x[[0, 1], :, [3, 0]]: the broadcast dim goes first: [2, 3].
  Tensor apart =
      indexed(x, {{"i", int_tensor({2}, {0, 1})}, {"", Tensor()}, {"k", int_tensor({2}, {3, 0})}});
  EXPECT_EQ(apart.sizes(), (Sizes{2, 3}));
  EXPECT_EQ(ints_of(apart), (Sizes{3, 7, 11, 12, 16, 20}));
  // x[:, [2, 0], [1, 3]]: adjacent, so the broadcast dim replaces dims 1 and 2: [2, 2].
  Tensor together =
      indexed(x, {{"", Tensor()}, {"j", int_tensor({2}, {2, 0})}, {"k", int_tensor({2}, {1, 3})}});
  EXPECT_EQ(together.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(ints_of(together), (Sizes{9, 3, 21, 15}));
}

TEST(IndexKernel, BoolMasksSelectTheirTrueCoordinates) {
  Tensor x = iota({3, 4});
  Tensor rows = indexed(x, {{"m", bools({3}, {1, 0, 1})}});
  EXPECT_EQ(rows.sizes(), (Sizes{2, 4}));
  EXPECT_EQ(ints_of(rows), (Sizes{0, 1, 2, 3, 8, 9, 10, 11}));
  // A 2-d mask consumes both dims: the multiples of 3.
  Tensor m = bools({3, 4}, {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0});
  EXPECT_EQ(ints_of(indexed(x, {{"m", m}})), (Sizes{0, 3, 6, 9}));
  EXPECT_TRUE(Contains(index_error(x, bools({2}, {1, 1})),
                       "The shape of the mask [2] at index 0 does not match the shape of the "
                       "indexed tensor [3, 4] at index 0"));
}

TEST(IndexPutKernel, AccumulateAddsRepeatedIndices) {
  Tensor x = Tensor::zeros(kI64, {5});
  auto put = [&](const Tensor& idx, const Tensor& values, bool accumulate) {
    return call_tensor("aten.index_put.default", {{"x", x}, {"i", idx}, {"v", values}},
                       {T("x"), List({T("i")}), T("v"), B(accumulate)});
  };
  Tensor idx = int_tensor({3}, {0, 2, -5});
  EXPECT_EQ(ints_of(put(idx, int_tensor({3}, {1, 2, 3}), true)), (Sizes{4, 0, 2, 0, 0}));
  EXPECT_EQ(ints_of(put(idx, int_tensor({1}, {7}), false)), (Sizes{7, 0, 7, 0, 0}));
  EXPECT_EQ(ints_of(x), (Sizes{0, 0, 0, 0, 0}));  // functional: self is untouched
  EXPECT_TRUE(Contains(run_error([&] { put(idx, iota({2}), false); }),
                       "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing "
                       "result of shape [3]"));
  // x[[0, 1], [2, 0]] = [5, 6] on a [2, 3] tensor.
  Tensor y = Tensor::zeros(kI64, {2, 3});
  Tensor r = call_tensor(
      "aten.index_put.default",
      {{"y", y}, {"i", iota({2})}, {"j", int_tensor({2}, {2, 0})}, {"v", int_tensor({2}, {5, 6})}},
      {T("y"), List({T("i"), T("j")}), T("v")});
  EXPECT_EQ(ints_of(r), (Sizes{0, 0, 5, 6, 0, 0}));
  // The in-place form writes into self (the registry's functional fallback).
  Tensor same = call_tensor("aten.index_put_.default",
                            {{"x", x}, {"i", int_tensor({1}, {-1})}, {"v", int_tensor({1}, {9})}},
                            {T("x"), List({T("i")}), T("v")});
  EXPECT_TRUE(same.shares_storage(x));
  EXPECT_EQ(ints_of(x), (Sizes{0, 0, 0, 0, 9}));
}

// ---- gather / scatter ----

TEST(GatherKernel, PicksAlongDim) {
  Tensor t = int_tensor({2, 2}, {1, 2, 3, 4});
  Tensor g = call_tensor("aten.gather.default", {{"t", t}, {"i", int_tensor({2, 2}, {0, 0, 1, 0})}},
                         {T("t"), I(1), T("i")});
  EXPECT_EQ(ints_of(g), (Sizes{1, 1, 4, 3}));
  // An index smaller than self outside dim.
  Tensor small = call_tensor("aten.gather.default", {{"t", t}, {"i", int_tensor({1, 1}, {1})}},
                             {T("t"), I(0), T("i")});
  EXPECT_EQ(ints_of(small), (Sizes{3}));
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.gather.default",
                                     {{"t", t}, {"i", int_tensor({1, 1}, {-1})}},
                                     {T("t"), I(1), T("i")});
                       }),
                       "index -1 is out of bounds for dimension 1 with size 2"));
  EXPECT_TRUE(Contains(
      run_error([&] {
        call_tensor("aten.gather.default", {{"t", t}, {"i", iota({3, 1})}}, {T("t"), I(1), T("i")});
      }),
      "Size does not match at dimension 0"));
}

TEST(TakeAlongDimKernel, BroadcastsOutsideDimAndFlattensWithoutOne) {
  Tensor t = int_tensor({2, 3}, {10, 30, 20, 60, 40, 50});
  Tensor top = call_tensor("aten.take_along_dim.default",
                           {{"t", t}, {"i", int_tensor({2, 1}, {1, 0})}}, {T("t"), T("i"), I(1)});
  EXPECT_EQ(ints_of(top), (Sizes{30, 60}));
  Tensor wide = call_tensor("aten.take_along_dim.default",
                            {{"t", t}, {"i", int_tensor({1, 2}, {0, 2})}}, {T("t"), T("i"), I(1)});
  EXPECT_EQ(wide.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(ints_of(wide), (Sizes{10, 20, 60, 50}));
  Tensor flat = call_tensor("aten.take_along_dim.default",
                            {{"t", t}, {"i", int_tensor({2}, {0, 5})}}, {T("t"), T("i")});
  EXPECT_EQ(ints_of(flat), (Sizes{10, 50}));
}

TEST(ScatterKernel, SrcValueAndLegacyReduce) {
  Tensor src = int_tensor({2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  Tensor zeros = Tensor::zeros(kI64, {3, 5});
  Tensor s = call_tensor("aten.scatter.src",
                         {{"x", zeros}, {"i", int_tensor({1, 4}, {0, 1, 2, 0})}, {"s", src}},
                         {T("x"), I(0), T("i"), T("s")});
  EXPECT_EQ(ints_of(s), (Sizes{1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}));
  Tensor twos = real_tensor({2, 4}, {2, 2, 2, 2, 2, 2, 2, 2});
  Tensor m =
      call_tensor("aten.scatter.value_reduce", {{"x", twos}, {"i", int_tensor({2, 1}, {2, 3})}},
                  {T("x"), I(1), T("i"), F(1.5)}, {{"reduce", S("multiply")}});
  EXPECT_EQ(reals_of(m), (Reals{2, 2, 3, 2, 2, 2, 2, 3}));
  Tensor v = call_tensor("aten.scatter.value", {{"x", twos}, {"i", int_tensor({1, 1}, {3})}},
                         {T("x"), I(1), T("i"), F(-1)});
  EXPECT_EQ(reals_of(v), (Reals{2, 2, 2, -1, 2, 2, 2, 2}));
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.scatter.src",
                                     {{"x", zeros}, {"i", int_tensor({1, 1}, {3})}, {"s", src}},
                                     {T("x"), I(0), T("i"), T("s")});
                       }),
                       "index 3 is out of bounds for dimension 0 with size 3"));
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.scatter.src",
                                     {{"x", zeros}, {"i", iota({1, 6})}, {"s", src}},
                                     {T("x"), I(0), T("i"), T("s")});
                       }),
                       "Size does not match at dimension 1"));
}

TEST(ScatterKernel, ScatterAddSumsCollisions) {
  Tensor ones = int_tensor({2, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  Tensor idx = int_tensor({2, 5}, {0, 1, 2, 0, 0, 0, 1, 2, 2, 2});
  Tensor s = call_tensor("aten.scatter_add.default",
                         {{"x", Tensor::zeros(kI64, {3, 5})}, {"i", idx}, {"s", ones}},
                         {T("x"), I(0), T("i"), T("s")});
  EXPECT_EQ(ints_of(s), (Sizes{2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1}));
}

TEST(ScatterKernel, ScatterReduceWithAndWithoutSelf) {
  Tensor src = int_tensor({6}, {1, 2, 3, 4, 5, 6});
  Tensor idx = int_tensor({6}, {0, 1, 0, 1, 2, 1});
  auto reduce = [&](const Tensor& self, const char* how, bool include_self) {
    return call_tensor("aten.scatter_reduce.two",
                       {{"x", self}, {"i", idx}, {"s", src.to(self.dtype())}},
                       {T("x"), I(0), T("i"), T("s"), S(how)}, {{"include_self", B(include_self)}});
  };
  Tensor x = real_tensor({4}, {1, 2, 3, 4});
  EXPECT_EQ(reals_of(reduce(x, "sum", true)), (Reals{5, 14, 8, 4}));
  EXPECT_EQ(reals_of(reduce(x, "amax", false)), (Reals{3, 6, 5, 4}));
  EXPECT_EQ(reals_of(reduce(x, "amin", true)), (Reals{1, 2, 3, 4}));
  EXPECT_EQ(reals_of(reduce(x, "prod", true)), (Reals{3, 96, 15, 4}));
  EXPECT_EQ(reals_of(reduce(x, "mean", false)), (Reals{2, 4, 5, 4}));
  // Integer mean floors: (1+1+3)/3 = 1, (2+2+4+6)/4 = 3.
  EXPECT_EQ(ints_of(reduce(x.to(kI64), "mean", true)), (Sizes{1, 3, 4, 4}));
  EXPECT_TRUE(Contains(run_error([&] { reduce(x, "max", true); }),
                       "reduce argument must be either sum, prod, mean, amax or amin"));
}

// ---- index_select and the index_* updates ----

TEST(IndexSelectKernel, SelectsAlongDimAndRefusesNegativeIndices) {
  Tensor x = iota({3, 4});
  Tensor r = call_tensor("aten.index_select.default", {{"x", x}, {"i", int_tensor({3}, {3, 0, 3})}},
                         {T("x"), I(1), T("i")});
  EXPECT_EQ(r.sizes(), (Sizes{3, 3}));
  EXPECT_EQ(ints_of(r), (Sizes{3, 0, 3, 7, 4, 7, 11, 8, 11}));
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.index_select.default",
                                     {{"x", x}, {"i", int_tensor({1}, {-1})}},
                                     {T("x"), I(1), T("i")});
                       }),
                       "index -1 is out of bounds for dimension 1 with size 4"));
}

TEST(IndexUpdateKernel, AddCopyAndFill) {
  Tensor ones = real_tensor({5, 3}, Reals(15, 1.0));
  Tensor t = real_tensor({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor idx = int_tensor({3}, {0, 4, 2});
  Tensor added = call_tensor("aten.index_add.default", {{"x", ones}, {"i", idx}, {"t", t}},
                             {T("x"), I(0), T("i"), T("t")}, {{"alpha", I(2)}});
  EXPECT_EQ(reals_of(added), (Reals{3, 5, 7, 1, 1, 1, 15, 17, 19, 1, 1, 1, 9, 11, 13}));
  // Repeated indices accumulate.
  Tensor twice = call_tensor(
      "aten.index_add.default",
      {{"x", ones}, {"i", int_tensor({2}, {1, 1})}, {"t", real_tensor({2, 3}, {1, 2, 3, 4, 5, 6})}},
      {T("x"), I(0), T("i"), T("t")});
  EXPECT_EQ(reals_of(twice), (Reals{1, 1, 1, 6, 8, 10, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
  Tensor copied = call_tensor("aten.index_copy.default",
                              {{"x", Tensor::zeros(kF32, {5, 3})}, {"i", idx}, {"t", t}},
                              {T("x"), I(0), T("i"), T("t")});
  EXPECT_EQ(reals_of(copied), (Reals{1, 2, 3, 0, 0, 0, 7, 8, 9, 0, 0, 0, 4, 5, 6}));
  // index_fill wraps a negative index (-1: the last column).
  Tensor x = iota({3, 3});
  Tensor filled =
      call_tensor("aten.index_fill.int_Scalar", {{"x", x}, {"i", int_tensor({2}, {0, -1})}},
                  {T("x"), I(1), T("i"), I(-1)});
  EXPECT_EQ(ints_of(filled), (Sizes{-1, 1, -1, -1, 4, -1, -1, 7, -1}));
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.index_add.default",
                                     {{"x", ones}, {"i", int_tensor({3}, {0, -1, 2})}, {"t", t}},
                                     {T("x"), I(0), T("i"), T("t")});
                       }),
                       "index -1 is out of bounds for dimension 0 with size 5"));
}

TEST(MaskedScatterKernel, TrueSlotsTakeSourceInOrder) {
  Tensor self = Tensor::zeros(kI64, {2, 5});
  Tensor mask = bools({2, 5}, {0, 0, 0, 1, 1, 1, 1, 0, 1, 1});
  Tensor source = iota({2, 5});
  Tensor r = call_tensor("aten.masked_scatter.default", {{"x", self}, {"m", mask}, {"s", source}},
                         {T("x"), T("m"), T("s")});
  EXPECT_EQ(ints_of(r), (Sizes{0, 0, 0, 0, 1, 2, 3, 0, 4, 5}));
  // A mask broadcast over the rows.
  Tensor row = bools({5}, {1, 0, 0, 0, 1});
  Tensor b = call_tensor("aten.masked_scatter.default", {{"x", self}, {"m", row}, {"s", source}},
                         {T("x"), T("m"), T("s")});
  EXPECT_EQ(ints_of(b), (Sizes{0, 0, 0, 0, 1, 2, 0, 0, 0, 3}));
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.masked_scatter.default",
                                     {{"x", self}, {"m", mask}, {"s", iota({3})}},
                                     {T("x"), T("m"), T("s")});
                       }),
                       "expected source to have at least as many elements"));
}

// ---- embedding ----

TEST(EmbeddingKernel, RowsByIndexAndBackwardSumsThem) {
  Tensor weight = iota({4, 2});
  Tensor e =
      call_tensor("aten.embedding.default",
                  {{"w", weight}, {"i", int_tensor({2, 2}, {1, 3, 0, 1})}}, {T("w"), T("i")});
  EXPECT_EQ(e.sizes(), (Sizes{2, 2, 2}));
  EXPECT_EQ(ints_of(e), (Sizes{2, 3, 6, 7, 0, 1, 2, 3}));
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.embedding.default",
                                     {{"w", weight}, {"i", int_tensor({1}, {4})}},
                                     {T("w"), T("i")});
                       }),
                       "index 4 is out of bounds for dimension 0 with size 4"));
  Tensor grad = real_tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor idx = int_tensor({3}, {0, 2, 0});
  auto backward = [&](long padding, bool scale) {
    return reals_of(call_tensor("aten.embedding_dense_backward.default", {{"g", grad}, {"i", idx}},
                                {T("g"), T("i"), I(3), I(padding), B(scale)}));
  };
  EXPECT_EQ(backward(-1, false), (Reals{6, 8, 0, 0, 3, 4}));
  EXPECT_EQ(backward(2, false), (Reals{6, 8, 0, 0, 0, 0}));
  EXPECT_EQ(backward(-1, true), (Reals{3, 4, 0, 0, 3, 4}));
}

// ---- property-test cases ----

// Index inputs are generated with values in [0, 2): every indexed dim below is at least 2.
Input idx(const std::string& name, std::vector<std::string> shape) {
  return in(name, std::move(shape), kI64);
}

}  // namespace

std::vector<OpCase> indexing_cases() {
  return {
      {"index.one",
       {in("x", {"a", "b"}), idx("i", {"c"})},
       {{"op", "aten.index.Tensor", {T("x"), List({T("i")})}}}},
      {"index.none_first",
       {in("x", {"a", "b", "e"}), idx("i", {"c"})},
       {{"op", "aten.index.Tensor", {T("x"), List({None(), T("i")})}}}},
      {"index.broadcast",
       {in("x", {"a", "b"}), idx("i", {"c", "1"}), idx("j", {"d"})},
       {{"op", "aten.index.Tensor", {T("x"), List({T("i"), T("j")})}}}},
      {"index.separated",
       {in("x", {"a", "b", "e"}), idx("i", {"c"}), idx("k", {"c"})},
       {{"op", "aten.index.Tensor", {T("x"), List({T("i"), None(), T("k")})}}}},
      {"_unsafe_index",
       {in("x", {"a", "b"}), idx("i", {"c", "d"})},
       {{"op", "aten._unsafe_index.Tensor", {T("x"), List({None(), T("i")})}}}},
      {"index_select",
       {in("x", {"a", "b"}), idx("i", {"c"})},
       {{"op", "aten.index_select.default", {T("x"), I(1), T("i")}}}},
      {"gather",
       {in("x", {"a", "b"}), idx("i", {"a", "c"})},
       {{"op", "aten.gather.default", {T("x"), I(1), T("i")}}}},
      {"take_along_dim",
       {in("x", {"a", "b"}), idx("i", {"1", "c"})},
       {{"op", "aten.take_along_dim.default", {T("x"), T("i"), I(1)}}}},
      {"take_along_dim.flat",
       {in("x", {"a", "b"}), idx("i", {"c"})},
       {{"op", "aten.take_along_dim.default", {T("x"), T("i")}}}},
      {"scatter.src",
       {in("x", {"a", "b"}), idx("i", {"a", "c"}), in("s", {"a", "c"})},
       {{"op", "aten.scatter.src", {T("x"), I(1), T("i"), T("s")}}}},
      {"scatter.value",
       {in("x", {"a", "b"}), idx("i", {"c", "b"})},
       {{"op", "aten.scatter.value", {T("x"), I(0), T("i"), F(2.5)}}}},
      {"scatter.reduce",
       {in("x", {"a", "b"}), idx("i", {"a", "c"}), in("s", {"a", "c"})},
       {{"op", "aten.scatter.reduce", {T("x"), I(1), T("i"), T("s")}, {{"reduce", S("add")}}}}},
      {"scatter_add",
       {in("x", {"a", "b"}), idx("i", {"c", "b"}), in("s", {"c", "b"})},
       {{"op", "aten.scatter_add.default", {T("x"), I(0), T("i"), T("s")}}}},
      {"scatter_reduce",
       {in("x", {"a", "b"}), idx("i", {"a", "c"}), in("s", {"a", "c"})},
       {{"op",
         "aten.scatter_reduce.two",
         {T("x"), I(1), T("i"), T("s"), S("amax")},
         {{"include_self", B(false)}}}}},
      {"index_add",
       {in("x", {"a", "b"}), idx("i", {"c"}), in("s", {"c", "b"})},
       {{"op", "aten.index_add.default", {T("x"), I(0), T("i"), T("s")}, {{"alpha", F(0.5)}}}}},
      {"index_copy",
       {in("x", {"a", "b"}), idx("i", {"c"}), in("s", {"a", "c"})},
       {{"op", "aten.index_copy.default", {T("x"), I(1), T("i"), T("s")}}}},
      {"index_fill",
       {in("x", {"a", "b"}), idx("i", {"c"})},
       {{"op", "aten.index_fill.int_Scalar", {T("x"), I(1), T("i"), F(-1.0)}}}},
      {"index_put",
       {in("x", {"a", "b"}), idx("i", {"c"}), in("v", {"b"})},
       {{"op", "aten.index_put.default", {T("x"), List({T("i")}), T("v"), B(true)}}}},
      {"_unsafe_index_put",
       {in("x", {"a", "b"}), idx("i", {"c"}), idx("j", {"c"}), in("v", {"c"})},
       {{"op", "aten._unsafe_index_put.default", {T("x"), List({T("i"), T("j")}), T("v")}}}},
      {"masked_scatter",
       {in("x", {"a", "b"}), in("m", {"a", "b"}, DType::Bool), in("s", {"a", "b"})},
       {{"op", "aten.masked_scatter.default", {T("x"), T("m"), T("s")}}}},
      {"embedding",
       {in("w", {"a", "d"}), idx("i", {"b", "c"})},
       {{"op", "aten.embedding.default", {T("w"), T("i")}}}},
      {"embedding_dense_backward",
       {in("g", {"b", "c", "d"}), idx("i", {"b", "c"})},
       {{"op",
         "aten.embedding_dense_backward.default",
         {T("g"), T("i"), E("a"), I(-1), B(false)}}}},
  };
}

}  // namespace symshape::testing
