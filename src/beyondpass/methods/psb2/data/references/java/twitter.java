public class Solution {
    public static String twitter(String tweet) {
        if (tweet.isEmpty()) {
            return "You didn't type anything";
        }
        if (tweet.length() > 140) {
            return "Too many characters";
        }
        return "Your tweet has " + tweet.length() + " characters";
    }
}
