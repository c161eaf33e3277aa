#include <string.h>
#include "util.h"

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* how many times c occurs in s */
size_t count_char(const char *s, char c)
{
	size_t n = 0;
	for (; *s; s++)
		if (*s == c)
			n++;
	return n;
}

/* s reversed, in place */
void reverse_in_place(char *s)
{
	size_t i, j = strlen(s);
	for (i = 0; j > 0 && i < j - 1; i++, j--) {
		char t = s[i];
		s[i] = s[j - 1];
		s[j - 1] = t;
	}
}

/* whether s reads the same backwards, ignoring case */
int is_palindrome(const char *s)
{
	size_t i = 0, j = strlen(s);
	while (j > i + 1) {
		if (lower(s[i]) != lower(s[j - 1]))
			return 0;
		i++;
		j--;
	}
	return 1;
}
