package dev.usher.config;

import java.util.Map;

/**
 * The pages of {@code error_pages:}, per site or for the whole server: by status ({@code 502}) or by class
 * ({@code 5xx}, {@code 4xx}); an exact status wins over its class.
 *
 * @param byStatus  pages for one status each
 * @param byClass   pages for a class, keyed 4 or 5
 * @param intercept also answer a backend's own 5xx with the page for its status (its body is dropped)
 */
public record ErrorPageSet(Map<Integer, ErrorPage> byStatus, Map<Integer, ErrorPage> byClass, boolean intercept) {
    /** No pages: Usher's built-in ones. */
    public static final ErrorPageSet NONE = new ErrorPageSet(Map.of(), Map.of(), false);

    public ErrorPageSet {
        byStatus = Map.copyOf(byStatus);
        byClass = Map.copyOf(byClass);
    }

    /** The page for {@code status}, or null for the built-in one. */
    public ErrorPage forStatus(int status) {
        ErrorPage exact = byStatus.get(status);
        return exact != null ? exact : byClass.get(status / 100);
    }

    /** True when no page is set and nothing is intercepted. */
    public boolean isEmpty() {
        return byStatus.isEmpty() && byClass.isEmpty();
    }

    /**
     * These pages over {@code fallback}'s (a site's over the top-level ones): a status or class set here wins, so a
     * site's {@code 5xx} page also wins over a top-level {@code 502}; intercept if either says so.
     */
    public ErrorPageSet over(ErrorPageSet fallback) {
        if (fallback.isEmpty() && !fallback.intercept) {
            return this;
        }
        Map<Integer, ErrorPage> status = new java.util.HashMap<>(fallback.byStatus);
        status.keySet().removeIf(code -> byClass.containsKey(code / 100));
        status.putAll(byStatus);
        Map<Integer, ErrorPage> classes = new java.util.HashMap<>(fallback.byClass);
        classes.putAll(byClass);
        return new ErrorPageSet(status, classes, intercept || fallback.intercept);
    }
}
