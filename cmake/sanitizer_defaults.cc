// Default sanitizer settings, linked into every symshape executable when SYMSHAPE_SANITIZE=ON.
// The sanitizer runtimes call these hooks at start-up; options given in ASAN_OPTIONS,
// UBSAN_OPTIONS or LSAN_OPTIONS are applied after these defaults and take precedence.
//
// CLN allocates a few bytes during its static initialization and never frees them, so
// LeakSanitizer would fail every program (including gtest test discovery at build time) unless
// told otherwise. Two mechanisms, both limited to code that is not ours:
//
// - Allocations made while the shared libraries initialize (before the executable's own static
//   initializers, hence before any symshape code runs) are not tracked as leaks: LeakSanitizer
//   is disabled from the executable's .preinit_array (which the loader runs before any shared
//   library's initializers) until the first of the executable's initializers (priority 101,
//   ahead of every default-priority initializer in the program). This is what keeps CLN's
//   start-up allocation out of the report. It also keeps every process fast: matching a leak
//   against a suppression makes the runtime symbolize its stack, which loads the debug
//   information of every module (about 0.1 s of CPU for a small test binary, more for the large
//   ones), and every gtest case and CLI invocation is a process of its own.
// - As a fallback, leaks whose stack passes through libcln are suppressed, wherever they happen.
//
// Leaks in the executable's static initializers, in main and after, through GiNaC or our own code
// are still reported. print_suppressions=0 keeps the suppression summary off stderr, so golden
// tests of CLI error output read the same with and without sanitizers.

#include <sanitizer/lsan_interface.h>

namespace {

void leak_checks_off_while_libraries_initialize() { __lsan_disable(); }

__attribute__((constructor(101))) void leak_checks_on_before_the_program_initializes() {
  __lsan_enable();
}

// Runs before any shared library's initializer (the ELF preinit array of an executable).
__attribute__((section(".preinit_array"), used)) void (*const preinit_leak_checks_off)() =
    leak_checks_off_while_libraries_initialize;

}  // namespace

extern "C" {

__attribute__((used, visibility("default"))) const char* __asan_default_options() {
  return "detect_leaks=1:print_suppressions=0";
}

__attribute__((used, visibility("default"))) const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}

__attribute__((used, visibility("default"))) const char* __lsan_default_options() {
  return "print_suppressions=0";
}

__attribute__((used, visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:libcln.so\n";
}

}  // extern "C"
