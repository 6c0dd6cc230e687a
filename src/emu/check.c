/*
 * src/emu/check.c — owns the --check violations (counters and messages)
 * and the guard region that foreign PXN pointers are aliased into.
 */
#include "emu_check.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define MESSAGES_PER_KIND 3
#define GUARD_REGION_SIZE (1u << 20)

static bool check_enabled;
static uint64_t max_callback_ns;
static uint64_t counts[EMU_CHECK_KIND_COUNT];
static pthread_mutex_t message_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static char *guard_region;

static const char *const kind_names[EMU_CHECK_KIND_COUNT] = {
    "unwritten *eHandle (call-sequences §3.1)",
    "init returned an error (§2: never fail init)",
    "callback blocked too long (BRIEF invariant 3)"};

void emu_check_configure(bool enabled, double max_callback_ms) {
  check_enabled = enabled;
  max_callback_ns = (uint64_t)(max_callback_ms * 1e6);
}

bool emu_check_enabled(void) {
  return check_enabled;
}
uint64_t emu_check_max_callback_ns(void) {
  return max_callback_ns;
}

void emu_check_report(emu_check_kind kind, const char *fmt, ...) {
  uint64_t n = __atomic_add_fetch(&counts[kind], 1, __ATOMIC_RELAXED);
  if (n > MESSAGES_PER_KIND)
    return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&message_mutex);
  fprintf(stderr, "ncclemu: CHECK FAILED [pid %d]: %s\n", (int)getpid(), msg);
  pthread_mutex_unlock(&message_mutex);
}

uint64_t emu_check_count(emu_check_kind kind) {
  return __atomic_load_n(&counts[kind], __ATOMIC_RELAXED);
}

uint64_t emu_check_total(void) {
  uint64_t total = 0;
  for (int k = 0; k < EMU_CHECK_KIND_COUNT; k++)
    total += emu_check_count((emu_check_kind)k);
  return total;
}

void emu_check_summary(const char *worker_label) {
  for (int k = 0; k < EMU_CHECK_KIND_COUNT; k++) {
    uint64_t n = emu_check_count((emu_check_kind)k);
    if (n > 0)
      fprintf(stderr, "ncclemu: %s: %llu violation(s): %s\n", worker_label,
              (unsigned long long)n, kind_names[k]);
  }
}

bool emu_address_readable(const void *p) {
  if (p == NULL)
    return false;
  char byte;
  struct iovec local = {&byte, 1};
  struct iovec remote = {(void *)(uintptr_t)p, 1};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n == 1)
    return true;
  if (errno == EFAULT)
    return false;
  return true; /* cannot tell (e.g. EPERM): assume readable, alias it */
}

static void map_guard_region(void) {
  void *m = mmap(NULL, GUARD_REGION_SIZE, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  guard_region = m == MAP_FAILED ? NULL : m;
}

void *emu_foreign_pointer(void *v, bool guard) {
  if (!guard || v == NULL)
    return v;
  if (!emu_address_readable(v))
    return v; /* already faults here: keep the real value */
  pthread_once(&guard_once, map_guard_region);
  if (guard_region == NULL)
    return v;
  uint64_t offset =
      emu_mix64((uint64_t)(uintptr_t)v) % (GUARD_REGION_SIZE - 64);
  return guard_region + (offset & ~(uint64_t)15);
}
