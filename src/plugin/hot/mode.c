/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/mode.c — the values the session publishes for NCCL's
 * threads (mode.h), and the bridges' flag (bridge.h).
 */
#include "mode.h"

#include "bridge.h"

_Atomic uint64_t cs_quiet_types;
_Atomic uint64_t cs_quiet_states;
_Atomic pid_t cs_session_pid;
_Atomic bool cs_session_user_tag_ok;
_Atomic bool cs_session_host_rccl;
_Atomic uint32_t cs_bridges;
