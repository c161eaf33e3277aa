public class Solution {
    public static int[] coinSums(int cents) {
        int quarters = cents / 25;
        int rest = cents % 25;
        int dimes = rest / 10;
        rest %= 10;
        return new int[] {rest % 5, rest / 5, dimes, quarters};
    }
}
