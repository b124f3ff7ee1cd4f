// Default sanitizer settings, linked into every symshape executable when SYMSHAPE_SANITIZE=ON.
// The sanitizer runtimes call these hooks at start-up; options given in ASAN_OPTIONS,
// UBSAN_OPTIONS or LSAN_OPTIONS are applied after these defaults and take precedence.
//
// CLN allocates a few bytes during its static initialization and never frees them. Those
// allocations are reached only through libcln frames, so LeakSanitizer would fail every program
// (including gtest test discovery at build time) without this suppression. Leaks whose stack
// passes through libcln are suppressed; leaks through GiNaC or our own code are still reported.
// print_suppressions=0 keeps the suppression summary off stderr, so golden tests of CLI error
// output read the same with and without sanitizers.

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
