/* cmd_add.c - placeholder for `fz7 a` until the archive writers land. */
#include "cli/commands.h"

#include <stdio.h>

int fz7_cmd_add(const struct fz7_options *o)
{
    (void)o;
    fprintf(stderr, "fz7: command 'a' is not implemented yet\n");
    return 7;
}
