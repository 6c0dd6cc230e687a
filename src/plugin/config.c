/*
 * src/plugin/config.c — parsing CCLSCOPE_* variables into cs_config.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "event_types.h"
#include "log.h"
#include "size_text.h"

static void warn_bad(const char *var, const char *value, const char *why,
                     const char *fallback) {
  cs_log_warn("%s='%s' is invalid (%s); using %s", var, value, why, fallback);
}

bool cs_config_parse_size(const char *text, size_t *bytes) {
  uint64_t v;
  if (!size_text_parse(text, &v) || v > SIZE_MAX)
    return false;
  *bytes = (size_t)v;
  return true;
}

static bool parse_mask_token(const char *tok, int *bits) {
  if (isdigit((unsigned char)tok[0])) {
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 0);
    if (errno || *end || v < 0 || v > 0x7FFFFFFF)
      return false;
    *bits = (int)v;
    return true;
  }
  if (strcasecmp(tok, "minimal") == 0) {
    *bits = CS_MASK_MINIMAL;
    return true;
  }
  if (strcasecmp(tok, "default") == 0) {
    *bits = CS_MASK_DEFAULT;
    return true;
  }
  if (strcasecmp(tok, "all") == 0) {
    *bits = CS_MASK_ALL;
    return true;
  }
  if (strcasecmp(tok, "metrics") == 0) {
    *bits = CS_MASK_METRICS;
    return true;
  }
  if (strcasecmp(tok, "none") == 0) {
    *bits = 0;
    return true;
  }
  for (int t = 0; t < CS_EV_UNKNOWN; t++) {
    if (strcasecmp(tok, cs_etype_mask_name((cs_etype)t)) == 0) {
      *bits = 1 << t;
      return true;
    }
  }
  return false;
}

bool cs_config_parse_mask(const char *text, int *mask, char *err,
                          size_t errlen) {
  char buf[512];
  int result = 0;
  bool any = false;
  if (strlen(text) >= sizeof buf) {
    snprintf(err, errlen, "too long");
    return false;
  }
  strcpy(buf, text);
  for (char *save = NULL, *tok = strtok_r(buf, ",|+ \t", &save); tok;
       tok = strtok_r(NULL, ",|+ \t", &save)) {
    bool remove = tok[0] == '-' || tok[0] == '^';
    int bits;
    if (remove)
      tok++;
    if (!parse_mask_token(tok, &bits)) {
      snprintf(err, errlen,
               "unknown event '%s'; use names like coll,p2p,kernelch, "
               "presets minimal/default/all, or a number",
               tok);
      return false;
    }
    result = remove ? (result & ~bits) : (result | bits);
    any = true;
  }
  if (!any) {
    snprintf(err, errlen, "empty");
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
    int n = snprintf(out + used, outlen - used, "%s%s", used ? "," : "",
                     cs_etype_mask_name((cs_etype)t));
    if (n < 0 || (size_t)n >= outlen - used)
      break;
    used += (size_t)n;
  }
  if (mask & ~0xFFFF && used + 12 < outlen)
    snprintf(out + used, outlen - used, "%s0x%x", used ? "," : "",
             (unsigned)mask & ~0xFFFFu);
}

static void load_mode(cs_config *c) {
  const char *v = getenv("CCLSCOPE_MODE");
  c->trace = true;
  c->metrics = false;
  if (!v || !*v)
    return;
  char buf[128];
  bool trace = false, metrics = false, off = false, ok = strlen(v) < sizeof buf;
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
    warn_bad("CCLSCOPE_MODE", v,
             "expected a comma list of trace, metrics, or off", "trace");
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
  if (v && *v) {
    if (cs_config_parse_mask(v, &c->mask, err, sizeof err))
      c->mask_source = "CCLSCOPE_MASK";
    else {
      c->mask = CS_MASK_DEFAULT;
      warn_bad("CCLSCOPE_MASK", v, err, "the default preset");
    }
    return;
  }
  v = getenv("NCCL_PROFILE_EVENT_MASK");
  if (v && *v) {
    char *end;
    errno = 0;
    long m = strtol(v, &end, 0);
    if (errno || *end || m < 0 || m > 0x7FFFFFFF)
      warn_bad("NCCL_PROFILE_EVENT_MASK", v, "expected a number",
               "the default preset");
    else {
      c->mask = (int)m;
      c->mask_source = "NCCL_PROFILE_EVENT_MASK";
    }
  }
}

static void load_double(const char *var, double *out, double def, double min,
                        double max) {
  const char *v = getenv(var);
  *out = def;
  if (!v || !*v)
    return;
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (errno || *end || d < min || d > max) {
    char fallback[64];
    snprintf(fallback, sizeof fallback, "%g", def);
    char why[96];
    snprintf(why, sizeof why, "expected a number between %g and %g", min, max);
    warn_bad(var, v, why, fallback);
    return;
  }
  *out = d;
}

static void load_choice(const char *var, char *out, size_t outlen,
                        const char *def, const char *const *choices) {
  const char *v = getenv(var);
  snprintf(out, outlen, "%s", def);
  if (!v || !*v)
    return;
  for (int i = 0; choices[i]; i++) {
    if (strcasecmp(v, choices[i]) == 0) {
      snprintf(out, outlen, "%s", choices[i]);
      return;
    }
  }
  warn_bad(var, v, "not one of the allowed values", def);
}

static void sanitize_for_filename(char *s) {
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.' && *s != '_')
      *s = '-';
}

static void load_identity(cs_config *c) {
  static const char *const job_vars[] = {
      "CCLSCOPE_JOB_ID", "SLURM_JOB_ID",        "PBS_JOBID", "LSB_JOBID",
      "FLUX_JOB_ID",     "TORCHELASTIC_RUN_ID", NULL};
  c->run_id[0] = '\0';
  for (int i = 0; job_vars[i]; i++) {
    const char *v = getenv(job_vars[i]);
    if (v && *v && strcmp(v, "none") != 0) {
      snprintf(c->run_id, sizeof c->run_id, "%s", v);
      break;
    }
  }
  if (!c->run_id[0]) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(c->run_id, sizeof c->run_id, "%Y%m%d-%H%M%S", &tm);
  }
  sanitize_for_filename(c->run_id);

  const char *h = getenv("CCLSCOPE_HOSTNAME");
  if (h && *h)
    snprintf(c->hostname, sizeof c->hostname, "%s", h);
  else if (gethostname(c->hostname, sizeof c->hostname) != 0)
    snprintf(c->hostname, sizeof c->hostname, "unknown-host");
  c->hostname[sizeof c->hostname - 1] = '\0';
  sanitize_for_filename(c->hostname);

  const char *d = getenv("CCLSCOPE_DIR");
  if (d && *d)
    snprintf(c->dir, sizeof c->dir, "%s", d);
  else
    snprintf(c->dir, sizeof c->dir, "cclscope-%s", c->run_id);
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
  const char *addr = getenv("CCLSCOPE_PROM_ADDR");
  snprintf(c->prom_addr, sizeof c->prom_addr, "%s",
           addr && *addr ? addr : "127.0.0.1");
  const char *port = getenv("CCLSCOPE_PROM_PORT");
  if (port && *port) {
    char *end;
    long p = strtol(port, &end, 10);
    if (*end || p < 0 || p > 65535)
      warn_bad("CCLSCOPE_PROM_PORT", port, "expected a port number", "off");
    else
      c->prom_port = (int)p;
  }
}

static void load_uint(const char *var, unsigned *out, unsigned def,
                      unsigned min, unsigned max) {
  const char *v = getenv(var);
  *out = def;
  if (!v || !*v)
    return;
  char *end;
  errno = 0;
  unsigned long n = strtoul(v, &end, 10);
  if (errno || *end || v[0] == '-' || n < min || n > max) {
    char fallback[32], why[96];
    snprintf(fallback, sizeof fallback, "%u", def);
    snprintf(why, sizeof why, "expected a whole number between %u and %u", min,
             max);
    warn_bad(var, v, why, fallback);
    return;
  }
  *out = (unsigned)n;
}

static void load_bool(const char *var, bool *out, bool def) {
  static const char *const yes[] = {"1", "yes", "true", "on", NULL};
  static const char *const no[] = {"0", "no", "false", "off", NULL};
  const char *v = getenv(var);
  *out = def;
  if (!v || !*v)
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
  warn_bad(var, v, "expected 1 or 0", def ? "1" : "0");
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

/* What is recorded: sampling, size filter, start paused. */
static void load_selection(cs_config *c) {
  load_uint("CCLSCOPE_SAMPLE", &c->sample_coll, 1, 1, 1000000000u);
  load_uint("CCLSCOPE_SAMPLE_P2P", &c->sample_p2p, c->sample_coll, 1,
            1000000000u);
  load_uint("CCLSCOPE_SAMPLE_STEPS", &c->sample_steps, 1, 1, 1000000000u);
  c->min_bytes = 0;
  const char *v = getenv("CCLSCOPE_MIN_BYTES");
  if (v && *v) {
    size_t bytes;
    if (cs_config_parse_size(v, &bytes))
      c->min_bytes = bytes;
    else
      warn_bad("CCLSCOPE_MIN_BYTES", v, "expected a size like 64K or 1M", "0");
  }
  static const char *const starts[] = {"recording", "paused", NULL};
  char start[16];
  load_choice("CCLSCOPE_START", start, sizeof start, "recording", starts);
  c->start_paused = strcmp(start, "paused") == 0;
}

void cs_config_load(cs_config *c) {
  static const char *const clocks[] = {"auto", "tsc", "monotonic", NULL};
  static const char *const hosts[] = {"auto", "nccl", "rccl", NULL};
  memset(c, 0, sizeof *c);
  load_mode(c);
  load_mask(c);
  if (c->metrics && !c->trace && strcmp(c->mask_source, "default") == 0)
    c->mask = CS_MASK_METRICS; /* nothing is traced: ask only for these */
  load_identity(c);

  c->ring_bytes = (size_t)4 << 20;
  const char *v = getenv("CCLSCOPE_RING_SIZE");
  if (v && *v) {
    size_t bytes;
    if (!cs_config_parse_size(v, &bytes) || bytes < 4096 ||
        bytes > ((size_t)1 << 32))
      warn_bad("CCLSCOPE_RING_SIZE", v,
               "expected a size between 4K and 4G, like 4M", "4M");
    else
      c->ring_bytes = bytes;
  }
  load_double("CCLSCOPE_RECLAIM_TIMEOUT", &c->reclaim_timeout_s, 5.0, 0.01,
              86400.0);
  load_double("CCLSCOPE_FLUSH_INTERVAL", &c->flush_interval_s, 1.0, 0.01,
              3600.0);
  load_double("CCLSCOPE_TIMING_TIMEOUT", &c->timing_timeout_s, 10.0, 0.1,
              86400.0);
  double live;
  load_double("CCLSCOPE_MAX_INFLIGHT", &live, 1000000.0, 1000.0, 1e8);
  c->max_live_events = (unsigned)live;
  load_double("CCLSCOPE_METRICS_WINDOW", &c->metrics_window_s, 5.0, 0.05,
              3600.0);
  double series;
  load_double("CCLSCOPE_METRICS_MAX_SERIES", &series, 2000.0, 10.0, 1e6);
  c->metrics_max_series = (unsigned)series;
  load_prometheus(c);
  static const char *const summaries[] = {"log", "stderr", "off", NULL};
  load_choice("CCLSCOPE_SUMMARY", c->summary, sizeof c->summary, "log",
              summaries);
  load_choice("CCLSCOPE_CLOCK", c->clock, sizeof c->clock, "auto", clocks);
  load_direct_io(c);
  load_choice("CCLSCOPE_HOST", c->host, sizeof c->host, "auto", hosts);
  load_selection(c);
  load_double("CCLSCOPE_HANG_TIMEOUT", &c->hang_timeout_s, 60.0, 0.0, 86400.0);
  if (c->hang_timeout_s > 0 && c->hang_timeout_s < 0.1) {
    warn_bad("CCLSCOPE_HANG_TIMEOUT", getenv("CCLSCOPE_HANG_TIMEOUT"),
             "expected 0 (off) or at least 0.1 seconds", "0.1");
    c->hang_timeout_s = 0.1;
  }
  load_bool("CCLSCOPE_NVTX", &c->nvtx, false);
  load_bool("CCLSCOPE_CUPTI", &c->cupti, false);
}
