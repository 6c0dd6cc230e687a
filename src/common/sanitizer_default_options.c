/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/sanitizer_default_options.c — owns the sanitizer runtimes'
 * default options in the sanitizer builds (CCLSCOPE_SANITIZE=address or
 * thread links it into every executable; ASAN_OPTIONS and TSAN_OPTIONS
 * still add to them and override them). Each runtime asks for its own
 * hook only: the other one is never called.
 *
 * intercept_tls_get_addr=0, in both. When a thread first touches the
 * thread-local variables of a dlopen'ed library (the plugin's ring state,
 * cs_tls in src/plugin/hot/ring.c), glibc allocates that library's block
 * for the thread and the runtime's __tls_get_addr interceptor guesses the
 * block's bounds from its address alone (gcc 12's and clang 14's runtimes;
 * upstream replaced the guess with a query of its allocator in 2023): a
 * block that starts 16 bytes after a 4 KiB boundary is taken for glibc
 * 2.19-2.24's mmap'ed block, whose start and size were stored in the 16
 * bytes before it. Since glibc 2.25 the block comes from malloc, so those
 * 16 bytes are something else, and the guessed range is nonsense:
 *
 *   - TSan: the allocation before the block. In ncclemu's replay workers it
 *     was a thread's truth buffer, {data pointer, length}: the runtime read
 *     it as the range [length, length + pointer), cleared its shadow (a
 *     280 TB mmap), failed with ENOMEM and killed the worker, in half or
 *     more of the replays of e2e.binary.kernel_phases' .cst files.
 *   - ASan: the block's own chunk header (its size, then who allocated it).
 *     LeakSanitizer scans every live thread's blocks when the process
 *     exits: it read from address 0x2c8 and died ("Tracer caught signal
 *     11") after plugin.test_lifecycle had passed, whose main thread
 *     loads and unloads the plugin, in about one run in six.
 *
 * Which run fails depends only on where the allocator put the block.
 * Without the interceptor nothing is lost on glibc >= 2.25: the block comes
 * from malloc, which both runtimes intercept (TSan starts its memory fresh,
 * LeakSanitizer finds it through the thread's block table like any other
 * allocation); in every other case the guess finds no size and does
 * nothing. tests/plugin/test_tsan_dynamic_tls.c and test_asan_dynamic_tls.c
 * put a block at that address on purpose.
 */
const char *__asan_default_options(void);
const char *__tsan_default_options(void);

const char *__asan_default_options(void) {
  return "intercept_tls_get_addr=0";
}

const char *__tsan_default_options(void) {
  return "intercept_tls_get_addr=0";
}
