/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_page.c — see view_page.h.
 */
#include "view/view_page.h"

#include <string.h>
#include <sys/types.h>

#include "view/web_assets.h"

/* Scripts, in the order they are concatenated into one <script>. */
static const char *const scripts[] = {"util.js",   "data.js",     "layout.js",
                                      "render.js", "overview.js", "tiles.js",
                                      "panels.js", "main.js"};

const web_asset *web_asset_get(const char *name) {
  for (unsigned i = 0; i < web_assets_count; i++)
    if (strcmp(web_assets[i].name, name) == 0)
      return &web_assets[i];
  return NULL;
}

/* The template from `*at` up to `marker` (written), *at moved past it. */
static bool template_until(FILE *out, const char **at, const char *marker) {
  const web_asset *t = web_asset_get("view.html");
  if (!t)
    return false;
  const char *text = (const char *)t->data;
  if (!*at)
    *at = text;
  const char *m = marker ? strstr(*at, marker) : NULL;
  if (marker && !m)
    return false;
  size_t n = m ? (size_t)(m - *at) : strlen(*at);
  fwrite(*at, 1, n, out);
  *at += n + (m ? strlen(marker) : 0);
  return true;
}

static const char *template_pos;

/* The page's script-src: inline code only, and as it is patched when the
 * page has tiles (the same length: the first is padded with spaces). */
#define SCRIPT_SRC_INLINE "'unsafe-inline'             "
#define SCRIPT_SRC_TILES "'unsafe-inline' 'self' file:"
static long script_src_at = -1;

bool view_page_head(FILE *out) {
  const web_asset *css = web_asset_get("view.css");
  template_pos = NULL;
  script_src_at = -1;
  if (!css || !template_until(out, &template_pos, "{{SCRIPT_SRC}}"))
    return false;
  if (fflush(out) == 0)
    script_src_at = ftell(out);
  fputs(SCRIPT_SRC_INLINE, out);
  if (!template_until(out, &template_pos, "{{CSS}}"))
    return false;
  fwrite(css->data, 1, css->size, out);
  return template_until(out, &template_pos, "{{DATA}}");
}

void view_page_extra_begin(FILE *out) {
  fputs("<script type=\"text/plain\" class=\"cclscope-extra\">\n", out);
}

void view_page_extra_next(FILE *out) {
  fputs("</script>\n", out);
  view_page_extra_begin(out);
}

void view_page_data_begin(FILE *out) {
  fputs("</script>\n<script type=\"application/json\" id=\"cclscope-data\">",
        out);
}

bool view_page_tail(FILE *out) {
  fputs("</script>", out);
  if (!template_until(out, &template_pos, "{{JS}}"))
    return false;
  for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
    const web_asset *js = web_asset_get(scripts[i]);
    if (!js)
      return false;
    fprintf(out, "\n/* ---- web/%s ---- */\n", scripts[i]);
    fwrite(js->data, 1, js->size, out);
  }
  return template_until(out, &template_pos, NULL);
}

bool view_page_allow_tiles(FILE *out) {
  _Static_assert(sizeof SCRIPT_SRC_INLINE == sizeof SCRIPT_SRC_TILES,
                 "the script-src is patched in place");
  long end;
  if (script_src_at < 0 || fflush(out) != 0 || (end = ftell(out)) < 0 ||
      fseek(out, script_src_at, SEEK_SET) != 0)
    return false;
  fputs(SCRIPT_SRC_TILES, out);
  return fflush(out) == 0 && fseek(out, end, SEEK_SET) == 0;
}

/* ---- the escaping stream ---- */

static ssize_t escape_write(void *cookie, const char *buf, size_t n) {
  FILE *under = cookie;
  const char *p = buf, *end = buf + n;
  while (p < end) {
    const char *lt = memchr(p, '<', (size_t)(end - p));
    size_t run = (size_t)((lt ? lt : end) - p);
    if (run && fwrite(p, 1, run, under) != run)
      return -1;
    if (!lt)
      break;
    if (fputs("\\u003c", under) == EOF)
      return -1;
    p = lt + 1;
  }
  return (ssize_t)n;
}

FILE *view_json_stream(FILE *under) {
  cookie_io_functions_t io = {NULL, escape_write, NULL, NULL};
  FILE *f = fopencookie(under, "w", io);
  if (f)
    setvbuf(f, NULL, _IOFBF, 1 << 16);
  return f;
}
