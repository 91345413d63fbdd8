package dev.usher.config;

import java.util.ArrayList;
import java.util.List;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Usher's own listeners, which no stream may take the port of: plain HTTP and HTTPS over TCP, HTTP/3 over UDP on
 * the HTTPS port, and the admin endpoint. Reported at the stream's key, naming the setting it clashes with.
 */
final class ListenerClashes {
    /** One listener of Usher's own: where, over which transport, and the setting that puts it there. */
    private record Own(ListenAddress address, StreamSetting.Protocol protocol, String setting) {
    }

    private final NodeWalker walker;
    private final List<Own> own = new ArrayList<>();

    /**
     * @param admin the admin endpoint's address, or null when it is off
     */
    ListenerClashes(NodeWalker walker, Listen listen, ListenAddress admin) {
        this.walker = walker;
        own.add(new Own(listen.http(), StreamSetting.Protocol.TCP, "listen.http"));
        if (listen.httpsOn()) {
            own.add(new Own(listen.https(), StreamSetting.Protocol.TCP, "listen.https"));
            if (listen.http3On()) {
                own.add(new Own(listen.https(), StreamSetting.Protocol.UDP, "HTTP/3 (on the HTTPS port over UDP)"));
            }
        }
        if (admin != null) {
            own.add(new Own(admin, StreamSetting.Protocol.TCP, "admin"));
        }
    }

    /** True (after recording the error at {@code keyNode}) when the stream's port is one of Usher's own. */
    boolean check(Node keyNode, YamlPath path, StreamKeys.StreamKey key) {
        for (Own o : own) {
            if (o.protocol() == key.protocol() && StreamKeys.overlap(o.address(), key.listen())) {
                String hint = o.setting().equals("listen.https") ? "; to relay TLS connections by server name on "
                        + "it, give those sites passthrough: true instead" : o.protocol() == StreamSetting.Protocol.UDP
                        ? "; pick another port, or switch HTTP/3 off (http3: false)" : "; pick another port";
                walker.error(keyNode, path, "port " + key.listen().port() + "/" + key.protocol().label()
                        + " is already Usher's " + o.setting() + " (" + o.address() + ")" + hint);
                return true;
            }
        }
        return false;
    }
}
