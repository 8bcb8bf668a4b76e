/* test_check.c - CRC32, CRC64 and SHA-256 against published check values
 * and FIPS 180-4 vectors, on every dispatch level the CPU has. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "check/check.h"
#include "cpu/cpu.h"
#include "test_util.h"

static void test_check_values(void **state)
{
    (void)state;
    for (int lvl = 0; lvl <= (int)fz7_cpu_max_level(); lvl++) {
        fz7_cpu_set_level((fz7_cpu_level)lvl);
        assert_int_equal(fz7_crc32(0, "123456789", 9), 0xCBF43926u);
        assert_true(fz7_crc64(0, "123456789", 9) == 0x995DC9BBDF1939FAull);
        /* Split updates give the same value. */
        uint32_t c = fz7_crc32(0, "1234", 4);
        assert_int_equal(fz7_crc32(c, "56789", 5), 0xCBF43926u);
        char h[65];
        tu_sha256_hex("abc", 3, h);
        assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        tu_sha256_hex("", 0, h);
        assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        tu_sha256_hex(m2, strlen(m2), h);
        assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }
    tu_print_skipped_levels("test_check");
    fz7_cpu_set_level(fz7_cpu_max_level());
}

static void test_sha256_million_a(void **state)
{
    (void)state;
    static uint8_t buf[1001];
    memset(buf, 'a', sizeof buf);
    fz7_sha256 s;
    uint8_t d[32];
    char h[65];
    fz7_sha256_init(&s);
    for (int i = 0; i < 1000; i++)
        fz7_sha256_update(&s, buf, i % 2 ? 999 : 1001);
    fz7_sha256_final(&s, d);
    tu_hex(d, 32, h);
    assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_values),
        cmocka_unit_test(test_sha256_million_a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
