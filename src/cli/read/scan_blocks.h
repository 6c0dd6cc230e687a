/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/scan_blocks.h — where the bytes that matter are in a block
 * of a line, for the JSON scanner (jsonl_scan.c).
 *
 * Owns: finding the quotes, backslashes and brackets of a block at once,
 * as bit masks (bit i: byte i of the block), so that the scanner skips
 * nested objects and arrays a block at a time and takes what matters in
 * order. With SSE2 (every x86-64) a block is 16 bytes and three vector
 * comparisons find them; on other machines a block is 8 bytes read as one
 * 64-bit word (masks_of_8: exact, portable, on any byte order), which the
 * unit test also compares with a byte loop and with the 16-byte form.
 */
#ifndef CCLSCOPE_CLI_SCAN_BLOCKS_H
#define CCLSCOPE_CLI_SCAN_BLOCKS_H

#include <stdint.h>
#include <string.h>

/* CCLSCOPE_SCAN_PORTABLE: the portable blocks even where SSE2 is there
 * (tests/cli builds the scanner's tests so once more). */
#if defined(__SSE2__) && !defined(CCLSCOPE_SCAN_PORTABLE)
#define SCAN_BLOCKS_SSE2 1
#include <emmintrin.h>
#endif

typedef struct {
  unsigned quotes;      /* '"' */
  unsigned backslashes; /* '\\' */
  unsigned brackets;    /* '{', '[', '}', ']' */
} block_masks;

/* Bit i of the result: byte i of `x` (the i-th byte in memory, whatever
 * the machine's byte order: `bytes` is read byte by byte into `x` in
 * order) is zero. Exact: adding 0x7F to a byte's low seven bits cannot
 * carry into the next byte. */
static inline unsigned zero_bytes_of_8(uint64_t x) {
  const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F);
  uint64_t high = ~(((x & low7) + low7) | x | low7);
  /* the high bits at 8i + 7 gathered into bits 56 + i */
  return (unsigned)(((high >> 7) * UINT64_C(0x0102040810204080)) >> 56);
}

/* The 8 bytes at `q`. '[' and ']' differ from '{' and '}' only in bit 5:
 * setting that bit makes two comparisons cover four brackets, and no
 * other byte becomes '{' or '}' by it. */
static inline block_masks masks_of_8(const char *q) {
  uint64_t x = 0;
  for (int i = 0; i < 8; i++) /* compilers make this loop one load */
    x |= (uint64_t)(unsigned char)q[i] << (8 * i);
  const uint64_t ones = UINT64_C(0x0101010101010101);
  uint64_t folded = x | ones * 0x20;
  block_masks m;
  m.quotes = zero_bytes_of_8(x ^ ones * '"');
  m.backslashes = zero_bytes_of_8(x ^ ones * '\\');
  m.brackets = zero_bytes_of_8(folded ^ ones * '{') |
               zero_bytes_of_8(folded ^ ones * '}');
  return m;
}

#if defined(SCAN_BLOCKS_SSE2)
enum { SCAN_BLOCK = 16 };

/* The 16 bytes at `q`, as masks_of_8 twice. */
static inline block_masks masks_of_16(const char *q) {
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
  __m128i folded = _mm_or_si128(x, _mm_set1_epi8(0x20));
  __m128i open = _mm_cmpeq_epi8(folded, _mm_set1_epi8('{'));
  __m128i close = _mm_cmpeq_epi8(folded, _mm_set1_epi8('}'));
  block_masks m;
  m.quotes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
  m.backslashes =
      (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
  m.brackets = (unsigned)_mm_movemask_epi8(_mm_or_si128(open, close));
  return m;
}

static inline block_masks masks_of_block(const char *q) {
  return masks_of_16(q);
}
#else
enum { SCAN_BLOCK = 8 };

static inline block_masks masks_of_block(const char *q) {
  return masks_of_8(q);
}
#endif

#endif
