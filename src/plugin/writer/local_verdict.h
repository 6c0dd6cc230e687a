/*
 * src/plugin/writer/local_verdict.h — what a rank's own evidence says about
 * one of its hung operations, for the watchdog's warning (docs/hang.md,
 * "The warning"): the head of each ProxyStep pipeline (its lowest step in
 * flight per channel, direction and peer) in its last NCCL state, read as
 * `cclscope hang` reads it for all ranks (nccl-behaviour §6.9). Decided
 * only when this rank's evidence alone decides: it waits on a peer (then
 * that peer, not this rank, is behind), or, waiting on no peer, its GPU
 * does not take arrived data (likely this GPU) or a network send does not
 * complete (likely the network). A GPU that does not produce is said
 * without blame: its kernel may wait for inputs from another rank. Never-
 * called and mismatched collectives need the other ranks (`cclscope
 * hang`).
 */
#ifndef CCLSCOPE_WRITER_LOCAL_VERDICT_H
#define CCLSCOPE_WRITER_LOCAL_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "watchdog.h"

/* "this rank waits on rank 5 (RecvWait: its data has not arrived) —
 * likely not this rank". False (and "" in out) when the operation's
 * ProxySteps do not decide (none recorded, or none in a telling state). */
bool cs_local_verdict(const cs_wd_picture *pic, const cs_wd_root *r, char *out,
                      size_t outlen);

#endif
