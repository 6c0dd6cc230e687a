/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/config_parse.c — see config_parse.h.
 */
#include "config_parse.h"

#include <stdbool.h>
#include <stddef.h>

#include "size_text.h"

/* Only these count as digits and spaces: isdigit/isspace follow the
 * locale. */
static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

int cs_hex_digit_value(char c) {
  if (is_digit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

const char *cs_parse_problem(cs_parse_result r) {
  switch (r) {
  case CS_PARSE_OK:
    return "valid";
  case CS_PARSE_EMPTY:
    return "empty";
  case CS_PARSE_SPACE:
    return "leading or trailing whitespace";
  case CS_PARSE_SIGN:
    return "a sign is not allowed";
  case CS_PARSE_MALFORMED:
    return "malformed";
  case CS_PARSE_RANGE:
    return "out of range";
  }
  return "invalid";
}

cs_parse_result cs_parse_check_text(const char *text) {
  if (!text || !*text)
    return CS_PARSE_EMPTY;
  const char *last = text;
  while (last[1])
    last++;
  if (is_space(*text) || is_space(*last))
    return CS_PARSE_SPACE;
  return CS_PARSE_OK;
}

/* What every number reader checks before looking at digits. */
static cs_parse_result check_number_text(const char *text) {
  cs_parse_result r = cs_parse_check_text(text);
  if (r != CS_PARSE_OK)
    return r;
  if (text[0] == '-' || text[0] == '+')
    return CS_PARSE_SIGN;
  return CS_PARSE_OK;
}

/* Digits only, at least one, up to `end` (or the terminator). */
static bool all_digits(const char *text, const char *end) {
  if (text == end)
    return false;
  for (const char *p = text; p < end; p++)
    if (!is_digit(*p))
      return false;
  return true;
}

static const char *string_end(const char *text) {
  while (*text)
    text++;
  return text;
}

cs_parse_result cs_parse_decimal(const char *text, double min, double max,
                                 double *out) {
  cs_parse_result r = check_number_text(text);
  if (r != CS_PARSE_OK)
    return r;
  const char *end = string_end(text);
  const char *dot = text;
  while (dot < end && *dot != '.')
    dot++;
  bool whole_ok = dot == text || all_digits(text, dot);
  bool fraction_ok = dot == end || all_digits(dot + 1, end);
  if (!whole_ok || !fraction_ok || (dot == text && dot + 1 >= end))
    return CS_PARSE_MALFORMED;
  /* Whole part: exact up to 2^53, then rounded; thousands of digits
   * become +inf, which is out of any range. */
  double value = 0;
  for (const char *p = text; p < dot; p++)
    value = value * 10 + (*p - '0');
  /* Fraction: its first 15 digits as an integer over a power of ten (both
   * exact), so "0.01" is the double nearest 0.01, like the literal. */
  double fraction = 0, scale = 1;
  for (const char *p = dot + 1; p < end && scale < 1e15; p++) {
    fraction = fraction * 10 + (*p - '0');
    scale *= 10;
  }
  value += fraction / scale;
  if (value < min || value > max)
    return CS_PARSE_RANGE;
  *out = value;
  return CS_PARSE_OK;
}

/* Decimal digits (already checked) to a number; false on overflow. */
static bool digits_to_u64(const char *text, const char *end, uint64_t *out) {
  uint64_t v = 0;
  for (const char *p = text; p < end; p++) {
    unsigned digit = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

cs_parse_result cs_parse_whole(const char *text, uint64_t min, uint64_t max,
                               uint64_t *out) {
  cs_parse_result r = check_number_text(text);
  if (r != CS_PARSE_OK)
    return r;
  const char *end = string_end(text);
  if (!all_digits(text, end))
    return CS_PARSE_MALFORMED;
  uint64_t v;
  if (!digits_to_u64(text, end, &v) || v < min || v > max)
    return CS_PARSE_RANGE;
  *out = v;
  return CS_PARSE_OK;
}

cs_parse_result cs_parse_whole_or_hex(const char *text, uint64_t max,
                                      uint64_t *out) {
  cs_parse_result r = check_number_text(text);
  if (r != CS_PARSE_OK)
    return r;
  if (text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return cs_parse_whole(text, 0, max, out);
  const char *digits = text + 2;
  if (!*digits)
    return CS_PARSE_MALFORMED;
  for (const char *p = digits; *p; p++)
    if (cs_hex_digit_value(*p) < 0)
      return CS_PARSE_MALFORMED;
  uint64_t v = 0;
  for (const char *p = digits; *p; p++) {
    if (v > (UINT64_MAX >> 4))
      return CS_PARSE_RANGE;
    v = v << 4 | (uint64_t)cs_hex_digit_value(*p);
  }
  if (v > max)
    return CS_PARSE_RANGE;
  *out = v;
  return CS_PARSE_OK;
}

cs_parse_result cs_parse_size(const char *text, uint64_t min, uint64_t max,
                              uint64_t *out) {
  cs_parse_result r = check_number_text(text);
  if (r != CS_PARSE_OK)
    return r;
  uint64_t v;
  switch (size_text_read(text, &v)) {
  case SIZE_TEXT_OK:
    break;
  case SIZE_TEXT_TOO_LARGE:
    return CS_PARSE_RANGE;
  case SIZE_TEXT_MALFORMED:
  default:
    return CS_PARSE_MALFORMED;
  }
  if (v < min || v > max)
    return CS_PARSE_RANGE;
  *out = v;
  return CS_PARSE_OK;
}
