/* test_cli_options.c - the command-line parser (7-Zip switches, -m list,
 * exit codes of bad usage) and 7-Zip's wildcard rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "cli/options.h"

#define ARGV(...) ((char *[]){"fz7", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"fz7", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, ...) fz7_options_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), kind, \
                                        sizeof kind, arg, sizeof arg)

static char kind[256], arg[256];

static void test_extract_switches(void **state)
{
    (void)state;
    struct fz7_options o;
    assert_int_equal(PARSE(&o, "x", "-oout dir", "-psecret", "-aou", "a.7z", "-r", "*.txt",
                           "-x!skip/*", "-xr-!top.txt", "-ssc-", "-bb2", "-bsp1"), 0);
    assert_int_equal(o.command, FZ7_CMD_EXTRACT);
    assert_string_equal(o.archive, "a.7z");
    assert_string_equal(o.out_dir, "out dir");
    assert_string_equal(o.password, "secret");
    assert_int_equal(o.overwrite, FZ7_OVERWRITE_RENAME_NEW);
    assert_int_equal(o.n_names, 1);
    assert_string_equal(o.names[0].pattern, "*.txt");
    assert_true(o.names[0].recursive); /* -r after the name still applies */
    assert_int_equal(o.n_excludes, 2);
    assert_true(o.excludes[0].recursive);
    assert_false(o.excludes[1].recursive);
    assert_false(o.case_sensitive);
    assert_int_equal(o.bb, 2);
    assert_int_equal(o.bsp, 1);
    fz7_options_free(&o);

    /* -p alone: the empty password on e (as 7zz: no question), asked on a */
    assert_int_equal(PARSE(&o, "E", "-y", "a.7z", "-p"), 0);
    assert_int_equal(o.command, FZ7_CMD_EXTRACT_FLAT);
    assert_int_equal(o.overwrite, FZ7_OVERWRITE_ALL);
    assert_string_equal(o.password, "");
    assert_false(o.ask_password);
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "a", "a.7z", "-p"), 0);
    assert_null(o.password);
    assert_true(o.ask_password);
    fz7_options_free(&o);

    /* "--" ends switches: "-name" is a file name. */
    assert_int_equal(PARSE(&o, "l", "a.7z", "--", "-name"), 0);
    assert_int_equal(o.n_names, 1);
    assert_string_equal(o.names[0].pattern, "-name");
    fz7_options_free(&o);
}

static void test_method_switches(void **state)
{
    (void)state;
    struct fz7_options o;
    assert_int_equal(PARSE(&o, "a", "-mx7", "-m0=LZMA2:d=64m", "-mfb=64", "-mmt3", "-mhe=on",
                           "-mhc-", "-ms=4g", "-mf=off", "-mmemuse=2g", "-snl", "-t7z", "a.7z",
                           "dir"), 0);
    assert_int_equal(o.level, 7);
    assert_int_equal(o.n_methods, 2);
    assert_string_equal(o.methods[0], "0=LZMA2:d=64m");
    assert_string_equal(o.methods[1], "fb=64");
    assert_int_equal(o.threads, 3);
    assert_int_equal(o.header_encrypt, FZ7_ON);
    assert_int_equal(o.header_compress, FZ7_OFF);
    assert_string_equal(o.solid, "4g");
    assert_string_equal(o.filters, "off");
    assert_true(o.memuse_bytes == (uint64_t)2 << 30);
    assert_true(o.store_symlinks);
    assert_int_equal(o.type, FZ7_TYPE_7Z);
    fz7_options_free(&o);

    assert_int_equal(PARSE(&o, "a", "-mx", "-mmt=off", "-ms", "-mmemuse=p50", "a.7z"), 0);
    assert_int_equal(o.level, 9);
    assert_int_equal(o.threads, 1);
    assert_string_equal(o.solid, "");
    assert_int_equal(o.memuse_percent, 50);
    assert_int_equal(o.header_encrypt, FZ7_UNSET);
    fz7_options_free(&o);
}

static void test_bad_usage(void **state)
{
    (void)state;
    struct fz7_options o;
    assert_int_equal(PARSE(&o, "x", "-zz", "a.7z"), 7);
    assert_string_equal(kind, "Unknown switch:");
    assert_string_equal(arg, "-zz");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "q", "a.7z"), 7);
    assert_string_equal(kind, "Unsupported command:");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "x"), 7);
    assert_string_equal(kind, "Cannot find archive name");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "x", "-aox", "a.7z"), 7);
    assert_string_equal(kind, "Incorrect switch postfix:");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "x", "-o", "a.7z"), 7);
    assert_string_equal(kind, "Too short switch:");
    fz7_options_free(&o);
    /* -m values 7-Zip refuses with E_INVALIDARG (exit 2), not as switches:
     * at once for h, b, i; the commands that open or write an archive keep
     * the first for the settings, which refuse it where 7zz does. */
    assert_int_equal(PARSE(&o, "h", "-mx=zz", "a.txt"), 2);
    assert_string_equal(kind, "E_INVALIDARG : One or more arguments are invalid");
    assert_string_equal(arg, "-mx=zz");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "x", "-mx=zz", "a.7z"), 0);
    assert_string_equal(o.bad_method, "-mx=zz");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "a", "-mx=zz", "-mmt=abc", "a.7z"), 0);
    assert_string_equal(o.bad_method, "-mx=zz");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "b", "-mmemuse=12q"), 2);
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "u", "-mmemuse", "a.7z"), 0);
    assert_string_equal(o.bad_method, "-mmemuse");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "i", "-mx=4294967296"), 2);
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "a", "-mx12", "a.7z"), 0);   /* as 7zz: level 9 */
    assert_int_equal(o.level, 9);
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "l", "a.7z", "@/nonexistent/list"), 7);
    fz7_options_free(&o);
}

static void test_wildcards(void **state)
{
    (void)state;
    assert_true(fz7_wildcard_match("a.txt", "a.txt", false, true));
    assert_false(fz7_wildcard_match("a.txt", "d/a.txt", false, true));
    assert_true(fz7_wildcard_match("a.txt", "d/a.txt", true, true));
    assert_true(fz7_wildcard_match("d", "d/e/f.txt", false, true));   /* folder prefix */
    assert_true(fz7_wildcard_match("d/*", "d/e/f.txt", false, true));
    assert_false(fz7_wildcard_match("*1*", "test2/test1", false, true)); /* '*' stops at '/' */
    assert_true(fz7_wildcard_match("*1*", "test2/test1", true, true));
    assert_true(fz7_wildcard_match("t?st", "test", false, true));
    assert_false(fz7_wildcard_match("t?st", "tst", false, true));
    assert_false(fz7_wildcard_match("A.TXT", "a.txt", false, true));
    assert_true(fz7_wildcard_match("A.TXT", "a.txt", false, false));
    assert_true(fz7_wildcard_match("./d//e/", "d/e", false, true));
    assert_true(fz7_wildcard_match("*", "x/y", false, true));
    assert_true(fz7_wildcard_match("*a*b*c", "xxaxxbxxc", false, true));
    assert_false(fz7_wildcard_match("*a*b*c", "xxaxxbxxcx", false, true));
}

/* -ai/-ax name archives (not entries) and do not take the -r state; -an
 * makes the archive name the first file name; the r/m/w modifiers in any
 * order. */
static void test_archive_switches(void **state)
{
    (void)state;
    struct fz7_options o;
    assert_int_equal(PARSE(&o, "t", "-r", "-an", "first.txt", "-air!*.7z", "-ax!b.7z",
                           "-ai!c.7z", "-xmw-!d/", "-xwm2!e", "-spe", "-stxzip", "-stx7z"), 0);
    assert_null(o.archive);
    assert_true(o.no_archive_name);
    assert_int_equal(o.n_names, 1);
    assert_string_equal(o.names[0].pattern, "first.txt");
    assert_int_equal(o.n_archive_names, 2);
    assert_string_equal(o.archive_names[0].pattern, "*.7z");
    assert_true(o.archive_names[0].recursive);
    assert_false(o.archive_names[1].recursive); /* -r is for entries only */
    assert_int_equal(o.n_archive_excludes, 1);
    assert_string_equal(o.archive_excludes[0].pattern, "b.7z");
    assert_int_equal(o.n_excludes, 2);
    assert_int_equal(o.excludes[0].mark, 1);
    assert_true(o.excludes[0].literal);
    assert_int_equal(o.excludes[1].mark, 2);
    assert_false(o.excludes[1].literal);
    assert_true(o.eliminate_root);
    assert_int_equal(o.n_excluded_types, 2);
    assert_string_equal(o.excluded_types[1], "7z");
    fz7_options_free(&o);

    assert_int_equal(PARSE(&o, "x", "-ai!a.7z"), 7); /* no name and no -an */
    assert_string_equal(kind, "Cannot find archive name");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "x", "-an"), 0);      /* "Cannot find archive" later */
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "t", "a.7z", "-iq!x"), 7);
    assert_string_equal(kind, "Incorrect wildcard type marker");
    assert_string_equal(arg, "q!x");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "t", "a.7z", "-ai"), 7);
    assert_string_equal(kind, "Too short switch:");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "t", "a.7z", "-anx"), 7);
    assert_string_equal(kind, "Too long switch:");
    fz7_options_free(&o);

    assert_int_equal(PARSE(&o, "a", "-saa", "new", "f"), 0);
    assert_int_equal(o.name_mode, 'a');
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "a", "-saq", "new", "f"), 7);
    assert_string_equal(kind, "Incorrect switch postfix:");
    fz7_options_free(&o);
    assert_int_equal(PARSE(&o, "a", "-saee", "new", "f"), 7);
    assert_string_equal(kind, "Too long switch:");
    fz7_options_free(&o);
}

/* m: a trailing '/' selects folders (and what they hold), none files; w-:
 * no wildcards. */
static void test_wildcard_modes(void **state)
{
    (void)state;
    fz7_wildcard dir = {.pattern = "src/sub/", .mark = 1};
    fz7_wildcard file = {.pattern = "src/sub", .mark = 1};
    fz7_wildcard lit = {.pattern = "src/s*", .literal = true};
    fz7_wildcard glob = {.pattern = "src/s*"};
    assert_true(fz7_wildcard_selects(&dir, "src/sub", true, true));
    assert_true(fz7_wildcard_selects(&dir, "src/sub/c.txt", false, true));
    assert_false(fz7_wildcard_selects(&file, "src/sub", true, true));
    assert_false(fz7_wildcard_selects(&file, "src/sub/c.txt", false, true));
    assert_true(fz7_wildcard_selects(&file, "src/sub", false, true)); /* a file named so */
    assert_false(fz7_wildcard_selects(&lit, "src/sub", true, true));
    assert_true(fz7_wildcard_selects(&lit, "src/s*", false, true));
    assert_true(fz7_wildcard_selects(&glob, "src/sub", true, true));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extract_switches),
        cmocka_unit_test(test_method_switches),
        cmocka_unit_test(test_bad_usage),
        cmocka_unit_test(test_wildcards),
        cmocka_unit_test(test_archive_switches),
        cmocka_unit_test(test_wildcard_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
