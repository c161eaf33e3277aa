public class Solution {
    public static int pairedDigits(String digits) {
        int sum = 0;
        for (int i = 0; i + 1 < digits.length(); i++) {
            if (digits.charAt(i) == digits.charAt(i + 1)) {
                sum += digits.charAt(i) - '0';
            }
        }
        return sum;
    }
}
