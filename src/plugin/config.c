/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/config.c — reading CCLSCOPE_* (and the few NCCL, OpenTelemetry
 * and launcher) variables into cs_config. Numbers go through the strict
 * readers of config_parse.h; every invalid value gets exactly one warning
 * (warn_bad) and the default.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "config_parse.h"
#include "event_types.h"
#include "log.h"
#include "run_name.h"
#include "size_text.h"
#include "trace_zstd.h"

/* The one warning an invalid value gets: the variable, what was given
 * (as cs_log_show quotes it: cut to CS_LOG_SHOWN_CHARS, control characters
 * as '?'), why, and what is used instead. */
static void warn_bad(const char *var, const char *value, const char *why,
                     const char *fallback) {
  cs_log_shown shown;
  size_t length = strlen(value);
  cs_log_show(value, &shown);
  if (length > CS_LOG_SHOWN_CHARS)
    cs_log_warn("%s='%s' (%zu characters) is invalid (%s); using %s", var,
                shown.text, length, why, fallback);
  else
    cs_log_warn("%s='%s' is invalid (%s); using %s", var, shown.text, why,
                fallback);
}

/* warn_bad for a number: "<problem>; expected <expected>". */
static void warn_bad_number(const char *var, const char *value,
                            cs_parse_result problem, const char *expected,
                            const char *fallback) {
  char why[192];
  snprintf(why, sizeof why, "%s; expected %s", cs_parse_problem(problem),
           expected);
  warn_bad(var, value, why, fallback);
}

bool cs_config_parse_size(const char *text, size_t *bytes) {
  uint64_t v;
  if (!size_text_parse(text, &v) || v > SIZE_MAX)
    return false;
  *bytes = (size_t)v;
  return true;
}

/* The bits of one mask item without its "-": a preset, an event name, or
 * a number (decimal or 0x hex). False with a reason in err otherwise. */
static bool parse_mask_token(const char *tok, int *bits, char *err,
                             size_t errlen) {
  static const struct {
    const char *name;
    int bits;
  } presets[] = {{"minimal", CS_MASK_MINIMAL},
                 {"default", CS_MASK_DEFAULT},
                 {"all", CS_MASK_ALL},
                 {"metrics", CS_MASK_METRICS},
                 {"none", 0}};
  if (isdigit((unsigned char)tok[0])) {
    uint64_t v;
    cs_parse_result r = cs_parse_whole_or_hex(tok, 0x7FFFFFFF, &v);
    if (r != CS_PARSE_OK) {
      snprintf(err, errlen,
               "'%.32s' is not a mask number (%s); use decimal or 0x hex "
               "up to 0x7fffffff",
               tok, cs_parse_problem(r));
      return false;
    }
    *bits = (int)v;
    return true;
  }
  for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
    if (strcasecmp(tok, presets[i].name) == 0) {
      *bits = presets[i].bits;
      return true;
    }
  }
  int t = cs_etype_from_mask_name(tok);
  if (t >= 0) {
    *bits = 1 << t;
    return true;
  }
  snprintf(err, errlen,
           "unknown event '%.32s'; use names like coll,p2p,kernelch, "
           "presets minimal/default/all, or a number",
           tok);
  return false;
}

/* Items are separated by ',', '|' or '+' (spaces around them are fine).
 * True when one is missing around a separator: "+5", "coll,", "a,,b". */
static bool mask_has_empty_item(const char *text) {
  bool after_separator = true; /* the start counts as one */
  for (const char *p = text; *p; p++) {
    if (*p == ',' || *p == '|' || *p == '+') {
      if (after_separator)
        return true;
      after_separator = true;
    } else if (*p != ' ' && *p != '\t') {
      after_separator = false;
    }
  }
  return after_separator;
}

bool cs_config_parse_mask(const char *text, int *mask, char *err,
                          size_t errlen) {
  char buf[512];
  int result = 0;
  bool added = false;         /* an item before a removal to remove from */
  bool explicit_zero = false; /* "none" or 0: asking for no events */
  cs_parse_result r = cs_parse_check_text(text);
  if (r != CS_PARSE_OK) {
    snprintf(err, errlen, "%s", cs_parse_problem(r));
    return false;
  }
  if (strlen(text) >= sizeof buf) {
    snprintf(err, errlen, "too long");
    return false;
  }
  if (mask_has_empty_item(text)) {
    snprintf(err, errlen, "an empty item before or after a separator");
    return false;
  }
  strcpy(buf, text);
  for (char *save = NULL, *tok = strtok_r(buf, ",|+ \t", &save); tok;
       tok = strtok_r(NULL, ",|+ \t", &save)) {
    bool remove = tok[0] == '-' || tok[0] == '^';
    int bits;
    if (remove)
      tok++;
    if (!parse_mask_token(tok, &bits, err, errlen))
      return false;
    if (remove && !added) {
      /* "-1" or "-coll" alone: not a negative mask, and not "all but". */
      snprintf(err, errlen,
               "'-%.32s' removes from nothing and a mask is never negative; "
               "start with what to remove from, e.g. all,-%.32s",
               tok, tok);
      return false;
    }
    if (!remove) {
      added = true;
      explicit_zero = explicit_zero || bits == 0;
    }
    result = remove ? (result & ~bits) : (result | bits);
  }
  if (!added) {
    snprintf(err, errlen, "empty");
    return false;
  }
  if (result == 0 && !explicit_zero) {
    snprintf(err, errlen,
             "removes every event; write none to ask NCCL for no events");
    return false;
  }
  *mask = result;
  return true;
}

void cs_config_mask_names(int mask, char *out, size_t outlen) {
  size_t used = 0;
  out[0] = '\0';
  for (int t = 0; t < CS_EV_UNKNOWN && used + 1 < outlen; t++) {
    if (!(mask & (1 << t)))
      continue;
    char name[24];
    cs_etype_mask_name((cs_etype)t, name, sizeof name);
    int n = snprintf(out + used, outlen - used, "%s%s", used ? "," : "", name);
    if (n < 0 || (size_t)n >= outlen - used)
      break;
    used += (size_t)n;
  }
  unsigned named = (1u << CS_EV_UNKNOWN) - 1; /* bits with a name */
  if (mask & ~named && used + 12 < outlen)
    snprintf(out + used, outlen - used, "%s0x%x", used ? "," : "",
             (unsigned)mask & ~named);
}

static void load_mode(cs_config *c) {
  const char *v = getenv("CCLSCOPE_MODE");
  c->trace = true;
  c->metrics = false;
  if (!v)
    return;
  char buf[128];
  bool trace = false, metrics = false, off = false;
  bool ok = cs_parse_check_text(v) == CS_PARSE_OK && strlen(v) < sizeof buf;
  if (ok) {
    strcpy(buf, v);
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
      if (strcasecmp(tok, "trace") == 0)
        trace = true;
      else if (strcasecmp(tok, "metrics") == 0)
        metrics = true;
      else if (strcasecmp(tok, "off") == 0 || strcasecmp(tok, "none") == 0)
        off = true;
      else
        ok = false;
    }
  }
  if (!ok || (off && (trace || metrics)) || (!off && !trace && !metrics)) {
    cs_parse_result r = cs_parse_check_text(v);
    warn_bad("CCLSCOPE_MODE", v,
             r != CS_PARSE_OK ? cs_parse_problem(r)
                              : "expected a comma list of trace, metrics, "
                                "or off",
             "trace");
    return;
  }
  c->trace = trace;
  c->metrics = metrics;
}

static void load_mask(cs_config *c) {
  const char *v = getenv("CCLSCOPE_MASK");
  char err[160];
  c->mask = CS_MASK_DEFAULT;
  c->mask_source = "default";
  if (v) {
    int mask;
    if (cs_config_parse_mask(v, &mask, err, sizeof err)) {
      c->mask = mask;
      c->mask_source = "CCLSCOPE_MASK";
    } else {
      warn_bad("CCLSCOPE_MASK", v, err, "the default preset");
    }
    return;
  }
  v = getenv("NCCL_PROFILE_EVENT_MASK");
  if (v) {
    uint64_t m;
    cs_parse_result r = cs_parse_whole_or_hex(v, 0x7FFFFFFF, &m);
    if (r != CS_PARSE_OK) {
      warn_bad_number("NCCL_PROFILE_EVENT_MASK", v, r,
                      "a number from 0 to 0x7fffffff (decimal or 0x hex)",
                      "the default preset");
      return;
    }
    c->mask = (int)m;
    c->mask_source = "NCCL_PROFILE_EVENT_MASK";
  }
}

/* A duration in seconds: a decimal number in [min, max]. */
static void load_seconds(const char *var, double *out, double def, double min,
                         double max) {
  const char *v = getenv(var);
  *out = def;
  if (!v)
    return;
  double seconds;
  cs_parse_result r = cs_parse_decimal(v, min, max, &seconds);
  if (r == CS_PARSE_OK) {
    *out = seconds;
    return;
  }
  char expected[96], fallback[32];
  snprintf(expected, sizeof expected, "seconds from %g to %g", min, max);
  snprintf(fallback, sizeof fallback, "%g", def);
  warn_bad_number(var, v, r, expected, fallback);
}

/* CCLSCOPE_HANG_TIMEOUT: 0 (off) or 0.1 to 86400 seconds. */
static void load_hang_timeout(cs_config *c) {
  static const char var[] = "CCLSCOPE_HANG_TIMEOUT";
  const char *v = getenv(var);
  c->hang_timeout_s = 60.0;
  if (!v)
    return;
  double seconds;
  cs_parse_result r = cs_parse_decimal(v, 0.0, 86400.0, &seconds);
  if (r == CS_PARSE_OK && seconds > 0 && seconds < 0.1)
    r = CS_PARSE_RANGE;
  if (r != CS_PARSE_OK) {
    warn_bad_number(var, v, r, "0 (off) or seconds from 0.1 to 86400", "60");
    return;
  }
  c->hang_timeout_s = seconds;
}

/* A count: a whole decimal number in [min, max]. */
static void load_count(const char *var, unsigned *out, unsigned def,
                       unsigned min, unsigned max) {
  const char *v = getenv(var);
  *out = def;
  if (!v)
    return;
  uint64_t n;
  cs_parse_result r = cs_parse_whole(v, min, max, &n);
  if (r == CS_PARSE_OK) {
    *out = (unsigned)n;
    return;
  }
  char expected[96], fallback[32];
  snprintf(expected, sizeof expected, "a whole number from %u to %u", min, max);
  snprintf(fallback, sizeof fallback, "%u", def);
  warn_bad_number(var, v, r, expected, fallback);
}

/* A byte size ("4M", "65536") in [min, max]; `expected` and `fallback`
 * are the warning's words for the range and the default. */
static void load_size(const char *var, uint64_t *out, uint64_t def,
                      uint64_t min, uint64_t max, const char *expected,
                      const char *fallback) {
  const char *v = getenv(var);
  *out = def;
  if (!v)
    return;
  uint64_t bytes;
  cs_parse_result r = cs_parse_size(v, min, max, &bytes);
  if (r == CS_PARSE_OK) {
    *out = bytes;
    return;
  }
  warn_bad_number(var, v, r, expected, fallback);
}

/* One of `choices` (any case; stored as spelled there). */
static void load_choice(const char *var, char *out, size_t outlen,
                        const char *def, const char *const *choices) {
  const char *v = getenv(var);
  snprintf(out, outlen, "%s", def);
  if (!v)
    return;
  for (int i = 0; choices[i]; i++) {
    if (strcasecmp(v, choices[i]) == 0) {
      snprintf(out, outlen, "%s", choices[i]);
      return;
    }
  }
  char why[160];
  size_t used = (size_t)snprintf(why, sizeof why, "expected one of");
  for (int i = 0; choices[i] && used < sizeof why; i++)
    used += (size_t)snprintf(why + used, sizeof why - used, "%s %s",
                             i ? "," : "", choices[i]);
  cs_parse_result r = cs_parse_check_text(v);
  warn_bad(var, v, r == CS_PARSE_OK ? why : cs_parse_problem(r), def);
}

/* Names and paths: free text, where an empty value means unset. The run
 * id comes from the launcher here, else at the first init
 * (cs_config_name_run); the folder is named after it then. */
static void load_identity(cs_config *c) {
  cs_run_id run;
  cs_run_id_from_launcher(&run);
  snprintf(c->run_id, sizeof c->run_id, "%s", run.id);
  snprintf(c->run_id_source, sizeof c->run_id_source, "%s", run.source);
  c->file_rank = -1;

  const char *h = getenv("CCLSCOPE_HOSTNAME");
  if (h && *h)
    snprintf(c->hostname, sizeof c->hostname, "%s", h);
  else if (gethostname(c->hostname, sizeof c->hostname) != 0)
    snprintf(c->hostname, sizeof c->hostname, "unknown-host");
  c->hostname[sizeof c->hostname - 1] = '\0';
  cs_run_name_sanitize(c->hostname);

  const char *d = getenv("CCLSCOPE_DIR");
  c->dir[0] = '\0';
  if (d && *d)
    snprintf(c->dir, sizeof c->dir, "%s", d);
  else if (c->run_id[0])
    snprintf(c->dir, sizeof c->dir, "cclscope-%s", c->run_id);
}

void cs_config_name_run(cs_config *c, bool has_comm, uint64_t comm_id,
                        int comm_rank) {
  if (!c->run_id[0]) {
    cs_run_id run;
    cs_run_id_from_init(&run, has_comm, comm_id, c->hostname, getpgrp());
    snprintf(c->run_id, sizeof c->run_id, "%s", run.id);
    snprintf(c->run_id_source, sizeof c->run_id_source, "%s", run.source);
  }
  if (!c->dir[0])
    snprintf(c->dir, sizeof c->dir, "cclscope-%s", c->run_id);
  c->file_rank = c->global_rank >= 0 ? c->global_rank
                 : has_comm          ? comm_rank
                                     : -1;
}

/* A numeric IPv4 or IPv6 address, as the /metrics listener needs it. */
static bool is_numeric_address(const char *text) {
  unsigned char address[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, text, address) == 1 ||
         inet_pton(AF_INET6, text, address) == 1;
}

/* Where Prometheus gets the metrics: a textfile and/or an HTTP port. */
static void load_prometheus(cs_config *c) {
  const char *file = getenv("CCLSCOPE_PROM_FILE");
  const char *dir = getenv("CCLSCOPE_PROM_DIR");
  if (file && *file)
    snprintf(c->prom_file, sizeof c->prom_file, "%s", file);
  else if (dir && *dir)
    snprintf(c->prom_file, sizeof c->prom_file, "%s/cclscope_%s_pid%d.prom",
             dir, c->hostname, (int)getpid());

  snprintf(c->prom_addr, sizeof c->prom_addr, "127.0.0.1");
  const char *addr = getenv("CCLSCOPE_PROM_ADDR");
  if (addr) {
    cs_parse_result r = cs_parse_check_text(addr);
    if (r != CS_PARSE_OK)
      warn_bad("CCLSCOPE_PROM_ADDR", addr, cs_parse_problem(r), "127.0.0.1");
    else if (strlen(addr) >= sizeof c->prom_addr || !is_numeric_address(addr))
      warn_bad("CCLSCOPE_PROM_ADDR", addr,
               "expected a numeric IPv4 or IPv6 address, like 0.0.0.0 or ::1",
               "127.0.0.1");
    else
      snprintf(c->prom_addr, sizeof c->prom_addr, "%s", addr);
  }

  c->prom_port = 0;
  const char *port = getenv("CCLSCOPE_PROM_PORT");
  if (port) {
    uint64_t p;
    cs_parse_result r = cs_parse_whole(port, 0, 65535, &p);
    if (r != CS_PARSE_OK)
      warn_bad_number("CCLSCOPE_PROM_PORT", port, r,
                      "a port number from 1 to 65535, or 0 (off)", "off");
    else
      c->prom_port = (int)p;
  }
}

/* At most this many variables name one setting (the job-rank ones). */
enum { MAX_ALTERNATIVES = 5 };

/* A whole number in [min, max] from the first of `vars` (NULL-terminated)
 * that holds a valid one. A set variable with an invalid value is treated
 * as unset: one warning each, naming what was used instead (the next valid
 * variable, else `none`). With `empty_means_unset` (the OpenTelemetry rule
 * for OTEL_* variables) an empty value is skipped without a warning.
 * False when none held a valid number. */
static bool load_first_whole(const char *const *vars, bool empty_means_unset,
                             uint64_t min, uint64_t max, const char *none,
                             uint64_t *out, const char **used_var) {
  struct {
    const char *var, *value;
    cs_parse_result problem;
  } skipped[MAX_ALTERNATIVES];
  int n_skipped = 0;
  const char *used = NULL;
  uint64_t value = 0;
  for (int i = 0; vars[i] && i < MAX_ALTERNATIVES && !used; i++) {
    const char *v = getenv(vars[i]);
    if (!v || (empty_means_unset && !*v))
      continue;
    cs_parse_result r = cs_parse_whole(v, min, max, &value);
    if (r == CS_PARSE_OK) {
      used = vars[i];
    } else {
      skipped[n_skipped].var = vars[i];
      skipped[n_skipped].value = v;
      skipped[n_skipped].problem = r;
      n_skipped++;
    }
  }
  char expected[96], fallback[128];
  snprintf(expected, sizeof expected, "a whole number from %llu to %llu",
           (unsigned long long)min, (unsigned long long)max);
  if (used)
    snprintf(fallback, sizeof fallback, "%llu from %s",
             (unsigned long long)value, used);
  else
    snprintf(fallback, sizeof fallback, "%s", none);
  for (int i = 0; i < n_skipped; i++)
    warn_bad_number(skipped[i].var, skipped[i].value, skipped[i].problem,
                    expected, fallback);
  if (used)
    *out = value;
  if (used_var)
    *used_var = used;
  return used != NULL;
}

/* The process's place in the job as its launcher tells it (-1: none):
 * rank, rank on its node, size, and the variable the rank came from.
 * torchrun's variables first: under SLURM torchrun often runs one task per
 * node, whose SLURM_PROCID is the node's index, not the process's. */
static void load_launcher(cs_config *c) {
  static const char *const rank_vars[] = {
      "RANK",      "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
      "PMIX_RANK", "PMI_RANK",     NULL};
  static const char *const local_vars[] = {"LOCAL_RANK", "SLURM_LOCALID",
                                           "OMPI_COMM_WORLD_LOCAL_RANK",
                                           "MPI_LOCALRANKID", NULL};
  static const char *const size_vars[] = {
      "WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL};
  uint64_t v;
  const char *from = NULL;
  c->global_rank = -1;
  c->global_rank_source[0] = '\0';
  if (load_first_whole(rank_vars, false, 0, 0x7ffffffe, "none", &v, &from)) {
    c->global_rank = (int)v;
    snprintf(c->global_rank_source, sizeof c->global_rank_source, "%s", from);
  }
  c->local_rank = -1;
  if (load_first_whole(local_vars, false, 0, 65535, "none", &v, NULL))
    c->local_rank = (int)v;
  c->world_size = -1;
  if (load_first_whole(size_vars, false, 1, 0x7fffffff, "none", &v, NULL))
    c->world_size = (int)v;
}

/* OTLP request timeout, per the OpenTelemetry spec: integer milliseconds,
 * the metrics-specific variable first; empty means unset. */
static void load_otlp_timeout(cs_config *c) {
  static const char *const vars[] = {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
                                     "OTEL_EXPORTER_OTLP_TIMEOUT", NULL};
  uint64_t ms;
  c->otlp_timeout_ms = 10000;
  if (load_first_whole(vars, true, 1, 600000, "10000", &ms, NULL))
    c->otlp_timeout_ms = (long)ms;
}

/* CCLSCOPE_METRICS_WINDOW_EVENTS: a window also closes after this many
 * events (0: by time only). The OTel profiler design's variable for the
 * window's length, NCCL_PROFILER_OTEL_TELEMETRY_INTERVAL_SEC, is an alias
 * of CCLSCOPE_METRICS_WINDOW, which wins. */
static void load_metrics_windows(cs_config *c) {
  static const char alias[] = "NCCL_PROFILER_OTEL_TELEMETRY_INTERVAL_SEC";
  const char *window = getenv("CCLSCOPE_METRICS_WINDOW");
  if ((!window || !*window) && getenv(alias))
    load_seconds(alias, &c->metrics_window_s, 5.0, 0.05, 3600.0);
  unsigned events;
  const char *v = getenv("CCLSCOPE_METRICS_WINDOW_EVENTS");
  if (v && strcmp(v, "0") == 0) {
    c->metrics_window_events = 0;
    return;
  }
  load_count("CCLSCOPE_METRICS_WINDOW_EVENTS", &events, 0, 100, 100000000);
  c->metrics_window_events = events;
}

static void load_bool(const char *var, bool *out, bool def) {
  static const char *const yes[] = {"1", "yes", "true", "on", NULL};
  static const char *const no[] = {"0", "no", "false", "off", NULL};
  const char *v = getenv(var);
  *out = def;
  if (!v)
    return;
  for (int i = 0; yes[i]; i++)
    if (strcasecmp(v, yes[i]) == 0) {
      *out = true;
      return;
    }
  for (int i = 0; no[i]; i++)
    if (strcasecmp(v, no[i]) == 0) {
      *out = false;
      return;
    }
  cs_parse_result r = cs_parse_check_text(v);
  warn_bad(var, v,
           r == CS_PARSE_OK ? "expected 1, yes, true, on or 0, no, false, off"
                            : cs_parse_problem(r),
           def ? "1" : "0");
}

/* CCLSCOPE_DIRECT_IO: auto (default), on, off; 1/0, yes/no, true/false as
 * on/off. */
static void load_direct_io(cs_config *c) {
  static const char *const choices[] = {"auto", "on", "off",  "1",     "0",
                                        "yes",  "no", "true", "false", NULL};
  char v[8];
  load_choice("CCLSCOPE_DIRECT_IO", v, sizeof v, "auto", choices);
  if (strcmp(v, "auto") == 0)
    snprintf(c->direct_io, sizeof c->direct_io, "auto");
  else if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0 ||
           strcmp(v, "yes") == 0 || strcmp(v, "true") == 0)
    snprintf(c->direct_io, sizeof c->direct_io, "on");
  else
    snprintf(c->direct_io, sizeof c->direct_io, "off");
}

/* CCLSCOPE_ROCTX: off (default), on (1, yes, true: only under RCCL), force
 * (any host); 0/no/false as off. */
static void load_roctx(cs_config *c) {
  static const char *const choices[] = {"off", "on", "force", "1",     "0",
                                        "yes", "no", "true",  "false", NULL};
  char v[8];
  load_choice("CCLSCOPE_ROCTX", v, sizeof v, "off", choices);
  if (strcmp(v, "force") == 0)
    snprintf(c->roctx, sizeof c->roctx, "force");
  else if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0 ||
           strcmp(v, "yes") == 0 || strcmp(v, "true") == 0)
    snprintf(c->roctx, sizeof c->roctx, "on");
  else
    snprintf(c->roctx, sizeof c->roctx, "off");
}

/* CCLSCOPE_COMPRESS: unset, empty or none = plain JSONL; zstd (level 1) or
 * zstd:LEVEL (1-19, or zstd's fast levels -1 to -5). Anything else, a bad
 * level too (0 among them), is said once and leaves the default, plain
 * JSONL. */
static void load_compress(cs_config *c) {
  const char *v = getenv("CCLSCOPE_COMPRESS");
  c->zstd_level = 0;
  if (!v || v[0] == '\0' || strcasecmp(v, "none") == 0)
    return;
  if (strncasecmp(v, "zstd", 4) != 0 || (v[4] != '\0' && v[4] != ':')) {
    warn_bad("CCLSCOPE_COMPRESS", v, "expected none, zstd or zstd:LEVEL",
             "none (plain JSONL)");
    return;
  }
  if (v[4] == '\0') {
    c->zstd_level = CS_TZ_LEVEL_DEFAULT;
    return;
  }
  bool fast = v[5] == '-'; /* zstd:-N, a fast level */
  uint64_t level;
  cs_parse_result r =
      fast ? cs_parse_whole(v + 6, 1, (uint64_t)-CS_TZ_LEVEL_FAST_MIN, &level)
           : cs_parse_whole(v + 5, CS_TZ_LEVEL_MIN, CS_TZ_LEVEL_MAX, &level);
  if (r == CS_PARSE_OK)
    c->zstd_level = fast ? -(int)level : (int)level;
  else
    warn_bad_number("CCLSCOPE_COMPRESS", v, r,
                    "zstd:LEVEL with LEVEL 1 to 19 or -1 to -5",
                    "none (plain JSONL)");
}

/* CCLSCOPE_FORMAT: unset, empty or jsonl = JSONL lines; binary = the
 * binary container (docs/trace-format.md "Binary traces"). Anything else
 * is said once and leaves the default, JSONL. */
static void load_format(cs_config *c) {
  const char *v = getenv("CCLSCOPE_FORMAT");
  c->binary_trace = false;
  if (!v || v[0] == '\0' || strcasecmp(v, "jsonl") == 0)
    return;
  if (strcasecmp(v, "binary") == 0) {
    c->binary_trace = true;
    return;
  }
  warn_bad("CCLSCOPE_FORMAT", v, "expected jsonl or binary", "jsonl");
}

/* What is recorded: sampling, size filter, start paused. */
static void load_selection(cs_config *c) {
  load_count("CCLSCOPE_SAMPLE", &c->sample_coll, 1, 1, 1000000000u);
  load_count("CCLSCOPE_SAMPLE_P2P", &c->sample_p2p, c->sample_coll, 1,
             1000000000u);
  load_count("CCLSCOPE_SAMPLE_STEPS", &c->sample_steps, 1, 1, 1000000000u);
  uint64_t min_bytes;
  load_size("CCLSCOPE_MIN_BYTES", &min_bytes, 0, 0, SIZE_MAX,
            "a size like 64K or 1M", "0");
  c->min_bytes = min_bytes;
  static const char *const starts[] = {"recording", "paused", NULL};
  char start[16];
  load_choice("CCLSCOPE_START", start, sizeof start, "recording", starts);
  c->start_paused = strcmp(start, "paused") == 0;
}

void cs_config_load(cs_config *c) {
  static const char *const clocks[] = {"auto", "tsc", "monotonic", NULL};
  static const char *const hosts[] = {"auto", "nccl", "rccl", NULL};
  static const char *const summaries[] = {"log", "stderr", "off", NULL};
  memset(c, 0, sizeof *c);
  load_mode(c);
  load_mask(c);
  if (c->metrics && !c->trace && strcmp(c->mask_source, "default") == 0)
    c->mask = CS_MASK_METRICS; /* nothing is traced: ask only for these */
  load_identity(c);

  uint64_t ring_bytes;
  load_size("CCLSCOPE_RING_SIZE", &ring_bytes, (uint64_t)4 << 20, 4096,
            (uint64_t)1 << 32, "a size from 4K to 4G, like 4M", "4M");
  c->ring_bytes = (size_t)ring_bytes;
  load_seconds("CCLSCOPE_RECLAIM_TIMEOUT", &c->reclaim_timeout_s, 5.0, 0.01,
               86400.0);
  load_seconds("CCLSCOPE_FLUSH_INTERVAL", &c->flush_interval_s, 1.0, 0.01,
               3600.0);
  load_seconds("CCLSCOPE_TIMING_TIMEOUT", &c->timing_timeout_s, 10.0, 0.1,
               86400.0);
  load_count("CCLSCOPE_MAX_INFLIGHT", &c->max_live_events, 1000000, 1000,
             100000000);
  load_seconds("CCLSCOPE_METRICS_WINDOW", &c->metrics_window_s, 5.0, 0.05,
               3600.0);
  load_count("CCLSCOPE_METRICS_MAX_SERIES", &c->metrics_max_series, 2000, 10,
             1000000);
  load_prometheus(c);
  load_otlp_timeout(c);
  load_launcher(c);
  load_seconds("CCLSCOPE_EXIT_DEADLINE", &c->exit_deadline_s, 1.0, 0.0, 60.0);
  load_choice("CCLSCOPE_SUMMARY", c->summary, sizeof c->summary, "log",
              summaries);
  load_choice("CCLSCOPE_CLOCK", c->clock, sizeof c->clock, "auto", clocks);
  load_direct_io(c);
  load_compress(c);
  load_format(c);
  load_choice("CCLSCOPE_HOST", c->host, sizeof c->host, "auto", hosts);
  load_selection(c);
  load_hang_timeout(c);
  load_bool("CCLSCOPE_NVTX", &c->nvtx, false);
  load_bool("CCLSCOPE_CUPTI", &c->cupti, false);
  load_bool("CCLSCOPE_METRICS_GLOBAL_RANK", &c->metrics_global_rank, false);
  load_roctx(c);
  load_metrics_windows(c);
  load_bool("CCLSCOPE_PROM_KEEP", &c->prom_keep, false);
}
