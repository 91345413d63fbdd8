#!/usr/bin/env python3
"""Markdown report + SVG bar chart from bench/run.sh RESULT lines (stdlib only).

usage: bench/report.py [options] RESULTS_FILE... > report.md

RESULTS_FILE is a run.sh results.txt (RESULT lines), optionally preceded by the "# ..." header
lines of its bench.log (bench/bench.sh writes files like that). If a bench.log lies next to a
results.txt, its header is read too. Each file is tagged with a load generator: "loadgen=" in the
RESULT line, else "# loadgen=" in the header, else "wrk" in the file name, else hey.
Prefix a file with "LOADGEN:" (e.g. wrk:path/results.txt) to force the tag.

options:
  --svg PATH        where to write the chart (default bench/results/chart-DATE.svg)
  --svg-link PATH   path used in the Markdown image link (default: PATH of --svg as given)
  --date DATE       date used in the title and default file names (default: today, YYYY-MM-DD)
  --version K=V     tool version shown under "Machine" (repeatable; overrides the header values)
  --title TEXT      report title
"""
import datetime
import os
import platform
import re
import subprocess
import sys
from xml.sax.saxutils import escape

ORDER = ["caddy", "nginx-keepalive", "nginx-npm-style", "nginx-npm-ws", "haproxy"]
LABELS = {"caddy": "Caddy", "nginx-keepalive": "nginx (keepalive)", "nginx-npm-style": "nginx (NPM style)",
          "nginx-npm-ws": "nginx (NPM ws)", "haproxy": "HAProxy", "direct": "direct (no proxy)", "usher": "Usher",
          "usher-native": "Usher (native)"}
LG_ORDER = ["hey", "wrk"]
LG_COLORS = {"hey": "#4e79a7", "wrk": "#f28e2b"}
EXTRA_COLORS = ["#59a14f", "#e15759", "#76b7b2", "#edc948"]
# a "pass" is one scenario with one load generator; plain HTTP passes keep the load generator's name as key
PASS_ORDER = ["hey", "wrk", "https-gzip/wrk", "https-gzip/hey", "http-gzip/wrk", "http-gzip/hey", "h2/h2load"]
PASS_TITLES = {"hey": "Plain HTTP · hey", "wrk": "Plain HTTP · wrk", "https-gzip/wrk": "HTTPS + gzip · wrk",
               "https-gzip/hey": "HTTPS + gzip · hey", "http-gzip/wrk": "HTTP + gzip · wrk",
               "http-gzip/hey": "HTTP + gzip · hey", "h2/h2load": "HTTP/2 over TLS · h2load"}
PROXY_COLORS = {"caddy": "#4e79a7", "nginx-keepalive": "#59a14f", "nginx-npm-style": "#8cd17d",
                "nginx-npm-ws": "#b6992d", "haproxy": "#76b7b2", "direct": "#9d9d9d"}
USHER_COLOR = "#e15759"


def scenario(r):
    """http (plain, the original passes), https (TLS, no gzip), https-gzip, http-gzip or h2."""
    if r.get("scenario"):
        return r["scenario"]
    return "https" if r.get("mode") == "https" else "http"


def pass_key(r):
    sc = scenario(r)
    return r["_loadgen"] if sc == "http" else "%s/%s" % (sc, r["_loadgen"])


def pass_title(k):
    return PASS_TITLES.get(k, k)


def die(msg):
    sys.stderr.write("report.py: " + msg + "\n")
    sys.exit(2)


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def parse_args(argv):
    opts = {"svg": None, "svg_link": None, "date": None, "versions": {}, "title": None, "files": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a in ("--svg", "--svg-link", "--date", "--version", "--title"):
            if i + 1 >= len(argv):
                die(a + " needs a value")
            v = argv[i + 1]
            if a == "--version":
                if "=" not in v:
                    die("--version wants K=V")
                k, val = v.split("=", 1)
                opts["versions"][k.strip()] = val.strip()
            else:
                opts[a[2:].replace("-", "_")] = v
            i += 2
            continue
        if a.startswith("--"):
            die("unknown option " + a)
        opts["files"].append(a)
        i += 1
    if not opts["files"]:
        die("no results file given (usage: report.py [--svg PATH] RESULTS_FILE... > OUT.md)")
    return opts


def read_header(lines):
    """'# key=value ...' header lines of bench.log -> dict (first occurrence wins)."""
    h = {}
    for ln in lines:
        if not ln.startswith("# "):
            continue
        body = ln[2:].strip()
        if body.startswith("bench/run.sh "):
            h.setdefault("started", body.split()[1])
        if body.startswith("loadavg at start:"):
            h.setdefault("loadavg", body.split(":", 1)[1].strip())
            continue
        if body.startswith("caddy="):  # "caddy=v2.6.2 h1:... nginx=1.22.1 hey=0.1.4": caddy's value has a space
            for k in ("caddy", "nginx", "hey"):
                m = re.search(r"\b%s=(.*?)(?= \w+=|$)" % k, body)
                if m:
                    h.setdefault(k, m.group(1).strip())
            continue
        if body.startswith("loadgen="):
            m = re.search(r"cmd=(.*)$", body)
            if m:
                h.setdefault("lg_cmd", m.group(1))
            body = body[:m.start()] if m else body
        for k, v in re.findall(r"(\w+)=(\S+)", body):
            h.setdefault(k, v)
    return h


def load(spec):
    forced = None
    m = re.match(r"^(hey|wrk|h2load):(.+)$", spec)
    if m:
        forced, spec = m.group(1), m.group(2)
    try:
        with open(spec) as f:
            lines = f.read().splitlines()
    except OSError as e:
        die("cannot read %s: %s" % (spec, e))
    hdr_lines = [l for l in lines if l.startswith("# ")]
    side = os.path.join(os.path.dirname(spec) or ".", "bench.log")
    if os.path.exists(side):
        with open(side, errors="replace") as f:
            hdr_lines += [l for l in f.read().splitlines()[:40] if l.startswith("# ")]
    hdr = read_header(hdr_lines)
    results = []
    for ln in lines:
        if not ln.startswith("RESULT "):
            continue
        r = dict(kv.split("=", 1) for kv in ln.split()[1:] if "=" in kv)
        r["_file"] = spec
        r["_loadgen"] = forced or r.get("loadgen") or hdr.get("loadgen") or \
            ("wrk" if "wrk" in os.path.basename(spec) else "hey")
        r["_pass"] = pass_key(r)
        results.append(r)
    if not results:
        sys.stderr.write("report.py: warning: no RESULT lines in %s\n" % spec)
    return hdr, results


def stem(path):
    p = os.path.basename(path)
    if p == "results.txt":
        p = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return re.sub(r"\.txt$", "", p)


def sort_key(name):
    if name in ORDER:
        return (0, ORDER.index(name), name)
    if name == "direct":
        return (2, 0, name)
    return (1, 0, name)


def label(name):
    return LABELS.get(name, name)


def machine(hdrs, versions):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.lower().startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count())
    except OSError:
        nproc = str(os.cpu_count())
    kernel = platform.release()
    merged = {}
    for h in hdrs:
        for k, v in h.items():
            merged.setdefault(k, v)
    vers = {}
    for k in ("caddy", "nginx", "hey", "wrk", "h2load"):
        if merged.get(k):
            vers[k] = merged[k]
    vers.update(versions)
    return {"cpu": cpu, "nproc": nproc, "kernel": merged.get("kernel", kernel), "host_kernel_now": kernel,
            "cpus_header": merged.get("cpus"), "versions": vers}


def fmt(v, p=0, suffix=""):
    x = num(v)
    if x is None:
        return "n/a"
    return ("{:,.%df}" % p).format(x) + suffix


def ratio(a, b):
    a, b = num(a), num(b)
    if a is None or not b:
        return None
    return a / b


def fmt_ratio(x, mark=""):
    return "n/a" if x is None else "%.2f×%s" % (x, mark)


def build(opts):
    hdrs, rows = [], []
    for spec in opts["files"]:
        h, rs = load(spec)
        hdrs.append(h)
        for r in rs:
            r["_hdr"] = h
        rows += rs
    if not rows:
        die("no RESULT lines found")
    date = opts["date"] or datetime.date.today().isoformat()
    svg_path = opts["svg"] or os.path.join("bench", "results", "chart-%s.svg" % date)
    svg_link = opts["svg_link"] or svg_path

    groups = {}
    for r in rows:
        groups.setdefault(r["_pass"], []).append(r)
    lgs = [g for g in PASS_ORDER if g in groups] + sorted(g for g in groups if g not in PASS_ORDER)

    # row labels: name, plus the source file when a name occurs twice in one pass
    for lg in lgs:
        cnt = {}
        for r in groups[lg]:
            cnt[r["name"]] = cnt.get(r["name"], 0) + 1
        for r in groups[lg]:
            r["_label"] = label(r["name"]) + (" [%s]" % stem(r["_file"]) if cnt[r["name"]] > 1 else "")
            r["_key"] = r["name"] + ("@" + stem(r["_file"]) if cnt[r["name"]] > 1 else "")
        groups[lg].sort(key=lambda r: sort_key(r["name"]))

    def baseline(r, lg, names):
        """Same-file baseline if present, else the last one for this pass (marked)."""
        for n in names:
            same = [x for x in groups[lg] if x["name"] == n and x["_file"] == r["_file"]]
            if same:
                return same[-1], ""
        for n in names:
            other = [x for x in groups[lg] if x["name"] == n]
            if other:
                return other[-1], "†"
        return None, ""

    def is_anchor(r):
        return r["name"] in ORDER or r["name"] == "direct"

    def gz(lg):
        return lg.split("/")[0] in ("https-gzip", "http-gzip")

    out = []
    w = out.append
    w("# %s" % (opts["title"] or "Reverse-proxy benchmark: Usher vs Caddy vs nginx (%s)" % date))
    w("")
    m = machine(hdrs, opts["versions"])
    started = sorted({h.get("started") for h in hdrs if h.get("started")})
    w("- **Date:** %s%s" % (date, (" (runs started %s)" % ", ".join(started)) if started else ""))
    w("- **Machine:** %s, %s CPUs (`nproc`), kernel %s" % (m["cpu"], m["nproc"], m["kernel"]))
    if m["versions"]:
        w("- **Versions:** " + ", ".join("%s %s" % (k, v) for k, v in m["versions"].items()))
    for h, spec in zip(hdrs, opts["files"]):
        if h.get("duration"):
            lg = h.get("loadgen", "hey")
            sc = h.get("scenario")
            what = lg if not sc else "%s, %s" % (sc, lg)
            conc = "c=%s" % h.get("c")
            if lg == "h2load":
                conc = "`%s`" % h.get("lg_cmd", "h2load")
            w("- **Method (%s, `%s`):** %s × %s runs at %s (median run reported), idle window %ss / %s samples, "
              "%s restarts, proxy limited to %s CPU / %s (cgroup v1), pinning=%s%s" % (
                  what, stem(spec), h.get("duration"), h.get("runs"), conc, h.get("quiet"), h.get("samples"),
                  h.get("restarts"), _quota(h.get("quota")), h.get("mem_limit"), h.get("pin"),
                  (", loadavg at start " + h["loadavg"]) if h.get("loadavg") else ""))
    w("")

    # headline: ratios to the anchors first
    heads = []
    for lg in lgs:
        for r in groups[lg]:
            if is_anchor(r):
                continue
            c, cm = baseline(r, lg, ["caddy"])
            n, nm = baseline(r, lg, ["nginx-keepalive", "nginx-npm-style"])
            dr, dm = baseline(r, lg, ["direct"]) if gz(lg) else (None, "")
            parts = []
            if dr:
                x = ratio(r["rps_median"], dr["rps_median"])
                parts.append("%s the backend served directly%s" % (
                    fmt_ratio(x, dm), "" if x is None else (" (target ≥ 0.90: %s)" % ("met" if x >= 0.9 else "missed"))))
            if c:
                parts.append("%s Caddy" % fmt_ratio(ratio(r["rps_median"], c["rps_median"]), cm))
            if n:
                parts.append("%s %s" % (fmt_ratio(ratio(r["rps_median"], n["rps_median"]), nm), label(n["name"])))
            hp, hm = baseline(r, lg, ["haproxy"])
            if hp:
                parts.append("%s HAProxy" % fmt_ratio(ratio(r["rps_median"], hp["rps_median"]), hm))
            if r["name"] == "usher-native":
                jv, jm = baseline(r, lg, ["usher"])
                if jv:
                    parts.append("%s the JVM build" % fmt_ratio(ratio(r["rps_median"], jv["rps_median"]), jm))
            dist = [x["_label"] for x in (r, c, n, dr) if x and (num(x.get("other_cpu_pct")) or 0) >= 15]
            what = lg if lg in LG_ORDER else pass_title(lg)
            if parts:
                heads.append("**%s = %s** in requests/s (%s)%s" % (r["_label"], ", ".join(parts), what,
                             (" — ⚠ disturbed run(s): %s, not a valid comparison" % ", ".join(dist)) if dist else ""))
    if heads:
        w("## Headline")
        w("")
        for h in heads:
            w("- " + h)
        w("")

    w("![Requests/s per proxy and pass](%s)" % svg_link)
    w("")
    for lg in lgs:
        gzip_pass = gz(lg)
        h2_pass = lg.startswith("h2/")
        if lg in LG_ORDER:
            w("## Load generator: %s" % lg)
        else:
            w("## %s" % pass_title(lg))
        w("")
        if gzip_pass:
            r0 = groups[lg][0]
            w("Body: `%s` on the same 20 backends, %s bytes of `text/plain` (lines of words and numbers; `gzip -5` "
              "makes ~910 bytes of it), asked for with `Accept-Encoding: gzip`. Every proxy compresses it at gzip "
              "level 5 above 1 KiB (Caddy `encode { gzip 5 }`, nginx `gzip on; gzip_types text/plain ...; "
              "gzip_min_length 1024; gzip_comp_level 5`, Usher's default); *gzip bytes* is the compressed body the "
              "proxy sent (checked to decompress to the backend's body). %s*direct* is the load generator straight "
              "at the backend's `%s` over plain HTTP, uncompressed: the issue's anchor (\"HTTPS+gzip within 10 %% of "
              "the backend served directly\")." % (
                  r0.get("path", "/text"), r0.get("body_bytes", "4096"),
                  "TLS: one self-signed P-256 certificate for all three, SNI = the site name. "
                  if lg.startswith("https") else "", r0.get("path", "/text")))
            w("")
        if h2_pass:
            r0 = groups[lg][0]
            w("HTTP/2 over TLS (ALPN h2, checked with curl per proxy), `h2load -c %s -m %s -t 1` for the run "
              "duration, GET `%s` (the 325-byte body, no compression); SNI and `:authority` carry the site name. "
              "p50/p99 come from h2load's per-request log; *errors* = h2load's `errored` (connection or stream "
              "failures), *non-2xx* = 3xx+4xx+5xx. All three use the same certificate." % (
                  r0.get("h2_clients", "10"), r0.get("h2_streams", "10"), r0.get("path", "/")))
            w("")
        cols = ["proxy", "req/s (median run)", "runs"]
        aligns = ["---", "--:", "---"]
        if gzip_pass:
            cols.append("× direct"); aligns.append("--:")
        cols += ["× Caddy", "× nginx", "× HAProxy", "p50 ms", "p99 ms", "non-2xx", "errors"]
        aligns += ["--:"] * 7
        if gzip_pass:
            cols.append("gzip bytes"); aligns.append("--:")
        cols += ["bottleneck", "proxy CPU %", "idle RSS MiB", "post-load usage MiB", "start→first 200 s"]
        aligns += ["---", "--:", "--:", "--:", "--:"]
        w("| " + " | ".join(cols) + " |")
        w("|" + "|".join(aligns) + "|")
        marks = False
        for r in groups[lg]:
            c, cm = baseline(r, lg, ["caddy"])
            n, nm = baseline(r, lg, ["nginx-keepalive", "nginx-npm-style"])
            marks = marks or bool(cm or nm)
            name = r["_label"]
            if not is_anchor(r):
                name = "**%s**" % name
            cells = [name, fmt(r.get("rps_median")), r.get("rps_runs", "n/a")]
            if gzip_pass:
                dr, dm = baseline(r, lg, ["direct"])
                marks = marks or bool(dm)
                cells.append(fmt_ratio(ratio(r.get("rps_median"), dr["rps_median"]) if dr else None, dm))
            hp, hm = baseline(r, lg, ["haproxy"])
            marks = marks or bool(hm)
            cells += [fmt_ratio(ratio(r.get("rps_median"), c["rps_median"]) if c else None, cm),
                      fmt_ratio(ratio(r.get("rps_median"), n["rps_median"]) if n else None, nm),
                      fmt_ratio(ratio(r.get("rps_median"), hp["rps_median"]) if hp else None, hm),
                      fmt(r.get("p50_ms"), 2), fmt(r.get("p99_ms"), 2), fmt(r.get("non2xx")), fmt(r.get("errors"))]
            if gzip_pass:
                gb = r.get("gzip_bytes")
                cells.append("— (not compressed)" if r["name"] == "direct" else
                             ("⚠ not gzip" if r.get("gzip_ok") == "0" else fmt(gb)))
            cells += [r.get("limit", "n/a"), fmt(r.get("proxy_cpu_pct"), 1), fmt(r.get("idle_rss_mib"), 1),
                      fmt(r.get("post_load_usage_mib"), 1), fmt(r.get("start_s"), 3)]
            w("| " + " | ".join(cells) + " |")
        w("")
        if marks:
            w("† baseline taken from another results file (no anchor row in the same run).")
            w("")
        for r in groups[lg]:
            if h2_pass and r.get("h2_ok") == "0":
                w("⚠ **%s**: curl did not get HTTP/2 through ALPN; h2load numbers for it are not HTTP/2." % r["_label"])
                w("")
        for r in groups[lg]:  # run.sh's own "disturbed" rule: other processes >= 15 % of a CPU or steal >= 10 %
            o, st = num(r.get("other_cpu_pct")), num(r.get("steal_pct"))
            if (o is not None and o >= 15) or (st is not None and st >= 10):
                w("⚠ **%s**: median run disturbed — processes outside the benchmark used %s %% of a CPU, "
                  "hypervisor steal %s %%; treat this row as unreliable." % (r["_label"], r.get("other_cpu_pct"),
                                                                        r.get("steal_pct")))
                w("")
        srcs = sorted({r["_file"] for r in groups[lg]})
        w("Source: " + ", ".join("`%s`" % s for s in srcs))
        w("")

    w("## How to read this")
    w("")
    w("- *× Caddy* / *× nginx*: requests/s divided by Caddy's / nginx-keepalive's from the same results file "
      "(same pass, same load generator). *× direct* (compression passes): divided by the load generator's rate "
      "straight at the backend's same body over plain HTTP.")
    w("- *bottleneck* is run.sh's `limit` field: `proxy` = the proxy used ≥ 90 % of its one CPU, `loadgen` = "
      "load generator plus backends used ≥ 90 % of their CPU, so the proxy was **not** saturated and its "
      "number is a lower bound. *direct* (load generator straight at one backend) is the ceiling of that setup.")
    w("- *idle RSS* is the median of the idle samples of the memory cgroup's `total_rss` before any load (in the "
      "TLS passes after one HTTPS request); *post-load usage* is `memory.usage_in_bytes` right after the load runs "
      "(includes page cache).")
    w("- *start→first 200* is the time from launching the proxy to its first HTTP 200 (5 ms polling).")
    w("- Each pass starts each proxy afresh; figures from different passes are from different process lifetimes. "
      "The TLS passes measure no restarts.")
    w("")
    return "\n".join(out) + "\n", svg_path, render_svg(groups, lgs, date)


def _quota(q):
    if not q or "/" not in q:
        return "?"
    a, b = q.split("/", 1)
    try:
        return "%g" % (float(a) / float(b))
    except ValueError:
        return q


def render_svg(groups, lgs, date):
    """One panel per pass (own y scale), one bar per proxy; the ratio to the anchors under each non-anchor bar."""
    panels = []
    for lg in lgs:
        rows = [r for r in groups[lg] if num(r.get("rps_median")) is not None]
        if rows:
            panels.append((lg, rows))
    bar_w, gap = 46, 14
    pw = [max(len(rows) * (bar_w + gap) + gap, 190) for _, rows in panels]
    left, pgap, ptop, plot_h, bottom = 62, 56, 96, 300, 92
    W = left + sum(pw) + pgap * (len(panels) - 1) + 24
    H = ptop + plot_h + bottom
    s = []
    a = s.append
    a('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
      'font-family="Helvetica, Arial, sans-serif" font-size="12">' % (W, H, W, H))
    a('<rect width="100%" height="100%" fill="#ffffff"/>')
    a('<text x="20" y="24" font-size="15" font-weight="bold">Requests/s through the proxy (1 CPU, 2 GiB, same 20 backends)'
      ' — %s</text>' % escape(date))
    a('<text x="20" y="44" fill="#444">one panel per pass, each with its own scale; under each Usher bar its ratio to '
      'Caddy (C), nginx (N) and, in the gzip passes, the backend served directly (D). Hatched = no proxy.</text>')
    a('<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
      '<line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2.5"/></pattern></defs>')
    y0 = ptop + plot_h
    x0 = left
    for (lg, rows), width in zip(panels, pw):
        vmax = max(num(r["rps_median"]) for r in rows) or 1
        step = _nice_step(vmax / 4)
        top = step * (int(vmax / step) + 1)
        a('<text x="%d" y="%d" font-weight="bold" font-size="13">%s</text>' % (x0, ptop - 26, escape(pass_title(lg))))
        t = 0.0
        while t <= top + 1e-9:
            y = y0 - plot_h * t / top
            a('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>' % (x0, y, x0 + width, y))
            a('<text x="%d" y="%.1f" text-anchor="end" fill="#555" font-size="10">%s</text>' % (x0 - 4, y + 3, _k(t)))
            t += step
        anchors = {r["name"]: num(r["rps_median"]) for r in rows}
        for i, r in enumerate(rows):
            v = num(r["rps_median"])
            x = x0 + gap + i * (bar_w + gap)
            h = plot_h * v / top
            base = r["name"]
            color = PROXY_COLORS.get(base, USHER_COLOR if base not in ORDER else "#bab0ac")
            a('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s, %s: %.0f req/s</title></rect>'
              % (x, y0 - h, bar_w, h, color, escape(r["_label"]), escape(pass_title(lg)), v))
            if base == "direct":
                a('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="url(#hatch)"/>' % (x, y0 - h, bar_w, h))
            a('<text x="%d" y="%.1f" text-anchor="middle" font-size="11">%s</text>' % (x + bar_w // 2, y0 - h - 4, _k(v, 1)))
            short = {"caddy": "Caddy", "nginx-keepalive": "nginx", "nginx-npm-style": "nginx npm",
                     "nginx-npm-ws": "npm ws", "direct": "direct"}.get(base, r["_label"].split(" [")[0])
            a('<text x="%d" y="%d" text-anchor="middle" font-weight="%s">%s</text>'
              % (x + bar_w // 2, y0 + 16, "normal" if base in ORDER + ["direct"] else "bold", escape(short)))
            if base not in ORDER and base != "direct":
                lines = []
                for key, tag in (("direct", "D"), ("caddy", "C"), ("nginx-keepalive", "N")):
                    if anchors.get(key):
                        lines.append("%.2f× %s" % (v / anchors[key], tag))
                for j, ln in enumerate(lines):
                    a('<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="#333">%s</text>'
                      % (x + bar_w // 2, y0 + 30 + 12 * j, escape(ln)))
        a('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>' % (x0, y0, x0 + width, y0))
        x0 += width + pgap
    a('<text x="20" y="%d" transform="rotate(-90 20 %d)" text-anchor="middle" fill="#444">requests/s</text>'
      % (ptop + plot_h // 2, ptop + plot_h // 2))
    a('<text x="%d" y="%d" fill="#666" font-size="11">median of the runs per target; higher is better. '
      'Source: bench/run.sh RESULT lines.</text>' % (left, H - 10))
    a("</svg>")
    return "\n".join(s) + "\n"


def _nice_step(x):
    if x <= 0:
        return 1
    e = 10 ** len(str(int(x))) / 10
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= x:
            return m * e
    return 10 * e


def _k(v, p=0):
    if v >= 1000:
        return ("%." + str(p) + "fk") % (v / 1000.0) if p else "%gk" % (v / 1000.0)
    return "%.0f" % v


def main():
    opts = parse_args(sys.argv[1:])
    md, svg_path, svg = build(opts)
    d = os.path.dirname(svg_path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(svg_path, "w") as f:
        f.write(svg)
    sys.stdout.write(md)
    sys.stderr.write("report.py: chart written to %s\n" % svg_path)


if __name__ == "__main__":
    main()
