public class Solution {
    public static int[] mastermind(String code, String guess) {
        int black = 0;
        int[] inCode = new int[128];
        int[] inGuess = new int[128];
        for (int i = 0; i < Math.min(code.length(), guess.length()); i++) {
            if (code.charAt(i) == guess.charAt(i)) {
                black++;
            }
        }
        for (char c : code.toCharArray()) {
            inCode[c]++;
        }
        for (char c : guess.toCharArray()) {
            inGuess[c]++;
        }
        int common = 0;
        for (int c = 0; c < 128; c++) {
            common += Math.min(inCode[c], inGuess[c]);
        }
        return new int[] {common - black, black};
    }
}
