/* placeholder */
#include "cli.h"
int cmd_merge(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return 1;
}
