/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/cursor.c — tables and the out-of-line parts of cursor.h.
 */
#include "cursor.h"

const char cs_decimal_pairs[200] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

const char cs_hex_pairs[512] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

char *cs_cur_ns_as_us(char *p, int64_t ns) {
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(mag % 1000);
  if (ns < 0)
    *p++ = '-';
  p = cs_cur_u64(p, mag / 1000);
  *p++ = '.';
  *p++ = (char)('0' + frac / 100);
  memcpy(p, cs_decimal_pairs + 2 * (frac % 100), 2);
  return p + 2;
}

char *cs_cur_epoch_us_slow(char *p, int64_t ns, cs_cur_ts_cache *c) {
  if (ns < 1000000000)
    return cs_cur_ns_as_us(p, ns); /* not an epoch time: plain format */
  int64_t sec = ns / 1000000000;
  char digits[24];
  char *end = cs_cur_u64(digits, (uint64_t)sec);
  c->len = (uint8_t)(end - digits);
  memset(c->text, 0, sizeof c->text);
  memcpy(c->text, digits, c->len);
  c->sec_start = sec * 1000000000;
  return cs_cur_epoch_us(p, ns, c);
}
