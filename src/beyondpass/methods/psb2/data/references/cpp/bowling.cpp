#include <string>
#include <vector>

int bowling(const std::string& rolls) {
    std::vector<int> values(rolls.size());
    for (std::size_t i = 0; i < rolls.size(); ++i) {
        char ch = rolls[i];
        if (ch == 'X') {
            values[i] = 10;
        } else if (ch == '/') {
            values[i] = 10 - values[i - 1];
        } else if (ch == '-') {
            values[i] = 0;
        } else {
            values[i] = ch - '0';
        }
    }
    int score = 0;
    std::size_t roll = 0;
    for (int frame = 0; frame < 10; ++frame) {
        if (rolls[roll] == 'X') {
            score += 10 + values[roll + 1] + values[roll + 2];
            roll += 1;
        } else if (rolls[roll + 1] == '/') {
            score += 10 + values[roll + 2];
            roll += 2;
        } else {
            score += values[roll] + values[roll + 1];
            roll += 2;
        }
    }
    return score;
}
