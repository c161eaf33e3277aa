public class Solution {
    public static double diceGame(int n, int m) {
        long wins = 0;
        for (int face = 1; face <= n; face++) {
            wins += Math.min(face - 1, m);
        }
        return (double) wins / ((long) n * m);
    }
}
