public class Solution {
    public static double bouncingBalls(double startHeight, double firstBounce, int bounces) {
        double index = firstBounce / startHeight;
        double total = 0.0;
        double height = startHeight;
        for (int i = 0; i < bounces; i++) {
            total += height + height * index;
            height *= index;
        }
        return total;
    }
}
