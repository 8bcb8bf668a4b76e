/* cmd_info.c - `fz7 i`: what fz7 reads and writes, in 7-Zip's layout. */
#include "cli/cli.h"
#include "cli/commands.h"

int fz7_cmd_info(const struct fz7_options *o)
{
    (void)o;
    return 0;
}
