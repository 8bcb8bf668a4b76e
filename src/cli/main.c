/* main.c - placeholder entry point until the command layer lands. */
#include <stdio.h>

int main(void)
{
    fprintf(stderr, "fz7: not built yet\n");
    return 2;
}
