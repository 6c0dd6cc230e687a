/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/context.c — allocation of context table entries.
 */
#include "context.h"

#include <stddef.h>
#include <string.h>

#include "log.h"

cs_context cs_contexts[CS_MAX_CONTEXTS];
static uint32_t next_serial = 1;

static uint32_t take_serial_for_slot(uint32_t start_serial, int wanted_state) {
  for (uint32_t i = 0; i < CS_MAX_CONTEXTS; i++) {
    uint32_t serial = start_serial + i;
    if (serial == 0)
      continue;
    cs_context *c = &cs_contexts[serial & (CS_MAX_CONTEXTS - 1)];
    if (atomic_load_explicit(&c->state, memory_order_relaxed) == wanted_state)
      return serial;
  }
  return 0;
}

uint32_t cs_ctx_reserve(void) {
  uint32_t serial = take_serial_for_slot(next_serial, CS_CTX_FREE);
  if (!serial) {
    /* Table full of live and finalized contexts: reuse a finalized one.
     * Its old handle stops resolving (events then carry no context). */
    serial = take_serial_for_slot(next_serial, CS_CTX_FINALIZED);
    if (serial)
      cs_log_warn_once(CS_ONCE_CONTEXTS,
                       "more than %d communicators in one session; the "
                       "oldest finalized ones are forgotten",
                       CS_MAX_CONTEXTS);
  }
  if (!serial)
    return 0;
  cs_context *c = &cs_contexts[serial & (CS_MAX_CONTEXTS - 1)];
  uint32_t old = atomic_load_explicit(&c->serial, memory_order_relaxed);
  if (old &&
      serial <= old) /* serials only grow; a reused slot gets a new one */
    serial = old + CS_MAX_CONTEXTS;
  atomic_store_explicit(&c->serial, 0, memory_order_release);
  /* Clear everything after the two atomics (serial, state). */
  memset((char *)c + offsetof(cs_context, abi), 0,
         sizeof *c - offsetof(cs_context, abi));
  atomic_store_explicit(&c->state, CS_CTX_ACTIVE, memory_order_relaxed);
  next_serial = serial + 1;
  return serial;
}

void cs_ctx_publish(uint32_t serial) {
  cs_context *c = &cs_contexts[serial & (CS_MAX_CONTEXTS - 1)];
  atomic_store_explicit(&c->serial, serial, memory_order_release);
}

void cs_ctx_clear_all(void) {
  for (int i = 0; i < CS_MAX_CONTEXTS; i++) {
    atomic_store_explicit(&cs_contexts[i].serial, 0, memory_order_relaxed);
    atomic_store_explicit(&cs_contexts[i].state, CS_CTX_FREE,
                          memory_order_relaxed);
  }
}
