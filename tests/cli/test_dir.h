/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_dir.h — the temporary folder a cmocka test group of the CLI
 * writes its trace files into: made by the group's setup, removed with its
 * content by the teardown.
 */
#ifndef CCLSCOPE_TESTS_CLI_TEST_DIR_H
#define CCLSCOPE_TESTS_CLI_TEST_DIR_H

/* Make $TMPDIR/cclscope-NAME-XXXXXX (TMPDIR defaults to /tmp); its path,
 * valid until test_dir_remove, or NULL when it cannot be made. */
char *test_dir_make(const char *name);

/* Remove the folder test_dir_make made, with everything in it; 0 or -1. */
int test_dir_remove(void);

#endif
