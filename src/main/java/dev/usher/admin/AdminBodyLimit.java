package dev.usher.admin;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Collects an admin request's body: at most 64 KiB, except for {@code POST /api/restore} (a backup archive, up to
 * {@link Backups#LIMIT}) from a logged-in session (or on a loopback endpoint without password): a stranger cannot
 * make Usher hold 64 MiB per connection before the login check. A body must announce its size in Content-Length (browsers do); one over its limit, or a
 * chunked one, is refused with 413 before it is read.
 */
final class AdminBodyLimit extends HttpObjectAggregator {
    static final int SMALL = 64 * 1024;

    private final AdminSecret secret;
    private final Sessions sessions;

    AdminBodyLimit(AdminSecret secret, Sessions sessions) {
        super((int) Backups.LIMIT);
        this.secret = secret;
        this.sessions = sessions;
    }

    @Override
    protected boolean isContentLengthInvalid(HttpMessage start, int maxContentLength) {
        boolean restore = start instanceof HttpRequest request && request.uri().startsWith("/api/restore")
                && (!secret.required() || sessions.find(request.headers().get(HttpHeaderNames.COOKIE)) != null);
        long length = HttpUtil.getContentLength(start, -1L);
        if (length < 0) {
            return start.headers().contains(HttpHeaderNames.TRANSFER_ENCODING); // a body must announce its size
        }
        return length > (restore ? maxContentLength : SMALL);
    }
}
