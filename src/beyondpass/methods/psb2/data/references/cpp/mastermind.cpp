#include <algorithm>
#include <string>
#include <utility>

std::pair<int, int> mastermind(const std::string& code, const std::string& guess) {
    int black = 0, common = 0;
    int in_code[256] = {0}, in_guess[256] = {0};
    for (std::size_t i = 0; i < code.size() && i < guess.size(); ++i) black += code[i] == guess[i];
    for (unsigned char c : code) ++in_code[c];
    for (unsigned char c : guess) ++in_guess[c];
    for (int c = 0; c < 256; ++c) common += std::min(in_code[c], in_guess[c]);
    return {common - black, black};
}
