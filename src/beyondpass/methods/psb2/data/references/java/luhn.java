public class Solution {
    public static int luhn(int[] digits) {
        int total = 0;
        for (int i = 0; i < digits.length; i++) {
            int d = digits[i];
            if (i % 2 == 0) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            total += d;
        }
        return total;
    }
}
