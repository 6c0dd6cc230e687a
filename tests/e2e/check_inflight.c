/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/e2e/check_inflight.c — validate the hang watchdog's in-flight
 * snapshots (inflight_*.json) of a run.
 *
 * usage: check_inflight DIR NPROCS FUNC SEQ MAX_DELAY_S
 *   exactly NPROCS snapshots; each has reason "hang", its communicators,
 *   and a hung operation FUNC seqNumber SEQ with events in flight and a
 *   waiting event; it was written at most MAX_DELAY_S after that
 *   operation's last sign of life (the timeout plus the scan delay).
 */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static int failures;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAIL: " __VA_ARGS__);                                            \
      printf("\n");                                                            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = '\0';
  fclose(f);
  return buf;
}

static void check_file(const char *path, const char *func, double seq,
                       double max_delay) {
  char *text = slurp(path);
  cJSON *s = text ? cJSON_Parse(text) : NULL;
  free(text);
  CHECK(s, "%s is not JSON", path);
  if (!s)
    return;
  CHECK(strcmp(str(s, "recordType"), "inflight") == 0, "%s: recordType", path);
  CHECK(strcmp(str(s, "reason"), "hang") == 0, "%s: reason '%s'", path,
        str(s, "reason"));
  CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(s, "communicators")) > 0,
        "%s: no communicators", path);
  const cJSON *op;
  bool found = false;
  cJSON_ArrayForEach(op, cJSON_GetObjectItem(s, "operations")) {
    if (strcmp(str(op, "func"), func) != 0 || num(op, "seqNumber") != seq)
      continue;
    found = true;
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(op, "hung")), "%s: not hung", path);
    CHECK(num(op, "eventsInFlight") > 0, "%s: no events in flight", path);
    /* the call's arguments, compared across ranks by `cclscope hang` */
    CHECK(num(op, "count") > 0 && str(op, "datatype")[0] &&
              cJSON_IsNumber(cJSON_GetObjectItem(op, "root")),
          "%s: no count, datatype or root", path);
    const cJSON *w = cJSON_GetObjectItem(op, "waitingEvent");
    CHECK(cJSON_IsObject(w), "%s: no waitingEvent", path);
    double delay = (num(s, "ts") - num(op, "lastProgress")) / 1e6;
    CHECK(delay <= max_delay,
          "%s: reported %.3f s after the last progress "
          "(max %.3f)",
          path, delay, max_delay);
    printf("ok: %s: rank %.0f %s seq %.0f hung, reported %.3f s after its "
           "last progress; waiting: %s\n",
           strrchr(path, '/') + 1, num(op, "rank"), func, seq, delay,
           str(op, "waiting"));
  }
  CHECK(found, "%s: no operation %s seqNumber %.0f", path, func, seq);
  cJSON_Delete(s);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: check_inflight DIR NPROCS FUNC SEQ MAX_DELAY_S\n");
    return 2;
  }
  DIR *d = opendir(argv[1]);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, "inflight_", 9) != 0 ||
        !strstr(e->d_name, ".json") || strstr(e->d_name, ".tmp"))
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    check_file(path, argv[3], atof(argv[4]), atof(argv[5]));
    n++;
  }
  if (d)
    closedir(d);
  CHECK(n == atoi(argv[2]), "%d snapshots, expected %s", n, argv[2]);
  return failures ? 1 : 0;
}
