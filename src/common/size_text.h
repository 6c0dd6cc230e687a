/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/size_text.h — reading a byte size written by a person:
 * "65536", "64K", "4M", "1G", "1GiB", "1gb" (powers of 1024). Shared by
 * the plugin (CCLSCOPE_RING_SIZE, CCLSCOPE_MIN_BYTES) and ncclemu
 * (--sizes); compiled into each, so neither links the other.
 *
 * Strict: decimal digits, then at most one suffix K, M or G (any case),
 * optionally followed by i and/or B. No whitespace anywhere, no sign, no
 * hex, no fraction, no exponent; nan and inf are not sizes.
 */
#ifndef CCLSCOPE_SIZE_TEXT_H
#define CCLSCOPE_SIZE_TEXT_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
  SIZE_TEXT_OK = 0,
  SIZE_TEXT_MALFORMED, /* not of the form above (NULL and "" included) */
  SIZE_TEXT_TOO_LARGE, /* well formed, but 2^64 bytes or more */
} size_text_result;

/* Reads `text` into *bytes; *bytes is untouched unless SIZE_TEXT_OK. */
size_text_result size_text_read(const char *text, uint64_t *bytes);

/* The same as a yes/no: false when `text` is not a size or overflows. */
bool size_text_parse(const char *text, uint64_t *bytes);

#endif
