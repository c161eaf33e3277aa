#include <string>

std::string fizz_buzz(int x) {
    if (x % 15 == 0) return "FizzBuzz";
    if (x % 3 == 0) return "Fizz";
    if (x % 5 == 0) return "Buzz";
    return std::to_string(x);
}
