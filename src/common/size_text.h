/*
 * src/common/size_text.h — reading a byte size written by a person:
 * "65536", "64K", "4M", "1G", "1GiB", "1gb" (powers of 1024). Shared by
 * the plugin (CCLSCOPE_RING_SIZE, CCLSCOPE_MIN_BYTES) and ncclemu
 * (--sizes); compiled into each, so neither links the other.
 */
#ifndef CCLSCOPE_SIZE_TEXT_H
#define CCLSCOPE_SIZE_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* False (and *bytes untouched) when `text` is not a size or overflows. */
bool size_text_parse(const char *text, uint64_t *bytes);

#endif
