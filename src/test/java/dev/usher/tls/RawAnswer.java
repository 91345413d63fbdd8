package dev.usher.tls;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;

/** What a server answered to hand-made bytes, judged from its first record. */
enum RawAnswer {
    SERVER_HELLO, ALERT, CLOSED, OTHER;

    /** Reads the first record header and handshake type; CLOSED when the server closed (or reset) without a word. */
    static RawAnswer read(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        byte[] head = new byte[6];
        int n = 0;
        try {
            while (n < head.length) {
                int r = in.read(head, n, head.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
        } catch (SocketException reset) {
            return n == 0 ? CLOSED : OTHER;
        }
        if (n == 0) {
            return CLOSED;
        }
        if (head[0] == 21) {
            return ALERT;
        }
        return n == 6 && head[0] == 22 && head[5] == 2 ? SERVER_HELLO : OTHER;
    }

    /** True once the server has closed: reads to the end, for at most the socket's timeout. */
    static boolean closedAfter(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            while (in.read() >= 0) {
                // an alert record may come first
            }
            return true;
        } catch (SocketException reset) {
            return true;
        }
    }
}
