// Shape rules of normalization layers and scaled dot-product attention.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

const Input kNormImage = tensor("x", {"batch", "16", "h", "w"});
const std::vector<Input> kBatchNormInputs = {kNormImage, tensor("g", {"16"}), tensor("b", {"16"}),
                                             tensor("rm", {"16"}), tensor("rv", {"16"})};

// ---- batch norm ----

TEST(BatchNorm, TrainingSavesPerChannelStatistics) {
  OpRun r = run_op(kBatchNormInputs, "aten.native_batch_norm.default",
                   {T("x"), T("g"), T("b"), T("rm"), T("rv"), B(true), F(0.1), F(1e-5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[batch, 16, h, w], float32[16], float32[16])");
  EXPECT_TRUE(r.guards().empty());
}

TEST(BatchNorm, EvaluationSavesEmptyStatistics) {
  OpRun r = run_op(kBatchNormInputs, "aten._native_batch_norm_legit_no_training.default",
                   {T("x"), T("g"), T("b"), T("rm"), T("rv"), F(0.1), F(1e-5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[batch, 16, h, w], float32[0], float32[0])");
  OpRun legit = run_op(kBatchNormInputs, "aten._native_batch_norm_legit.default",
                       {T("x"), T("g"), T("b"), T("rm"), T("rv"), B(false), F(0.1), F(1e-5)});
  EXPECT_EQ(legit.str(), "(float32[batch, 16, h, w], float32[0], float32[0])");
}

TEST(BatchNorm, NoStatsOverloadReadsTrainingAtPositionThree) {
  OpRun r = run_op({tensor("x", {"n", "c", "t"})}, "aten._native_batch_norm_legit.no_stats",
                   {T("x"), None(), None(), B(true), F(0.1), F(1e-5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[n, c, t], float32[c], float32[c])");
  OpRun eval = run_op({tensor("x", {"n", "c", "t"})}, "aten._native_batch_norm_legit.no_stats",
                      {T("x"), None(), None(), B(false), F(0.1), F(1e-5)});
  EXPECT_EQ(eval.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(eval.error(), "running_mean and running_var must be defined in evaluation"));
}

TEST(BatchNorm, FunctionalAndWithUpdateVariants) {
  OpRun functional = run_op(kBatchNormInputs, "aten._native_batch_norm_legit_functional.default",
                            {T("x"), T("g"), T("b"), T("rm"), T("rv"), B(true), F(0.1), F(1e-5)});
  EXPECT_EQ(functional.str(),
            "(float32[batch, 16, h, w], float32[16], float32[16], float32[16], float32[16])");
  OpRun update = run_op(kBatchNormInputs, "aten._batch_norm_with_update.default",
                        {T("x"), T("g"), T("b"), T("rm"), T("rv"), F(0.1), F(1e-5)});
  EXPECT_EQ(update.str(), "(float32[batch, 16, h, w], float32[16], float32[16], uint8[0])");
  OpRun batch_norm =
      run_op(kBatchNormInputs, "aten.batch_norm.default",
             {T("x"), T("g"), T("b"), T("rm"), T("rv"), B(false), F(0.1), F(1e-5), B(true)});
  EXPECT_EQ(batch_norm.str(), "float32[batch, 16, h, w]");
}

TEST(BatchNorm, StatisticsKeepTheInputDtypeAsPyTorchsCpuMetaDoes) {
  OpRun r = run_op({tensor("x", {"n", "4"}, DType::BFloat16), tensor("g", {"4"})},
                   "aten.native_batch_norm.default",
                   {T("x"), T("g"), None(), None(), None(), B(true), F(0.1), F(1e-5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(bfloat16[n, 4], bfloat16[4], bfloat16[4])");
}

TEST(BatchNorm, ParameterOfTheWrongSizeIsAShapeError) {
  OpRun r = run_op({kNormImage, tensor("g", {"16"}), tensor("b", {"16"}), tensor("rm", {"8"}),
                    tensor("rv", {"16"})},
                   "aten.native_batch_norm.default",
                   {T("x"), T("g"), T("b"), T("rm"), T("rv"), B(false), F(0.1), F(1e-5)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "node op (aten.native_batch_norm.default): running_mean should "
                       "contain 16 elements, got a tensor of shape [8]"));
  OpRun rank = run_op({tensor("x", {"5"})}, "aten.native_batch_norm.default",
                      {T("x"), None(), None(), None(), None(), B(true), F(0.1), F(1e-5)});
  EXPECT_EQ(rank.result.status, Propagation::Status::InputError);
}

TEST(BatchNorm, SymbolicChannelsAreGuardedAgainstTheParameters) {
  OpRun r =
      run_op({tensor("x", {"n", "c", "t"}), tensor("g", {"k"})}, "aten.native_batch_norm.default",
             {T("x"), T("g"), None(), None(), None(), B(true), F(0.1), F(1e-5)}, {},
             {Dim("c", 6), Dim("k", 6)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.guards(), std::vector<std::string>{"c == k"});
}

TEST(BatchNorm, BackwardHonoursTheOutputMask) {
  OpRun r =
      run_op({tensor("go", {"n", "4", "t"}), tensor("x", {"n", "4", "t"}), tensor("g", {"4"})},
             "aten.native_batch_norm_backward.default",
             {T("go"), T("x"), T("g"), None(), None(), None(), None(), B(true), F(1e-5),
              List({B(true), B(true), B(false)})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[n, 4, t], float32[4], None)");
}

// ---- layer norm ----

TEST(LayerNorm, StatisticsKeepLeadingDimsAndOnesForNormalizedDims) {
  OpRun r =
      run_op({tensor("x", {"batch", "seq", "768"}), tensor("g", {"768"}), tensor("b", {"768"})},
             "aten.native_layer_norm.default", {T("x"), Ints({768}), T("g"), T("b"), F(1e-5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[batch, seq, 768], float32[batch, seq, 1], float32[batch, seq, 1])");
  EXPECT_TRUE(r.guards().empty());
}

TEST(LayerNorm, SeveralNormalizedDimsWithSymbolicSizes) {
  OpRun r = run_op({tensor("x", {"batch", "seq", "64"}, DType::Float16)},
                   "aten.native_layer_norm.default",
                   {T("x"), List({E("seq"), I(64)}), None(), None(), F(1e-5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float16[batch, seq, 64], float16[batch, 1, 1], float16[batch, 1, 1])");
  EXPECT_EQ(run_op({tensor("x", {"n", "8"})}, "aten.layer_norm.default", {T("x"), Ints({8})}).str(),
            "float32[n, 8]");
}

TEST(LayerNorm, NormalizedShapeMismatchIsAShapeError) {
  OpRun r = run_op({tensor("x", {"batch", "seq", "768"})}, "aten.native_layer_norm.default",
                   {T("x"), Ints({512}), None(), None(), F(1e-5)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(r.error(),
            "node op (aten.native_layer_norm.default): native_layer_norm: given "
            "normalized_shape=[512], expected input with shape [*, 512], but got input of size "
            "[batch, seq, 768]");
  OpRun too_long = run_op({tensor("x", {"8"})}, "aten.layer_norm.default", {T("x"), Ints({2, 8})});
  EXPECT_EQ(too_long.result.status, Propagation::Status::ShapeError);
  OpRun empty = run_op({tensor("x", {"8"})}, "aten.layer_norm.default", {T("x"), Ints({})});
  EXPECT_EQ(empty.result.status, Propagation::Status::InputError);
}

TEST(LayerNorm, WeightMustHaveTheNormalizedShape) {
  OpRun r = run_op({tensor("x", {"n", "8"}), tensor("g", {"4"})}, "aten.layer_norm.default",
                   {T("x"), Ints({8}), T("g")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "expected weight to be of same shape as normalized_shape, but "
                       "got weight of shape [4] and normalized_shape = [8]"));
}

TEST(LayerNorm, SymbolicTrailingSizeIsGuarded) {
  OpRun r = run_op({tensor("x", {"n", "d"})}, "aten.layer_norm.default", {T("x"), Ints({16})}, {},
                   {Dim("d", 16)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.guards(), std::vector<std::string>{"d == 16"});
}

TEST(RmsNorm, KeepsTheInputShape) {
  OpRun r = run_op({tensor("x", {"batch", "seq", "4096"}, DType::BFloat16),
                    tensor("g", {"4096"}, DType::BFloat16)},
                   "aten.rms_norm.default", {T("x"), Ints({4096}), T("g"), F(1e-6)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "bfloat16[batch, seq, 4096]");
  EXPECT_EQ(
      run_op({tensor("x", {"n", "8"})}, "aten.rms_norm.default", {T("x"), Ints({7})}).result.status,
      Propagation::Status::ShapeError);
}

// ---- group norm ----

TEST(GroupNorm, NativeGivesPerGroupStatistics) {
  OpRun r =
      run_op({tensor("x", {"batch", "32", "h", "w"}), tensor("g", {"32"}), tensor("b", {"32"})},
             "aten.native_group_norm.default",
             {T("x"), T("g"), T("b"), E("batch"), I(32), E("h*w"), I(8), F(1e-5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[batch, 32, h, w], float32[batch, 8], float32[batch, 8])");
  EXPECT_TRUE(r.guards().empty());
}

TEST(GroupNorm, ChannelsMustDivideIntoGroups) {
  OpRun r = run_op({tensor("x", {"2", "30", "4", "4"})}, "aten.group_norm.default", {T("x"), I(8)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "expected number of channels in input to be divisible by "
                       "num_groups, but got input of shape [2, 30, 4, 4] and "
                       "num_groups=8"));
  EXPECT_EQ(run_op({tensor("x", {"2", "32", "4", "4"})}, "aten.group_norm.default", {T("x"), I(0)})
                .result.status,
            Propagation::Status::InputError);
}

TEST(GroupNorm, ElementCountAndWeightAreChecked) {
  OpRun count = run_op({tensor("x", {"2", "32", "4", "4"})}, "aten.native_group_norm.default",
                       {T("x"), None(), None(), I(2), I(32), I(15), I(8), F(1e-5)});
  EXPECT_EQ(count.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(count.error(), "to have N*C*HxW = 960 elements"));
  OpRun weight = run_op({tensor("x", {"2", "32", "t"}), tensor("g", {"16"})},
                        "aten.group_norm.default", {T("x"), I(4), T("g")});
  EXPECT_EQ(weight.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(
      run_op({tensor("x", {"2", "32", "t"})}, "aten.group_norm.default", {T("x"), I(4)}).str(),
      "float32[2, 32, t]");
}

// ---- attention ----

const Input kQuery = tensor("q", {"batch", "8", "L", "64"}, DType::Float16);
const Input kKey = tensor("k", {"batch", "8", "S", "64"}, DType::Float16);
const Input kValue = tensor("v", {"batch", "8", "S", "32"}, DType::Float16);

TEST(Sdpa, OutputTakesQueryLengthAndValueHeadDim) {
  OpRun r = run_op({kQuery, kKey, kValue}, "aten.scaled_dot_product_attention.default",
                   {T("q"), T("k"), T("v")}, {{"scale", F(0.125)}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[batch, 8, L, 32]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Sdpa, HeadDimAndSequenceLengthMismatches) {
  OpRun head = run_op({kQuery, tensor("k", {"batch", "8", "S", "32"}, DType::Float16), kValue},
                      "aten.scaled_dot_product_attention.default", {T("q"), T("k"), T("v")});
  EXPECT_EQ(head.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(head.error(), "must have the same head dim (64 != 32)"));
  OpRun seq = run_op({kQuery, kKey, tensor("v", {"batch", "8", "10", "32"}, DType::Float16)},
                     "aten.scaled_dot_product_attention.default", {T("q"), T("k"), T("v")});
  EXPECT_EQ(seq.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(seq.error(), "must have the same sequence length (S != 10)"));
}

TEST(Sdpa, MaskBroadcastsAndGroupedQueryAttention) {
  OpRun mask =
      run_op({kQuery, kKey, kValue, tensor("m", {"L", "S"}, DType::Bool)},
             "aten.scaled_dot_product_attention.default", {T("q"), T("k"), T("v"), T("m")});
  ASSERT_TRUE(mask.ok()) << mask.error();
  EXPECT_EQ(mask.str(), "float16[batch, 8, L, 32]");
  OpRun gqa = run_op({kQuery, tensor("k", {"batch", "2", "S", "64"}, DType::Float16),
                      tensor("v", {"batch", "2", "S", "64"}, DType::Float16)},
                     "aten.scaled_dot_product_attention.default", {T("q"), T("k"), T("v")},
                     {{"enable_gqa", B(true)}});
  ASSERT_TRUE(gqa.ok()) << gqa.error();
  EXPECT_EQ(gqa.str(), "float16[batch, 8, L, 64]");
  OpRun no_gqa = run_op({kQuery, tensor("k", {"batch", "2", "S", "64"}, DType::Float16),
                         tensor("v", {"batch", "2", "S", "64"}, DType::Float16)},
                        "aten.scaled_dot_product_attention.default", {T("q"), T("k"), T("v")});
  EXPECT_EQ(no_gqa.result.status, Propagation::Status::ShapeError);
}

TEST(Sdpa, MixedDtypesAreBadInput) {
  OpRun r = run_op({kQuery, kKey, tensor("v", {"batch", "8", "S", "32"})},
                   "aten.scaled_dot_product_attention.default", {T("q"), T("k"), T("v")});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
}

TEST(FlashAttention, OutputsAsPyTorchsMeta) {
  const Input v = tensor("v", {"batch", "8", "S", "64"}, DType::Float16);
  OpRun r = run_op({kQuery, kKey, v}, "aten._scaled_dot_product_flash_attention.default",
                   {T("q"), T("k"), T("v"), F(0.0), B(true)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(),
            "(float16[batch, 8, L, 64], float32[batch, 8, L], None, None, L, S, int64[2], "
            "int64[], float16[0])");
}

TEST(FlashAttention, NeedsFourDimsAndOneHeadDim) {
  OpRun r = run_op({kQuery, kKey, kValue}, "aten._scaled_dot_product_flash_attention.default",
                   {T("q"), T("k"), T("v")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  OpRun rank = run_op(
      {tensor("q", {"8", "L", "64"}), tensor("k", {"8", "S", "64"}), tensor("v", {"8", "S", "64"})},
      "aten._scaled_dot_product_flash_attention.default", {T("q"), T("k"), T("v")});
  EXPECT_EQ(rank.result.status, Propagation::Status::InputError);
}

TEST(FlashAttention, CpuVariantLaysOutLogsumexpTransposed) {
  OpRun r =
      run_op({kQuery, kKey, kValue}, "aten._scaled_dot_product_flash_attention_for_cpu.default",
             {T("q"), T("k"), T("v")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float16[batch, 8, L, 32], float32[batch, 8, L])");
  const TensorMeta& lse = r.value().items[1].tensor;
  ASSERT_EQ(lse.strides.size(), 3u);
  EXPECT_EQ(lse.strides[0].str(), "8*L");
  EXPECT_EQ(lse.strides[1].str(), "1");
  EXPECT_EQ(lse.strides[2].str(), "8");
}

TEST(EfficientAttention, LogsumexpIsPaddedToThirtyTwo) {
  OpRun r = run_op({kQuery, kKey, kValue}, "aten._scaled_dot_product_efficient_attention.default",
                   {T("q"), T("k"), T("v"), None(), B(true)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(),
            "(float16[batch, 8, L, 32], float32[batch, 8, 32*((L + 31)//32)], int64[], int64[])");
  OpRun no_lse = run_op({tensor("q", {"2", "4", "100", "16"}), tensor("k", {"2", "4", "7", "16"}),
                         tensor("v", {"2", "4", "7", "16"})},
                        "aten._scaled_dot_product_efficient_attention.default",
                        {T("q"), T("k"), T("v"), None(), B(false)});
  EXPECT_EQ(no_lse.str(), "(float32[2, 4, 100, 16], float32[2, 4, 0], int64[], int64[])");
  OpRun lse = run_op({tensor("q", {"2", "4", "100", "16"}), tensor("k", {"2", "4", "7", "16"}),
                      tensor("v", {"2", "4", "7", "16"})},
                     "aten._scaled_dot_product_efficient_attention.default",
                     {T("q"), T("k"), T("v"), None(), B(true)});
  EXPECT_EQ(lse.str(), "(float32[2, 4, 100, 16], float32[2, 4, 128], int64[], int64[])");
}

// PyTorch's meta registration (torch/_meta_registrations.py,
// meta__scaled_dot_product_cudnn_attention): output [B, H, L, Ev], logsumexp [B, H, L] float32
// allocated whether or not compute_log_sumexp asks for it, cum_seq_q / cum_seq_k None, max_q L,
// max_k S, 0-dim philox seed and offset, and no debug mask (None).
TEST(CudnnAttention, OutputsAsPyTorchsMeta) {
  const Input v = tensor("v", {"batch", "8", "S", "48"}, DType::Float16);
  for (bool lse : {true, false}) {
    OpRun r = run_op({kQuery, kKey, v}, "aten._scaled_dot_product_cudnn_attention.default",
                     {T("q"), T("k"), T("v"), None(), B(lse)});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.str(),
              "(float16[batch, 8, L, 48], float32[batch, 8, L], None, None, L, S, int64[], "
              "int64[], None)")
        << "compute_log_sumexp=" << lse;
  }
}

// The flash and cudnn outputs are laid out like the query (PyTorch's meta: flash allocates
// empty_like(query.transpose(1, 2)).transpose(1, 2), cudnn alloc_with_matching_layout): a query
// transposed from [batch, L, 8, 64] keeps its strides; a contiguous one gives a contiguous output.
TEST(FusedAttention, OutputFollowsTheQuerysLayout) {
  const Input q0 = tensor("q0", {"batch", "L", "8", "64"}, DType::Float16);
  const Input k = tensor("k", {"batch", "8", "S", "64"}, DType::Float16);
  const Input v = tensor("v", {"batch", "8", "S", "64"}, DType::Float16);
  for (const char* target : {"aten._scaled_dot_product_flash_attention.default",
                             "aten._scaled_dot_product_cudnn_attention.default"}) {
    std::vector<Arg> args = {T("q"), T("k"), T("v")};
    if (std::string(target).find("cudnn") != std::string::npos) {
      args.push_back(None());
      args.push_back(B(false));
    }
    OpRun r = run_ops({q0, k, v},
                      {{"q", "aten.transpose.int", {T("q0"), I(1), I(2)}}, {"op", target, args}});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(strides_str(r.value().items[0]), "[512*L, 64, 512, 1]") << target;
    OpRun plain = run_ops({tensor("q", {"batch", "8", "L", "64"}, DType::Float16), k, v},
                          {{"op", target, args}});
    ASSERT_TRUE(plain.ok()) << plain.error();
    EXPECT_EQ(strides_str(plain.value().items[0]), "[512*L, 64*L, 64, 1]") << target;
  }
}

}  // namespace
}  // namespace symshape::testing
