/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/size_text.c — see size_text.h.
 */
#include "size_text.h"

#include <stddef.h>

static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* The power of two a suffix letter stands for, 0 when it is none. */
static unsigned suffix_shift(char c) {
  switch (c) {
  case 'K':
  case 'k':
    return 10;
  case 'M':
  case 'm':
    return 20;
  case 'G':
  case 'g':
    return 30;
  default:
    return 0;
  }
}

size_text_result size_text_read(const char *text, uint64_t *bytes) {
  if (!text || !is_digit(*text))
    return SIZE_TEXT_MALFORMED;
  /* Check the whole form first, so that "99999999999999999999x" is
   * malformed rather than too large. */
  const char *p = text;
  while (is_digit(*p))
    p++;
  const char *digits_end = p;
  unsigned shift = 0;
  if (*p) {
    shift = suffix_shift(*p);
    if (!shift)
      return SIZE_TEXT_MALFORMED;
    p++;
    if (*p == 'i' || *p == 'I')
      p++;
    if (*p == 'B' || *p == 'b')
      p++;
    if (*p)
      return SIZE_TEXT_MALFORMED;
  }
  uint64_t v = 0;
  for (p = text; p < digits_end; p++) {
    unsigned digit = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return SIZE_TEXT_TOO_LARGE;
    v = v * 10 + digit;
  }
  if (v > (UINT64_MAX >> shift))
    return SIZE_TEXT_TOO_LARGE;
  *bytes = v << shift;
  return SIZE_TEXT_OK;
}

bool size_text_parse(const char *text, uint64_t *bytes) {
  return size_text_read(text, bytes) == SIZE_TEXT_OK;
}
