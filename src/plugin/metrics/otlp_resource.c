/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/otlp_resource.c — see otlp_resource.h.
 */
#include "otlp_resource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otlp_env.h" /* cs_otlp_each_pair */

#define MAX_ATTRS 48
#define VALUE_MAX 256

typedef struct {
  char key[64];
  char value[VALUE_MAX];
  bool is_int;
} attr;

typedef struct {
  attr a[MAX_ATTRS];
  int n;
} attr_list;

static attr *find(attr_list *l, const char *key) {
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->a[i].key, key) == 0)
      return &l->a[i];
  return NULL;
}

/* Copies at most out_len - 1 bytes of `in` (a longer value is cut). Not
 * snprintf: gcc's -O3 -Wformat-truncation flags every caller whose buffer
 * may be longer than the attribute's. */
static void copy_cut(char *out, size_t out_len, const char *in) {
  size_t n = strnlen(in, out_len - 1);
  memcpy(out, in, n);
  out[n] = '\0';
}

/* Adds key=value unless the key is there already or the value is empty
 * (the first source of a key wins: the user's, then the detected ones). */
static void add(attr_list *l, const char *key, const char *value, bool is_int) {
  if (!value || !*value || l->n >= MAX_ATTRS || find(l, key))
    return;
  attr *a = &l->a[l->n++];
  copy_cut(a->key, sizeof a->key, key);
  copy_cut(a->value, sizeof a->value, value);
  a->is_int = is_int;
}

/* The first of these environment variables that is set and not empty. */
static const char *env_first(const char *const *names) {
  for (; *names; names++) {
    const char *v = getenv(*names);
    if (v && *v)
      return v;
  }
  return NULL;
}

static void add_env(attr_list *l, const char *key, const char *var) {
  add(l, key, getenv(var), false);
}

/* One OTEL_RESOURCE_ATTRIBUTES pair (cs_otlp_each_pair). The body quotes
 * any character, so only a decoded %00, which would cut the text, leaves a
 * pair out. */
static void add_user_attribute(const cs_otlp_pair *pair, void *arg) {
  if (strlen(pair->key) == pair->key_len &&
      strlen(pair->value) == pair->value_len)
    add(arg, pair->key, pair->value, false);
}

/* OTEL_RESOURCE_ATTRIBUTES: "k1=v1,k2=v2", keys and values %-encoded. */
static void add_user_attributes(attr_list *l, const char *spec) {
  cs_otlp_each_pair(spec, add_user_attribute, l);
}

/* host.id: the machine id (/etc/machine-id), read once. */
static const char *host_id(void) {
  static char id[64];
  static bool read_once;
  if (!read_once) {
    read_once = true;
    FILE *f = fopen("/etc/machine-id", "r");
    if (f) {
      if (!fgets(id, sizeof id, f))
        id[0] = '\0';
      fclose(f);
      id[strcspn(id, " \n")] = '\0';
    }
  }
  return id;
}

/* process.executable.name: the base name of /proc/self/exe, read once. */
static const char *executable_name(void) {
  static char name[256];
  static bool read_once;
  if (!read_once) {
    read_once = true;
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) {
      path[n] = '\0';
      const char *slash = strrchr(path, '/');
      const char *base = slash ? slash + 1 : path;
      size_t len = strlen(base);
      if (len < sizeof name) /* a longer name is left out, not cut */
        memcpy(name, base, len + 1);
    }
  }
  return name;
}

/* SLURM's own variable names, lower-cased under slurm.* */
static void add_slurm(attr_list *l) {
  add_env(l, "slurm.job.id", "SLURM_JOB_ID");
  add_env(l, "slurm.job.name", "SLURM_JOB_NAME");
  add_env(l, "slurm.step.id", "SLURM_STEP_ID");
  add_env(l, "slurm.procid", "SLURM_PROCID");
  add_env(l, "slurm.localid", "SLURM_LOCALID");
  add_env(l, "slurm.nodeid", "SLURM_NODEID");
  add_env(l, "slurm.cluster.name", "SLURM_CLUSTER_NAME");
}

/* Kubernetes downward-API variables: the K8S_* names always; the short
 * names (POD_NAME...) only inside a pod (KUBERNETES_SERVICE_HOST set),
 * where they are the common convention. */
static void add_kubernetes(attr_list *l) {
  bool in_pod = getenv("KUBERNETES_SERVICE_HOST") != NULL;
  static const char *const pod[] = {"K8S_POD_NAME", NULL, "POD_NAME", NULL};
  static const char *const ns[] = {"K8S_NAMESPACE_NAME", "K8S_POD_NAMESPACE",
                                   NULL, "POD_NAMESPACE", NULL};
  static const char *const node[] = {"K8S_NODE_NAME", NULL, "NODE_NAME", NULL};
  static const char *const uid[] = {"K8S_POD_UID", NULL, "POD_UID", NULL};
  static const struct {
    const char *key;
    const char *const *vars; /* prefixed names, NULL, short names, NULL */
  } map[] = {{"k8s.pod.name", pod},
             {"k8s.namespace.name", ns},
             {"k8s.node.name", node},
             {"k8s.pod.uid", uid}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    const char *const *vars = map[i].vars;
    const char *v = env_first(vars);
    if (!v && in_pod) {
      while (*vars)
        vars++;
      v = env_first(vars + 1);
    }
    add(l, map[i].key, v, false);
  }
}

void cs_otlp_render_resource(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  static attr_list l; /* large: writer thread only */
  l.n = 0;
  add(&l, "service.name", snap->service_name, false); /* OTEL_SERVICE_NAME */
  add_user_attributes(&l, snap->resource_attrs);
  add(&l, "service.name", "cclscope", false);
  char text[320];
  snprintf(text, sizeof text, "%s:%d", snap->hostname, (int)snap->pid);
  add(&l, "service.instance.id", text, false);
  add(&l, "host.name", snap->hostname, false);
  add(&l, "host.id", host_id(), false);
  snprintf(text, sizeof text, "%d", (int)snap->pid);
  add(&l, "process.pid", text, true);
  add(&l, "process.executable.name", executable_name(), false);
  add(&l, "cclscope.run", snap->run_id, false);
  if (snap->label_global_rank && snap->global_rank >= 0) {
    snprintf(text, sizeof text, "%d", snap->global_rank);
    add(&l, "cclscope.global_rank", text, true);
  }
  add_slurm(&l);
  add_kubernetes(&l);

  cs_jbuf_putc(b, '[');
  for (int i = 0; i < l.n; i++) {
    if (i)
      cs_jbuf_putc(b, ',');
    CS_JLIT(b, "{\"key\":");
    cs_jbuf_str(b, l.a[i].key);
    if (l.a[i].is_int) {
      CS_JLIT(b, ",\"value\":{\"intValue\":\"");
      cs_jbuf_put(b, l.a[i].value, strlen(l.a[i].value));
      CS_JLIT(b, "\"}}");
    } else {
      CS_JLIT(b, ",\"value\":{\"stringValue\":");
      cs_jbuf_str(b, l.a[i].value);
      CS_JLIT(b, "}}");
    }
  }
  cs_jbuf_putc(b, ']');
}
