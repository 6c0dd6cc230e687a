/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/config_parse.h — the strict readers behind every numeric
 * configuration value (docs/configuration.md, "How values are read").
 *
 * Text in, value or a reason out; no environment, no logging (config.c does
 * both). Every reader refuses: an empty text, leading or trailing
 * whitespace, a sign, anything strtod/strtoul would also take (nan, inf,
 * infinity, nan(...), hex floats, exponents, hex where not allowed, trailing
 * junk), values too large for the type and values outside [min, max].
 * Numbers are converted by hand, so the process's locale (LC_NUMERIC) never
 * changes what "0.5" means.
 */
#ifndef CCLSCOPE_CONFIG_PARSE_H
#define CCLSCOPE_CONFIG_PARSE_H

#include <stdint.h>

typedef enum {
  CS_PARSE_OK = 0,
  CS_PARSE_EMPTY,     /* "" */
  CS_PARSE_SPACE,     /* " 5", "5 ", "\t5" */
  CS_PARSE_SIGN,      /* "-1", "-0", "+5": no value here takes a sign */
  CS_PARSE_MALFORMED, /* "nan", "inf", "0x10", "1e3", "5s", "1.2.3" */
  CS_PARSE_RANGE,     /* well formed, but beyond [min, max] or the type */
} cs_parse_result;

/* A short phrase for the warning: "empty", "out of range" ... */
const char *cs_parse_problem(cs_parse_result r);

/* Empty or whitespace at either end; CS_PARSE_OK otherwise. Every reader
 * below starts with this; config.c uses it for words and lists too. */
cs_parse_result cs_parse_check_text(const char *text);

/* A decimal number of the form DIGITS, DIGITS.DIGITS or .DIGITS
 * ("5", "0.25", ".5") within [min, max]. min must be >= 0. */
cs_parse_result cs_parse_decimal(const char *text, double min, double max,
                                 double *out);

/* A whole decimal number (digits only) within [min, max]. */
cs_parse_result cs_parse_whole(const char *text, uint64_t min, uint64_t max,
                               uint64_t *out);

/* A whole number in decimal or, with a 0x/0X prefix, hexadecimal (event
 * masks), at most max. */
cs_parse_result cs_parse_whole_or_hex(const char *text, uint64_t max,
                                      uint64_t *out);

/* A byte size as src/common/size_text.h reads it ("4M", "65536", "1GiB")
 * within [min, max]. */
cs_parse_result cs_parse_size(const char *text, uint64_t min, uint64_t max,
                              uint64_t *out);

/* The value of one hexadecimal digit (0-9, a-f, A-F), else -1. */
int cs_hex_digit_value(char c);

#endif
