/* placeholder */
#include "cli.h"
int cmd_perfetto(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return 1;
}
