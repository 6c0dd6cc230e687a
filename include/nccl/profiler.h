/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler.h — one include for every profiler ABI version
 * (v1..v7), RCCL's v6 and v7 and the network-plugin descriptors. Used by the
 * plugin (src/plugin), the emulator (src/emu) and the stand-in plugins
 * (tests/stand_in_plugins/).
 */
#ifndef CCLSCOPE_NCCL_PROFILER_H
#define CCLSCOPE_NCCL_PROFILER_H

#include "profiler_common.h"
#include "profiler_net.h"
#include "profiler_rccl_v6.h"
#include "profiler_rccl_v7.h"
#include "profiler_v1.h"
#include "profiler_v2.h"
#include "profiler_v3.h"
#include "profiler_v4.h"
#include "profiler_v5.h"
#include "profiler_v6.h"
#include "profiler_v7.h"

#endif
