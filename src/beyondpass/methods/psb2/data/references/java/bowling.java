public class Solution {
    public static int bowling(String rolls) {
        int[] values = new int[rolls.length()];
        for (int i = 0; i < rolls.length(); i++) {
            char ch = rolls.charAt(i);
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
        int roll = 0;
        for (int frame = 0; frame < 10; frame++) {
            if (rolls.charAt(roll) == 'X') {
                score += 10 + values[roll + 1] + values[roll + 2];
                roll += 1;
            } else if (rolls.charAt(roll + 1) == '/') {
                score += 10 + values[roll + 2];
                roll += 2;
            } else {
                score += values[roll] + values[roll + 1];
                roll += 2;
            }
        }
        return score;
    }
}
