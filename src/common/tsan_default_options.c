/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/tsan_default_options.c — owns the ThreadSanitizer runtime's
 * default options in the TSan build (CCLSCOPE_SANITIZE=thread links it into
 * every executable; TSAN_OPTIONS still adds to them and overrides them).
 *
 * intercept_tls_get_addr=0. When a thread first touches the thread-local
 * variables of a dlopen'ed library (the plugin's ring state, cs_tls in
 * src/plugin/hot/ring.c), glibc allocates that library's block for the
 * thread and the runtime's __tls_get_addr interceptor guesses the block's
 * bounds from its address alone (clang 14's runtime; upstream replaced the
 * guess with a query of its allocator in 2023): a block that starts 16
 * bytes after a 4 KiB boundary is taken for glibc 2.19-2.24's mmap'ed
 * block, whose start and size were stored in the 16 bytes before it. Since
 * glibc 2.25 the block comes from malloc, so those 16 bytes are whatever
 * allocation precedes it. In ncclemu's replay workers it was a thread's
 * truth buffer, {data pointer, length}: the runtime read it as the range
 * [length, length + pointer), cleared its shadow (a 280 TB mmap), failed
 * with ENOMEM and killed the worker — in half or more of the replays of
 * e2e.binary.kernel_phases' .cst files, depending only on where the
 * allocator put the block (nothing in the .cst reader was involved).
 * Without the interceptor nothing is lost on glibc >= 2.25: the block comes
 * from malloc, which the runtime intercepts and whose memory it starts
 * fresh; in every other case the guess finds no size and does nothing.
 * tests/plugin/test_tsan_dynamic_tls.c puts a block at that address on
 * purpose.
 */
const char *__tsan_default_options(void);

const char *__tsan_default_options(void) {
  return "intercept_tls_get_addr=0";
}
