/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/prom_textfile.c — see prom_textfile.h.
 */
#include "prom_textfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "run_name.h"

#define OWN_DIR_SETTING "the Prometheus textfile folder"

/* CCLSCOPE_PROM_FILE or _DIR: split the path into its folder (opened once)
 * and the file's name. False (warned) when there is no usable name. */
static bool start_own_folder(cs_prom_textfile *p, const char *prom_file) {
  char dir[PATH_MAX];
  const char *slash = strrchr(prom_file, '/');
  const char *name = slash ? slash + 1 : prom_file;
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == prom_file)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - prom_file), prom_file);
  if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
      strlen(name) > NAME_MAX) {
    cs_log_warn_once(CS_ONCE_EXPORTER,
                     "the metrics file '%s' does not end with a file name; no "
                     "textfile is written",
                     prom_file);
    return false;
  }
  snprintf(p->name, sizeof p->name, "%s", name);
  snprintf(p->path, sizeof p->path, "%s", prom_file);
  cs_out_dir_init(&p->own_dir, dir, OWN_DIR_SETTING);
  p->dir = &p->own_dir;
  return cs_out_dir_open(p->dir); /* its folder may not exist yet */
}

void cs_prom_textfile_start(cs_prom_textfile *p, const char *prom_file,
                            bool default_wanted, cs_out_dir *out_dir,
                            const cs_trace_env *env) {
  memset(p, 0, sizeof *p);
  p->own_dir.fd = -1;
  if (prom_file && prom_file[0]) {
    if (!start_own_folder(p, prom_file))
      cs_prom_textfile_stop(p);
    return;
  }
  if (!default_wanted)
    return;
  /* Nothing configured: a textfile next to the traces. */
  cs_run_file_stem(p->name, sizeof p->name, "metrics", env->run_id,
                   env->file_rank, env->hostname, env->pid, ".prom");
  snprintf(p->path, sizeof p->path, "%s/%s", out_dir->path, p->name);
  p->dir = out_dir;
  if (!cs_out_dir_open(p->dir))
    p->dir = NULL;
}

void cs_prom_textfile_write(cs_prom_textfile *p, const char *text, size_t len) {
  if (!p->dir || cs_out_dir_replace(p->dir, p->name, text, len))
    return;
  cs_log_warn_once(CS_ONCE_EXPORTER, "cannot write metrics file '%s' (%s)",
                   p->path, strerror(errno));
}

void cs_prom_textfile_remove(cs_prom_textfile *p) {
  if (p->dir == &p->own_dir && p->own_dir.fd >= 0 &&
      unlinkat(p->own_dir.fd, p->name, 0) != 0 && errno != ENOENT)
    cs_log_warn_once(CS_ONCE_EXPORTER, "cannot remove metrics file '%s' (%s)",
                     p->path, strerror(errno));
  cs_prom_textfile_stop(p);
}

void cs_prom_textfile_stop(cs_prom_textfile *p) {
  if (p->dir == &p->own_dir)
    cs_out_dir_close(&p->own_dir);
  p->dir = NULL;
}
