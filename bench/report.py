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

ORDER = ["caddy", "nginx-keepalive", "nginx-npm-style", "nginx-npm-ws"]
LABELS = {"caddy": "Caddy", "nginx-keepalive": "nginx (keepalive)", "nginx-npm-style": "nginx (NPM style)",
          "nginx-npm-ws": "nginx (NPM ws)", "direct": "direct (no proxy)", "usher": "Usher"}
LG_ORDER = ["hey", "wrk"]
LG_COLORS = {"hey": "#4e79a7", "wrk": "#f28e2b"}
EXTRA_COLORS = ["#59a14f", "#e15759", "#76b7b2", "#edc948"]


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
                h.setdefault("wrk_cmd", m.group(1))
            body = body[:m.start()] if m else body
        for k, v in re.findall(r"(\w+)=(\S+)", body):
            h.setdefault(k, v)
    return h


def load(spec):
    forced = None
    m = re.match(r"^(hey|wrk):(.+)$", spec)
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
    for k in ("caddy", "nginx", "hey", "wrk"):
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
        groups.setdefault(r["_loadgen"], []).append(r)
    lgs = [g for g in LG_ORDER if g in groups] + sorted(g for g in groups if g not in LG_ORDER)

    # row labels: name, plus the source file when a name occurs twice for one load generator
    for lg in lgs:
        cnt = {}
        for r in groups[lg]:
            cnt[r["name"]] = cnt.get(r["name"], 0) + 1
        for r in groups[lg]:
            r["_label"] = label(r["name"]) + (" [%s]" % stem(r["_file"]) if cnt[r["name"]] > 1 else "")
            r["_key"] = r["name"] + ("@" + stem(r["_file"]) if cnt[r["name"]] > 1 else "")
        groups[lg].sort(key=lambda r: sort_key(r["name"]))

    def baseline(r, lg, names):
        """Same-file baseline if present, else the last one for this load generator (marked)."""
        for n in names:
            same = [x for x in groups[lg] if x["name"] == n and x["_file"] == r["_file"]]
            if same:
                return same[-1], ""
        for n in names:
            other = [x for x in groups[lg] if x["name"] == n]
            if other:
                return other[-1], "†"
        return None, ""

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
            w("- **Method (%s, `%s`):** %s × %s runs at c=%s (median run reported), idle window %ss / %s samples, "
              "%s restarts, proxy limited to %s CPU / %s (cgroup v1), pinning=%s%s" % (
                  lg, stem(spec), h.get("duration"), h.get("runs"), h.get("c"), h.get("quiet"), h.get("samples"),
                  h.get("restarts"), _quota(h.get("quota")), h.get("mem_limit"), h.get("pin"),
                  (", loadavg at start " + h["loadavg"]) if h.get("loadavg") else ""))
    w("")

    # headline
    heads = []
    for lg in lgs:
        for r in groups[lg]:
            if r["name"] in ORDER or r["name"] == "direct":
                continue
            c, cm = baseline(r, lg, ["caddy"])
            n, nm = baseline(r, lg, ["nginx-keepalive", "nginx-npm-style"])
            parts = []
            if c:
                parts.append("%s Caddy" % fmt_ratio(ratio(r["rps_median"], c["rps_median"]), cm))
            if n:
                parts.append("%s %s" % (fmt_ratio(ratio(r["rps_median"], n["rps_median"]), nm), label(n["name"])))
            dist = [x["_label"] for x in (r, c, n) if x and (num(x.get("other_cpu_pct")) or 0) >= 15]
            if parts:
                heads.append("**%s = %s** in requests/s (%s)%s" % (r["_label"], ", ".join(parts), lg,
                             (" — ⚠ disturbed run(s): %s, not a valid comparison" % ", ".join(dist)) if dist else ""))
    if heads:
        w("## Headline")
        w("")
        for h in heads:
            w("- " + h)
        w("")

    w("![Requests/s per proxy and load generator](%s)" % svg_link)
    w("")
    for lg in lgs:
        w("## Load generator: %s" % lg)
        w("")
        w("| proxy | req/s (median run) | runs | × Caddy | × nginx | p50 ms | p99 ms | non-2xx | errors "
          "| bottleneck | proxy CPU % | idle RSS MiB | post-load usage MiB | start→first 200 s |")
        w("|---|--:|---|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|")
        marks = False
        for r in groups[lg]:
            c, cm = baseline(r, lg, ["caddy"])
            n, nm = baseline(r, lg, ["nginx-keepalive", "nginx-npm-style"])
            marks = marks or bool(cm or nm)
            name = r["_label"]
            if r["name"] not in ORDER and r["name"] != "direct":
                name = "**%s**" % name
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, fmt(r.get("rps_median")), r.get("rps_runs", "n/a"),
                fmt_ratio(ratio(r.get("rps_median"), c["rps_median"]) if c else None, cm),
                fmt_ratio(ratio(r.get("rps_median"), n["rps_median"]) if n else None, nm),
                fmt(r.get("p50_ms"), 2), fmt(r.get("p99_ms"), 2),
                fmt(r.get("non2xx")), fmt(r.get("errors")), r.get("limit", "n/a"), fmt(r.get("proxy_cpu_pct"), 1),
                fmt(r.get("idle_rss_mib"), 1), fmt(r.get("post_load_usage_mib"), 1), fmt(r.get("start_s"), 3)))
        w("")
        if marks:
            w("† baseline taken from another results file (no Caddy/nginx row in the same run).")
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
      "(same load generator).")
    w("- *bottleneck* is run.sh's `limit` field: `proxy` = the proxy used ≥ 90 % of its one CPU, `loadgen` = "
      "load generator plus backends used ≥ 90 % of their CPU, so the proxy was **not** saturated and its "
      "number is a lower bound. *direct* (load generator straight at one backend) is the ceiling of that setup.")
    w("- *idle RSS* is the median of the idle samples of the memory cgroup's `total_rss` before any load; "
      "*post-load usage* is `memory.usage_in_bytes` right after the load runs (includes page cache).")
    w("- *start→first 200* is the time from launching the proxy to its first HTTP 200 (5 ms polling).")
    w("- Each load generator's pass starts each proxy afresh; figures from different passes are from different "
      "process lifetimes.")
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
    keys, lab = [], {}
    for lg in lgs:
        for r in groups[lg]:
            if r["_key"] not in lab:
                keys.append((sort_key(r["name"]), r["_key"]))
                lab[r["_key"]] = r["_label"]
    keys = [k for _, k in sorted(keys, key=lambda x: x[0])]
    val = {(r["_loadgen"], r["_key"]): num(r.get("rps_median")) for lg in lgs for r in groups[lg]}
    colors = {lg: LG_COLORS.get(lg, EXTRA_COLORS[i % len(EXTRA_COLORS)]) for i, lg in enumerate(lgs)}
    vmax = max([v for v in val.values() if v] or [1])
    step = _nice_step(vmax / 5)
    top = step * (int(vmax / step) + 1)

    left, right, ptop, bottom = 80, 20, 70, 80
    bar_w, gap_in, gap_out = 44, 6, 40
    group_w = len(lgs) * bar_w + (len(lgs) - 1) * gap_in
    # widen the spacing when the x labels (name, optional source line) would not fit under a group
    lw = max([max(len(lab[k].partition(" [")[0]) * 7, len(lab[k].partition(" [")[2]) * 5.5) + 14 for k in keys] or [0])
    gap_out = int(max(gap_out, lw - group_w))
    plot_w = max(len(keys) * group_w + (len(keys) + 1) * gap_out, 600)
    plot_h = 320
    W, H = left + plot_w + right, ptop + plot_h + bottom
    s = []
    a = s.append
    a('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
      'font-family="Helvetica, Arial, sans-serif" font-size="12">' % (W, H, W, H))
    a('<rect width="100%" height="100%" fill="#ffffff"/>')
    a('<text x="20" y="24" font-size="15" font-weight="bold">Requests/s through the proxy (1 CPU, 2 GiB, c=50) — %s</text>'
      % escape(date))
    lx = left
    for lg in lgs:  # legend
        a('<rect x="%d" y="38" width="14" height="14" fill="%s"/>' % (lx, colors[lg]))
        a('<text x="%d" y="50">%s</text>' % (lx + 19, escape(lg)))
        lx += 30 + 8 * len(lg) + 20
    a('<text x="%d" y="50" fill="#666">hatched = no proxy (load-generator ceiling)</text>' % lx)
    a('<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
      '<rect width="6" height="6" fill="#ffffff" fill-opacity="0.0"/><line x1="0" y1="0" x2="0" y2="6" '
      'stroke="#ffffff" stroke-width="2.5"/></pattern></defs>')
    y0 = ptop + plot_h
    t = 0.0
    while t <= top + 1e-9:  # grid + y labels
        y = y0 - plot_h * t / top
        a('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#dddddd"/>' % (left, y, left + plot_w, y))
        a('<text x="%d" y="%.1f" text-anchor="end" fill="#444">%s</text>' % (left - 6, y + 4, _k(t)))
        t += step
    a('<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle" fill="#444">requests/s</text>'
      % (ptop + plot_h // 2, ptop + plot_h // 2))
    for i, k in enumerate(keys):
        gx = left + gap_out + i * (group_w + gap_out)
        for j, lg in enumerate(lgs):
            v = val.get((lg, k))
            x = gx + j * (bar_w + gap_in)
            if v is None:
                a('<text x="%d" y="%d" text-anchor="middle" fill="#999">n/a</text>' % (x + bar_w // 2, y0 - 4))
                continue
            h = plot_h * v / top
            a('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s %s: %.0f req/s</title></rect>'
              % (x, y0 - h, bar_w, h, colors[lg], escape(lab[k]), escape(lg), v))
            if k.split("@")[0] == "direct":
                a('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="url(#hatch)"/>' % (x, y0 - h, bar_w, h))
            a('<text x="%d" y="%.1f" text-anchor="middle" font-size="11">%s</text>' % (x + bar_w // 2, y0 - h - 4, _k(v, 1)))
        cx = gx + group_w / 2
        name, _, src = lab[k].partition(" [")
        a('<text x="%.1f" y="%d" text-anchor="middle" font-weight="%s">%s</text>'
          % (cx, y0 + 18, "bold" if k.split("@")[0] not in ORDER + ["direct"] else "normal", escape(name)))
        if src:  # same proxy from several results files: source on a second, smaller line
            a('<text x="%.1f" y="%d" text-anchor="middle" font-size="9" fill="#666">%s</text>'
              % (cx, y0 + 32, escape(src.rstrip("]"))))
    a('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>' % (left, y0, left + plot_w, y0))
    a('<text x="%d" y="%d" fill="#666" font-size="11">median of the runs per target; higher is better. '
      'Source: bench/run.sh RESULT lines.</text>' % (left, H - 16))
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
