/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_config.c — cs_config_load over every variable it reads,
 * table-driven: each numeric or enumerated variable × each kind of bad value
 * (nan, inf, signs, junk, overflow, empty, whitespace, hex, very long) gives
 * exactly one warning naming the variable and leaves the whole
 * configuration at its defaults; the documented forms parse to the right
 * values with no warning. Also the strict readers of config_parse.h.
 *
 * The executable is linked with -Wl,--wrap=getenv, so the test sees every
 * variable cs_config_load reads and fails when one is missing from the
 * tables below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "config_parse.h"
#include "log.h"

/* ---- the variables ---- */

/* Every numeric or enumerated variable cs_config_load reads. */
static const char *const checked_variables[] = {
    "CCLSCOPE_MODE",
    "CCLSCOPE_MASK",
    "NCCL_PROFILE_EVENT_MASK",
    "CCLSCOPE_RING_SIZE",
    "CCLSCOPE_RECLAIM_TIMEOUT",
    "CCLSCOPE_FLUSH_INTERVAL",
    "CCLSCOPE_TIMING_TIMEOUT",
    "CCLSCOPE_MAX_INFLIGHT",
    "CCLSCOPE_METRICS_WINDOW",
    "CCLSCOPE_METRICS_MAX_SERIES",
    "CCLSCOPE_PROM_ADDR",
    "CCLSCOPE_PROM_PORT",
    "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "RANK",
    "SLURM_PROCID",
    "OMPI_COMM_WORLD_RANK",
    "PMIX_RANK",
    "PMI_RANK",
    "LOCAL_RANK",
    "SLURM_LOCALID",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "MPI_LOCALRANKID",
    "WORLD_SIZE",
    "SLURM_NTASKS",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_SIZE",
    "CCLSCOPE_EXIT_DEADLINE",
    "CCLSCOPE_SUMMARY",
    "CCLSCOPE_CLOCK",
    "CCLSCOPE_DIRECT_IO",
    "CCLSCOPE_HOST",
    "CCLSCOPE_SAMPLE",
    "CCLSCOPE_SAMPLE_P2P",
    "CCLSCOPE_SAMPLE_STEPS",
    "CCLSCOPE_MIN_BYTES",
    "CCLSCOPE_START",
    "CCLSCOPE_HANG_TIMEOUT",
    "CCLSCOPE_NVTX",
    "CCLSCOPE_CUPTI",
    "CCLSCOPE_ROCTX",
    "CCLSCOPE_METRICS_GLOBAL_RANK",
    "CCLSCOPE_METRICS_WINDOW_EVENTS",
    "NCCL_PROFILER_OTEL_TELEMETRY_INTERVAL_SEC",
    "CCLSCOPE_PROM_KEEP",
    "CCLSCOPE_COMPRESS",
    "CCLSCOPE_FORMAT",
};
enum { N_CHECKED = sizeof checked_variables / sizeof checked_variables[0] };

/* The free-text ones (names and paths, where empty means unset): not
 * probed here, but unset for a clean environment. */
static const char *const free_text_variables[] = {"CCLSCOPE_DIR",
                                                  "CCLSCOPE_JOB_ID",
                                                  "CCLSCOPE_HOSTNAME",
                                                  "CCLSCOPE_PROM_FILE",
                                                  "CCLSCOPE_PROM_DIR",
                                                  "SLURM_JOB_ID",
                                                  "PBS_JOBID",
                                                  "LSB_JOBID",
                                                  "FLUX_JOB_ID",
                                                  "TORCHELASTIC_RUN_ID",
                                                  "OMPI_MCA_ess_base_jobid",
                                                  "OMPI_MCA_orte_ess_jobid",
                                                  "PMIX_NAMESPACE",
                                                  "MASTER_ADDR",
                                                  "MASTER_PORT"};
enum {
  N_FREE_TEXT = sizeof free_text_variables / sizeof free_text_variables[0]
};

/* Values that are wrong for every variable, unless a valid case below
 * lists the pair (variable, value). */
static const char *const bad_values[] = {
    "nan",          "NaN",      "nan(0x1)", "inf",   "-inf",
    "INF",          "infinity", "-1",       "-0",    "+5",
    "junk",         "5x",       "1e999",    "1e3",   "99999999999999999999",
    "99999999999G", "",         " 5",       "5 ",    "\t5",
    "5\n",          "0x10",     "0X1F",     "0x1p3", "1.2.3",
};
enum { N_BAD = sizeof bad_values / sizeof bad_values[0] };

/* More values wrong for one variable in particular (out of its range, or
 * almost the right form). */
enum { MAX_BAD_FOR_ONE = 14 };
static const struct {
  const char *var;
  const char *values[MAX_BAD_FOR_ONE];
} bad_for_one[] = {
    {"CCLSCOPE_MODE", {"fast", "trace,off", "off,metrics", ",", "trace;x"}},
    {"CCLSCOPE_MASK",
     {"coll,bogus", "-coll", "-1,all", "coll,-coll", "proxyctrl,-all",
      "0x80000000", "2147483648", "-all", "coll,", "coll,,p2p", "+coll",
      "010x"}},
    {"NCCL_PROFILE_EVENT_MASK", {"0x80000000", "2147483648", "coll", "0x"}},
    {"CCLSCOPE_RING_SIZE", {"4095", "0", "5G", "4T", "1.5M", "4 M"}},
    {"CCLSCOPE_RECLAIM_TIMEOUT", {"0", "0.009", "86401", "5.", "."}},
    {"CCLSCOPE_FLUSH_INTERVAL", {"0", "3601", "1s"}},
    {"CCLSCOPE_TIMING_TIMEOUT", {"0.09", "86401"}},
    {"CCLSCOPE_MAX_INFLIGHT", {"999", "100000001", "1000.5", "1e6"}},
    {"CCLSCOPE_METRICS_WINDOW", {"0.04", "3601"}},
    {"CCLSCOPE_METRICS_MAX_SERIES", {"9", "1000001", "2000.0"}},
    {"CCLSCOPE_PROM_ADDR",
     {"localhost", "127.0.0.1:80", "1.2.3", "256.0.0.1", "fe80::1%lo",
      "0x7f000001", "[::1]"}},
    {"CCLSCOPE_PROM_PORT", {"65536", "80.5", "9400 ", "http"}},
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", {"0", "600001", "1.5", "10s"}},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", {"0", "600001", "1.5", "garbage"}},
    {"RANK", {"-1", "2147483647", "1.0", "0x10", " 4"}},
    {"SLURM_PROCID", {"2147483647", "one"}},
    {"OMPI_COMM_WORLD_RANK", {"-3"}},
    {"PMIX_RANK", {"x"}},
    {"PMI_RANK", {"2147483648"}},
    {"WORLD_SIZE", {"0", "2147483648", "8 "}},
    {"SLURM_NTASKS", {"0"}},
    {"OMPI_COMM_WORLD_SIZE", {"-1"}},
    {"PMI_SIZE", {"two"}},
    {"LOCAL_RANK", {"65536", "1.0", "one"}},
    {"SLURM_LOCALID", {"65536"}},
    {"OMPI_COMM_WORLD_LOCAL_RANK", {"65536"}},
    {"MPI_LOCALRANKID", {"65536"}},
    {"CCLSCOPE_EXIT_DEADLINE", {"60.001", "61", "1s"}},
    {"CCLSCOPE_SUMMARY", {"on", "logs"}},
    {"CCLSCOPE_CLOCK", {"rdtsc", "tsc,monotonic"}},
    {"CCLSCOPE_DIRECT_IO", {"sometimes", "onn", "2"}},
    {"CCLSCOPE_HOST", {"cuda"}},
    {"CCLSCOPE_SAMPLE", {"0", "1000000001", "2.5"}},
    {"CCLSCOPE_SAMPLE_P2P", {"0", "1000000001"}},
    {"CCLSCOPE_SAMPLE_STEPS", {"0", "1000000001"}},
    {"CCLSCOPE_MIN_BYTES",
     {"1.5K", "4T", "18446744073709551616", "17179869184G"}},
    {"CCLSCOPE_START", {"pause", "0"}},
    {"CCLSCOPE_HANG_TIMEOUT", {"0.05", "86401", "0.0999"}},
    {"CCLSCOPE_NVTX", {"2", "enable", "y"}},
    {"CCLSCOPE_CUPTI", {"2", "enable"}},
    {"CCLSCOPE_METRICS_GLOBAL_RANK", {"2", "rank", "yes please"}},
    {"CCLSCOPE_METRICS_WINDOW_EVENTS", {"1", "99", "100000001", "1e4"}},
    {"NCCL_PROFILER_OTEL_TELEMETRY_INTERVAL_SEC", {"0.01", "3601"}},
    {"CCLSCOPE_PROM_KEEP", {"2", "keep"}},
    {"CCLSCOPE_ROCTX", {"2", "enable", "forced", "rccl", "auto"}},
    {"CCLSCOPE_COMPRESS",
     {"gzip", "zst", "zstd:", "zstd:0", "zstd:20", "zstd:-6", "zstd:-0",
      "zstd:--1", "zstd:-", "zstd:3 ", "zstd3", "zstd:3:4", "lz4", "zstd,3"}},
    {"CCLSCOPE_FORMAT", {"json", "bin", "binary ", "parquet", "1"}},
};
enum { N_BAD_FOR_ONE = sizeof bad_for_one / sizeof bad_for_one[0] };

/* ---- the fields ---- */

typedef enum {
  KIND_BOOL,
  KIND_INT,
  KIND_UNSIGNED,
  KIND_LONG,
  KIND_SIZE,
  KIND_U64,
  KIND_DOUBLE,
  KIND_TEXT,    /* a char array */
  KIND_POINTER, /* mask_source: a const char * */
  KIND_RUN_NAME /* run_id, dir: named at the first init, checked apart */
} field_kind;

typedef struct {
  const char *name;
  size_t offset, size;
  field_kind kind;
} field_ref;

static const field_ref fields[] = {
    {"trace", offsetof(cs_config, trace), sizeof(bool), KIND_BOOL},
    {"metrics", offsetof(cs_config, metrics), sizeof(bool), KIND_BOOL},
    {"mask", offsetof(cs_config, mask), sizeof(int), KIND_INT},
    {"mask_source", offsetof(cs_config, mask_source), sizeof(char *),
     KIND_POINTER},
    {"dir", offsetof(cs_config, dir), PATH_MAX, KIND_RUN_NAME},
    {"run_id", offsetof(cs_config, run_id), 128, KIND_RUN_NAME},
    {"run_id_source", offsetof(cs_config, run_id_source), 32, KIND_TEXT},
    {"file_rank", offsetof(cs_config, file_rank), sizeof(int), KIND_INT},
    {"hostname", offsetof(cs_config, hostname), 256, KIND_TEXT},
    {"ring_bytes", offsetof(cs_config, ring_bytes), sizeof(size_t), KIND_SIZE},
    {"reclaim_timeout_s", offsetof(cs_config, reclaim_timeout_s),
     sizeof(double), KIND_DOUBLE},
    {"flush_interval_s", offsetof(cs_config, flush_interval_s), sizeof(double),
     KIND_DOUBLE},
    {"timing_timeout_s", offsetof(cs_config, timing_timeout_s), sizeof(double),
     KIND_DOUBLE},
    {"max_live_events", offsetof(cs_config, max_live_events), sizeof(unsigned),
     KIND_UNSIGNED},
    {"metrics_window_s", offsetof(cs_config, metrics_window_s), sizeof(double),
     KIND_DOUBLE},
    {"metrics_max_series", offsetof(cs_config, metrics_max_series),
     sizeof(unsigned), KIND_UNSIGNED},
    {"prom_file", offsetof(cs_config, prom_file), PATH_MAX, KIND_TEXT},
    {"prom_addr", offsetof(cs_config, prom_addr), 64, KIND_TEXT},
    {"prom_port", offsetof(cs_config, prom_port), sizeof(int), KIND_INT},
    {"otlp_timeout_ms", offsetof(cs_config, otlp_timeout_ms), sizeof(long),
     KIND_LONG},
    {"global_rank", offsetof(cs_config, global_rank), sizeof(int), KIND_INT},
    {"global_rank_source", offsetof(cs_config, global_rank_source), 24,
     KIND_TEXT},
    {"local_rank", offsetof(cs_config, local_rank), sizeof(int), KIND_INT},
    {"world_size", offsetof(cs_config, world_size), sizeof(int), KIND_INT},
    {"exit_deadline_s", offsetof(cs_config, exit_deadline_s), sizeof(double),
     KIND_DOUBLE},
    {"summary", offsetof(cs_config, summary), 16, KIND_TEXT},
    {"sample_coll", offsetof(cs_config, sample_coll), sizeof(unsigned),
     KIND_UNSIGNED},
    {"sample_p2p", offsetof(cs_config, sample_p2p), sizeof(unsigned),
     KIND_UNSIGNED},
    {"sample_steps", offsetof(cs_config, sample_steps), sizeof(unsigned),
     KIND_UNSIGNED},
    {"min_bytes", offsetof(cs_config, min_bytes), sizeof(uint64_t), KIND_U64},
    {"start_paused", offsetof(cs_config, start_paused), sizeof(bool),
     KIND_BOOL},
    {"hang_timeout_s", offsetof(cs_config, hang_timeout_s), sizeof(double),
     KIND_DOUBLE},
    {"nvtx", offsetof(cs_config, nvtx), sizeof(bool), KIND_BOOL},
    {"cupti", offsetof(cs_config, cupti), sizeof(bool), KIND_BOOL},
    {"metrics_global_rank", offsetof(cs_config, metrics_global_rank),
     sizeof(bool), KIND_BOOL},
    {"clock", offsetof(cs_config, clock), 16, KIND_TEXT},
    {"direct_io", offsetof(cs_config, direct_io), 8, KIND_TEXT},
    {"host", offsetof(cs_config, host), 16, KIND_TEXT},
    {"roctx", offsetof(cs_config, roctx), 8, KIND_TEXT},
    {"metrics_window_events", offsetof(cs_config, metrics_window_events),
     sizeof(unsigned), KIND_UNSIGNED},
    {"prom_keep", offsetof(cs_config, prom_keep), sizeof(bool), KIND_BOOL},
    {"zstd_level", offsetof(cs_config, zstd_level), sizeof(int), KIND_INT},
    {"binary_trace", offsetof(cs_config, binary_trace), sizeof(bool),
     KIND_BOOL},
};
enum { N_FIELDS = sizeof fields / sizeof fields[0] };

static const field_ref *field_named(const char *name) {
  for (int i = 0; i < N_FIELDS; i++)
    if (strcmp(fields[i].name, name) == 0)
      return &fields[i];
  fail_msg("no field '%s' in the test's table", name);
  return NULL;
}

/* ---- valid values ---- */

/* A field that differs from the defaults: a number, or text for KIND_TEXT
 * and KIND_POINTER. */
typedef struct {
  const char *field;
  double number;
  const char *text;
} expectation;

/* A valid (variable, value): no warning, and the defaults except for the
 * listed fields (none listed: exactly the defaults). */
static const struct {
  const char *var, *value;
  expectation expect[3];
} valid_cases[] = {
    {"CCLSCOPE_MODE", "trace", {{0}}},
    {"CCLSCOPE_MODE",
     "metrics",
     {{"trace", 0, NULL},
      {"metrics", 1, NULL},
      {"mask", CS_MASK_METRICS, NULL}}},
    {"CCLSCOPE_MODE", "trace,metrics", {{"metrics", 1, NULL}}},
    {"CCLSCOPE_MODE", "METRICS,Trace", {{"metrics", 1, NULL}}},
    {"CCLSCOPE_MODE", "off", {{"trace", 0, NULL}}},
    {"CCLSCOPE_MODE", "none", {{"trace", 0, NULL}}},
    {"CCLSCOPE_MASK",
     "coll,p2p",
     {{"mask", 0x6, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "all,-proxyctrl",
     {{"mask", CS_MASK_ALL & ~0x20, NULL},
      {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "default,proxystep",
     {{"mask", CS_MASK_DEFAULT | 0x10, NULL},
      {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "minimal|ProxyOp",
     {{"mask", CS_MASK_MINIMAL | 0x8, NULL},
      {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "none",
     {{"mask", 0, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "0",
     {{"mask", 0, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "coll, p2p",
     {{"mask", 0x6, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "0x10",
     {{"mask", 0x10, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "0X1F",
     {{"mask", 0x1F, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "16",
     {{"mask", 16, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"CCLSCOPE_MASK",
     "2147483647",
     {{"mask", 0x7FFFFFFF, NULL}, {"mask_source", 0, "CCLSCOPE_MASK"}}},
    {"NCCL_PROFILE_EVENT_MASK",
     "4095",
     {{"mask", 4095, NULL}, {"mask_source", 0, "NCCL_PROFILE_EVENT_MASK"}}},
    {"NCCL_PROFILE_EVENT_MASK",
     "0",
     {{"mask", 0, NULL}, {"mask_source", 0, "NCCL_PROFILE_EVENT_MASK"}}},
    {"NCCL_PROFILE_EVENT_MASK",
     "0x10",
     {{"mask", 0x10, NULL}, {"mask_source", 0, "NCCL_PROFILE_EVENT_MASK"}}},
    {"NCCL_PROFILE_EVENT_MASK",
     "0X1F",
     {{"mask", 0x1F, NULL}, {"mask_source", 0, "NCCL_PROFILE_EVENT_MASK"}}},
    {"CCLSCOPE_RING_SIZE", "4K", {{"ring_bytes", 4096, NULL}}},
    {"CCLSCOPE_RING_SIZE", "4096", {{"ring_bytes", 4096, NULL}}},
    {"CCLSCOPE_RING_SIZE", "1M", {{"ring_bytes", 1 << 20, NULL}}},
    {"CCLSCOPE_RING_SIZE", "8MiB", {{"ring_bytes", 8 << 20, NULL}}},
    {"CCLSCOPE_RING_SIZE", "4G", {{"ring_bytes", 4294967296.0, NULL}}},
    {"CCLSCOPE_RING_SIZE", "2gb", {{"ring_bytes", 2147483648.0, NULL}}},
    {"CCLSCOPE_RECLAIM_TIMEOUT", "0.01", {{"reclaim_timeout_s", 0.01, NULL}}},
    {"CCLSCOPE_RECLAIM_TIMEOUT", "2.5", {{"reclaim_timeout_s", 2.5, NULL}}},
    {"CCLSCOPE_RECLAIM_TIMEOUT", ".5", {{"reclaim_timeout_s", 0.5, NULL}}},
    {"CCLSCOPE_RECLAIM_TIMEOUT", "86400", {{"reclaim_timeout_s", 86400, NULL}}},
    {"CCLSCOPE_FLUSH_INTERVAL", "0.25", {{"flush_interval_s", 0.25, NULL}}},
    {"CCLSCOPE_FLUSH_INTERVAL", "3600", {{"flush_interval_s", 3600, NULL}}},
    {"CCLSCOPE_FLUSH_INTERVAL", "007", {{"flush_interval_s", 7, NULL}}},
    {"CCLSCOPE_TIMING_TIMEOUT", "0.1", {{"timing_timeout_s", 0.1, NULL}}},
    {"CCLSCOPE_TIMING_TIMEOUT", "30", {{"timing_timeout_s", 30, NULL}}},
    {"CCLSCOPE_MAX_INFLIGHT", "1000", {{"max_live_events", 1000, NULL}}},
    {"CCLSCOPE_MAX_INFLIGHT",
     "100000000",
     {{"max_live_events", 100000000, NULL}}},
    {"CCLSCOPE_METRICS_WINDOW", "0.05", {{"metrics_window_s", 0.05, NULL}}},
    {"CCLSCOPE_METRICS_WINDOW", "0.2", {{"metrics_window_s", 0.2, NULL}}},
    {"CCLSCOPE_METRICS_WINDOW", "3600", {{"metrics_window_s", 3600, NULL}}},
    {"CCLSCOPE_METRICS_MAX_SERIES", "10", {{"metrics_max_series", 10, NULL}}},
    {"CCLSCOPE_METRICS_MAX_SERIES",
     "1000000",
     {{"metrics_max_series", 1000000, NULL}}},
    {"CCLSCOPE_PROM_ADDR", "0.0.0.0", {{"prom_addr", 0, "0.0.0.0"}}},
    {"CCLSCOPE_PROM_ADDR", "192.168.1.20", {{"prom_addr", 0, "192.168.1.20"}}},
    {"CCLSCOPE_PROM_ADDR", "::1", {{"prom_addr", 0, "::1"}}},
    {"CCLSCOPE_PROM_ADDR", "::", {{"prom_addr", 0, "::"}}},
    {"CCLSCOPE_PROM_ADDR", "fe80::1", {{"prom_addr", 0, "fe80::1"}}},
    {"CCLSCOPE_PROM_ADDR",
     "::ffff:10.0.0.1",
     {{"prom_addr", 0, "::ffff:10.0.0.1"}}},
    {"CCLSCOPE_PROM_PORT", "0", {{0}}},
    {"CCLSCOPE_PROM_PORT", "1", {{"prom_port", 1, NULL}}},
    {"CCLSCOPE_PROM_PORT", "9400", {{"prom_port", 9400, NULL}}},
    {"CCLSCOPE_PROM_PORT", "65535", {{"prom_port", 65535, NULL}}},
    /* OpenTelemetry: an empty value is the same as unset. */
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "", {{0}}},
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "1", {{"otlp_timeout_ms", 1, NULL}}},
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
     "2500",
     {{"otlp_timeout_ms", 2500, NULL}}},
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
     "600000",
     {{"otlp_timeout_ms", 600000, NULL}}},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", "", {{0}}},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", "1", {{"otlp_timeout_ms", 1, NULL}}},
    {"OTEL_EXPORTER_OTLP_TIMEOUT",
     "600000",
     {{"otlp_timeout_ms", 600000, NULL}}},
    {"RANK",
     "0",
     {{"global_rank", 0, NULL}, {"global_rank_source", 0, "RANK"}}},
    {"RANK",
     "2147483646",
     {{"global_rank", 2147483646, NULL}, {"global_rank_source", 0, "RANK"}}},
    {"SLURM_PROCID",
     "5",
     {{"global_rank", 5, NULL}, {"global_rank_source", 0, "SLURM_PROCID"}}},
    {"OMPI_COMM_WORLD_RANK",
     "5",
     {{"global_rank", 5, NULL},
      {"global_rank_source", 0, "OMPI_COMM_WORLD_RANK"}}},
    {"PMIX_RANK",
     "5",
     {{"global_rank", 5, NULL}, {"global_rank_source", 0, "PMIX_RANK"}}},
    {"PMI_RANK",
     "5",
     {{"global_rank", 5, NULL}, {"global_rank_source", 0, "PMI_RANK"}}},
    {"WORLD_SIZE", "64", {{"world_size", 64, NULL}}},
    {"SLURM_NTASKS", "1", {{"world_size", 1, NULL}}},
    {"OMPI_COMM_WORLD_SIZE", "8", {{"world_size", 8, NULL}}},
    {"PMI_SIZE", "8", {{"world_size", 8, NULL}}},
    {"LOCAL_RANK", "0", {{"local_rank", 0, NULL}}},
    {"LOCAL_RANK", "7", {{"local_rank", 7, NULL}}},
    {"LOCAL_RANK", "65535", {{"local_rank", 65535, NULL}}},
    {"SLURM_LOCALID", "3", {{"local_rank", 3, NULL}}},
    {"OMPI_COMM_WORLD_LOCAL_RANK", "3", {{"local_rank", 3, NULL}}},
    {"MPI_LOCALRANKID", "3", {{"local_rank", 3, NULL}}},
    {"CCLSCOPE_EXIT_DEADLINE", "0", {{"exit_deadline_s", 0, NULL}}},
    {"CCLSCOPE_EXIT_DEADLINE", "0.25", {{"exit_deadline_s", 0.25, NULL}}},
    {"CCLSCOPE_EXIT_DEADLINE", "1.5", {{"exit_deadline_s", 1.5, NULL}}},
    {"CCLSCOPE_EXIT_DEADLINE", "60", {{"exit_deadline_s", 60, NULL}}},
    {"CCLSCOPE_SUMMARY", "stderr", {{"summary", 0, "stderr"}}},
    {"CCLSCOPE_SUMMARY", "off", {{"summary", 0, "off"}}},
    {"CCLSCOPE_SUMMARY", "LOG", {{0}}},
    {"CCLSCOPE_CLOCK", "tsc", {{"clock", 0, "tsc"}}},
    {"CCLSCOPE_CLOCK", "Monotonic", {{"clock", 0, "monotonic"}}},
    {"CCLSCOPE_CLOCK", "auto", {{0}}},
    {"CCLSCOPE_DIRECT_IO", "on", {{"direct_io", 0, "on"}}},
    {"CCLSCOPE_DIRECT_IO", "1", {{"direct_io", 0, "on"}}},
    {"CCLSCOPE_DIRECT_IO", "TRUE", {{"direct_io", 0, "on"}}},
    {"CCLSCOPE_DIRECT_IO", "off", {{"direct_io", 0, "off"}}},
    {"CCLSCOPE_DIRECT_IO", "no", {{"direct_io", 0, "off"}}},
    {"CCLSCOPE_DIRECT_IO", "auto", {{0}}},
    {"CCLSCOPE_HOST", "nccl", {{"host", 0, "nccl"}}},
    {"CCLSCOPE_HOST", "RCCL", {{"host", 0, "rccl"}}},
    {"CCLSCOPE_COMPRESS", "", {{0}}},
    {"CCLSCOPE_COMPRESS", "none", {{0}}},
    {"CCLSCOPE_COMPRESS", "zstd", {{"zstd_level", 1, NULL}}},
    {"CCLSCOPE_COMPRESS", "ZSTD", {{"zstd_level", 1, NULL}}},
    {"CCLSCOPE_COMPRESS", "zstd:3", {{"zstd_level", 3, NULL}}},
    {"CCLSCOPE_COMPRESS", "zstd:19", {{"zstd_level", 19, NULL}}},
    {"CCLSCOPE_COMPRESS", "zstd:-1", {{"zstd_level", -1, NULL}}},
    {"CCLSCOPE_COMPRESS", "zstd:-5", {{"zstd_level", -5, NULL}}},
    {"CCLSCOPE_FORMAT", "", {{0}}},
    {"CCLSCOPE_FORMAT", "jsonl", {{0}}},
    {"CCLSCOPE_FORMAT", "JSONL", {{0}}},
    {"CCLSCOPE_FORMAT", "binary", {{"binary_trace", 1, NULL}}},
    {"CCLSCOPE_FORMAT", "Binary", {{"binary_trace", 1, NULL}}},
    {"CCLSCOPE_SAMPLE",
     "10",
     {{"sample_coll", 10, NULL}, {"sample_p2p", 10, NULL}}},
    {"CCLSCOPE_SAMPLE",
     "1000000000",
     {{"sample_coll", 1e9, NULL}, {"sample_p2p", 1e9, NULL}}},
    {"CCLSCOPE_SAMPLE_P2P", "7", {{"sample_p2p", 7, NULL}}},
    {"CCLSCOPE_SAMPLE_STEPS", "2", {{"sample_steps", 2, NULL}}},
    {"CCLSCOPE_MIN_BYTES", "0", {{0}}},
    {"CCLSCOPE_MIN_BYTES", "64K", {{"min_bytes", 65536, NULL}}},
    {"CCLSCOPE_MIN_BYTES", "100k", {{"min_bytes", 102400, NULL}}},
    {"CCLSCOPE_MIN_BYTES", "1GiB", {{"min_bytes", 1073741824.0, NULL}}},
    /* 2^64 - 2^30: the largest size with a suffix, exact in a double. */
    {"CCLSCOPE_MIN_BYTES",
     "17179869183G",
     {{"min_bytes", 18446744072635809792.0, NULL}}},
    {"CCLSCOPE_START", "paused", {{"start_paused", 1, NULL}}},
    {"CCLSCOPE_START", "Recording", {{0}}},
    {"CCLSCOPE_HANG_TIMEOUT", "0", {{"hang_timeout_s", 0, NULL}}},
    {"CCLSCOPE_HANG_TIMEOUT", "0.1", {{"hang_timeout_s", 0.1, NULL}}},
    {"CCLSCOPE_HANG_TIMEOUT", "600", {{"hang_timeout_s", 600, NULL}}},
    {"CCLSCOPE_HANG_TIMEOUT", "86400", {{"hang_timeout_s", 86400, NULL}}},
    {"CCLSCOPE_NVTX", "1", {{"nvtx", 1, NULL}}},
    {"CCLSCOPE_NVTX", "yes", {{"nvtx", 1, NULL}}},
    {"CCLSCOPE_NVTX", "True", {{"nvtx", 1, NULL}}},
    {"CCLSCOPE_NVTX", "on", {{"nvtx", 1, NULL}}},
    {"CCLSCOPE_NVTX", "0", {{0}}},
    {"CCLSCOPE_NVTX", "off", {{0}}},
    {"CCLSCOPE_CUPTI", "1", {{"cupti", 1, NULL}}},
    {"CCLSCOPE_METRICS_GLOBAL_RANK", "1", {{"metrics_global_rank", 1, NULL}}},
    {"CCLSCOPE_METRICS_GLOBAL_RANK", "off", {{0}}},
    {"CCLSCOPE_METRICS_WINDOW_EVENTS", "0", {{0}}},
    {"CCLSCOPE_METRICS_WINDOW_EVENTS",
     "50000",
     {{"metrics_window_events", 50000, NULL}}},
    {"NCCL_PROFILER_OTEL_TELEMETRY_INTERVAL_SEC",
     "2",
     {{"metrics_window_s", 2, NULL}}},
    {"CCLSCOPE_PROM_KEEP", "1", {{"prom_keep", 1, NULL}}},
    {"CCLSCOPE_PROM_KEEP", "no", {{0}}},
    {"CCLSCOPE_CUPTI", "false", {{0}}},
    {"CCLSCOPE_ROCTX", "1", {{"roctx", 0, "on"}}},
    {"CCLSCOPE_ROCTX", "on", {{"roctx", 0, "on"}}},
    {"CCLSCOPE_ROCTX", "Yes", {{"roctx", 0, "on"}}},
    {"CCLSCOPE_ROCTX", "TRUE", {{"roctx", 0, "on"}}},
    {"CCLSCOPE_ROCTX", "force", {{"roctx", 0, "force"}}},
    {"CCLSCOPE_ROCTX", "Force", {{"roctx", 0, "force"}}},
    {"CCLSCOPE_ROCTX", "0", {{0}}},
    {"CCLSCOPE_ROCTX", "off", {{0}}},
    {"CCLSCOPE_ROCTX", "false", {{0}}},
};
enum { N_VALID = sizeof valid_cases / sizeof valid_cases[0] };

static bool listed_as_valid(const char *var, const char *value) {
  for (int i = 0; i < N_VALID; i++)
    if (strcmp(valid_cases[i].var, var) == 0 &&
        strcmp(valid_cases[i].value, value) == 0)
      return true;
  return false;
}

/* ---- what the plugin logs ---- */

static struct {
  int warnings, others, logger_warnings;
  char last_warning[2048];
} logged;

/* NCCL's logger: information only. A WARN through it would be hidden by
 * NCCL's default subsystem mask and replace NCCL's last error. */
__attribute__((format(printf, 5, 6))) static void
count_messages(ncclDebugLogLevel level, unsigned long flags, const char *file,
               int line, const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  (void)fmt;
  if (level == NCCL_LOG_WARN)
    logged.logger_warnings++;
  else
    logged.others++;
}

/* The warning sink (stderr in production). */
static void count_warning(const char *text) {
  logged.warnings++;
  snprintf(logged.last_warning, sizeof logged.last_warning, "%s", text);
}

static void forget_messages(void) {
  memset(&logged, 0, sizeof logged);
}

/* ---- which variables cs_config_load reads ---- */

char *__real_getenv(const char *name);
char *__wrap_getenv(const char *name);

static struct {
  bool on;
  int count;
  char names[96][64];
} reads;

char *__wrap_getenv(const char *name) {
  if (reads.on && reads.count < 96)
    snprintf(reads.names[reads.count++], sizeof reads.names[0], "%s", name);
  return __real_getenv(name);
}

/* ---- environment and comparison ---- */

static void clean_environment(void) {
  for (int i = 0; i < N_CHECKED; i++)
    unsetenv(checked_variables[i]);
  for (int i = 0; i < N_FREE_TEXT; i++)
    unsetenv(free_text_variables[i]);
}

/* Load with `var` set to `value` (NULL: nothing set) in an otherwise clean
 * environment; the variable is unset again afterwards. */
static void load_with(const char *var, const char *value, cs_config *c) {
  clean_environment();
  if (var)
    setenv(var, value, 1);
  forget_messages();
  cs_config_load(c);
  if (var)
    unsetenv(var);
}

static void set_field(cs_config *c, const field_ref *f, const expectation *e) {
  char *at = (char *)c + f->offset;
  switch (f->kind) {
  case KIND_BOOL:
    *(bool *)at = e->number != 0;
    break;
  case KIND_INT:
    *(int *)at = (int)e->number;
    break;
  case KIND_UNSIGNED:
    *(unsigned *)at = (unsigned)e->number;
    break;
  case KIND_LONG:
    *(long *)at = (long)e->number;
    break;
  case KIND_SIZE:
    *(size_t *)at = (size_t)e->number;
    break;
  case KIND_U64:
    *(uint64_t *)at = (uint64_t)e->number;
    break;
  case KIND_DOUBLE:
    *(double *)at = e->number;
    break;
  case KIND_TEXT:
    memset(at, 0, f->size);
    snprintf(at, f->size, "%s", e->text);
    break;
  case KIND_POINTER:
    *(const char **)at = e->text;
    break;
  case KIND_RUN_NAME:
    fail_msg("%s is not something a case expects", f->name);
  }
}

/* Field `f` as text, for messages. */
static void describe_field(const cs_config *c, const field_ref *f, char *out,
                           size_t outlen) {
  const char *at = (const char *)c + f->offset;
  switch (f->kind) {
  case KIND_BOOL:
    snprintf(out, outlen, "%d", *(const bool *)at);
    break;
  case KIND_INT:
    snprintf(out, outlen, "%d", *(const int *)at);
    break;
  case KIND_UNSIGNED:
    snprintf(out, outlen, "%u", *(const unsigned *)at);
    break;
  case KIND_LONG:
    snprintf(out, outlen, "%ld", *(const long *)at);
    break;
  case KIND_SIZE:
    snprintf(out, outlen, "%zu", *(const size_t *)at);
    break;
  case KIND_U64:
    snprintf(out, outlen, "%llu", (unsigned long long)*(const uint64_t *)at);
    break;
  case KIND_DOUBLE:
    snprintf(out, outlen, "%.17g", *(const double *)at);
    break;
  case KIND_TEXT:
  case KIND_RUN_NAME:
    snprintf(out, outlen, "'%.*s'", (int)f->size, at);
    break;
  case KIND_POINTER: {
    const char *p = *(const char *const *)at;
    snprintf(out, outlen, "'%s'", p ? p : "(null)");
    break;
  }
  }
}

/* A copy of `c` with the bytes after each text field's terminator zeroed
 * and mask_source and the run name compared apart, so that memcmp sees
 * every other byte, including fields a later change adds to cs_config
 * without adding them to `fields`. */
static void normalized(const cs_config *c, cs_config *out) {
  memcpy(out, c, sizeof *out);
  for (int i = 0; i < N_FIELDS; i++) {
    char *at = (char *)out + fields[i].offset;
    if (fields[i].kind == KIND_TEXT) {
      size_t len = strnlen(at, fields[i].size);
      memset(at + len, 0, fields[i].size - len);
    } else if (fields[i].kind == KIND_RUN_NAME) {
      memset(at, 0, fields[i].size);
    } else if (fields[i].kind == KIND_POINTER) {
      memset(at, 0, fields[i].size);
    }
  }
}

static bool field_equal(const cs_config *a, const cs_config *b,
                        const field_ref *f) {
  const char *x = (const char *)a + f->offset, *y = (const char *)b + f->offset;
  switch (f->kind) {
  case KIND_TEXT:
    return strncmp(x, y, f->size) == 0;
  case KIND_POINTER: {
    const char *p = *(const char *const *)x, *q = *(const char *const *)y;
    return p && q ? strcmp(p, q) == 0 : p == q;
  }
  case KIND_RUN_NAME:
    return true; /* checked apart (assert_config_equal) */
  default:
    return memcmp(x, y, f->size) == 0;
  }
}

/* Every field of `got` equals `want`'s; `context` names the case. */
static void assert_config_equal(const cs_config *want, const cs_config *got,
                                const char *context) {
  for (int i = 0; i < N_FIELDS; i++) {
    if (field_equal(want, got, &fields[i]))
      continue;
    char w[300], g[300];
    describe_field(want, &fields[i], w, sizeof w);
    describe_field(got, &fields[i], g, sizeof g);
    fail_msg("%s: %s is %s, expected %s", context, fields[i].name, g, w);
  }
  /* With no launcher variable and no CCLSCOPE_DIR, the run and its folder
   * are named at the first init (cs_config_name_run), not here. */
  if (got->run_id[0] || got->dir[0])
    fail_msg("%s: run_id '%s' and dir '%s' named before the first init",
             context, got->run_id, got->dir);
  cs_config a, b;
  normalized(want, &a);
  normalized(got, &b);
  if (memcmp(&a, &b, sizeof a) != 0)
    fail_msg("%s: a field missing from the test's table differs", context);
}

/* The value as the warning shows it: control characters as '?', at most 64
 * characters. */
static void shown_value(const char *value, char *out, size_t outlen) {
  size_t n = 0;
  for (; value[n] && n < 64 && n + 1 < outlen; n++)
    out[n] =
        (unsigned char)value[n] < 0x20 || value[n] == 0x7F ? '?' : value[n];
  out[n] = '\0';
}

/* Exactly one warning, naming the variable and the value, saying it is
 * invalid and what is used instead. */
static void assert_one_warning(const char *var, const char *value,
                               const char *context) {
  if (logged.warnings != 1)
    fail_msg("%s: %d warnings, expected exactly one (last: %s)", context,
             logged.warnings, logged.last_warning);
  char shown[80], named[256];
  shown_value(value, shown, sizeof shown);
  snprintf(named, sizeof named, "%s='%s", var, shown);
  const char *msg = logged.last_warning;
  if (!strstr(msg, named) || !strstr(msg, "is invalid (") ||
      !strstr(msg, "); using "))
    fail_msg("%s: the warning '%s' does not name %s", context, msg, named);
}

static void describe_case(const char *var, const char *value, char *out,
                          size_t outlen) {
  snprintf(out, outlen, "%s='%.40s'%s", var, value,
           strlen(value) > 40 ? "..." : "");
}

static int setup(void **state) {
  (void)state;
  cs_log_set_logger(count_messages);
  cs_log_set_warning_sink(count_warning);
  clean_environment();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  clean_environment();
  assert_int_equal(logged.logger_warnings, 0);
  cs_log_set_warning_sink(NULL);
  cs_log_forget_logger();
  return 0;
}

/* ---- the tests ---- */

/* Every variable cs_config_load reads is in one of the tables above, and
 * every variable the table probes is really read. */
static void test_tables_cover_every_variable_read(void **state) {
  (void)state;
  cs_config c;
  clean_environment();
  memset(&reads, 0, sizeof reads);
  reads.on = true;
  cs_config_load(&c);
  reads.on = false;
  assert_true(reads.count < 96);
  for (int r = 0; r < reads.count; r++) {
    bool known = false;
    for (int i = 0; i < N_CHECKED && !known; i++)
      known = strcmp(reads.names[r], checked_variables[i]) == 0;
    for (int i = 0; i < N_FREE_TEXT && !known; i++)
      known = strcmp(reads.names[r], free_text_variables[i]) == 0;
    if (!known)
      fail_msg("cs_config_load reads %s, which this test does not check",
               reads.names[r]);
  }
  for (int i = 0; i < N_CHECKED; i++) {
    bool read = false;
    for (int r = 0; r < reads.count && !read; r++)
      read = strcmp(reads.names[r], checked_variables[i]) == 0;
    if (!read)
      fail_msg("%s is in the table but cs_config_load never reads it",
               checked_variables[i]);
  }
  for (int i = 0; i < N_BAD_FOR_ONE; i++) {
    bool listed = false;
    for (int v = 0; v < N_CHECKED && !listed; v++)
      listed = strcmp(bad_for_one[i].var, checked_variables[v]) == 0;
    assert_true(listed);
  }
}

/* The documented defaults, from a clean environment, with no message. */
static void test_defaults(void **state) {
  (void)state;
  cs_config c;
  load_with(NULL, NULL, &c);
  assert_int_equal(logged.warnings, 0);
  assert_true(c.trace);
  assert_false(c.metrics);
  assert_int_equal(c.mask, CS_MASK_DEFAULT);
  assert_string_equal(c.mask_source, "default");
  assert_int_equal(c.ring_bytes, 4u << 20);
  assert_true(c.reclaim_timeout_s == 5.0);
  assert_true(c.flush_interval_s == 1.0);
  assert_true(c.timing_timeout_s == 10.0);
  assert_int_equal(c.max_live_events, 1000000);
  assert_true(c.metrics_window_s == 5.0);
  assert_int_equal(c.metrics_max_series, 2000);
  assert_string_equal(c.prom_file, "");
  assert_string_equal(c.prom_addr, "127.0.0.1");
  assert_int_equal(c.prom_port, 0);
  assert_int_equal(c.otlp_timeout_ms, 10000);
  assert_int_equal(c.local_rank, -1);
  assert_int_equal(c.global_rank, -1);
  assert_string_equal(c.global_rank_source, "");
  assert_int_equal(c.world_size, -1);
  assert_true(c.exit_deadline_s == 1.0);
  assert_string_equal(c.summary, "log");
  assert_int_equal(c.sample_coll, 1);
  assert_int_equal(c.sample_p2p, 1);
  assert_int_equal(c.sample_steps, 1);
  assert_int_equal(c.min_bytes, 0);
  assert_false(c.start_paused);
  assert_true(c.hang_timeout_s == 60.0);
  assert_false(c.nvtx);
  assert_false(c.cupti);
  assert_string_equal(c.roctx, "off");
  assert_string_equal(c.clock, "auto");
  assert_string_equal(c.direct_io, "auto");
  assert_string_equal(c.host, "auto");
}

/* One bad value: one warning naming it, and the defaults everywhere. */
static void check_bad_value(const cs_config *defaults, const char *var,
                            const char *value) {
  char context[160];
  cs_config got;
  describe_case(var, value, context, sizeof context);
  load_with(var, value, &got);
  assert_one_warning(var, value, context);
  assert_config_equal(defaults, &got, context);
}

static void test_bad_values_warn_once_and_keep_defaults(void **state) {
  (void)state;
  cs_config defaults;
  load_with(NULL, NULL, &defaults);
  int checked = 0;
  for (int v = 0; v < N_CHECKED; v++) {
    for (int b = 0; b < N_BAD; b++) {
      if (listed_as_valid(checked_variables[v], bad_values[b]))
        continue;
      check_bad_value(&defaults, checked_variables[v], bad_values[b]);
      checked++;
    }
  }
  for (int i = 0; i < N_BAD_FOR_ONE; i++) {
    for (int b = 0; b < MAX_BAD_FOR_ONE && bad_for_one[i].values[b]; b++) {
      assert_false(
          listed_as_valid(bad_for_one[i].var, bad_for_one[i].values[b]));
      check_bad_value(&defaults, bad_for_one[i].var, bad_for_one[i].values[b]);
      checked++;
    }
  }
  /* Nearly every variable × probe is bad: the exceptions are few. */
  assert_true(checked > N_CHECKED * (N_BAD - 2));
}

/* Values far longer than any buffer: one warning, the value cut short. */
static void test_very_long_values(void **state) {
  (void)state;
  enum { LONG = 5000 };
  static char digits[LONG + 1], letters[LONG + 1];
  memset(digits, '7', LONG);
  memset(letters, 'x', LONG);
  cs_config defaults, got;
  load_with(NULL, NULL, &defaults);
  const char *const values[] = {digits, letters};
  for (int v = 0; v < N_CHECKED; v++) {
    for (int k = 0; k < 2; k++) {
      char context[160];
      describe_case(checked_variables[v], values[k], context, sizeof context);
      load_with(checked_variables[v], values[k], &got);
      assert_one_warning(checked_variables[v], values[k], context);
      assert_config_equal(&defaults, &got, context);
      assert_non_null(strstr(logged.last_warning, "...' (5000 characters)"));
      assert_true(strlen(logged.last_warning) < 600);
    }
  }
}

static void test_valid_values_parse(void **state) {
  (void)state;
  cs_config defaults;
  load_with(NULL, NULL, &defaults);
  for (int i = 0; i < N_VALID; i++) {
    char context[160];
    cs_config want = defaults, got;
    describe_case(valid_cases[i].var, valid_cases[i].value, context,
                  sizeof context);
    for (int e = 0; e < 3 && valid_cases[i].expect[e].field; e++)
      set_field(&want, field_named(valid_cases[i].expect[e].field),
                &valid_cases[i].expect[e]);
    load_with(valid_cases[i].var, valid_cases[i].value, &got);
    if (logged.warnings != 0)
      fail_msg("%s: unexpected warning: %s", context, logged.last_warning);
    assert_config_equal(&want, &got, context);
  }
}

/* Settings read from several variables: which one wins, and a bad one is
 * treated as unset (one warning naming what was used instead). */
static void test_alternatives(void **state) {
  (void)state;
  cs_config c;

  clean_environment();
  setenv("LOCAL_RANK", "junk", 1);
  setenv("SLURM_LOCALID", "3", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.local_rank, 3);
  assert_one_warning("LOCAL_RANK", "junk", "LOCAL_RANK=junk SLURM_LOCALID=3");
  assert_non_null(strstr(logged.last_warning, "using 3 from SLURM_LOCALID"));

  /* torchrun's RANK over SLURM's task id (one task per node under
   * torchrun: SLURM_PROCID is the node's index). */
  clean_environment();
  setenv("SLURM_PROCID", "1", 1);
  setenv("RANK", "9", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.global_rank, 9);
  assert_string_equal(c.global_rank_source, "RANK");
  assert_int_equal(logged.warnings, 0);

  /* The first set one wins; later ones are not read. */
  clean_environment();
  setenv("LOCAL_RANK", "1", 1);
  setenv("MPI_LOCALRANKID", "junk", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.local_rank, 1);
  assert_int_equal(logged.warnings, 0);

  clean_environment();
  setenv("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "500", 1);
  setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2000", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.otlp_timeout_ms, 500);
  assert_int_equal(logged.warnings, 0);

  setenv("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.otlp_timeout_ms, 2000);
  assert_int_equal(logged.warnings, 0);

  setenv("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "nan", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.otlp_timeout_ms, 2000);
  assert_one_warning("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "nan",
                     "OTEL metrics timeout nan");
  assert_non_null(strstr(logged.last_warning,
                         "using 2000 from OTEL_EXPORTER_OTLP_TIMEOUT"));

  /* Both bad: one warning each, the default. */
  setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "-1", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.otlp_timeout_ms, 10000);
  assert_int_equal(logged.warnings, 2);

  /* CCLSCOPE_MASK wins over NCCL_PROFILE_EVENT_MASK, even when bad. */
  clean_environment();
  setenv("CCLSCOPE_MASK", "coll", 1);
  setenv("NCCL_PROFILE_EVENT_MASK", "4095", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.mask, 0x2);
  setenv("CCLSCOPE_MASK", "-1", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.mask, CS_MASK_DEFAULT);
  assert_string_equal(c.mask_source, "default");
  assert_one_warning("CCLSCOPE_MASK", "-1", "CCLSCOPE_MASK=-1");

  /* Metrics only with an explicit mask keeps that mask. */
  clean_environment();
  setenv("CCLSCOPE_MODE", "metrics", 1);
  setenv("CCLSCOPE_MASK", "all", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.mask, CS_MASK_ALL);
  /* ... and a bad mask falls back to the metrics preset, the default
   * there. */
  setenv("CCLSCOPE_MASK", "coll,-coll", 1);
  forget_messages();
  cs_config_load(&c);
  assert_int_equal(c.mask, CS_MASK_METRICS);
  assert_int_equal(logged.warnings, 1);
  assert_non_null(strstr(logged.last_warning, "write none"));
  clean_environment();
}

/* The readers on their own: each form and each reason. */
static void test_strict_readers(void **state) {
  (void)state;
  static const struct {
    const char *text;
    cs_parse_result result;
    double value;
  } decimals[] = {
      {"5", CS_PARSE_OK, 5},
      {"0.25", CS_PARSE_OK, 0.25},
      {".5", CS_PARSE_OK, 0.5},
      {"0.1", CS_PARSE_OK, 0.1},
      {"1.1", CS_PARSE_OK, 1.1},
      {"0.01", CS_PARSE_OK, 0.01},
      /* Digits beyond the 15th of the fraction are read, not used. */
      {"0.1000000000000000001", CS_PARSE_OK, 0.1},
      {"", CS_PARSE_EMPTY, 0},
      {" 5", CS_PARSE_SPACE, 0},
      {"5\t", CS_PARSE_SPACE, 0},
      {"-0", CS_PARSE_SIGN, 0},
      {"+1", CS_PARSE_SIGN, 0},
      {"nan", CS_PARSE_MALFORMED, 0},
      {"infinity", CS_PARSE_MALFORMED, 0},
      {"0x10", CS_PARSE_MALFORMED, 0},
      {"0x1p3", CS_PARSE_MALFORMED, 0},
      {"1e3", CS_PARSE_MALFORMED, 0},
      {"5.", CS_PARSE_MALFORMED, 0},
      {".", CS_PARSE_MALFORMED, 0},
      {"1..2", CS_PARSE_MALFORMED, 0},
      {"1,5", CS_PARSE_MALFORMED, 0},
      {"1000.5", CS_PARSE_RANGE, 0},
      {"99999999999999999999", CS_PARSE_RANGE, 0},
  };
  for (size_t i = 0; i < sizeof decimals / sizeof decimals[0]; i++) {
    double v = -1;
    cs_parse_result r = cs_parse_decimal(decimals[i].text, 0, 1000, &v);
    if (r != decimals[i].result)
      fail_msg("decimal '%s': %s", decimals[i].text, cs_parse_problem(r));
    if (r == CS_PARSE_OK && v != decimals[i].value)
      fail_msg("decimal '%s' read as %.17g", decimals[i].text, v);
    if (r != CS_PARSE_OK)
      assert_true(v == -1); /* untouched */
  }
  /* Thousands of digits: out of range, not a crash or a wrap. */
  static char many[4001];
  memset(many, '9', 4000);
  double d;
  assert_int_equal(cs_parse_decimal(many, 0, 1e308, &d), CS_PARSE_RANGE);

  static const struct {
    const char *text;
    cs_parse_result result;
    uint64_t value;
  } wholes[] = {
      {"0", CS_PARSE_OK, 0},
      {"007", CS_PARSE_OK, 7},
      {"18446744073709551615", CS_PARSE_OK, UINT64_MAX},
      {"18446744073709551616", CS_PARSE_RANGE, 0},
      {"99999999999999999999", CS_PARSE_RANGE, 0},
      {"1.0", CS_PARSE_MALFORMED, 0},
      {"1e3", CS_PARSE_MALFORMED, 0},
      {"0x10", CS_PARSE_MALFORMED, 0},
      {"-1", CS_PARSE_SIGN, 0},
      {"5 ", CS_PARSE_SPACE, 0},
      {"", CS_PARSE_EMPTY, 0},
  };
  for (size_t i = 0; i < sizeof wholes / sizeof wholes[0]; i++) {
    uint64_t v = 42;
    cs_parse_result r = cs_parse_whole(wholes[i].text, 0, UINT64_MAX, &v);
    if (r != wholes[i].result)
      fail_msg("whole '%s': %s", wholes[i].text, cs_parse_problem(r));
    assert_int_equal(v, r == CS_PARSE_OK ? wholes[i].value : 42);
  }
  uint64_t n;
  assert_int_equal(cs_parse_whole("9", 10, 20, &n), CS_PARSE_RANGE);
  assert_int_equal(cs_parse_whole("21", 10, 20, &n), CS_PARSE_RANGE);

  assert_int_equal(cs_parse_whole_or_hex("0x7FFFFFFF", 0x7FFFFFFF, &n),
                   CS_PARSE_OK);
  assert_int_equal(n, 0x7FFFFFFF);
  assert_int_equal(cs_parse_whole_or_hex("0xffffffffffffffff", UINT64_MAX, &n),
                   CS_PARSE_OK);
  assert_int_equal(n, UINT64_MAX);
  assert_int_equal(cs_parse_whole_or_hex("0x10000000000000000", UINT64_MAX, &n),
                   CS_PARSE_RANGE);
  assert_int_equal(cs_parse_whole_or_hex("0x80000000", 0x7FFFFFFF, &n),
                   CS_PARSE_RANGE);
  assert_int_equal(cs_parse_whole_or_hex("0x", 0x7FFFFFFF, &n),
                   CS_PARSE_MALFORMED);
  assert_int_equal(cs_parse_whole_or_hex("0xg", 0x7FFFFFFF, &n),
                   CS_PARSE_MALFORMED);
  assert_int_equal(cs_parse_whole_or_hex("-0x1", 0x7FFFFFFF, &n),
                   CS_PARSE_SIGN);

  assert_int_equal(cs_parse_size("4M", 0, UINT64_MAX, &n), CS_PARSE_OK);
  assert_int_equal(n, 4u << 20);
  assert_int_equal(cs_parse_size("99999999999G", 0, UINT64_MAX, &n),
                   CS_PARSE_RANGE);
  assert_int_equal(cs_parse_size("-4K", 0, UINT64_MAX, &n), CS_PARSE_SIGN);
  assert_int_equal(cs_parse_size("4K ", 0, UINT64_MAX, &n), CS_PARSE_SPACE);
  assert_int_equal(cs_parse_size("nan", 0, UINT64_MAX, &n), CS_PARSE_MALFORMED);
  assert_int_equal(cs_parse_size("4K", 8192, UINT64_MAX, &n), CS_PARSE_RANGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tables_cover_every_variable_read),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_bad_values_warn_once_and_keep_defaults),
      cmocka_unit_test(test_very_long_values),
      cmocka_unit_test(test_valid_values_parse),
      cmocka_unit_test(test_alternatives),
      cmocka_unit_test(test_strict_readers),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
