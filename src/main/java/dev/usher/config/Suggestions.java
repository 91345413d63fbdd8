package dev.usher.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * "Did you mean" for misspelt keys. A candidate is suggested when it matches ignoring case and the separators
 * {@code _}, {@code -} and space ({@code maxBody}, {@code max-body} for {@code max_body}), when the word is a
 * known alias of it ({@code upstream} for {@code to}), or when it is within two edits (Damerau–Levenshtein, adjacent
 * swaps counting one) and fewer edits than it has letters, so that {@code foo} does not suggest {@code to}.
 */
final class Suggestions {
    private static final int MAX_EDITS = 2;

    private Suggestions() {
    }

    /**
     * The closest candidate to {@code typed}, if any is close enough.
     *
     * @param typed      the key as written
     * @param candidates the valid keys, best first on a tie
     * @param aliases    lower-case words people tend to write instead, each mapped to the valid key
     */
    static Optional<String> closest(String typed, List<String> candidates, Map<String, String> aliases) {
        String folded = fold(typed);
        for (String candidate : candidates) {
            if (fold(candidate).equals(folded)) {
                return Optional.of(candidate);
            }
        }
        String alias = aliases.get(typed.toLowerCase(Locale.ROOT));
        if (alias != null) {
            return Optional.of(alias);
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String lower = typed.toLowerCase(Locale.ROOT);
        for (String candidate : candidates) {
            int d = distance(lower, candidate.toLowerCase(Locale.ROOT));
            if (d <= MAX_EDITS && d < candidate.length() && d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two adjacent
     * characters each cost one.
     */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int best = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    best = Math.min(best, d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        return d[a.length()][b.length()];
    }

    private static String fold(String key) {
        StringBuilder out = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c != '_' && c != '-' && c != ' ') {
                out.append(Character.toLowerCase(c));
            }
        }
        return out.toString();
    }
}
