/*
 * src/cli/summary/fit.c — see fit.h.
 */
#include "summary/fit.h"

#include <string.h>

void lsq_init(lsq *s) {
  memset(s, 0, sizeof *s);
}

void lsq_add(lsq *s, double x, double y) {
  s->n++;
  double n = (double)s->n;
  double dx = x - s->mean_x;
  double dy = y - s->mean_y;
  s->mean_x += dx / n;
  s->mean_y += dy / n;
  /* co-moments use the old delta of one and the new delta of the other */
  s->cxx += dx * (x - s->mean_x);
  s->cxy += dx * (y - s->mean_y);
  s->cyy += dy * (y - s->mean_y);
}

lsq_result lsq_solve(const lsq *s) {
  lsq_result r;
  memset(&r, 0, sizeof r);
  r.n = s->n;
  if (s->n < 2 || s->cxx <= 0.0)
    return r;
  r.ok = true;
  r.slope = s->cxy / s->cxx;
  r.intercept = s->mean_y - r.slope * s->mean_x;
  if (s->cyy > 0.0) {
    r.r2 = (s->cxy * s->cxy) / (s->cxx * s->cyy);
  } else {
    r.r2 = 1.0; /* every y equal: the line fits exactly */
  }
  return r;
}
