/*
 * src/common/size_text.c — see size_text.h.
 */
#include "size_text.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

bool size_text_parse(const char *text, uint64_t *bytes) {
  if (!text || !isdigit((unsigned char)*text))
    return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno)
    return false;
  unsigned shift = 0;
  if (*end) {
    switch (toupper((unsigned char)*end)) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    default:
      return false;
    }
    end++;
    if (*end == 'i' || *end == 'I')
      end++;
    if (*end == 'B' || *end == 'b')
      end++;
    if (*end)
      return false;
  }
  if (shift && v > (UINT64_MAX >> shift))
    return false;
  *bytes = (uint64_t)v << shift;
  return true;
}
