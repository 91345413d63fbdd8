#!/usr/bin/env python3
"""The Markdown report (and an SVG plot) of one bench/soak.sh run, from the files in its work folder (stdlib only).

usage: bench/soak-report.py --work DIR --minutes N --reloads N --b2-restarts N --svg PATH > report.md

Reads DIR/hey.txt (HTTP/1.1), DIR/h2load.txt (HTTP/2), DIR/clients.txt (HTTP/3 and websocket, SoakClients),
DIR/usher.log (warnings, errors, reloads, renewals) and DIR/samples.txt (t rss_kib heap_used heap_committed fds
threads, every 10 s).
"""
import argparse
import collections
import os
import re
import sys
from xml.sax.saxutils import escape


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def hey_counts(text):
    status = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"\[(\d{3})\]\s+(\d+) responses", text)}
    errors = collections.Counter()
    in_errors = False
    for line in text.splitlines():
        if line.startswith("Error distribution:"):
            in_errors = True
            continue
        m = re.match(r"\s+\[(\d+)\]\s+(.*)", line) if in_errors else None
        if m:
            errors[simplify(m.group(2))] += int(m.group(1))
    return status, errors


def simplify(error):
    """hey prints one error line per distinct text (with ports): fold them by kind."""
    error = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", error)
    error = re.sub(r"\"https://[^\"]*\"", "URL", error)
    return error[:160]


def h2load_counts(text):
    status, errors = {}, collections.Counter()
    m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    if m:
        status = {"2xx": int(m.group(1)), "3xx": int(m.group(2)), "4xx": int(m.group(3)), "5xx": int(m.group(4))}
    m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                  r"(\d+) errored, (\d+) timeout", text)
    if m:
        errors["failed (no 2xx/3xx answer, incl. errored)"] = int(m.group(5))
        errors["errored (stream or connection level)"] = int(m.group(6))
        errors["timeout"] = int(m.group(7))
    return status, errors


def clients_counts(text):
    line = ""
    for candidate in text.splitlines():
        if candidate.startswith("soak-clients: "):
            line = candidate[len("soak-clients: "):]
    return dict((k, int(v)) for k, v in (item.split("=", 1) for item in line.split() if "=" in item))


def log_facts(text):
    lines = text.splitlines()
    warnings = [l for l in lines if " WARN" in l[:40]]
    errors = [l for l in lines if " ERROR" in l[:40]]
    return {
        "reloads": sum(1 for l in lines if "reloaded " in l),
        "reload failures": sum(1 for l in lines if "reload failed" in l or "not reloaded" in l),
        "renewals": sum(1 for l in lines if ": renewing the certificate" in l),
        "certificates put in service": sum(1 for l in lines if " in service (sha256" in l),
        "warnings": warnings,
        "errors": errors,
    }


def samples(text):
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 6:
            rows.append([int(p) for p in parts])
    return rows


def svg_plot(rows, path):
    """Three stacked line charts: RSS and heap (MiB), descriptors, against minutes."""
    width, height, pad = 760, 560, 60
    panels = [("memory (MiB)", [("RSS", 1, 1 / 1024, "#c0392b"), ("heap used", 2, 1 / 2**20, "#2980b9"),
                                ("heap committed", 3, 1 / 2**20, "#7fb3d5")]),
              ("open descriptors", [("descriptors", 4, 1, "#27ae60")]),
              ("threads", [("threads", 5, 1, "#8e44ad")])]
    tmax = max((r[0] for r in rows), default=1) / 60 or 1
    ph = (height - pad) / len(panels) - 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
           f'font-size="12"><rect width="100%" height="100%" fill="white"/>']
    for i, (title, series) in enumerate(panels):
        top = 20 + i * (ph + 30)
        vmax = max((r[col] * scale for _, col, scale, _ in series for r in rows), default=1) * 1.1 or 1
        out.append(f'<text x="{pad}" y="{top - 5}" font-weight="bold">{escape(title)}</text>')
        out.append(f'<rect x="{pad}" y="{top}" width="{width - 2 * pad}" height="{ph}" fill="none" stroke="#999"/>')
        for frac in (0, 0.5, 1):
            y = top + ph - frac * ph
            out.append(f'<text x="{pad - 5}" y="{y + 4}" text-anchor="end">{vmax * frac:.0f}</text>')
        for k, (name, col, scale, colour) in enumerate(series):
            pts = " ".join(f"{pad + (r[0] / 60) / tmax * (width - 2 * pad):.1f},"
                           f"{top + ph - r[col] * scale / vmax * ph:.1f}" for r in rows)
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{pts}"/>')
            out.append(f'<text x="{width - pad - 150}" y="{top + 15 + 14 * k}" fill="{colour}">{escape(name)}</text>')
    bottom = height - pad + 25
    for m in range(0, int(tmax) + 1, max(1, int(tmax) // 10 or 1)):
        x = pad + m / tmax * (width - 2 * pad)
        out.append(f'<text x="{x:.1f}" y="{bottom}" text-anchor="middle">{m}</text>')
    out.append(f'<text x="{width / 2}" y="{bottom + 18}" text-anchor="middle">minutes</text></svg>')
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def table(title, status, errors):
    lines = [f"| {title} | requests |", "| --- | ---: |"]
    lines += [f"| {k} | {v:,} |" for k, v in sorted(status.items(), key=lambda kv: str(kv[0]))]
    lines += [f"| error: {escape(k)} | {v:,} |" for k, v in errors.most_common() if v]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--minutes", type=int, required=True)
    p.add_argument("--reloads", type=int, required=True)
    p.add_argument("--b2-restarts", type=int, required=True)
    p.add_argument("--svg", required=True)
    a = p.parse_args()
    w = a.work
    hey_status, hey_errors = hey_counts(read(os.path.join(w, "hey.txt")))
    h2_status, h2_errors = h2load_counts(read(os.path.join(w, "h2load.txt")))
    clients = clients_counts(read(os.path.join(w, "clients.txt")))
    log = log_facts(read(os.path.join(w, "usher.log")))
    rows = samples(read(os.path.join(w, "samples.txt")))
    svg_plot(rows, a.svg)
    h3_status = {k[3:]: v for k, v in clients.items() if re.fullmatch(r"h3\.\d{3}", k)}
    h3_other = collections.Counter({k[len("h3.error."):]: v for k, v in clients.items() if k.startswith("h3.error.")})
    h3_connects = clients.get("h3.connect", 0)
    ws = {k: v for k, v in clients.items() if k.startswith("ws.")}

    def mib(kib):
        return f"{kib / 1024:.1f}"

    print(f"# Soak run: {a.minutes} minutes\n")
    print("bench/soak.sh: mixed HTTP/1.1 (hey), HTTP/2 (h2load), HTTP/3 and websocket (SoakClients) traffic; a "
          f"reload every 10 s ({a.reloads} config rewrites); Pebble certificates valid 90 s, renewed about every "
          f"minute; backend b2 of two restarted every 2 minutes ({a.b2_restarts} restarts).\n")
    print("## Requests by status\n")
    print(table("HTTP/1.1 over TLS (hey)", hey_status, hey_errors) + "\n")
    print(table("HTTP/2 (h2load)", h2_status, h2_errors) + "\n")
    print(table("HTTP/3 (SoakClients)", h3_status, h3_other) + "\n")
    print(f"HTTP/3: {h3_connects} QUIC connections made.\n")
    print("| websocket (SoakClients) | count |\n| --- | ---: |")
    for k, v in sorted(ws.items()):
        print(f"| {k[3:]} | {v:,} |")
    print("\n## Usher's log\n")
    print(f"- reloads logged: {log['reloads']}, reload failures: {log['reload failures']}")
    print(f"- renewals started: {log['renewals']}, certificates put in service: {log['certificates put in service']}")
    print(f"- warning lines: {len(log['warnings'])}, error lines: {len(log['errors'])}")
    kinds = collections.Counter(re.sub(r"\d+", "N", l.split(" ", 2)[-1])[:140] for l in log["warnings"] + log["errors"])
    for k, v in kinds.most_common(15):
        print(f"  - {v} x `{k}`")
    if rows:
        first, last = rows[0], rows[-1]
        steady = rows[len(rows) // 10:] or rows
        print("\n## Memory and descriptors\n")
        print(f"![memory and descriptors over time]({os.path.basename(a.svg)})\n")
        print("| | start | end | min (after the first 10 %) | max (after the first 10 %) |")
        print("| --- | ---: | ---: | ---: | ---: |")
        print(f"| RSS (MiB) | {mib(first[1])} | {mib(last[1])} | {mib(min(r[1] for r in steady))} | "
              f"{mib(max(r[1] for r in steady))} |")
        print(f"| heap used (MiB) | {first[2] / 2**20:.1f} | {last[2] / 2**20:.1f} | "
              f"{min(r[2] for r in steady) / 2**20:.1f} | {max(r[2] for r in steady) / 2**20:.1f} |")
        print(f"| heap committed (MiB) | {first[3] / 2**20:.1f} | {last[3] / 2**20:.1f} | "
              f"{min(r[3] for r in steady) / 2**20:.1f} | {max(r[3] for r in steady) / 2**20:.1f} |")
        print(f"| open descriptors | {first[4]} | {last[4]} | {min(r[4] for r in steady)} | "
              f"{max(r[4] for r in steady)} |")
        print(f"| threads | {first[5]} | {last[5]} | {min(r[5] for r in steady)} | {max(r[5] for r in steady)} |")
        print("\nStart: before the load (certificates issued); end: 12 s after the load stopped.")


if __name__ == "__main__":
    sys.exit(main())
