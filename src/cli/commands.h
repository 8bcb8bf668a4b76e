/* commands.h - one entry point per command; each returns the exit code. */
#ifndef FZ7_COMMANDS_H
#define FZ7_COMMANDS_H

struct fz7_options;

/* `a`: create or add to a .7z/.xz archive (cmd_add.c). */
int fz7_cmd_add(const struct fz7_options *o);

#endif
