/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/check/emu_call_usage.h — what the --check watchdog learns about a
 * thread that is inside a plugin call, and the rule that decides whether a
 * call that outlived the wall-time limit was slow because of the callback.
 *
 * Wall time alone cannot tell a callback that blocks from a thread that the
 * kernel did not run (a loaded machine): both keep the call open. So the
 * watchdog looks at the thread at every pass while the call is in flight:
 * its CPU time (the thread's CPU clock) and its state (S or D: asleep on
 * its own — nanosleep, a lock wait, blocking I/O; R: running, or waiting
 * for a CPU). The time between two looks counts as asleep when the thread
 * was asleep at both, half of it when at one. The callback is slow when
 * its CPU time plus that asleep time reaches the limit: what it spent on
 * its own, never the time it waited for a CPU. A call that blocked briefly
 * and then waited for a CPU (a lock's short wait on a loaded machine) is
 * therefore not reported.
 *
 * Only the watchdog thread samples (emu_call_usage.c); the emitting thread
 * reads no clock and no file.
 */
#ifndef NCCLEMU_CALL_USAGE_H
#define NCCLEMU_CALL_USAGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One look at a thread. */
typedef struct emu_thread_usage {
  uint64_t cpu_ns; /* its thread CPU clock */
  /* Time it spent runnable but waiting for a CPU, from
   * /proc/self/task/TID/schedstat; runq_known false when the kernel does
   * not keep it (no schedstat). */
  uint64_t runq_ns;
  bool runq_known;
  uint64_t voluntary_switches; /* since it started (for the message) */
  bool asleep;                 /* state S or D: waiting on its own now */
  /* When asleep: where, as the kernel says (for the message): its wait
   * channel (/proc/.../wchan, "" when hidden) and the system call it is
   * in (-1 when it sleeps outside one, e.g. in a page fault; -2 when the
   * file cannot be read). */
  char wait_channel[40];
  int syscall_nr;
} emu_thread_usage;

/* Looks at thread `th` (kernel id `tid`) of this process, from another
 * thread: its CPU clock (pthread_getcpuclockid) and
 * /proc/self/task/TID/status. False when either cannot be read; *why then
 * names what failed (a static string, for the one-time warning). */
bool emu_thread_usage_sample(pthread_t th, pid_t tid, emu_thread_usage *u,
                             const char **why);

/* Reads the time on a CPU and the time waiting on a run queue (the first
 * two numbers) from the text of a /proc/.../schedstat file. False when
 * they are not there. */
bool emu_parse_task_schedstat(const char *text, uint64_t *cpu_ns,
                              uint64_t *runq_ns);

/* The most a thread can have been asleep on its own between two looks:
 * the wall time between them less its CPU time and its time waiting for a
 * CPU (0 when rounding makes that negative). Exact for waits that ended;
 * the kernel counts a wait for a CPU only once the thread gets one. Pure. */
uint64_t emu_asleep_exact(uint64_t wall_ns, uint64_t cpu_ns, uint64_t runq_ns);

/* The threads of this process that the emulator did not start (the
 * plugin's own: its writer, exporters): their CPU time and time waiting
 * for a CPU (schedstat) and whether they were runnable (state R). */
#define EMU_FOREIGN_MAX 64
typedef struct emu_foreign_threads {
  int count;
  pid_t tid[EMU_FOREIGN_MAX];
  uint64_t cpu_ns[EMU_FOREIGN_MAX];
  uint64_t runq_ns[EMU_FOREIGN_MAX];
  bool runnable[EMU_FOREIGN_MAX];
} emu_foreign_threads;

/* Looks at every thread of the process for which is_own(tid) is false.
 * False when /proc/self/task or schedstat cannot be read. */
bool emu_foreign_threads_sample(bool (*is_own)(pid_t tid),
                                emu_foreign_threads *out);

/* How long, between two looks `interval_ns` apart, the plugin's threads
 * waited for a CPU: for each thread seen at both, the larger of its
 * run-queue time and, when it was runnable at a look, the part of the
 * interval it did not run (all of it at both looks, half at one: the
 * kernel adds a wait to schedstat only once the thread gets a CPU); the
 * most of any one thread, at most the interval. Pure. */
uint64_t emu_foreign_wait_between(const emu_foreign_threads *before,
                                  const emu_foreign_threads *now,
                                  uint64_t interval_ns);

/* Reads the system call number from the text of a /proc/.../syscall file:
 * its number, -1 when the thread is blocked outside a system call, -2 when
 * it is running or the text is not understood. */
int emu_parse_task_syscall(const char *text);

/* Reads the voluntary switches and the run state from the text of a
 * /proc/.../status file. False when a field is missing. */
bool emu_parse_task_status(const char *text, uint64_t *voluntary_switches,
                           bool *asleep);

typedef enum {
  EMU_CALL_NOT_SLOW = 0, /* under the limit, or it only waited for a CPU */
  EMU_CALL_SLOW_CPU,     /* it used the limit in CPU time: computed, spun */
  EMU_CALL_SLOW_BLOCKED  /* asleep on its own (and running) for the limit */
} emu_call_verdict;

/* The asleep time between two looks `interval_ns` apart: all of it when
 * the thread was asleep at both, half when at one, none otherwise. Pure. */
uint64_t emu_asleep_between(bool asleep_before, bool asleep_now,
                            uint64_t interval_ns);

/* The rule, over the span since the watchdog's first look at a call: slow
 * when the thread used `limit_ns` of CPU time, or when its CPU time plus
 * the time it was seen asleep reaches `limit_ns`. Pure. */
emu_call_verdict emu_call_judge(uint64_t cpu_ns, uint64_t asleep_ns,
                                uint64_t limit_ns);

#endif
