/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_class.c — what kind of hang a group is: from the
 * evidence of its most likely culprit, one of the classes of docs/hang.md
 * ("What each class looks like"): the culprit never called the collective,
 * the ranks called it with different arguments, a GPU, the network or a
 * proxy thread stopped inside it, or the evidence does not say.
 */
#include "hang/hang.h"

hang_class hang_class_of(const hang_group *g) {
  if (g->nculprits == 0 || g->confidence == HC_NONE)
    return HK_UNKNOWN; /* cannot tell who, so not what either */
  switch (g->top) {
  case HE_MISMATCH:
    return HK_MISMATCH;
  case HE_NEVER_STARTED:
    return HK_NEVER_CALLED;
  case HE_GPU_IDLE: /* or its proxy, when that went quiet with it */
    return g->ranks[g->culprits[0]].proxy_quiet ? HK_UNKNOWN : HK_GPU;
  case HE_GPU_CONSUME:
  case HE_GPU_HELD:
  case HE_GPU_PRODUCE:
    return HK_GPU;
  case HE_LINK:
  case HE_NETWORK:
    return HK_NETWORK;
  case HE_PROXY:
    return HK_PROXY;
  default: /* no snapshot, finished yet waited on, no step detail */
    return HK_UNKNOWN;
  }
}

const char *hang_class_name(hang_class c) {
  static const char *const names[HK_COUNT] = {
      [HK_UNKNOWN] = "unknown",   [HK_NEVER_CALLED] = "never-called",
      [HK_MISMATCH] = "mismatch", [HK_GPU] = "gpu",
      [HK_NETWORK] = "network",   [HK_PROXY] = "proxy"};
  return (unsigned)c < HK_COUNT ? names[c] : "unknown";
}

const char *hang_class_meaning(hang_class c) {
  switch (c) {
  case HK_NEVER_CALLED:
    return "the culprit never called the collective";
  case HK_MISMATCH:
    return "the ranks called the collective with different arguments or "
           "functions";
  case HK_GPU:
    return "the culprit's GPU stopped inside the collective";
  case HK_NETWORK:
    return "a network transfer does not complete";
  case HK_PROXY:
    return "the culprit's proxy thread stopped driving its transfers";
  default:
    return "the evidence does not say what kind of hang this is";
  }
}
