#include <cctype>
#include <string>

// Python's text.split(" ") and group.split("-"): empty parts are kept, an empty part
// after a dash adds nothing
std::string camel_case(const std::string& text) {
    std::string out;
    bool after_dash = false;
    for (char ch : text) {
        if (ch == ' ') {
            out += ' ';
            after_dash = false;
        } else if (ch == '-') {
            after_dash = true;
        } else if (after_dash) {
            out += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            after_dash = false;
        } else {
            out += ch;
        }
    }
    return out;
}
