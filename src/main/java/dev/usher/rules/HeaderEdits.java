package dev.usher.rules;

import dev.usher.config.HeaderRule;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

import java.util.List;

/**
 * A site's {@code headers:} or {@code request_headers:} edits, applied in file order: SET replaces every value,
 * ADD appends one more, REMOVE drops them all. Names are turned into {@link AsciiString}s once, at compile time.
 */
final class HeaderEdits {
    private final HeaderRule.Op[] ops;
    private final AsciiString[] names;
    private final String[] values;

    /** @throws IllegalArgumentException for a name or value Netty would refuse (the loader should have) */
    HeaderEdits(List<HeaderRule> rules) {
        int n = rules.size();
        ops = new HeaderRule.Op[n];
        names = new AsciiString[n];
        values = new String[n];
        for (int i = 0; i < n; i++) {
            HeaderRule rule = rules.get(i);
            ops[i] = rule.op();
            names[i] = AsciiString.of(HeaderText.requireName(rule.name()));
            values[i] = rule.op() == HeaderRule.Op.REMOVE ? ""
                    : HeaderText.requireValue("header " + rule.name(), rule.value() == null ? "" : rule.value());
        }
    }

    boolean isEmpty() {
        return ops.length == 0;
    }

    void apply(HttpHeaders headers) {
        for (int i = 0; i < ops.length; i++) {
            switch (ops[i]) {
                case SET -> headers.set(names[i], values[i]);
                case ADD -> headers.add(names[i], values[i]);
                case REMOVE -> headers.remove(names[i]);
            }
        }
    }
}
