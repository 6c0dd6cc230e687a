/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/replay/emu_replay.h — `ncclemu --replay FILE...`: drives a profiler
 * plugin with the calls recorded in cclscope traces, one emulated process
 * per file and one thread per recorded thread, every call at its place in
 * the recorded order (docs/ncclemu.md, Replay). emu_replay.c.
 */
#ifndef NCCLEMU_REPLAY_H
#define NCCLEMU_REPLAY_H

#include "emu_options.h"

/* Runs the replay of o->replay_files; returns the command's exit status
 * (EMU_EXIT_OK, EMU_EXIT_FAIL). */
int emu_replay_main(const emu_options *o);

#endif
