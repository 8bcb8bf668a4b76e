/* fuzz_formats.c - libFuzzer harness: the archives fz7 reads through
 * libarchive with header walks of its own beside it (tar_headers.c,
 * cpio_headers.c, zip_central.c, the gzip and zstd headers of one
 * compressed file): opened by content as `l -slt` opens them, every
 * entry's format lines listed, then every entry extracted into counting
 * callbacks. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = fuzz_memfd(data, size);
    if (fd < 0)
        return 0;
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fz7_open_opts o = {.mem_limit = FUZZ_ARCHIVE_MEM_LIMIT, .threads = 1, .detail = FZ7_DETAIL_PROPS};
    fz7_archive *a;
    if (fz7_archive_open(path, &o, &a, err, sizeof err) == FZ7_OK) {
        fuzz_extract x = {.cap = FUZZ_OUT_CAP};
        const fz7_archive_info *in = fz7_archive_get_info(a);
        x.sum += in->comment ? strlen(in->comment) : 0;
        x.sum += in->characteristics ? strlen(in->characteristics) : 0;
        for (size_t i = 0; i < fz7_archive_count(a); i++) {
            fz7_prop props[FZ7_PROPS_MAX];
            char buf[512];
            size_t n = fz7_archive_entry_props(a, i, props, buf, sizeof buf);
            FUZZ_CHECK(n <= FZ7_PROPS_MAX, "%zu props", n);
            for (size_t k = 0; k < n; k++)
                x.sum += strlen(props[k].name) + (props[k].value ? strlen(props[k].value) : 0);
        }
        fz7_extract_cb cb = {&x, fuzz_cb_begin, fuzz_cb_data, fuzz_cb_end, NULL};
        (void)fz7_archive_extract(a, NULL, &cb, err, sizeof err);
        fz7_archive_close(a);
    }
    close(fd);
    return 0;
}
