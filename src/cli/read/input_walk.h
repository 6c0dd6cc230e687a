/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/input_walk.h — which files the command-line arguments name.
 *
 * Owns: walking a folder argument and every folder under it (per-node
 * folders such as run/node*), in one order whatever the file system gives
 * (the entries of each folder sorted by name, a subfolder read where its
 * name sorts), and taking each file and each folder once: a file or folder
 * reached a second time — named twice, named and also in a named folder,
 * or through a symbolic link — is recognised by its device and inode,
 * left out, and said once on stderr. Names starting with '.' (hidden files
 * and folders) are never entered; symbolic links are followed, a link back
 * to a folder being read is that folder again (so a loop is not followed).
 *
 * What is taken is the caller's choice: `kind_of` sorts a folder's entries
 * into the caller's lists (traces; for `hang` also snapshots). Used by
 * tr_inputs_collect (trace_reader.h) and hang_inputs_collect, so every
 * command reads the same files for the same arguments.
 */
#ifndef CCLSCOPE_CLI_INPUT_WALK_H
#define CCLSCOPE_CLI_INPUT_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "read/trace_reader.h"
#include "util/pair_map.h"

/* The most lists a walk fills (hang: snapshots and traces). */
#define IW_MAX_LISTS 2

typedef struct {
  /* the list a folder entry named `name` goes to, or -1 to leave it */
  int (*kind_of)(const char *name);
  tr_inputs *lists;          /* IW_MAX_LISTS at most, filled in order */
  int nlists;                /* of `lists` */
  size_t caps[IW_MAX_LISTS]; /* allocated slots of each list */
  pair_map seen;             /* (device, inode) -> 1 + index in `first` */
  char **first;              /* the path each file or folder was taken as */
  size_t nfirst, cap_first;
  bool notes; /* say on stderr what is left out as reached twice */
} input_walk;

/* Start a walk that adds to `lists` (already zeroed by the caller). */
void iw_init(input_walk *w, tr_inputs *lists, int nlists,
             int (*kind_of)(const char *name));
/* A folder argument: the files under it that kind_of takes go to their
 * lists. *matched counts those files, taken now or before (0: the folder
 * holds none). False, with a message on stderr, when a folder cannot be
 * read or memory runs out. */
bool iw_folder(input_walk *w, const char *dir, size_t *matched);
/* A file argument (`st`: its stat) for list `kind`: added unless taken
 * before. False when memory runs out (said on stderr). */
bool iw_file(input_walk *w, const char *path, const struct stat *st, int kind);
/* Add a path without an identity to keep (standard input kept in an
 * unlinked file: it cannot be reached again). */
bool iw_push(input_walk *w, int kind, const char *path, uint64_t size);
void iw_free(input_walk *w);

#endif
