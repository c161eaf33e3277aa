#include <map>
#include <string>

std::string substitution_cipher(const std::string& source, const std::string& target,
                                const std::string& message) {
    std::map<char, char> table;
    for (std::size_t i = 0; i < source.size() && i < target.size(); ++i) table[source[i]] = target[i];
    std::string out;
    for (char c : message) {
        auto it = table.find(c);
        out += it == table.end() ? c : it->second;
    }
    return out;
}
