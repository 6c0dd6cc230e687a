/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/bridge_nvtx.c — the NVTX bridge (CCLSCOPE_NVTX=1): NCCL's
 * host-side events become NVTX ranges, control-API marks become NVTX marks,
 * all in the domain "cclscope" (docs/integrations.md says what each carries).
 *
 * Owns: the domain, its registered strings and named categories, and what
 * goes on each thread's stack of pushed ranges (bridge.h explains the
 * hooks and the threading; the stacks live in the threads' rings). Uses the
 * system's header-only NVTX v3: no link dependency; without a tool attached
 * every call is a load and a branch. Built without the headers
 * (CCLSCOPE_HAVE_NVTX unset), CCLSCOPE_NVTX=1 only warns once.
 */
#include <stdatomic.h>
#include <string.h>

#include "bridge_nvtx.h"
#include "handle.h"
#include "log.h"
#include "nccl_names.h"

#if CCLSCOPE_HAVE_NVTX

#include <nvtx3/nvToolsExt.h>

/* Categories: event type + 1 (NVTX's 0 means "none"); marks have 18, as
 * docs/integrations.md promises (it was CS_EV_COUNT + 1 before RCCL's
 * ProxyDiag became a type): above every type that becomes a range. */
#define CAT_MARK 18u
_Static_assert(CS_EV_CE_COLL + 1u < CAT_MARK &&
                   CS_EV_KERNEL_PHASE + 1u < CAT_MARK,
               "NVTX categories of ranged types stay below the marks'");

/* The types that become ranges (named by nccl_event_name when they carry
 * no function name; also the category names). */
static const bool ranged_types[CS_EV_COUNT] = {
    [CS_EV_GROUP] = true,         [CS_EV_COLL] = true,
    [CS_EV_P2P] = true,           [CS_EV_GROUP_API] = true,
    [CS_EV_COLL_API] = true,      [CS_EV_P2P_API] = true,
    [CS_EV_KERNEL_LAUNCH] = true, [CS_EV_CE_COLL] = true,
};

/* ARGB colours: API events light, enqueue events dark, per family. */
static const uint32_t type_colors[CS_EV_COUNT] = {
    [CS_EV_GROUP] = 0xFF757575u,         [CS_EV_COLL] = 0xFF1565C0u,
    [CS_EV_P2P] = 0xFF2E7D32u,           [CS_EV_GROUP_API] = 0xFFBDBDBDu,
    [CS_EV_COLL_API] = 0xFF64B5F6u,      [CS_EV_P2P_API] = 0xFF81C784u,
    [CS_EV_KERNEL_LAUNCH] = 0xFFFFA726u, [CS_EV_CE_COLL] = 0xFF8E24AAu,
};
#define MARK_COLOR 0xFFE53935u

/* NCCL's function names are registered once (nccl_func_name). */
#define NFUNCS NCCL_FUNCS

/* Set up once per load of the library and kept across sessions: the
 * handles stay valid as long as the domain (never destroyed: a thread of
 * NCCL may still be inside a push when the last finalize runs). */
static bool set_up;
static nvtxDomainHandle_t domain;
static nvtxStringHandle_t type_strings[CS_EV_COUNT];
static nvtxStringHandle_t func_strings[NFUNCS];
static nvtxStringHandle_t step_string;

/* Ranges not pushed because a thread's stack was full. */
static _Atomic uint64_t skipped;

/* NCCL passes the same static strings every time: remember, per thread,
 * which registered string a pointer stands for (no lock, no sharing). */
static nvtxStringHandle_t func_handle(cs_bridge_thread *t, const char *name) {
  cs_bridge_name *slot =
      &t->names[((uintptr_t)name >> 3) % CS_BRIDGE_NAME_SLOTS];
  if (slot->name == name)
    return slot->handle;
  nvtxStringHandle_t h = NULL;
  for (size_t i = 0; i < NFUNCS; i++) {
    if (strcmp(name, nccl_func_name((int)i)) == 0) {
      h = func_strings[i];
      break;
    }
  }
  slot->name = name;
  slot->handle = h;
  return h;
}

bool cs_nvtx_session_begin(void) {
  if (set_up)
    return true;
  /* The first NVTX call loads the tool named by NVTX_INJECTION64_PATH (if
   * any): here, on the init thread, never on NCCL's hot path. */
  domain = nvtxDomainCreateA("cclscope");
  for (int t = 0; t < CS_EV_COUNT; t++) {
    if (!ranged_types[t])
      continue;
    type_strings[t] = nvtxDomainRegisterStringA(domain, nccl_event_name(t));
    nvtxDomainNameCategoryA(domain, (uint32_t)t + 1u, nccl_event_name(t));
  }
  for (size_t i = 0; i < NFUNCS; i++)
    func_strings[i] = nvtxDomainRegisterStringA(domain, nccl_func_name((int)i));
  step_string = nvtxDomainRegisterStringA(domain, "step");
  nvtxDomainNameCategoryA(domain, CAT_MARK, "Mark");
  set_up = true;
  cs_log_info("NVTX ranges on (domain \"cclscope\")");
  return true;
}

void cs_nvtx_session_end(void) {
  uint64_t n = atomic_exchange(&skipped, 0);
  if (n)
    cs_log_warn("NVTX: %llu ranges were not pushed (more than %d open on one "
                "thread)",
                (unsigned long long)n, CS_BRIDGE_DEPTH);
}

static void init_attributes(nvtxEventAttributes_t *a, uint32_t category,
                            uint32_t color) {
  memset(a, 0, sizeof *a);
  a->version = NVTX_VERSION;
  a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a->category = category;
  a->colorType = NVTX_COLOR_ARGB;
  a->color = color;
}

/* The message: NCCL's function name (registered when we know it), else
 * the event type's name. */
static void set_message(cs_bridge_thread *t, nvtxEventAttributes_t *a,
                        const char *func, int et) {
  nvtxStringHandle_t h = func ? func_handle(t, func) : type_strings[et];
  if (h) {
    a->messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a->message.registered = h;
  } else {
    a->messageType = NVTX_MESSAGE_TYPE_ASCII; /* NCCL's static string */
    a->message.ascii = func ? func : nccl_event_name(et);
  }
}

void cs_nvtx_start(cs_bridge_thread *t, const cs_rec_start *rec,
                   uint64_t handle) {
  int et = rec->h.etype;
  const cs_payload *p = &rec->p;
  const char *func = NULL;
  uint64_t payload;
  switch (et) {
  case CS_EV_COLL_API:
  case CS_EV_P2P_API: /* the user's count */
    func = p->coll_api.func;
    payload = p->coll_api.count;
    break;
  case CS_EV_COLL: /* NCCL's per-function sequence number */
    func = p->coll.func;
    payload = p->coll.seq;
    break;
  case CS_EV_P2P:
    func = p->p2p.func;
    payload = p->p2p.count;
    break;
  case CS_EV_CE_COLL:
    func = p->ce_coll.func;
    payload = p->ce_coll.seq;
    break;
  default: /* GroupApi, KernelLaunch, Group: the id in the trace */
    payload = handle & CS_ID_MASK;
    break;
  }
  if (!cs_bridge_stack_push(&t->nvtx, handle)) {
    atomic_fetch_add_explicit(&skipped, 1, memory_order_relaxed);
    return;
  }
  nvtxEventAttributes_t a;
  init_attributes(&a, (uint32_t)et + 1u, type_colors[et]);
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = payload;
  set_message(t, &a, func, et);
  nvtxDomainRangePushEx(domain, &a);
}

void cs_nvtx_stop(cs_bridge_thread *t, uint64_t handle) {
  for (uint32_t n = cs_bridge_stack_unwind(&t->nvtx, handle); n > 0; n--)
    nvtxDomainRangePop(domain);
}

void cs_nvtx_mark(int64_t step, const char *label) {
  nvtxEventAttributes_t a;
  init_attributes(&a, CAT_MARK, MARK_COLOR);
  if (step >= 0) {
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = step;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = step_string;
  } else {
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = label ? label : "";
  }
  nvtxDomainMarkEx(domain, &a);
}

#else /* no NVTX headers at build time */

bool cs_nvtx_session_begin(void) {
  static _Atomic bool warned;
  if (!atomic_exchange(&warned, true))
    cs_log_warn("CCLSCOPE_NVTX=1 is ignored: this build of cclscope has no "
                "NVTX support (the NVTX v3 headers, nvtx3/nvToolsExt.h, were "
                "not found when it was built)");
  return false;
}

void cs_nvtx_session_end(void) {}

void cs_nvtx_start(cs_bridge_thread *t, const cs_rec_start *rec,
                   uint64_t handle) {
  (void)t;
  (void)rec;
  (void)handle;
}

void cs_nvtx_stop(cs_bridge_thread *t, uint64_t handle) {
  (void)t;
  (void)handle;
}

void cs_nvtx_mark(int64_t step, const char *label) {
  (void)step;
  (void)label;
}

#endif
