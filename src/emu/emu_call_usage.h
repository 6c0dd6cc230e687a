/*
 * src/emu/emu_call_usage.h — what the --check watchdog learns about a
 * thread that is inside a plugin call, and the rule that decides whether a
 * call that outlived the wall-time limit was slow because of the callback.
 *
 * Wall time alone cannot tell a callback that blocks from a thread that the
 * kernel did not run (a loaded machine): both keep the call open. So the
 * watchdog looks at the thread when it first sees the call in flight and
 * again once the wall limit has passed, and compares its CPU time (the
 * thread's CPU clock) and its voluntary context switches (it went to sleep
 * on its own: nanosleep, a lock wait, blocking I/O), and notes whether the
 * thread was asleep (state S or D) at either look: a thread that was
 * already asleep at the first look made its switch before it, so the
 * counter alone would miss it. A thread that was only preempted shows
 * involuntary switches and little CPU time: it is not reported.
 *
 * Only the watchdog thread samples (call_usage.c); the emitting thread
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
  uint64_t cpu_ns;             /* its thread CPU clock */
  uint64_t voluntary_switches; /* since it started */
  bool asleep;                 /* state S or D: waiting on its own now */
} emu_thread_usage;

/* Looks at thread `th` (kernel id `tid`) of this process, from another
 * thread: its CPU clock (pthread_getcpuclockid) and
 * /proc/self/task/TID/status. False when either cannot be read; *why then
 * names what failed (a static string, for the one-time warning). */
bool emu_thread_usage_sample(pthread_t th, pid_t tid, emu_thread_usage *u,
                             const char **why);

/* Reads the voluntary switches and the run state from the text of a
 * /proc/.../status file. False when a field is missing. */
bool emu_parse_task_status(const char *text, uint64_t *voluntary_switches,
                           bool *asleep);

typedef enum {
  EMU_CALL_NOT_SLOW = 0, /* under the limit, or it only waited for a CPU */
  EMU_CALL_SLOW_CPU,     /* it used the limit in CPU time: computed, spun */
  EMU_CALL_SLOW_BLOCKED  /* it waited on its own and the limit passed */
} emu_call_verdict;

/* The rule, over the span between the watchdog's first look at a call and
 * its latest one: slow when the thread used `limit_ns` of CPU time, or when
 * `wall_ns` >= `limit_ns` and it blocked on its own (a voluntary switch
 * during the span, or asleep at a look). Pure. */
emu_call_verdict emu_call_judge(uint64_t wall_ns, uint64_t cpu_ns,
                                uint64_t voluntary_switches, bool seen_asleep,
                                uint64_t limit_ns);

#endif
