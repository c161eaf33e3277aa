#ifndef STRLIB_UTIL_H
#define STRLIB_UTIL_H
#include <stddef.h>

int clamp(int x, int lo, int hi);
int gcd(int a, int b);
long sum_squares(const int *xs, size_t n);
size_t count_char(const char *s, char c);
void reverse_in_place(char *s);
int is_palindrome(const char *s);

#endif
