/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/web_assets.h — the viewer's files from web/ (HTML template,
 * style sheet, scripts), compiled into the binary by web/embed.cmake so that
 * `cclscope view` needs no files at run time and the page needs no network.
 */
#ifndef CCLSCOPE_CLI_WEB_ASSETS_H
#define CCLSCOPE_CLI_WEB_ASSETS_H

#include <stddef.h>

typedef struct {
  const char *name; /* file name in web/, e.g. "view.css" */
  const unsigned char *data;
  size_t size; /* bytes, without the NUL that follows them */
} web_asset;

extern const web_asset web_assets[];
extern const unsigned web_assets_count;

/* The asset called `name`, or NULL. */
const web_asset *web_asset_get(const char *name);

#endif
