package dev.usher.admin;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;

/**
 * One {@code /api/} request, copied off the Netty buffers so it can be handled on another thread.
 *
 * @param method      the method
 * @param path        the decoded-later path, without the query
 * @param headers     the request headers
 * @param body        the body bytes
 * @param session     the logged-in session of its cookie, or null
 * @param secure      true when it reached Usher over HTTPS (the admin site): cookies get {@code Secure}
 * @param client      the client's address, for the login throttle
 * @param tokenClient true when it carried the secret itself (Bearer or Basic): a tool, not a browser session
 */
record ApiRequest(HttpMethod method, String path, HttpHeaders headers, byte[] body, Sessions.Session session,
                  boolean secure, String client, boolean tokenClient) {
}
