// run() with a Communicator, without MPI: a group of one process (a communicator whose
// collectives copy), so that the multi-process path of every collective kernel and the
// exchanges that keep ranks in step run in every build (and under the sanitizers) and give the
// simulated run's values. tests/cli/mpi_cli_test.cc runs real groups under MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "symshape/interp.h"
#include "symshape/ir.h"

namespace symshape::interp {
namespace {

// Rank 0 of 1: every collective leaves the data as it is; counts the calls.
class SoloCommunicator : public Communicator {
 public:
  size_t rank() const override { return 0; }
  size_t world_size() const override { return 1; }
  void all_reduce(std::span<double>, ReduceOp) override { ++reduces; }
  void all_reduce(std::span<int64_t>, ReduceOp) override { ++reduces; }
  void all_gather(std::span<const double> in, std::span<double> out) override {
    ++gathers;
    std::copy(in.begin(), in.end(), out.begin());
  }
  void all_gather(std::span<const int64_t> in, std::span<int64_t> out) override {
    ++gathers;
    std::copy(in.begin(), in.end(), out.begin());
  }
  void reduce_scatter(std::span<const double> in, std::span<double> out, ReduceOp) override {
    ++others;
    std::copy(in.begin(), in.end(), out.begin());
  }
  void reduce_scatter(std::span<const int64_t> in, std::span<int64_t> out, ReduceOp) override {
    ++others;
    std::copy(in.begin(), in.end(), out.begin());
  }
  void broadcast(std::span<double>, size_t) override { ++others; }
  void broadcast(std::span<int64_t>, size_t) override { ++others; }
  void all_to_all(std::span<const double> in, std::span<const size_t>, std::span<double> out,
                  std::span<const size_t>) override {
    ++others;
    std::copy(in.begin(), in.end(), out.begin());
  }
  void all_to_all(std::span<const int64_t> in, std::span<const size_t>, std::span<int64_t> out,
                  std::span<const size_t>) override {
    ++others;
    std::copy(in.begin(), in.end(), out.begin());
  }
  int reduces = 0, gathers = 0, others = 0;
};

Graph graph_of(const std::string& text) {
  Expected<Graph> g = read_graph(text);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error());
  return g.ok() ? *g : Graph{};
}

// Every node's value alike in both runs (tensors by dtype, shape and checksum).
void expect_same_values(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    const RValue &x = a.values[i], &y = b.values[i];
    EXPECT_EQ(x.str(), y.str()) << "node " << i;
    if (x.is_tensor() && y.is_tensor()) {
      EXPECT_EQ(checksum(x.tensor), checksum(y.tensor)) << "node " << i << " " << x.str();
    }
  }
}

// Every collective form, in a group of one.
constexpr const char* kCollectives = R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "f", "op": "placeholder", "dtype": "float32", "shape": [4, 3]},
  {"name": "i", "op": "placeholder", "dtype": "int64", "shape": [4, 2]},
  {"name": "c", "op": "placeholder", "dtype": "complex64", "shape": [4, 2]},
  {"name": "b", "op": "placeholder", "dtype": "bfloat16", "shape": [8]},
  {"name": "ar", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "f"}, "avg", "g"]},
  {"name": "ar_i", "op": "call_function", "target": "_c10d_functional.all_reduce_.default", "args": [{"node": "i"}, "bxor", "g"]},
  {"name": "ar_c", "op": "call_function", "target": "_c10d_functional.all_reduce_coalesced.default", "args": [[{"node": "c"}, {"node": "f"}], "sum", "g"]},
  {"name": "ag", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor.default", "args": [{"node": "c"}, 1, "g"]},
  {"name": "ag_coal", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor_coalesced.default", "args": [[{"node": "b"}, {"node": "i"}], 1, "g"]},
  {"name": "rs", "op": "call_function", "target": "_c10d_functional.reduce_scatter_tensor.default", "args": [{"node": "f"}, "max", 1, "g"]},
  {"name": "rs_coal", "op": "call_function", "target": "_c10d_functional.reduce_scatter_tensor_coalesced.default", "args": [[{"node": "i"}, {"node": "c"}], "avg", 1, "g"]},
  {"name": "a2a", "op": "call_function", "target": "_c10d_functional.all_to_all_single.default", "args": [{"node": "b"}, [8], [8], "g"]},
  {"name": "a2a_c", "op": "call_function", "target": "_c10d_functional.all_to_all_single.default", "args": [{"node": "c"}, [], [], "g"]},
  {"name": "bc", "op": "call_function", "target": "_c10d_functional.broadcast_.default", "args": [{"node": "f"}, 0, "g"]},
  {"name": "legacy", "op": "call_function", "target": "c10d_functional.all_gather_into_tensor.default", "args": [{"node": "i"}, "", [0], 1]},
  {"name": "w", "op": "call_function", "target": "c10d_functional.wait_tensor.default", "args": [{"node": "legacy"}]},
  {"name": "output", "op": "output", "args": [[{"node": "ar"}, {"node": "ar_i"}, {"node": "ar_c"}, {"node": "ag"}, {"node": "ag_coal"}, {"node": "rs"}, {"node": "rs_coal"}, {"node": "a2a"}, {"node": "a2a_c"}, {"node": "bc"}, {"node": "w"}]]}]})";

TEST(ProcessRun, EveryCollectiveInAGroupOfOneGivesTheSimulatedValues) {
  const Graph g = graph_of(kCollectives);
  RunOptions o;
  o.seed = 3;
  const RunResult simulated = run(g, o);
  ASSERT_TRUE(simulated.ok) << simulated.error;
  SoloCommunicator comm;
  o.communicator = &comm;
  const RunResult process = run(g, o);
  ASSERT_TRUE(process.ok) << process.error;
  EXPECT_EQ(process.world_size, 1u);
  EXPECT_EQ(process.rank, 0u);
  EXPECT_TRUE(process.ranks.empty());
  expect_same_values(simulated, process);
  // One exchange (two all_gathers) at the start, one per collective but wait_tensor, one at
  // the end; then the data of each gathered tensor.
  const int collectives = 11;
  EXPECT_EQ(comm.gathers, 2 * (collectives + 2) + 4);  // the data: ag, ag_coal (two), legacy
  EXPECT_EQ(comm.reduces, 4);                          // ar, ar_i, ar_c (two tensors)
}

TEST(ProcessRun, TheExamplesGiveTheSimulatedValues) {
  for (const char* name : {"examples/tp_complex.json", "examples/tp_mlp.json"}) {
    Expected<Graph> g =
        read_graph_file((std::filesystem::path(SYMSHAPE_SOURCE_DIR) / name).string());
    ASSERT_TRUE(g.ok()) << name;
    RunOptions o;
    o.dims = {{"W", 1}, {"batch", 2}, {"seq_shard", 3}};
    const RunResult simulated = run(*g, o);
    ASSERT_TRUE(simulated.ok) << name << ": " << simulated.error;
    SoloCommunicator comm;
    o.communicator = &comm;
    const RunResult process = run(*g, o);
    ASSERT_TRUE(process.ok) << name << ": " << process.error;
    expect_same_values(simulated, process);
  }
}

// view(-1, 2) fails before the all_reduce: the failed rank still takes part in the all_reduce's
// exchange, so the number of exchanges is the same as in a run that succeeds.
constexpr const char* kFailsBeforeACollective = R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": [3]},
  {"name": "view", "op": "call_function", "target": "aten.view.default", "args": [{"node": "x"}, [-1, 2]]},
  {"name": "all_reduce", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "x"}, "sum", "g"]},
  {"name": "wait", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "all_reduce"}]},
  {"name": "output", "op": "output", "args": [[{"node": "view"}, {"node": "wait"}]]}]})";

TEST(ProcessRun, AFailedRankStillTakesPartInEveryExchange) {
  const Graph g = graph_of(kFailsBeforeACollective);
  RunOptions o;
  const RunResult simulated = run(g, o);
  ASSERT_FALSE(simulated.ok);
  SoloCommunicator comm;
  o.communicator = &comm;
  const RunResult process = run(g, o);
  ASSERT_FALSE(process.ok);
  // A group of one names no rank: the error is the simulated run's.
  EXPECT_EQ(process.error, simulated.error);
  EXPECT_EQ(process.failed_node, simulated.failed_node);
  EXPECT_EQ(process.input_error, simulated.input_error);
  EXPECT_EQ(comm.gathers, 2 * 3);  // start, all_reduce (as a failed rank), end
  EXPECT_EQ(comm.reduces, 0);

  // An error before any node ran (a dim the graph does not take) is agreed on the same way.
  o.sizes["x"] = {4};
  comm.gathers = 0;
  const RunResult bad = run(g, o);
  ASSERT_FALSE(bad.ok);
  EXPECT_TRUE(bad.input_error);
  EXPECT_NE(bad.error.find("declared 3 but its size is 4"), std::string::npos) << bad.error;
  EXPECT_EQ(comm.gathers, 2 * 3);
}

TEST(ProcessRun, AWorldSizeOtherThanTheProcessesIsBadInput) {
  const Graph g = graph_of(kFailsBeforeACollective);
  RunOptions o;
  o.world_size = 2;
  SoloCommunicator comm;
  o.communicator = &comm;
  const RunResult r = run(g, o);
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(r.input_error);
  EXPECT_NE(r.error.find("the run spans 1 processes, but a world size of 2"), std::string::npos)
      << r.error;
}

}  // namespace
}  // namespace symshape::interp
