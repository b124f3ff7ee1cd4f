// Runs the `symshape` program as a child process and captures what a user would see: stdout,
// stderr and the exit code. Shared by the end-to-end CLI tests.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace symshape::cli_test {

// What one run of the program produced.
struct CliResult {
  int exit_code = -1;      // the exit status, or -1 when the child did not exit normally
  int signal = 0;          // the signal that ended the child (a crash), 0 when it exited
  bool timed_out = false;  // killed after the time limit
  std::string out;         // everything written to stdout
  std::string err;         // everything written to stderr
};

// Where the program under test is: the build's symshape binary.
inline std::string cli_path() {
#ifdef SYMSHAPE_CLI
  return SYMSHAPE_CLI;
#else
  throw std::runtime_error("SYMSHAPE_CLI is not defined: the CLI target was not built");
#endif
}

namespace detail {

// Throws with errno's text when a system call failed.
inline void check_sys(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string(what) + ": " + std::strerror(rc));
}

// A file holding `text`, for the child's stdin; removed by the destructor.
class StdinFile {
 public:
  explicit StdinFile(std::string_view text) {
    char path[] = "/tmp/symshape_cli_stdin_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    path_ = path;
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        close(fd);
        throw std::runtime_error("writing the stdin file failed");
      }
      done += static_cast<size_t>(n);
    }
    close(fd);
  }
  ~StdinFile() { unlink(path_.c_str()); }
  StdinFile(const StdinFile&) = delete;
  StdinFile& operator=(const StdinFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace detail

// Runs the program with `args` (not including argv[0]), feeding it `stdin_text`, and waits for
// it (killing it after `timeout`). Reads stdout and stderr together so neither pipe can fill up
// and stall the child.
inline CliResult run_program(const std::string& program, const std::vector<std::string>& args,
                             std::string_view stdin_text = {},
                             std::chrono::seconds timeout = std::chrono::seconds(60)) {
  detail::StdinFile input(stdin_text);
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }

  posix_spawn_file_actions_t actions;
  detail::check_sys(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init");
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input.path().c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    detail::check_sys(rc, ("posix_spawn " + program).c_str());
  }

  CliResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;  // poll ignores negative descriptors
        --open_fds;
      } else {
        sinks[i]->append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

// Runs the symshape CLI with `args`.
inline CliResult run_cli(const std::vector<std::string>& args, std::string_view stdin_text = {}) {
  return run_program(cli_path(), args, stdin_text);
}

// `symshape ARGS...` with the run's exit, signal and output, for a failure message.
inline std::string describe(const std::vector<std::string>& args, const CliResult& r) {
  std::string cmd = "symshape";
  for (const std::string& a : args) cmd += " '" + a + "'";
  return cmd + "\n  exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) +
         "\n  stdout: " + r.out + "\n  stderr: " + r.err;
}

// The path of `relative` in the source tree.
inline std::string source(const std::string& relative) {
  return (std::filesystem::path(SYMSHAPE_SOURCE_DIR) / relative).string();
}

// A run's exit, signal and output, for a failure message.
inline std::string result_text(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) +
         "\nstdout:\n" + r.out + "stderr:\n" + r.err;
}

}  // namespace symshape::cli_test
