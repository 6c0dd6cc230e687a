/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/out_dir.h — an output folder opened once: files created in it
 * never follow links.
 *
 * Every file the plugin writes (the trace, the in-flight snapshot, the
 * Prometheus textfile) goes through one of these, because output folders
 * are often shared (a job's folder on a cluster file system, node_exporter's
 * textfile folder) and anyone who can write there could plant a symbolic or
 * hard link at a name we are about to write, to make us overwrite a file of
 * theirs choosing with our permissions. So:
 *
 *  - the folder is created if needed (with its parents) and opened once,
 *    with O_DIRECTORY (O_PATH: writing needs no read permission); every
 *    file is then opened relative to that descriptor, so the folder cannot
 *    be swapped for another between two files;
 *  - a new file is created with O_CREAT|O_EXCL|O_NOFOLLOW: whatever already
 *    has that name (a link, a file) is never opened, the caller picks
 *    another name;
 *  - a file replaced as a whole is written to a temporary with an
 *    unpredictable name (pid, counter, 64 random bits; O_EXCL|O_NOFOLLOW),
 *    then renamed over the final name: a link planted there is replaced by
 *    our regular file, never written through; the temporary is removed on
 *    any failure;
 *  - the folder itself: its intermediate path components are followed as
 *    the system resolves them (/scratch -> /lustre/scratch is normal), but
 *    if its last component is a symbolic link it is followed only when the
 *    link belongs to the effective user or to root (the rule Linux's
 *    fs.protected_symlinks applies in sticky folders), with one warning
 *    naming where it leads; a link belonging to anyone else is refused with
 *    one warning, and nothing is written in that folder by this process.
 *
 * Not thread-safe: one thread uses a folder at a time (the writer thread,
 * or the thread that starts and stops it while the writer is not running).
 */
#ifndef CCLSCOPE_OUT_DIR_H
#define CCLSCOPE_OUT_DIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
  char path[PATH_MAX]; /* as configured: for messages */
  const char *setting; /* what the user set, for messages: "CCLSCOPE_DIR" */
  int fd;              /* the folder (O_PATH|O_DIRECTORY), or -1 */
  bool tried;          /* opened or refused already: never again */
} cs_out_dir;

/* Remember the folder (trailing slashes dropped: "out/" is the folder
 * "out", link or not); nothing is created or opened yet. `setting` (a
 * string that outlives `d`) names it in warnings. */
void cs_out_dir_init(cs_out_dir *d, const char *path, const char *setting);

/* Create and open the folder on the first call (warning once, through the
 * logger, when that fails or the policy above refuses it); later calls
 * answer the same without trying again. */
bool cs_out_dir_open(cs_out_dir *d);

/* A new file `name` in the folder, opened for writing with
 * O_CREAT|O_EXCL|O_NOFOLLOW (mode 0644 less the umask). -1 with errno set
 * (EEXIST: the name is taken, by anything). */
int cs_out_dir_create(cs_out_dir *d, const char *name);

/* Open `name` again with `flags` (e.g. O_WRONLY|O_DIRECT), only if it is
 * still the file `fd` is open on (same device and inode; never through a
 * link, never blocking on a FIFO). -1 with errno set otherwise (ESTALE:
 * the name now belongs to another file). */
int cs_out_dir_reopen(cs_out_dir *d, const char *name, int fd, int flags);

/* Replace `name` in one step by a file holding data[0, len): readers see
 * the old file or the new one, never half of one, and a link at `name` is
 * replaced, not followed. False with errno set; nothing is left behind. */
bool cs_out_dir_replace(cs_out_dir *d, const char *name, const void *data,
                        size_t len);

/* Close the folder (fork child included: close() only). */
void cs_out_dir_close(cs_out_dir *d);

/* The policy for a symbolic link at the folder's last component: does a
 * link owned by `owner` lead where we may write? */
bool cs_out_dir_trusts_link_owner(uid_t owner);

#endif
