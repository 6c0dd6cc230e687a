/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/text_wrap.c — see text_wrap.h.
 */
#include "summary/text_wrap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int text_width_for_stdout(bool wide) {
  if (wide)
    return 0;
  int width = TEXT_DEFAULT_WIDTH;
  const char *columns = getenv("COLUMNS");
  char *end = NULL;
  long from_env = columns && *columns ? strtol(columns, &end, 10) : 0;
  struct winsize ws;
  if (end && *end == '\0' && from_env > 0 && from_env < 100000)
    width = (int)from_env;
  else if (isatty(STDOUT_FILENO) &&
           ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    width = ws.ws_col;
  return width < TEXT_MIN_WIDTH ? TEXT_MIN_WIDTH : width;
}

size_t text_columns(const char *s, size_t len) {
  size_t w = 0;
  for (size_t i = 0; i < len; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80)
      w++;
  return w;
}

/* One line of text (no '\n'), wrapped. */
static void wrap_line(FILE *out, int width, const char *line, size_t len) {
  if (text_columns(line, len) <= (size_t)width) { /* fits: as it is */
    fwrite(line, 1, len, out);
    return;
  }
  size_t indent = 0;
  while (indent < len && line[indent] == ' ')
    indent++;
  size_t pos = indent;
  fwrite(line, 1, indent, out);
  size_t col = indent;
  bool first_word = true;
  while (pos < len) {
    size_t end = pos;
    while (end < len && line[end] != ' ')
      end++;
    size_t word = text_columns(line + pos, end - pos);
    if (!first_word && col + 1 + word > (size_t)width) {
      fprintf(out, "\n%*s", (int)(indent + 2), "");
      col = indent + 2;
    } else if (!first_word) {
      fputc(' ', out);
      col++;
    }
    fwrite(line + pos, 1, end - pos, out);
    col += word;
    first_word = false;
    pos = end;
    while (pos < len && line[pos] == ' ')
      pos++;
  }
}

void text_write_fitted(FILE *out, int width, const char *text, size_t len) {
  if (width <= 0) {
    fwrite(text, 1, len, out);
    return;
  }
  const char *p = text, *stop = text + len;
  while (p < stop) {
    const char *nl = memchr(p, '\n', (size_t)(stop - p));
    const char *end = nl ? nl : stop;
    wrap_line(out, width, p, (size_t)(end - p));
    if (nl)
      fputc('\n', out);
    p = nl ? nl + 1 : stop;
  }
}
