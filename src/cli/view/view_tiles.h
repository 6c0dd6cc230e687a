/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_tiles.h — the detail of `cclscope view` that does not
 * fit the page's budget, cut into tiles: small script files in a folder
 * next to the page (PAGE.files/tile-000000.js, ...) that the page loads
 * with <script src> for the time window the user zooms into (web/tiles.js).
 * Script tags load from file:// where fetch does not, so the page and its
 * folder work offline, copied anywhere together.
 *
 * Records arrive in start order (view_data.h). Each event and timing record
 * of the whole trace has a global number (events and timing records
 * counted apart, in start order); a tile, like the detail embedded in the
 * page, holds one contiguous run of them, so the page's items, parents and
 * timing links can be merged by those numbers. A tile is cut when its
 * extra lines and columns (counted as VIEW_COLUMN_BYTES per record) reach
 * `tile_bytes`, and whenever the run it holds would touch the page's own
 * detail. Only the open tile's columns are in memory.
 *
 * A tile file is one call:
 *   cclscopeTile(K,`\n{extra
 * line}\n...`,{"events":{columns},"timing":{columns}}); with the extra lines as
 * in the page's extra block (web/README.md) inside a template literal (\ ` $
 * escaped) and the columns as in the page's data, but `parent` and `ev` as
 * global event numbers and `line` within the tile.
 */
#ifndef CCLSCOPE_CLI_VIEW_TILES_H
#define CCLSCOPE_CLI_VIEW_TILES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/jsonw.h"

/* What one record's columns cost in a tile, about (as on the page). */
#define VIEW_TILE_COLUMN_BYTES 64u

/* One event's columns in a tile. */
typedef struct {
  int64_t start, dur; /* ns since the page's base */
  int64_t id;         /* -1: none */
  int64_t parent;     /* global event number, -1 */
  int64_t rank, seq;
  uint32_t track, name, func, line;
  uint8_t type, end, pk;
} view_tile_event;

/* One timing record's columns in a tile. */
typedef struct {
  int64_t start, dur;
  int64_t ev; /* global event number of its Coll/P2p/CeColl, -1 */
  uint32_t track, name, source, line;
} view_tile_timing;

/* One mark record in a tile (kind and label: string ids). */
typedef struct {
  int64_t ts;   /* ns since the page's base */
  int64_t step; /* INT64_MIN: none */
  uint32_t file, kind, label;
} view_tile_mark;

/* What the page's index says of one written tile. */
typedef struct {
  uint64_t ev0, nev; /* global numbers of its events: [ev0, ev0 + nev) */
  uint64_t tm0, ntm; /* of its timing records */
  uint64_t nmk;      /* its marks */
  int64_t t0, t1;    /* first and last start, ns since the base */
  uint64_t bytes;    /* the file's size */
} view_tile_info;

typedef struct {
  char *dir;  /* the folder, as given to create it */
  char *name; /* its base name: what the page's script tags say */
  uint64_t tile_bytes;
  /* the open tile */
  FILE *file;
  FILE *extra; /* the template-literal stream into `file` */
  uint32_t lines;
  uint64_t extra_bytes;
  view_tile_event *ev;
  size_t nev, cap_ev;
  view_tile_timing *tm;
  size_t ntm, cap_tm;
  view_tile_mark *mk;
  size_t nmk, cap_mk;
  view_tile_info open; /* the open tile's index entry, filled as it grows */
  /* written tiles */
  view_tile_info *index;
  size_t ntiles, cap_index;
  bool failed;  /* a file could not be written (or out of memory) */
  int error;    /* errno of the first failure, 0 for out of memory */
  bool created; /* the folder exists now (made, or emptied of old tiles) */
} view_tiles;

/* The folder for page `page_path`: its name without ".html"/".htm" plus
 * ".files". Nothing is created until the first tile. False when out of
 * memory. */
bool view_tiles_init(view_tiles *t, const char *page_path, uint64_t tile_bytes);
void view_tiles_free(view_tiles *t);

/* The stream for the extra line of the next record, opening a tile when
 * none is open (NULL when it cannot be written: t->failed). The line goes
 * through extra_line with &t->lines and &t->extra_bytes as its counters.
 * `ev_next`, `tm_next`: the global numbers the next event and the next
 * timing record will have (a new tile starts there). */
FILE *view_tiles_extra(view_tiles *t, uint64_t ev_next, uint64_t tm_next);
/* Add a record's columns to the open tile (after its extra line); the tile
 * is cut once its extra lines and columns reach tile_bytes. False when out
 * of memory. */
bool view_tiles_add_event(view_tiles *t, const view_tile_event *e);
bool view_tiles_add_timing(view_tiles *t, const view_tile_timing *e);
/* A mark (no extra line: open the tile with view_tiles_extra first). */
bool view_tiles_add_mark(view_tiles *t, const view_tile_mark *m);
/* Closes the open tile (if any) and writes it out. */
void view_tiles_cut(view_tiles *t);

/* Writes the key "tiles" and the page's index of them (null when there
 * are none). `load_bytes`: how many tile bytes the page keeps loaded. */
void view_tiles_write_index(const view_tiles *t, uint64_t load_bytes, jsonw *w);

#endif
