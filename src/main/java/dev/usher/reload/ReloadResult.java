package dev.usher.reload;

import dev.usher.config.ConfigError;

import java.time.Duration;
import java.util.List;

/**
 * How one reload ended: either the new config serves ({@link #ok()}, with what changed), or the old one still does
 * and {@link #errors()} says why. Errors that do not come from a place in the file (a listener that cannot be
 * bound, say) have line and column 0 and the config path of the setting, such as {@code listen.https}.
 *
 * @param changes what the reload changed; empty when it failed
 * @param errors  why it failed; empty when it succeeded
 * @param took    from the trigger to the swap (or the failure)
 */
public record ReloadResult(Changes changes, List<ConfigError> errors, Duration took) {
    private static final Changes NOTHING = new Changes(List.of(), List.of(), List.of(), List.of(), List.of());

    public ReloadResult {
        errors = List.copyOf(errors);
    }

    /** A reload that put the new config in service. */
    public static ReloadResult succeeded(Changes changes, Duration took) {
        return new ReloadResult(changes, List.of(), took);
    }

    /** A reload that changed nothing, for {@code errors}. */
    public static ReloadResult failed(List<ConfigError> errors, Duration took) {
        return new ReloadResult(NOTHING, errors, took);
    }

    /** True when the new config is in service. */
    public boolean ok() {
        return errors.isEmpty();
    }
}
