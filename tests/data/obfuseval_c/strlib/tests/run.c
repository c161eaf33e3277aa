/* The test runner: ./run_tests [NAME ...] runs the named tests (all without names) and
 * prints one line per test, "ok NAME" or "FAIL NAME: why". */
#include <stdio.h>
#include <string.h>
#include "../lib/util.h"

static int failed;
#define CHECK(cond) do { if (!(cond)) { printf("FAIL %s: %s\n", current, #cond); failed = 1; return; } } while (0)
static const char *current;

static void test_clamp(void) { CHECK(clamp(5, 0, 3) == 3); CHECK(clamp(-2, 0, 3) == 0); CHECK(clamp(2, 0, 3) == 2); }
static void test_gcd(void) { CHECK(gcd(12, 18) == 6); CHECK(gcd(-4, 6) == 2); CHECK(gcd(7, 0) == 7); }
static void test_sum_squares(void) { int xs[] = {1, 2, 3}; CHECK(sum_squares(xs, 3) == 14); CHECK(sum_squares(xs, 0) == 0); }
static void test_count_char(void) { CHECK(count_char("banana", 'a') == 3); CHECK(count_char("", 'a') == 0); }
static void test_reverse(void) { char s[] = "abc"; char e[] = ""; reverse_in_place(s); reverse_in_place(e); CHECK(strcmp(s, "cba") == 0); CHECK(e[0] == 0); }
static void test_palindrome(void) { CHECK(is_palindrome("Level")); CHECK(!is_palindrome("abca")); CHECK(is_palindrome("")); }

static const struct { const char *name; void (*run)(void); } tests[] = {
	{"clamp", test_clamp}, {"gcd", test_gcd}, {"sum_squares", test_sum_squares},
	{"count_char", test_count_char}, {"reverse", test_reverse}, {"palindrome", test_palindrome},
};

int main(int argc, char **argv)
{
	size_t i;
	int j, any = 0;
	for (i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		int wanted = argc < 2;
		for (j = 1; j < argc; j++)
			wanted |= strcmp(argv[j], tests[i].name) == 0;
		if (!wanted)
			continue;
		any = 1;
		current = tests[i].name;
		int before = failed;
		failed = 0;
		tests[i].run();
		if (!failed)
			printf("ok %s\n", current);
		failed |= before;
	}
	fflush(stdout);
	return failed || !any;
}
