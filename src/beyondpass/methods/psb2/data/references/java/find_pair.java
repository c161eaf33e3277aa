public class Solution {
    public static int[] findPair(int[] vector, int target) {
        for (int i = 0; i < vector.length; i++) {
            for (int j = i + 1; j < vector.length; j++) {
                if (vector[i] + vector[j] == target) {
                    return new int[] {vector[i], vector[j]};
                }
            }
        }
        return new int[0];
    }
}
