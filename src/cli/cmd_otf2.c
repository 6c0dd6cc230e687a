/* placeholder */
#include "cli.h"
int cmd_otf2(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return 1;
}
