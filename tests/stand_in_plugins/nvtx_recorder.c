/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/nvtx_recorder.c — an NVTX tool for tests: an injection
 * library that NVTX v3 loads from NVTX_INJECTION64_PATH, recording every
 * NVTX call it receives, one JSON object per line, to
 * $NVTX_RECORDER_FILE.<pid>:
 *
 *   {"tid":..,"call":"init"}                       the process attached
 *   {"tid":..,"call":"domainCreate","domain":"cclscope"}
 *   {"tid":..,"call":"registerString","domain":..,"msg":"AllReduce"}
 *   {"tid":..,"call":"nameCategory","domain":..,"cat":2,"msg":"Coll"}
 *   {"tid":..,"call":"push"|"mark"|"rangeStart","domain":..,"msg":..,
 *    "msgType":"ascii"|"registered"|"unicode"|"none","cat":..,
 *    "color":..,"payloadType":"u64"|"i64"|..|"none","payload":..}
 *   {"tid":..,"call":"pop"|"rangeEnd"|..,"domain":..}
 *
 * Calls without a domain (nvtxRangePushA, ...) have "domain":null.
 *
 * How NVTX v3 attaches a tool (facts from its headers, written here from
 * scratch): the first NVTX call in a module dlopens the library and calls
 * its InitializeInjectionNvtx2(getExportTable). getExportTable(1) returns
 * {size_t size; int (*GetModuleFunctionTable)(module, table*, size*)};
 * for each module (1 = core, 5 = core v2 with domains) the table is an
 * array of pointers to NVTX's function-pointer slots, indexed by callback
 * id; the tool writes its functions into the slots it implements. Slots
 * left alone become no-ops.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

/* ---- NVTX's types and ids, declared here from the facts ---- */

typedef void (*nvtx_fn)(void);
typedef const void *(*get_export_table_fn)(uint32_t table_id);

typedef struct {
  size_t struct_size;
  int (*get_module_function_table)(int module, nvtx_fn ***table,
                                   unsigned *size);
} export_table_callbacks;

enum { ETID_CALLBACKS = 1 };
enum { MODULE_CORE = 1, MODULE_CORE2 = 5 };
enum { /* module 1 */
       CORE_MARK_EX = 1,
       CORE_MARK_A = 2,
       CORE_RANGE_START_EX = 4,
       CORE_RANGE_START_A = 5,
       CORE_RANGE_END = 7,
       CORE_RANGE_PUSH_EX = 8,
       CORE_RANGE_PUSH_A = 9,
       CORE_RANGE_POP = 11,
       CORE_NAME_CATEGORY_A = 12,
       CORE_NAME_OS_THREAD_A = 14
};
enum { /* module 5 */
       D_MARK_EX = 1,
       D_RANGE_START_EX = 2,
       D_RANGE_END = 3,
       D_RANGE_PUSH_EX = 4,
       D_RANGE_POP = 5,
       D_NAME_CATEGORY_A = 8,
       D_REGISTER_STRING_A = 10,
       D_CREATE_A = 12,
       D_DESTROY = 14
};
enum { MSG_ASCII = 1, MSG_UNICODE = 2, MSG_REGISTERED = 3 };
enum {
  PAY_U64 = 1,
  PAY_I64 = 2,
  PAY_DOUBLE = 3,
  PAY_U32 = 4,
  PAY_I32 = 5,
  PAY_FLOAT = 6
};

typedef struct {
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t color_type;
  uint32_t color;
  int32_t payload_type;
  int32_t reserved0;
  union {
    uint64_t u64;
    int64_t i64;
    double d;
    uint32_t u32;
    int32_t i32;
    float f;
  } payload;
  int32_t message_type;
  union {
    const char *ascii;
    const wchar_t *unicode;
    const void *registered;
  } message;
} event_attributes;

#if CCLSCOPE_HAVE_NVTX /* cross-check the layout against the real header */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
_Static_assert(sizeof(event_attributes) == sizeof(nvtxEventAttributes_t),
               "size");
_Static_assert(offsetof(event_attributes, category) ==
                   offsetof(nvtxEventAttributes_t, category),
               "category");
_Static_assert(offsetof(event_attributes, payload_type) ==
                   offsetof(nvtxEventAttributes_t, payloadType),
               "payloadType");
_Static_assert(offsetof(event_attributes, payload) ==
                   offsetof(nvtxEventAttributes_t, payload),
               "payload");
_Static_assert(offsetof(event_attributes, message_type) ==
                   offsetof(nvtxEventAttributes_t, messageType),
               "messageType");
_Static_assert(offsetof(event_attributes, message) ==
                   offsetof(nvtxEventAttributes_t, message),
               "message");
_Static_assert((int)NVTX_MESSAGE_TYPE_REGISTERED == (int)MSG_REGISTERED,
               "registered");
_Static_assert((int)NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 == (int)PAY_U64, "u64");
_Static_assert((int)NVTX_PAYLOAD_TYPE_INT64 == (int)PAY_I64, "i64");
#endif

/* ---- recording ---- */

/* Handles we give out: pointers into these tables (never freed). */
typedef struct {
  char name[64];
} domain_entry;
typedef struct {
  const domain_entry *domain;
  char text[128];
} string_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static domain_entry domains[32];
static int ndomains;
static string_entry strings[1024];
static int nstrings;
static int out_fd = -1;

/* Appends JSON text to a line buffer. */
typedef struct {
  char buf[1024];
  size_t len;
} line;

__attribute__((format(printf, 2, 3))) static void put(line *l, const char *fmt,
                                                      ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
  va_end(ap);
  if (n > 0)
    l->len += (size_t)n < sizeof l->buf - l->len ? (size_t)n
                                                 : sizeof l->buf - l->len - 1;
}

static void put_string(line *l, const char *key, const char *s) {
  if (!s) {
    put(l, ",\"%s\":null", key);
    return;
  }
  put(l, ",\"%s\":\"", key);
  for (; *s && l->len + 8 < sizeof l->buf; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      put(l, "\\%c", c);
    else if (c < 0x20)
      put(l, "\\u%04x", c);
    else
      put(l, "%c", c);
  }
  put(l, "\"");
}

static void begin(line *l, const char *call, const domain_entry *d,
                  int has_domain) {
  l->len = 0;
  put(l, "{\"tid\":%ld,\"call\":\"%s\"", (long)syscall(SYS_gettid), call);
  if (has_domain)
    put_string(l, "domain", d ? d->name : "(default)");
  else
    put(l, ",\"domain\":null");
}

static void finish(line *l) {
  put(l, "}\n");
  if (out_fd >= 0) {
    ssize_t w = write(out_fd, l->buf, l->len);
    (void)w;
  }
}

static void put_attributes(line *l, const event_attributes *a) {
  if (!a) {
    put(l, ",\"attributes\":null");
    return;
  }
  put(l, ",\"cat\":%u,\"color\":%u", a->category, a->color);
  switch (a->message_type) {
  case MSG_ASCII:
    put(l, ",\"msgType\":\"ascii\"");
    put_string(l, "msg", a->message.ascii);
    break;
  case MSG_REGISTERED: {
    const string_entry *s = a->message.registered;
    put(l, ",\"msgType\":\"registered\"");
    put_string(l, "msg", s ? s->text : NULL);
    break;
  }
  case MSG_UNICODE:
    put(l, ",\"msgType\":\"unicode\",\"msg\":null");
    break;
  default:
    put(l, ",\"msgType\":\"none\",\"msg\":null");
    break;
  }
  switch (a->payload_type) {
  case PAY_U64:
    put(l, ",\"payloadType\":\"u64\",\"payload\":%llu",
        (unsigned long long)a->payload.u64);
    break;
  case PAY_I64:
    put(l, ",\"payloadType\":\"i64\",\"payload\":%lld",
        (long long)a->payload.i64);
    break;
  case PAY_U32:
    put(l, ",\"payloadType\":\"u32\",\"payload\":%u", a->payload.u32);
    break;
  case PAY_I32:
    put(l, ",\"payloadType\":\"i32\",\"payload\":%d", a->payload.i32);
    break;
  case PAY_DOUBLE:
    put(l, ",\"payloadType\":\"double\",\"payload\":%.17g", a->payload.d);
    break;
  case PAY_FLOAT:
    put(l, ",\"payloadType\":\"float\",\"payload\":%.9g", (double)a->payload.f);
    break;
  default:
    put(l, ",\"payloadType\":\"none\",\"payload\":null");
    break;
  }
}

/* One call with attributes (push, mark, range start). */
static void record_event(const char *call, const domain_entry *d,
                         int has_domain, const event_attributes *a) {
  line l;
  pthread_mutex_lock(&lock);
  begin(&l, call, d, has_domain);
  put_attributes(&l, a);
  finish(&l);
  pthread_mutex_unlock(&lock);
}

static void record_plain(const char *call, const domain_entry *d,
                         int has_domain) {
  line l;
  pthread_mutex_lock(&lock);
  begin(&l, call, d, has_domain);
  finish(&l);
  pthread_mutex_unlock(&lock);
}

static void record_text(const char *call, const domain_entry *d, int has_domain,
                        const char *text, long cat) {
  line l;
  pthread_mutex_lock(&lock);
  begin(&l, call, d, has_domain);
  if (cat >= 0)
    put(&l, ",\"cat\":%ld", cat);
  put_string(&l, "msg", text);
  finish(&l);
  pthread_mutex_unlock(&lock);
}

/* ---- module 5: domains ---- */

static void d_mark_ex(const domain_entry *d, const event_attributes *a) {
  record_event("mark", d, 1, a);
}
static uint64_t d_range_start_ex(const domain_entry *d,
                                 const event_attributes *a) {
  record_event("rangeStart", d, 1, a);
  return 1;
}
static void d_range_end(const domain_entry *d, uint64_t id) {
  (void)id;
  record_plain("rangeEnd", d, 1);
}
static int d_range_push_ex(const domain_entry *d, const event_attributes *a) {
  record_event("push", d, 1, a);
  return 0;
}
static int d_range_pop(const domain_entry *d) {
  record_plain("pop", d, 1);
  return 0;
}
static void d_name_category_a(const domain_entry *d, uint32_t cat,
                              const char *name) {
  record_text("nameCategory", d, 1, name, (long)cat);
}
static const string_entry *d_register_string_a(const domain_entry *d,
                                               const char *text) {
  string_entry *s = NULL;
  pthread_mutex_lock(&lock);
  if (nstrings < (int)(sizeof strings / sizeof *strings)) {
    s = &strings[nstrings++];
    s->domain = d;
    snprintf(s->text, sizeof s->text, "%s", text ? text : "");
  }
  pthread_mutex_unlock(&lock);
  record_text("registerString", d, 1, text, -1);
  return s;
}
static const domain_entry *d_create_a(const char *name) {
  domain_entry *d = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < ndomains; i++)
    if (strcmp(domains[i].name, name ? name : "") == 0)
      d = &domains[i];
  if (!d && ndomains < (int)(sizeof domains / sizeof *domains)) {
    d = &domains[ndomains++];
    snprintf(d->name, sizeof d->name, "%s", name ? name : "");
  }
  pthread_mutex_unlock(&lock);
  record_plain("domainCreate", d, 1);
  return d;
}
static void d_destroy(const domain_entry *d) {
  record_plain("domainDestroy", d, 1);
}

/* ---- module 1: calls without a domain ---- */

static void c_mark_ex(const event_attributes *a) {
  record_event("mark", NULL, 0, a);
}
static void c_mark_a(const char *m) {
  record_text("markA", NULL, 0, m, -1);
}
static uint64_t c_range_start_ex(const event_attributes *a) {
  record_event("rangeStart", NULL, 0, a);
  return 1;
}
static uint64_t c_range_start_a(const char *m) {
  record_text("rangeStartA", NULL, 0, m, -1);
  return 1;
}
static void c_range_end(uint64_t id) {
  (void)id;
  record_plain("rangeEnd", NULL, 0);
}
static int c_range_push_ex(const event_attributes *a) {
  record_event("push", NULL, 0, a);
  return 0;
}
static int c_range_push_a(const char *m) {
  record_text("pushA", NULL, 0, m, -1);
  return 0;
}
static int c_range_pop(void) {
  record_plain("pop", NULL, 0);
  return 0;
}
static void c_name_category_a(uint32_t cat, const char *name) {
  record_text("nameCategory", NULL, 0, name, (long)cat);
}
static void c_name_os_thread_a(uint32_t tid, const char *name) {
  record_text("nameOsThread", NULL, 0, name, (long)tid);
}

/* ---- attaching ---- */

static int install(const export_table_callbacks *cb, int module, const int *ids,
                   const nvtx_fn *fns, size_t n) {
  nvtx_fn **table = NULL;
  unsigned size = 0;
  if (!cb->get_module_function_table(module, &table, &size) || !table)
    return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned)ids[i] < size && table[ids[i]])
      *table[ids[i]] = fns[i];
  return 1;
}

#define FN(f) ((nvtx_fn)(f)) /* void (*)(void) converts from any */

__attribute__((visibility("default"))) int
InitializeInjectionNvtx2(get_export_table_fn get_export_table);

int InitializeInjectionNvtx2(get_export_table_fn get_export_table) {
  const char *base = getenv("NVTX_RECORDER_FILE");
  if (!base || !base[0]) {
    fprintf(stderr, "nvtx_recorder: NVTX_RECORDER_FILE is not set\n");
    return 0;
  }
  const export_table_callbacks *cb = get_export_table(ETID_CALLBACKS);
  if (!cb || cb->struct_size < sizeof *cb)
    return 0;
  pthread_mutex_lock(&lock);
  if (out_fd < 0) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%ld", base, (long)getpid());
    out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  pthread_mutex_unlock(&lock);
  if (out_fd < 0) {
    perror("nvtx_recorder: cannot open the output file");
    return 0;
  }
  static const int core_ids[] = {CORE_MARK_EX,         CORE_MARK_A,
                                 CORE_RANGE_START_EX,  CORE_RANGE_START_A,
                                 CORE_RANGE_END,       CORE_RANGE_PUSH_EX,
                                 CORE_RANGE_PUSH_A,    CORE_RANGE_POP,
                                 CORE_NAME_CATEGORY_A, CORE_NAME_OS_THREAD_A};
  const nvtx_fn core_fns[] = {FN(c_mark_ex),         FN(c_mark_a),
                              FN(c_range_start_ex),  FN(c_range_start_a),
                              FN(c_range_end),       FN(c_range_push_ex),
                              FN(c_range_push_a),    FN(c_range_pop),
                              FN(c_name_category_a), FN(c_name_os_thread_a)};
  static const int domain_ids[] = {
      D_MARK_EX,           D_RANGE_START_EX, D_RANGE_END,
      D_RANGE_PUSH_EX,     D_RANGE_POP,      D_NAME_CATEGORY_A,
      D_REGISTER_STRING_A, D_CREATE_A,       D_DESTROY};
  const nvtx_fn domain_fns[] = {
      FN(d_mark_ex),           FN(d_range_start_ex), FN(d_range_end),
      FN(d_range_push_ex),     FN(d_range_pop),      FN(d_name_category_a),
      FN(d_register_string_a), FN(d_create_a),       FN(d_destroy)};
  if (!install(cb, MODULE_CORE, core_ids, core_fns,
               sizeof core_ids / sizeof *core_ids) ||
      !install(cb, MODULE_CORE2, domain_ids, domain_fns,
               sizeof domain_ids / sizeof *domain_ids))
    return 0;
  record_plain("init", NULL, 0);
  return 1;
}
