/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/cmd_view.c — `cclscope view DIR -o timeline.html`: one
 * self-contained HTML page with an interactive timeline of the traces.
 *
 * Two passes over the inputs: every record in exact start order
 * (ordered_reader ORD_START, as for perfetto) into the page's data
 * (view_data.h), and the `summary` analysis (files in lock step,
 * summary_collect), whose JSON is embedded for the page's summary panel.
 * The records come through the reorder window when every input is plain
 * JSONL and the page a regular file (else, or when the window gives up,
 * the page is written again from the external sort, as perfetto does);
 * the sort reads first. Then, with -j > 1, the summary runs on a thread
 * of its own while the records are placed (else before them). The
 * page itself is the
 * web/ template with its style sheet and scripts compiled in
 * (view_page.h): it opens offline, from a file, with no network access.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "read/jsonl_scan.h"
#include "read/read_ahead.h"
#include "summary/summary.h"
#include "view/view_data.h"
#include "view/view_page.h"

typedef struct {
  const char *output;
  size_t memory;
  bool summary;
  uint64_t detail_bytes; /* --detail-mb; UINT64_MAX: no limit */
  int64_t detail_from;   /* --detail-from, ns after the first record */
  bool single_file;      /* --single-file: no tiles beside the page */
} view_options;

/* The default page bound (docs/cli.md, Big traces): detail up to this,
 * plus the overview (at most VIEW_OV_MAX_CELLS buckets and
 * VIEW_OV_MAX_INSTANCES instances, about 20 MB in the worst case). */
#define VIEW_DEFAULT_DETAIL_MB 28

/* Detail beyond the budget goes to tiles of about budget / 16 bytes each
 * (view_tiles.h), at least 64 KiB and at most 4 MiB. */
static uint64_t tile_bytes_for(uint64_t budget) {
  uint64_t t = budget / 16;
  if (t < (64u << 10))
    t = 64u << 10;
  if (t > (4u << 20))
    t = 4u << 20;
  return t;
}

/* The summary (kept in *out for the overview's GPUs; NULL when it failed)
 * and its JSON in memory (NULL, 0 when not wanted or failed). */
static int summary_json(const tr_inputs *in, bool want_json, bool no_progress,
                        summary **out, char **text, size_t *len) {
  *text = NULL;
  *len = 0;
  *out = NULL;
  summary *s = calloc(1, sizeof *s);
  if (!s)
    return -1;
  s->top = 5;
  s->json = true;
  s->no_progress = no_progress;
  int rc = summary_collect(s, in);
  if (rc >= 0 && want_json) {
    FILE *mem = open_memstream(text, len);
    if (mem) {
      summary_print_json_to(s, mem);
      if (fclose(mem) != 0) {
        free(*text);
        *text = NULL;
        *len = 0;
        rc = -1;
      }
    } else {
      rc = -1;
    }
  }
  if (rc >= 0) {
    *out = s;
  } else {
    summary_free(s);
    free(s);
  }
  return rc;
}

/* Reads the events into `v` while writing the extra block; 0, 1 (an input
 * could not be read) or -1 (out of memory, temporary files). `bar_label`:
 * the progress bar's, NULL for none (the window's bar, which reads as the
 * records are placed, stands for both). */
static int read_events(view_data *v, ord_reader *rd, uint64_t total, FILE *page,
                       const char *bar_label) {
  FILE *extra = view_json_stream(page);
  if (!extra)
    return -1;
  view_page_extra_begin(page);
  fflush(page);
  /* the sort has its own bar (reading); this one is the merge and page
   * (the window's bar alone when windowed) */
  progress bar;
  uint64_t done = 0, block_start = 0;
  progress_start(&bar, bar_label, total);
  ord_where where;
  const rec *r;
  int rc = 0;
  while ((r = ord_next(rd, &where)) != NULL) {
    if (!view_data_add(v, r, where.file, where.key, extra)) {
      rc = -1;
      break;
    }
    done += r->len + 1;
    progress_update(&bar, done);
    if (v->extra_bytes - block_start >= VIEW_EXTRA_BLOCK) {
      fflush(extra); /* to `page`, before writing there directly */
      view_page_extra_next(page);
      block_start = v->extra_bytes;
    }
  }
  progress_finish(&bar);
  if (fclose(extra) != 0)
    rc = -1;
  if (rc == 0 && (rd->failed || v->oom))
    rc = -1;
  if (rc == 0 && rd->unreadable_files)
    rc = 1;
  return rc;
}

/* stderr: where the detail went when it did not all fit the page. */
static void say_detail(const view_options *o, const view_data *v) {
  const view_tiles *t = v->tiles;
  if (v->tiled_events || v->tiled_timing) {
    if (v->nev + v->ntm)
      fprintf(stderr,
              "cclscope view: detail (events you can click) in the page for "
              "%.3f s to %.3f s after the first record (--detail-mb %" PRIu64
              "); ",
              (double)(v->detail_t0 - (v->first_key - v->base)) / 1e9,
              (double)(v->detail_t1 - (v->first_key - v->base)) / 1e9,
              o->detail_bytes >> 20);
    else
      fprintf(stderr,
              "cclscope view: no detail in the page (--detail-mb "
              "%" PRIu64 "); ",
              o->detail_bytes >> 20);
    fprintf(stderr, "%" PRIu64 " events", v->tiled_events);
    if (v->tiled_marks)
      fprintf(stderr, ", %" PRIu64 " timing records and %" PRIu64 " marks",
              v->tiled_timing, v->tiled_marks);
    else
      fprintf(stderr, " and %" PRIu64 " timing records", v->tiled_timing);
    fprintf(stderr,
            " in %zu tiles in '%s' (keep that folder next to the page: it "
            "loads them as you zoom in)\n",
            t->ntiles, t->dir);
  }
  if (t && t->failed)
    fprintf(stderr,
            "cclscope view: writing the tiles in '%s' failed (%s): the "
            "detail they miss is in the overview only\n",
            t->dir, t->error ? strerror(t->error) : "out of memory");
  if (!v->dropped_events && !v->dropped_timing)
    return;
  if (v->nev + v->ntm + v->tiled_events + v->tiled_timing == 0)
    fprintf(stderr,
            "cclscope view: no detail embedded (--detail-mb %" PRIu64
            ", --detail-from): the %" PRIu64 " events and %" PRIu64
            " timing records are in the overview only\n",
            o->detail_bytes >> 20, v->dropped_events, v->dropped_timing);
  else if (!v->tiled_events && !v->tiled_timing)
    fprintf(stderr,
            "cclscope view: detail (events you can click) kept for %.3f s "
            "to %.3f s after the first record (--detail-mb %" PRIu64
            "); %" PRIu64 " events and %" PRIu64
            " timing records outside it are in the overview only: "
            "--detail-from S shows a later span\n",
            (double)(v->detail_t0 - (v->first_key - v->base)) / 1e9,
            (double)(v->detail_t1 - (v->first_key - v->base)) / 1e9,
            o->detail_bytes >> 20, v->dropped_events, v->dropped_timing);
}

/* The summary pass: its inputs, its results (summary_json's). With more
 * than one job it runs on a thread of its own while the sorted events are
 * placed; its results are needed only at the end. */
typedef struct {
  const tr_inputs *in;
  int rc;            /* summary_json's */
  summary *analysis; /* NULL when it failed */
  char *json;        /* its JSON, NULL when it failed */
  size_t json_len;
  pthread_t thread;
  bool threaded; /* `thread` runs it */
  bool finished; /* summary_pass_finish was called */
} summary_pass;

static void *summary_pass_run(void *arg) {
  summary_pass *sp = arg;
  /* beside the view pass, whose bar stands for both */
  sp->rc = summary_json(sp->in, true, sp->threaded, &sp->analysis, &sp->json,
                        &sp->json_len);
  return NULL;
}

/* Starts the pass: on its own thread when `jobs` > 1 and one can be made,
 * else at once, here. */
static void summary_pass_start(summary_pass *sp, const tr_inputs *in,
                               unsigned jobs) {
  memset(sp, 0, sizeof *sp);
  sp->in = in;
  if (jobs > 1) {
    js_keys_prepare();   /* the scanner's table, before any thread reads */
    sp->threaded = true; /* before the thread reads it */
    if (pthread_create(&sp->thread, NULL, summary_pass_run, sp) != 0)
      sp->threaded = false;
  }
  if (!sp->threaded)
    summary_pass_run(sp);
}

/* Waits for the pass; says so when it failed (the page then has no
 * summary). */
static void summary_pass_finish(summary_pass *sp) {
  if (sp->finished)
    return;
  sp->finished = true;
  if (sp->threaded)
    pthread_join(sp->thread, NULL);
  if (sp->rc < 0) {
    fprintf(stderr, "cclscope view: the summary failed (out of memory); "
                    "the page has none\n");
    free(sp->json);
    sp->json = NULL;
    sp->json_len = 0;
  }
}

static void summary_pass_free(summary_pass *sp) {
  free(sp->json);
  if (sp->analysis)
    summary_free(sp->analysis);
  free(sp->analysis);
}

/* place_page's result when the reorder window met a record too far out of
 * order: the page holds a part to throw away. */
enum { PAGE_GAVE_UP = 2 };

/* The page from the records of `in`: sorted first, or through the reorder
 * window (`windowed`, ord_open_window_records: every file's identity is
 * known once the first record is out). Starts the summary pass `sp`
 * unless `sp_started` (a window that gave up started it: its result does
 * not depend on the order). 0, 1 (an input could not be read), -1 (said),
 * or PAGE_GAVE_UP (the summary still running). */
static int place_page(const view_options *o, const tr_inputs *in, FILE *page,
                      bool windowed, summary_pass *sp, bool sp_started) {
  view_data *v = malloc(sizeof *v);
  ord_reader rd;
  bool ok = v && view_data_init(v, in->n, o->detail_bytes, o->detail_from);
  if (ok && !(windowed ? ord_open_window_records(&rd, in, ORD_START, o->memory,
                                                 "view")
                       : ord_open(&rd, in, ORD_START, o->memory, "view"))) {
    view_data_free(v);
    ok = false;
  }
  if (!ok) {
    free(v);
    return -1;
  }
  /* after the sort's reading pass (which keeps every reading thread
   * busy), beside the placing of the events (one thread); what the two
   * passes say about the files comes in the same order whatever -j. The
   * window reads while placing, beside the summary: it takes only plain
   * cclscope JSONL files, about which reading says nothing (no format,
   * torn-frame or state notices) unless the system fails to read them */
  if (o->summary && !sp_started)
    summary_pass_start(sp, in, tr_jobs ? tr_jobs : ra_default_jobs());
  /* the detail beyond the budget in tiles beside the page (not on stdout) */
  view_tiles *tiles = NULL;
  if (!o->single_file && strcmp(o->output, "-") != 0) {
    tiles = malloc(sizeof *tiles);
    if (tiles &&
        !view_tiles_init(tiles, o->output, tile_bytes_for(o->detail_bytes))) {
      free(tiles);
      tiles = NULL;
    }
    if (tiles)
      view_data_use_tiles(v, tiles, &rd);
  }
  int rc = -2;
  uint64_t records = 0;
  size_t nfiles = rd.n;
  if (view_page_head(page)) {
    rc = read_events(v, &rd, in->total_bytes, page,
                     windowed ? NULL : "view: page");
    records = rd.records;
    if (rd.out_of_window) {
      rc = PAGE_GAVE_UP;
    } else {
      if (o->summary)
        summary_pass_finish(sp);
      if (rc >= 0) {
        view_page_data_begin(page);
        fflush(page);
        FILE *data = view_json_stream(page);
        if (!data) {
          rc = -1;
        } else {
          view_data_write(v, &rd, data, sp->json, sp->json_len, sp->analysis);
          if (fclose(data) != 0 || v->oom)
            rc = -1;
          else if (!view_page_tail(page))
            rc = -2;
          else if (tiles && tiles->ntiles && !view_page_allow_tiles(page))
            fprintf(stderr,
                    "cclscope view: cannot let '%s' load its tiles "
                    "(not a regular file?)\n",
                    o->output);
        }
      }
    }
  }
  if (rc == -2)
    fprintf(stderr, "cclscope view: the page template is broken (web/ assets "
                    "missing from this build)\n");
  else if (rc == -1)
    fprintf(stderr, "cclscope view: out of memory or temporary files "
                    "failed\n");
  ord_close(&rd); /* erases the progress bar: say what was done after */
  if (rc >= 0 && rc != PAGE_GAVE_UP && !cli_globals.quiet) {
    fprintf(stderr,
            "cclscope view: %" PRIu64 " records from %zu files -> %zu events "
            "and %zu timing records on %zu tracks, %zu marks\n",
            records, nfiles, v->nev, v->ntm, v->tl.ntracks, v->nmarks);
    if (v->gpu_activities)
      fprintf(stderr,
              "cclscope view: %" PRIu64 " GPU activities (CUPTI) on GPU "
              "lanes\n",
              v->gpu_activities);
    if (v->tl.unplaced)
      fprintf(stderr,
              "cclscope view: %" PRIu64 " events left out: more than %d "
              "overlapping events on one thread\n",
              v->tl.unplaced, LANE_MAX_PER_GROUP);
    say_detail(o, v);
  }
  if (tiles)
    view_tiles_free(tiles);
  free(tiles);
  view_data_free(v);
  free(v);
  return rc < -1 ? -1 : rc;
}

/* The page into `page`: through the reorder window first when `windowed`
 * (the page a regular file, every input plain JSONL: ord_window_suits),
 * and when that gives up, `page` emptied and written again from the sort,
 * as perfetto does. 0, 1 or -1 (said). */
static int write_page(const view_options *o, const tr_inputs *in, FILE *page,
                      bool windowed) {
  summary_pass sp = {0};
  int rc = place_page(o, in, page, windowed, &sp, false);
  if (rc == PAGE_GAVE_UP) {
    if (!cli_globals.quiet)
      fprintf(stderr, "cclscope view: the inputs are out of order by more "
                      "than --memory-mb holds; sorting them on disk\n");
    if (fflush(page) != 0 || ftruncate(fileno(page), 0) != 0 ||
        fseek(page, 0, SEEK_SET) != 0) {
      fprintf(stderr, "cclscope view: cannot start '%s' again: %s\n", o->output,
              strerror(errno));
      rc = -1;
    } else {
      rc = place_page(o, in, page, false, &sp, o->summary);
    }
  }
  if (o->summary) {
    summary_pass_finish(&sp); /* when the page head failed */
    summary_pass_free(&sp);
  }
  return rc;
}

static const cli_option view_cli_options[] = {{"no-summary", false, 'n'},
                                              {"detail-mb", true, 'd'},
                                              {"detail-from", true, 'f'},
                                              {"single-file", false, 's'},
                                              {NULL, false, 0}};

static const cli_command_line view_command_line = {
    .cmd = "view",
    .options = view_cli_options,
    .output_usage = "-o FILE.html",
    .memory_mb = true,
};

/* CLI_PARSE_DONE (inputs in *p) or CLI_PARSE_EXIT (exit with p->status). */
static int parse_options(view_options *o, cli_parser *p, int argc,
                         char **argv) {
  cli_parse_begin(p, &view_command_line, argc, argv);
  int c;
  while ((c = cli_parse_next(p)) > 0) {
    switch (c) {
    case 'n':
      o->summary = false;
      break;
    case 's':
      o->single_file = true;
      break;
    case 'd': {
      long long mb;
      if (!cli_number(p->value, 0, 1ll << 20, &mb)) {
        p->status = usage_error("view", "--detail-mb needs a number of MB "
                                        "from 0 to 1048576");
        return CLI_PARSE_EXIT;
      }
      o->detail_bytes = (uint64_t)mb << 20;
      break;
    }
    case 'f': {
      char *end;
      double sec = strtod(p->value, &end);
      if (!*p->value || *end || !(sec >= 0) || sec > 1e9) {
        p->status = usage_error("view", "--detail-from needs seconds after "
                                        "the first record (0 or more)");
        return CLI_PARSE_EXIT;
      }
      o->detail_from = (int64_t)(sec * 1e9);
      break;
    }
    }
  }
  o->output = p->output;
  o->memory = p->memory_bytes;
  return c;
}

int cmd_view(int argc, char **argv) {
  view_options o = {NULL, CLI_DEFAULT_MEMORY_BYTES,
                    true, (uint64_t)VIEW_DEFAULT_DETAIL_MB << 20,
                    0,    false};
  cli_parser p;
  if (parse_options(&o, &p, argc, argv) == CLI_PARSE_EXIT)
    return p.status;
  tr_inputs in;
  if (!tr_inputs_collect(&in, p.ninputs, p.inputs))
    return EXIT_FINDINGS;
  if (output_is_an_input("view", o.output, &in)) {
    tr_inputs_free(&in);
    return EXIT_USAGE;
  }
  bool to_stdout = strcmp(o.output, "-") == 0;
  if (nothing_to_convert("view", &in)) {
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  FILE *page = to_stdout ? stdout : fopen(o.output, "w");
  if (!page) {
    fprintf(stderr, "cclscope view: cannot create '%s': %s\n", o.output,
            strerror(errno));
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  static char pagebuf[1 << 20];
  setvbuf(page, pagebuf, _IOFBF, sizeof pagebuf);
  /* the window when the page can be started again (a regular file) */
  struct stat page_stat;
  bool windowed = !to_stdout && fstat(fileno(page), &page_stat) == 0 &&
                  S_ISREG(page_stat.st_mode) && ord_window_suits(&in);
  int rc = write_page(&o, &in, page, windowed); /* failures reported */
  int status = rc == 0 ? EXIT_OK : EXIT_FINDINGS;
  if (fflush(page) != 0 || ferror(page)) {
    fprintf(stderr, "cclscope view: writing '%s' failed: %s\n", o.output,
            strerror(errno));
    status = EXIT_FINDINGS;
  }
  if (!to_stdout && fclose(page) != 0 && status == EXIT_OK) {
    fprintf(stderr, "cclscope view: writing '%s' failed: %s\n", o.output,
            strerror(errno));
    status = EXIT_FINDINGS;
  }
  if (!to_stdout && rc < 0)
    remove(o.output); /* no half page */
  tr_inputs_free(&in);
  return status;
}
