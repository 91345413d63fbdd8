#!/usr/bin/env python3
"""bench/scale_conns.py - hold N idle connections open through a proxy and report its memory per connection.

Used by bench/scale.sh (standard library only). Modes:
  keepalive  HTTP/1.1: connect, send one GET, read the whole answer (Content-Length or chunked), keep the socket open
  ws         websocket: send an upgrade GET (Sec-WebSocket-Key, version 13), read the 101 head, keep the socket open

The proxy's cgroup memory.stat is sampled before the first connection (baseline) and after each checkpoint count
(--counts 1000,5000: open 1000, settle, sample; open 4000 more, settle, sample). A sample waits --settle s, then
reads once a second until --window readings agree within max(256 KiB, 0.5 %) (at most --max-wait s) and takes
their median: a JVM's anonymous memory moves for a few seconds after work (JIT, GC, native-heap trim every 5 s).
Per checkpoint one line (stable=no: the readings never agreed, the figure is rougher):

  CONNS mode=keepalive n=1000 alive=1000 anon_base_kib=.. anon_kib=.. anon_delta_kib=.. anon_per_conn_kib=..
        usage_delta_kib=.. usage_per_conn_kib=.. kmem_delta_kib=.. kmem_per_conn_kib=.. open_s=.. settle_s=.. stable=..

anon = total_rss (anonymous memory: heap, stacks, malloc); usage = memory.usage_in_bytes (includes kernel memory
such as socket structures when v1 kmem accounting is on, and page cache); kmem = memory.kmem.usage_in_bytes.
alive = sockets the proxy had not closed at sampling time (checked without blocking). Before the baseline, --prime
connections are opened the same way and closed, so first-use costs (class loading, JIT) are not counted per
connection. --gc-cmd 'jcmd PID GC.run' adds a second sample after a full GC at each point (anon_gc_* fields): what a
JVM retains per connection, without the garbage its heap happens to hold at that moment.
"""
import argparse
import base64
import os
import resource
import select
import socket
import statistics
import subprocess
import sys
import time


def read_stat(cg):
    vals = {}
    with open(os.path.join(cg, "memory.stat")) as f:
        for line in f:
            k, v = line.split()
            vals[k] = int(v)
    with open(os.path.join(cg, "memory.usage_in_bytes")) as f:
        usage = int(f.read())
    kmem = 0
    p = os.path.join(cg, "memory.kmem.usage_in_bytes")
    if os.path.exists(p):
        with open(p) as f:
            kmem = int(f.read())
    return vals.get("total_rss", 0), usage, kmem


def sample(cg, settle, window, max_wait):
    """Wait `settle` s, then read once a second until the last `window` anon readings lie within
    max(256 KiB, 0.5 %) of each other (or `max_wait` s have passed); medians of that window.
    Returns (anon, usage, kmem, seconds waited, stable)."""
    t0 = time.time()
    time.sleep(settle)
    rs = []
    while True:
        rs.append(read_stat(cg))
        last = rs[-window:]
        if len(last) == window:
            anons = [x[0] for x in last]
            stable = max(anons) - min(anons) <= max(256 * 1024, 0.005 * statistics.median(anons))
            if stable or time.time() - t0 >= max_wait:
                return tuple(statistics.median(x[j] for x in last) for j in range(3)) + (time.time() - t0, stable)
        time.sleep(1)


def recv_head(s):
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the end of the response head")
        buf += chunk
        if len(buf) > 65536:
            raise ConnectionError("response head too large")
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def read_body(s, head, rest):
    lower = head.lower()
    cl = None
    chunked = False
    for line in lower.split("\r\n")[1:]:
        k, _, v = line.partition(":")
        if k.strip() == "content-length":
            cl = int(v.strip())
        elif k.strip() == "transfer-encoding" and "chunked" in v:
            chunked = True
    if cl is not None:
        while len(rest) < cl:
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("closed inside the body")
            rest += chunk
        return
    if chunked:
        while not rest.endswith(b"0\r\n\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("closed inside the chunked body")
            rest += chunk
        return
    raise ConnectionError("response without Content-Length or chunked body")


def open_one(mode, port, host):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if mode == "keepalive":
        s.sendall(("GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: scale_conns\r\n\r\n" % host).encode())
        head, rest = recv_head(s)
        if not head.startswith("HTTP/1.1 200"):
            raise ConnectionError("expected 200, got: " + head.split("\r\n")[0])
        read_body(s, head, rest)
    else:
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(("GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (host, key)).encode())
        head, rest = recv_head(s)
        if not head.startswith("HTTP/1.1 101"):
            raise ConnectionError("expected 101, got: " + head.split("\r\n")[0])
        if rest:
            raise ConnectionError("unexpected bytes after the 101 head")
    return s


def ws_echo_check(s):
    """Send one masked text frame "ping-scale" and expect it echoed (unmasked) back."""
    payload = b"ping-scale"
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    s.settimeout(5)
    buf = b""
    while len(buf) < 2 + len(payload):
        chunk = s.recv(4096)
        if not chunk:
            return False
        buf += chunk
    return buf[0] == 0x81 and buf[1] == len(payload) and buf[2:2 + len(payload)] == payload


def alive_count(socks):
    """Sockets not closed by the peer: a readable socket with recv(MSG_PEEK) == b'' is closed."""
    poller = select.poll()
    by_fd = {}
    for s in socks:
        poller.register(s, select.POLLIN | select.POLLHUP | select.POLLERR)
        by_fd[s.fileno()] = s
    dead = 0
    for fd, ev in poller.poll(0):
        try:
            if not by_fd[fd].recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT):
                dead += 1
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            dead += 1
    return len(socks) - dead


def measure(a):
    """One sample; with --gc-cmd also a second one after running it (a full GC in a JVM)."""
    m = sample(a.cgroup, a.settle, a.window, a.max_wait)
    if not a.gc_cmd:
        return m, None
    subprocess.run(a.gc_cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    return m, sample(a.cgroup, a.settle, a.window, a.max_wait)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["keepalive", "ws"], required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--counts", default="1000")
    ap.add_argument("--cgroup", required=True, help="memory cgroup directory of the proxy")
    ap.add_argument("--settle", type=float, default=3, help="seconds of quiet before the first reading")
    ap.add_argument("--window", type=int, default=5, help="readings (1 s apart) that must agree")
    ap.add_argument("--max-wait", type=float, default=20, help="give up waiting for agreement after this")
    ap.add_argument("--name", default="proxy")
    ap.add_argument("--prime", type=int, default=100,
                    help="connections opened the same way and closed before the baseline (loads the code path)")
    ap.add_argument("--gc-cmd", default="", help="shell command run before a second sample at each point "
                    "(e.g. jcmd PID GC.run): adds anon_gc_* fields, memory retained after a full GC")
    a = ap.parse_args()

    counts = [int(x) for x in a.counts.split(",")]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(counts) + 100
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(want, soft), hard), hard))

    primed = []
    for _ in range(a.prime):
        try:
            primed.append(open_one(a.mode, a.port, a.host))
        except OSError as e:
            print("# %s: priming connection failed: %r" % (a.name, e), file=sys.stderr, flush=True)
            return 1
    for s in primed:
        s.close()
    base, base_gc = measure(a)
    print("# %s %s baseline anon=%.0f KiB usage=%.0f KiB kmem=%.0f KiB (after %.0f s, %s)"
          % (a.name, a.mode, base[0] / 1024, base[1] / 1024, base[2] / 1024, base[3],
             "stable" if base[4] else "NOT stable"), file=sys.stderr, flush=True)
    socks = []
    rc = 0
    for n in counts:
        t0 = time.time()
        failed = 0
        first_err = None
        while len(socks) + failed < n:
            try:
                socks.append(open_one(a.mode, a.port, a.host))
            except OSError as e:
                failed += 1
                first_err = first_err or repr(e)
                if failed > 50:
                    break
        open_s = time.time() - t0
        if failed:
            print("# %s: %d connection(s) failed, first: %s" % (a.name, failed, first_err), file=sys.stderr, flush=True)
            rc = 1
        m, m_gc = measure(a)
        alive = alive_count(socks)  # after sampling: the proxy had its chance to close them
        k = len(socks) or 1
        da, du, dk = m[0] - base[0], m[1] - base[1], m[2] - base[2]
        gc = ""
        if base_gc and m_gc:
            gc = " anon_gc_base_kib=%.0f anon_gc_kib=%.0f anon_gc_per_conn_kib=%.2f" % (
                base_gc[0] / 1024, m_gc[0] / 1024, (m_gc[0] - base_gc[0]) / 1024 / k)
        print("CONNS name=%s mode=%s n=%d opened=%d alive=%d anon_base_kib=%.0f anon_kib=%.0f anon_delta_kib=%.0f "
              "anon_per_conn_kib=%.2f usage_delta_kib=%.0f usage_per_conn_kib=%.2f kmem_delta_kib=%.0f "
              "kmem_per_conn_kib=%.2f open_s=%.2f settle_s=%.0f stable=%s%s"
              % (a.name, a.mode, n, len(socks), alive, base[0] / 1024, m[0] / 1024, da / 1024, da / 1024 / k,
                 du / 1024, du / 1024 / k, dk / 1024, dk / 1024 / k, open_s, m[3],
                 "yes" if base[4] and m[4] else "no", gc), flush=True)
        if failed > 50:
            break
    if a.mode == "ws" and socks:
        ok = ws_echo_check(socks[-1])
        print("# %s ws echo through the last websocket: %s" % (a.name, "ok" if ok else "FAILED"), file=sys.stderr,
              flush=True)
        if not ok:
            rc = 1
    for s in socks:
        s.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
