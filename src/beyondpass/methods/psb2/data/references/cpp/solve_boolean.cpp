#include <string>

bool solve_boolean(const std::string& expression) {
    bool value = expression[0] == 't';
    for (std::size_t i = 1; i + 1 < expression.size(); i += 2) {
        bool right = expression[i + 1] == 't';
        value = expression[i] == '&' ? (value && right) : (value || right);
    }
    return value;
}
