import java.util.Arrays;

public class Solution {
    public static int[][] cutVector(int[] vector) {
        long total = 0;
        for (int v : vector) {
            total += v;
        }
        long left = 0;
        long best = -1;
        int bestCut = 0;
        for (int cut = 0; cut < vector.length; cut++) {
            left += vector[cut];
            long diff = Math.abs(total - 2 * left);
            if (best < 0 || diff < best) {
                best = diff;
                bestCut = cut + 1;
            }
        }
        return new int[][] {
            Arrays.copyOfRange(vector, 0, bestCut), Arrays.copyOfRange(vector, bestCut, vector.length)
        };
    }
}
