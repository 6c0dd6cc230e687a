/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/check/emu_check.h — strict checking mode (--check): violations the
 * emulator can see without knowing the plugin's internals — *eHandle left
 * unwritten, init returning an error, a callback blocking longer than
 * --max-callback-ms — and the guard aliases that make foreign PXN pointers
 * fault when dereferenced. (Crashes are seen by the supervisor.) emu_check.c.
 */
#ifndef NCCLEMU_CHECK_H
#define NCCLEMU_CHECK_H

#include "emu_common.h"

typedef enum {
  EMU_CHECK_UNWRITTEN = 0,
  EMU_CHECK_INIT_ERROR,
  EMU_CHECK_SLOW_CALLBACK,
  EMU_CHECK_KIND_COUNT
} emu_check_kind;

void emu_check_configure(bool enabled, double max_callback_ms,
                         double max_lifecycle_ms);
bool emu_check_enabled(void);
uint64_t emu_check_max_callback_ns(void);
/* What leaving *eHandle unwritten does, by the slot NCCL passes for an
 * event type (nccl-behaviour §3.1, §12): */
typedef enum {
  EMU_SLOT_FRESH_NULL = 0, /* a fresh NULL local (CeSync, CeBatch): harmless */
  EMU_SLOT_UNINITIALISED,  /* an uninitialised local (ProxyCtrl): garbage */
  EMU_SLOT_RECYCLED        /* kept from an earlier event: a stale handle */
} emu_slot_kind;
emu_slot_kind emu_check_slot_kind(uint64_t event_type);
/* The consequence, for the --check message; NULL for a harmless slot. */
const char *emu_check_unwritten_hazard(emu_slot_kind kind);

/* Counts a violation and prints the first few of each kind. Thread-safe. */
void emu_check_report(emu_check_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
uint64_t emu_check_count(emu_check_kind kind);
uint64_t emu_check_total(void);
/* Prints "N violation(s) of kind K" lines at the end of the worker. */
void emu_check_summary(const char *worker_label);

/* The watchdog (--check): a thread that samples every registered emitting
 * thread and reports a plugin call that has not returned after
 * --max-callback-ms (--max-lifecycle-ms for init/finalize) when the
 * callback itself took that long: it used that much CPU time, or it
 * blocked on its own (sleep, lock wait, I/O). A thread that was only
 * descheduled is excused (emu_call_usage.h). Where a thread's CPU clock or
 * /proc entry cannot be read, wall time alone decides (said once). No
 * clock is read on the hot path. */
struct emu_thread;
void emu_watchdog_start(void);
void emu_watchdog_stop(void);
void emu_watchdog_register(struct emu_thread *t);
void emu_watchdog_unregister(struct emu_thread *t);

/* What the watchdog decided about calls past the wall limit, one count per
 * call, since the process started. */
typedef struct emu_watchdog_counts {
  uint64_t slow_cpu;     /* reported: used the limit in CPU time */
  uint64_t slow_blocked; /* reported: blocked on its own */
  uint64_t slow_wall;    /* reported by wall time (usage unreadable) */
  uint64_t excused;      /* not reported: the thread waited for a CPU */
} emu_watchdog_counts;
/* Lock-free (relaxed loads): safe from a thread inside a call. */
void emu_watchdog_counts_get(emu_watchdog_counts *c);

/* True if `p` can be read in this process (no fault). */
bool emu_address_readable(const void *p);
/* A pointer standing for the foreign value `v` that faults on any access in
 * this process: `v` itself when unreadable here, else an alias inside a
 * PROT_NONE region (with --pxn-pointers raw, always `v`). */
void *emu_foreign_pointer(void *v, bool guard);

#endif
