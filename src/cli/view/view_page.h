/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_page.h — assembling the one-file page of `cclscope view`
 * from the embedded web/ assets (web_assets.h) and the trace data.
 *
 * web/view.html is the template: its markers {{SCRIPT_SRC}} (of the
 * Content-Security-Policy), {{CSS}}, {{DATA}} and {{JS}}
 * are replaced by web/view.css, the two data blocks and the scripts (in
 * the order of VIEW_SCRIPTS). Trace text reaches the page only inside the
 * JSON of the data blocks, written through view_json_stream: every '<'
 * becomes \u003c (valid JSON inside strings, and JSON has no '<' outside
 * them), so no trace string can end a <script> block ("</script") or open
 * a comment ("<!--"). The scripts put strings on the page as text only.
 */
#ifndef CCLSCOPE_CLI_VIEW_PAGE_H
#define CCLSCOPE_CLI_VIEW_PAGE_H

#include <stdbool.h>
#include <stdio.h>

/* The page up to where the data blocks go. False if an asset is missing
 * (a broken build). */
bool view_page_head(FILE *out);
/* The extra lines go into blocks of at most VIEW_EXTRA_BLOCK bytes (a
 * browser's strings have a maximum length, ~512 MiB in Chrome): begin the
 * first, end one and begin the next, ... */
#define VIEW_EXTRA_BLOCK (64u << 20)
void view_page_extra_begin(FILE *out);
void view_page_extra_next(FILE *out);
void view_page_data_begin(FILE *out); /* ends the extra block first */
/* Ends the data block and writes the scripts and the rest. */
bool view_page_tail(FILE *out);
/* The page has tiles (view_tiles.h): its Content-Security-Policy, written
 * for inline scripts only, is patched in place to let it load the scripts
 * of its own folder ('self', and file: for browsers whose 'self' does not
 * cover file URLs). Needs a seekable `out`; false when it is not. */
bool view_page_allow_tiles(FILE *out);

/* A stream that writes to `under` with '<' escaped as \u003c; fclose it
 * (that flushes it) before writing to `under` directly again. NULL when
 * out of memory. */
FILE *view_json_stream(FILE *under);

#endif
