public class Solution {
    public static int fuelCost(int[] vector) {
        int total = 0;
        for (int v : vector) {
            total += Math.floorDiv(v, 3) - 2;
        }
        return total;
    }
}
