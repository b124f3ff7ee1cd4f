// symshape-mpirun against the simulated run: the same graph as W real processes under MPI
// (`mpirun -np W --oversubscribe` on this machine), each rank exchanging its tensors through MPI
// collectives, must give every rank the outputs the simulated W-rank run gives it (`symshape run
// --save-ranks`, compared at 1e-5 relative, absolute below 1). Also before and after lowering:
// the complex tensor-parallel block, lowered by complex-collectives (collectives on real views)
// and by the complex pipeline (no complex value left), matches the unlowered graph's simulated
// run. And a failure on one rank fails every rank with one error naming it, without a hang.
//
// Skips, saying why, when the build has no MPI or no launcher is found; fails instead when the
// environment variable CI is set, since CI installs MPI (scripts/setup).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "cli_runner.h"
#include "real_view.h"
#include "symshape/interp.h"
#include "symshape/ir.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;
using interp::Scalar;
using interp::Tensor;

// MPI's launcher and the program it runs, or why there are none.
struct Mpi {
  std::string launcher, program, why;
};

#ifdef SYMSHAPE_MPIRUN
bool executable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}
#endif

Mpi find_mpi() {
  Mpi m;
#ifdef SYMSHAPE_MPIRUN
  m.program = SYMSHAPE_MPIRUN;
  // The launcher CMake found, else mpirun or mpiexec on PATH.
  std::vector<std::string> candidates{SYMSHAPE_MPIEXEC};
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(at, end - at);
    if (!dir.empty()) {
      candidates.push_back(dir + "/mpirun");
      candidates.push_back(dir + "/mpiexec");
    }
    at = end + 1;
  }
  for (const std::string& c : candidates) {
    if (executable(c)) {
      m.launcher = c;
      return m;
    }
  }
  m.why = "no MPI launcher (mpirun or mpiexec) on PATH";
#else
  m.why =
      "symshape was built without MPI (CMake did not find it; install openmpi-bin and "
      "libopenmpi-dev, e.g. with scripts/setup)";
#endif
  return m;
}

// Skips the test when MPI cannot run here, or fails it under CI, where it must.
#define REQUIRE_MPI(mpi)                                                      \
  do {                                                                        \
    if (!(mpi).why.empty()) {                                                 \
      const char* ci = std::getenv("CI");                                     \
      if (ci && *ci) FAIL() << "CI is set but MPI cannot run: " << (mpi).why; \
      GTEST_SKIP() << "skipping the multi-process tests: " << (mpi).why;      \
    }                                                                         \
  } while (0)

// `mpirun -np W symshape-mpirun args...` (Open MPI's launcher), as root too, with LeakSanitizer
// off in the ranks (OpenMPI's own allocations outlive MPI_Finalize), no single-copy transfers
// between processes (containers often forbid them), and no wait before the launcher ends a job
// whose ranks exit with an error (they have all finished by then; the default waits 2 s).
CliResult mpirun(const Mpi& mpi, size_t w, const std::vector<std::string>& args) {
  std::vector<std::string> full{"-np", std::to_string(w), "--oversubscribe"};
  if (::geteuid() == 0) full.push_back("--allow-run-as-root");
  for (const char* a : {"--mca", "btl_vader_single_copy_mechanism", "none", "--mca",
                        "odls_base_sigkill_timeout", "0", "-x", "ASAN_OPTIONS=detect_leaks=0"}) {
    full.push_back(a);
  }
  full.push_back(mpi.program);
  full.insert(full.end(), args.begin(), args.end());
  return run_program(mpi.launcher, full, {}, std::chrono::seconds(90));
}

fs::path scratch(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("symshape_mpi_cli_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// The names of the output node's arguments, in order: the files --save-ranks writes.
std::vector<std::string> output_names(const std::string& path) {
  Expected<Graph> g = read_graph_file(path);
  if (!g.ok()) return {};
  const Arg& a = g->nodes.back().args.at(0);
  std::vector<std::string> names;
  if (a.kind == Arg::Kind::List) {
    for (const Arg& item : a.items) names.push_back(item.text);
  } else {
    names.push_back(a.text);
  }
  return names;
}

bool close(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b || std::abs(a - b) <= 1e-5 * std::max({1.0, std::abs(a), std::abs(b)});
}

// Every rank's outputs of `got` (saved by --save-ranks under got_dir, named by got_graph's
// outputs) against `want`'s, position by position; a complex output against a real one through
// its real view (complex-rewrite gives complex outputs as real views).
void expect_same_outputs(const std::string& what, size_t w, const fs::path& want_dir,
                         const std::string& want_graph, const fs::path& got_dir,
                         const std::string& got_graph) {
  const std::vector<std::string> want_names = output_names(want_graph);
  const std::vector<std::string> got_names = output_names(got_graph);
  ASSERT_FALSE(want_names.empty()) << want_graph;
  ASSERT_EQ(want_names.size(), got_names.size()) << what;
  for (size_t r = 0; r < w; ++r) {
    const std::string rank = "rank" + std::to_string(r);
    for (size_t k = 0; k < want_names.size(); ++k) {
      const std::string where =
          what + ", " + rank + ", output " + std::to_string(k) + " (" + want_names[k] + ")";
      const fs::path a = want_dir / rank / (want_names[k] + ".npy");
      const fs::path b = got_dir / rank / (got_names[k] + ".npy");
      ASSERT_TRUE(fs::exists(a)) << where << ": " << a << " is missing";
      ASSERT_TRUE(fs::exists(b)) << where << ": " << b << " is missing";
      Tensor x = interp::read_npy(a.string()), y = interp::read_npy(b.string());
      if (is_complex(x.dtype()) && !is_complex(y.dtype())) x = real_view(x);
      ASSERT_EQ(x.str(), y.str()) << where;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const Scalar p = x.flat(i), q = y.flat(i);
        if (is_complex(x.dtype())) {
          ASSERT_TRUE(close(p.c.real(), q.c.real()) && close(p.c.imag(), q.c.imag()))
              << where << ", element " << i;
        } else {
          ASSERT_TRUE(close(p.as_double(), q.as_double()))
              << where << ", element " << i << ": " << p.as_double() << " and " << q.as_double();
        }
      }
    }
  }
}

// The dims of one run: W (the number of processes) and the graph's other dims.
struct Dims {
  size_t w;
  std::vector<std::pair<std::string, int64_t>> others;
  std::vector<std::string> flags() const {
    std::vector<std::string> out{"--dim", "W=" + std::to_string(w)};
    for (const auto& [name, v] : others) {
      out.push_back("--dim");
      out.push_back(name + "=" + std::to_string(v));
    }
    return out;
  }
  std::string str() const {
    std::string s = "W=" + std::to_string(w);
    for (const auto& [name, v] : others) s += " " + name + "=" + std::to_string(v);
    return s;
  }
};

// Runs `graph` simulated and under MPI with the same flags and compares every rank's outputs;
// also against `reference` (the unlowered graph's simulated run, saved in reference_dir) when
// given.
void expect_mpi_matches(const Mpi& mpi, const std::string& graph, size_t w,
                        const std::vector<std::string>& flags, const fs::path& dir,
                        const std::string& reference = "", const fs::path& reference_dir = {}) {
  std::vector<std::string> sim_args{"run", graph, "--save-ranks", (dir / "sim").string()};
  sim_args.insert(sim_args.end(), flags.begin(), flags.end());
  sim_args.insert(sim_args.end(), {"--world-size", std::to_string(w)});
  CliResult sim = run_cli(sim_args);
  ASSERT_EQ(sim.exit_code, 0) << "simulated " << graph << ": " << result_text(sim);

  std::vector<std::string> args{graph, "--save-ranks", (dir / "mpi").string()};
  args.insert(args.end(), flags.begin(), flags.end());
  CliResult real = mpirun(mpi, w, args);
  ASSERT_FALSE(real.timed_out) << graph << ": " << result_text(real);
  ASSERT_EQ(real.exit_code, 0) << graph << ": " << result_text(real);
  // Rank 0 prints what `symshape run` prints (its dims, the world size, its outputs).
  const std::string first_line = sim.out.substr(0, sim.out.find('\n'));
  EXPECT_EQ(real.out.substr(0, real.out.find('\n')), first_line) << result_text(real);
  EXPECT_NE(real.out.find("world size: " + std::to_string(w) + " (outputs of rank 0)"),
            std::string::npos)
      << real.out;

  expect_same_outputs(graph + " under MPI against its simulated run", w, dir / "sim", graph,
                      dir / "mpi", graph);
  if (!reference.empty()) {
    expect_same_outputs(graph + " under MPI against the simulated " + reference, w, reference_dir,
                        reference, dir / "mpi", graph);
  }
}

TEST(MpiRunCli, TensorParallelMlpMatchesTheSimulatedRun) {
  const Mpi mpi = find_mpi();
  REQUIRE_MPI(mpi);
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "skipped in the sanitizer build: the example's 1024-wide layers take minutes "
                  "to simulate there (the Release build runs this test; the other multi-process "
                  "tests, bfloat16 collectives included, run here)";
#endif
  const fs::path dir = scratch("tp_mlp");
  // Two values of each dim: W (the processes), batch and seq_shard.
  for (const Dims& d :
       {Dims{4, {{"batch", 1}, {"seq_shard", 2}}}, Dims{2, {{"batch", 3}, {"seq_shard", 1}}}}) {
    SCOPED_TRACE(d.str());
    const fs::path run_dir = dir / ("w" + std::to_string(d.w));
    expect_mpi_matches(mpi, source("examples/tp_mlp.json"), d.w, d.flags(), run_dir);
  }
  fs::remove_all(dir);
}

TEST(MpiRunCli, ComplexBlockBeforeAndAfterLoweringMatchesTheSimulatedRun) {
  const Mpi mpi = find_mpi();
  REQUIRE_MPI(mpi);
  const fs::path dir = scratch("tp_complex");
  const std::string original = source("examples/tp_complex.json");
  // complex-collectives: the collectives (and the views between them) on real views, the rest
  // complex; the complex pipeline: no complex value left, inputs and output as real views.
  const std::string views = (dir / "collectives.json").string();
  const std::string real = (dir / "real.json").string();
  CliResult low = run_cli({"lower", original, "--passes", "complex-collectives", "-o", views});
  ASSERT_EQ(low.exit_code, 0) << result_text(low);
  low = run_cli({"lower", original, "--pipeline", "complex", "-o", real});
  ASSERT_EQ(low.exit_code, 0) << result_text(low);

  for (const Dims& d :
       {Dims{4, {{"batch", 2}, {"seq_shard", 3}}}, Dims{2, {{"batch", 1}, {"seq_shard", 2}}}}) {
    SCOPED_TRACE(d.str());
    const fs::path run_dir = dir / ("w" + std::to_string(d.w));
    expect_mpi_matches(mpi, original, d.w, d.flags(), run_dir / "original");
    // The lowered graphs generate the same inputs (an unpacked input is the real view of the
    // original's), so their MPI runs compare with the original's simulated run.
    const fs::path reference = run_dir / "original" / "sim";
    expect_mpi_matches(mpi, views, d.w, d.flags(), run_dir / "collectives", original, reference);
    expect_mpi_matches(mpi, real, d.w, d.flags(), run_dir / "real", original, reference);
  }
  fs::remove_all(dir);
}

// Every collective the interpreter runs, in each form: the reduce ops on float, int, bool and
// complex tensors, coalesced lists, the in-place forms (whose writes later nodes read),
// all_to_all_single with even, given and uneven splits, broadcast from other ranks, and the
// legacy c10d_functional ops.
constexpr const char* kEveryCollective = R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "f", "op": "placeholder", "dtype": "float32", "shape": [4, 3]},
  {"name": "i", "op": "placeholder", "dtype": "int64", "shape": [4, 2]},
  {"name": "c", "op": "placeholder", "dtype": "complex64", "shape": [4, 2]},
  {"name": "b", "op": "placeholder", "dtype": "bfloat16", "shape": [8]},
  {"name": "d", "op": "placeholder", "dtype": "float64", "shape": [2, 2]},
  {"name": "flag", "op": "placeholder", "dtype": "bool", "shape": [4]},
  {"name": "ar_sum", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "f"}, "sum", "g"]},
  {"name": "ar_sum_w", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "ar_sum"}]},
  {"name": "ar_avg", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "f"}, "avg", "g"]},
  {"name": "ar_max", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "f"}, "max", "g"]},
  {"name": "ar_product", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "f"}, "product", "g"]},
  {"name": "ar_min_i", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "i"}, "min", "g"]},
  {"name": "ar_sum_i", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "i"}, "sum", "g"]},
  {"name": "ar_bor_i", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "i"}, "bor", "g"]},
  {"name": "ar_bxor_i", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "i"}, "bxor", "g"]},
  {"name": "ar_avg_i", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "ar_sum_i"}, "avg", "g"]},
  {"name": "ar_flag", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "flag"}, "sum", "g"]},
  {"name": "ar_c", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "c"}, "avg", "g"]},
  {"name": "ar_coal", "op": "call_function", "target": "_c10d_functional.all_reduce_coalesced.default", "args": [[{"node": "f"}, {"node": "i"}], "sum", "g"]},
  {"name": "ar_coal_1", "op": "call_function", "target": "operator.getitem", "args": [{"node": "ar_coal"}, 1]},
  {"name": "ar_inplace", "op": "call_function", "target": "_c10d_functional.all_reduce_.default", "args": [{"node": "d"}, "sum", "g"]},
  {"name": "d_after", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "d"}, 2]},
  {"name": "ag_b", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor.default", "args": [{"node": "b"}, 4, "g"]},
  {"name": "ag_c", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor.default", "args": [{"node": "c"}, 4, "g"]},
  {"name": "ag_coal", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor_coalesced.default", "args": [[{"node": "f"}, {"node": "i"}], 4, "g"]},
  {"name": "ag_coal_1", "op": "call_function", "target": "operator.getitem", "args": [{"node": "ag_coal"}, 1]},
  {"name": "rs_f", "op": "call_function", "target": "_c10d_functional.reduce_scatter_tensor.default", "args": [{"node": "f"}, "avg", 4, "g"]},
  {"name": "rs_i", "op": "call_function", "target": "_c10d_functional.reduce_scatter_tensor.default", "args": [{"node": "ag_coal_1"}, "max", 4, "g"]},
  {"name": "rs_coal", "op": "call_function", "target": "_c10d_functional.reduce_scatter_tensor_coalesced.default", "args": [[{"node": "f"}, {"node": "c"}], "sum", 4, "g"]},
  {"name": "rs_coal_1", "op": "call_function", "target": "operator.getitem", "args": [{"node": "rs_coal"}, 1]},
  {"name": "a2a_f", "op": "call_function", "target": "_c10d_functional.all_to_all_single.default", "args": [{"node": "f"}, [], [], "g"]},
  {"name": "a2a_b", "op": "call_function", "target": "_c10d_functional.all_to_all_single.default", "args": [{"node": "b"}, [2, 2, 2, 2], [2, 2, 2, 2], "g"]},
  {"name": "a2a_uneven", "op": "call_function", "target": "_c10d_functional.all_to_all_single.default", "args": [{"node": "b"}, [], [1, 3, 0, 4], "g"]},
  {"name": "a2a_c", "op": "call_function", "target": "_c10d_functional.all_to_all_single.default", "args": [{"node": "c"}, [], [], "g"]},
  {"name": "bc_f", "op": "call_function", "target": "_c10d_functional.broadcast.default", "args": [{"node": "f"}, 1, "g"]},
  {"name": "bc_i", "op": "call_function", "target": "_c10d_functional.broadcast_.default", "args": [{"node": "i"}, 2, "g"]},
  {"name": "i_after", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "i"}, 1]},
  {"name": "legacy_ar", "op": "call_function", "target": "c10d_functional.all_reduce.default", "args": [{"node": "f"}, "sum", "", [0, 1, 2, 3], 4]},
  {"name": "legacy_ag", "op": "call_function", "target": "c10d_functional.all_gather_into_tensor.default", "args": [{"node": "c"}, "", [0, 1, 2, 3], 4]},
  {"name": "legacy_rs", "op": "call_function", "target": "c10d_functional.reduce_scatter_tensor.default", "args": [{"node": "f"}, "sum", "", [0, 1, 2, 3], 4]},
  {"name": "legacy_a2a", "op": "call_function", "target": "c10d_functional.all_to_all_single.default", "args": [{"node": "b"}, null, null, "", [0, 1, 2, 3], 4]},
  {"name": "legacy_bc", "op": "call_function", "target": "c10d_functional.broadcast_.default", "args": [{"node": "c"}, 3, "", [0, 1, 2, 3], 4]},
  {"name": "legacy_w", "op": "call_function", "target": "c10d_functional.wait_tensor.default", "args": [{"node": "legacy_bc"}]},
  {"name": "output", "op": "output", "args": [[{"node": "ar_sum_w"}, {"node": "ar_avg"}, {"node": "ar_max"}, {"node": "ar_product"}, {"node": "ar_min_i"}, {"node": "ar_sum_i"}, {"node": "ar_bor_i"}, {"node": "ar_bxor_i"}, {"node": "ar_avg_i"}, {"node": "ar_flag"}, {"node": "ar_c"}, {"node": "ar_coal_1"}, {"node": "ar_inplace"}, {"node": "d_after"}, {"node": "ag_b"}, {"node": "ag_c"}, {"node": "ag_coal_1"}, {"node": "rs_f"}, {"node": "rs_i"}, {"node": "rs_coal_1"}, {"node": "a2a_f"}, {"node": "a2a_b"}, {"node": "a2a_uneven"}, {"node": "a2a_c"}, {"node": "bc_f"}, {"node": "bc_i"}, {"node": "i_after"}, {"node": "legacy_ar"}, {"node": "legacy_ag"}, {"node": "legacy_rs"}, {"node": "legacy_a2a"}, {"node": "legacy_w"}]]}]})";

TEST(MpiRunCli, EveryCollectiveFormMatchesTheSimulatedRun) {
  const Mpi mpi = find_mpi();
  REQUIRE_MPI(mpi);
  const fs::path dir = scratch("every_collective");
  const std::string graph = (dir / "collectives.json").string();
  std::ofstream(graph) << kEveryCollective;
  expect_mpi_matches(mpi, graph, 4, {"--seed", "5"}, dir);
  fs::remove_all(dir);
}

// x's nonzero count is odd on some ranks: view(-1, 2) fails there, before an all_reduce every
// rank must reach.
constexpr const char* kFailsOnSomeRanks = R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "bool", "shape": [5]},
  {"name": "y", "op": "placeholder", "dtype": "float32", "shape": [3]},
  {"name": "nonzero", "op": "call_function", "target": "aten.nonzero.default", "args": [{"node": "x"}]},
  {"name": "view", "op": "call_function", "target": "aten.view.default", "args": [{"node": "nonzero"}, [-1, 2]]},
  {"name": "all_reduce", "op": "call_function", "target": "_c10d_functional.all_reduce.default", "args": [{"node": "y"}, "sum", "g"]},
  {"name": "wait", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "all_reduce"}]},
  {"name": "output", "op": "output", "args": [[{"node": "view"}, {"node": "wait"}]]}]})";

TEST(MpiRunCli, AFailureOnOneRankFailsEveryRankWithoutAHang) {
  const Mpi mpi = find_mpi();
  REQUIRE_MPI(mpi);
  const fs::path dir = scratch("fails");
  const std::string graph = (dir / "fails.json").string();
  std::ofstream(graph) << kFailsOnSomeRanks;
  // A seed at which rank 0 gets an even count and a later rank an odd one: the simulated run's
  // inputs (those of the MPI run's ranks) say which.
  const std::string probe_path = (dir / "probe.json").string();
  std::ofstream(probe_path) << R"({"format": "symshape-graph", "version": 1, "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "bool", "shape": [5]},
  {"name": "output", "op": "output", "args": [[{"node": "x"}]]}]})";
  Expected<Graph> probe = read_graph_file(probe_path);
  ASSERT_TRUE(probe.ok());
  std::optional<uint64_t> seed;
  size_t failing = 0;
  for (uint64_t s = 0; s < 64 && !seed; ++s) {
    interp::RunOptions o;
    o.seed = s;
    o.world_size = 4;
    // Every rank's x, generated as run() generates it, through a graph that only reads x.
    const interp::RunResult res = interp::run(*probe, o);
    ASSERT_TRUE(res.ok && res.ranks.size() == 4) << res.error;
    std::vector<size_t> counts;
    for (size_t r = 0; r < 4; ++r) {
      size_t n = 0;
      for (const Scalar& v : res.ranks[r][0].tensor.values()) n += v.as_bool() ? 1 : 0;
      counts.push_back(n);
    }
    if (counts[0] % 2 != 0) continue;
    for (size_t r = 1; r < 4; ++r) {
      if (counts[r] % 2 != 0) {
        seed = s;
        failing = r;
        break;
      }
    }
  }
  ASSERT_TRUE(seed) << "no seed below 64 makes rank 0 pass and another rank fail";

  CliResult r = mpirun(mpi, 4, {graph, "--seed", std::to_string(*seed)});
  ASSERT_FALSE(r.timed_out) << result_text(r);
  EXPECT_EQ(r.exit_code, 1) << result_text(r);
  EXPECT_EQ(r.out, "") << result_text(r);
  const std::string error = "symshape: error: rank " + std::to_string(failing) +
                            ": node view (aten.view.default): shape '[-1, 2]' is invalid";
  EXPECT_NE(r.err.find(error), std::string::npos) << error << "\n" << result_text(r);
  // One error, printed once (by rank 0).
  EXPECT_EQ(r.err.find("symshape: error:"), r.err.rfind("symshape: error:")) << r.err;

  r = mpirun(mpi, 4, {graph, "--seed", std::to_string(*seed), "--json"});
  ASSERT_FALSE(r.timed_out) << result_text(r);
  EXPECT_EQ(r.exit_code, 1) << result_text(r);
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["status"], "runtime_error");
  EXPECT_EQ(doc["world_size"], 4);
  EXPECT_NE(doc["error"].get<std::string>().find("rank " + std::to_string(failing) + ": node view"),
            std::string::npos)
      << doc.dump();
  fs::remove_all(dir);
}

// nonzero gives the ranks different sizes: every rank refuses the gather alike, with the
// simulated run's error (naming no rank: it is the group's).
constexpr const char* kRanksDisagree = R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "bool", "shape": [6]},
  {"name": "nonzero", "op": "call_function", "target": "aten.nonzero.default", "args": [{"node": "x"}]},
  {"name": "all_gather", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor.default", "args": [{"node": "nonzero"}, 4, "g"]},
  {"name": "wait", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "all_gather"}]},
  {"name": "output", "op": "output", "args": [[{"node": "wait"}]]}]})";

TEST(MpiRunCli, RanksThatDisagreeFailAsInTheSimulatedRun) {
  const Mpi mpi = find_mpi();
  REQUIRE_MPI(mpi);
  const fs::path dir = scratch("disagree");
  const std::string graph = (dir / "disagree.json").string();
  std::ofstream(graph) << kRanksDisagree;
  CliResult sim = run_cli({"run", graph});
  ASSERT_EQ(sim.exit_code, 1) << result_text(sim);
  ASSERT_NE(sim.err.find("ranks disagree"), std::string::npos) << sim.err;
  CliResult r = mpirun(mpi, 4, {graph});
  ASSERT_FALSE(r.timed_out) << result_text(r);
  EXPECT_EQ(r.exit_code, 1) << result_text(r);
  EXPECT_EQ(r.err.find(sim.err), r.err.find("symshape: error:")) << result_text(r);

  // A group size the processes are not: every rank refuses the collective.
  r = mpirun(mpi, 3, {graph});
  ASSERT_FALSE(r.timed_out) << result_text(r);
  EXPECT_EQ(r.exit_code, 1) << result_text(r);
  EXPECT_NE(r.err.find("group size 4 but the run has 3 processes"), std::string::npos)
      << result_text(r);
  fs::remove_all(dir);
}

TEST(MpiRunCli, BadFlagsAndFilesStopEveryRankWithOneError) {
  const Mpi mpi = find_mpi();
  REQUIRE_MPI(mpi);
  CliResult r = mpirun(mpi, 2, {source("examples/tp_mlp.json"), "--bogus"});
  ASSERT_FALSE(r.timed_out) << result_text(r);
  EXPECT_EQ(r.exit_code, 2) << result_text(r);
  EXPECT_EQ(r.err.rfind("symshape: error: unknown flag '--bogus'", 0), 0u) << result_text(r);
  EXPECT_EQ(r.err.find("symshape: error:"), r.err.rfind("symshape: error:")) << r.err;

  r = mpirun(mpi, 2, {"/nonexistent/graph.json"});
  EXPECT_EQ(r.exit_code, 2) << result_text(r);
  EXPECT_NE(r.err.find("/nonexistent/graph.json"), std::string::npos) << result_text(r);

  r = mpirun(mpi, 2, {"--help"});
  EXPECT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_EQ(r.out.rfind("usage: mpirun -np W symshape-mpirun GRAPH.json", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("usage:"), r.out.rfind("usage:")) << "printed by rank 0 alone";
}

}  // namespace
}  // namespace symshape::cli_test
