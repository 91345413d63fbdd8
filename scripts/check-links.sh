#!/usr/bin/env bash
#
# check-links.sh — checks the links of every Markdown file in the repository (node_modules and target left out):
# each relative link must name a file or folder inside the repository, and a #anchor must match a heading of the
# file it points to (GitHub's rules: lower case, punctuation dropped, spaces to hyphens, -1, -2… for repeats). Links
# that leave the repository (http://, https://, or a path above its root) are errors too: the documents must work
# in a fresh clone. Links inside code (fenced blocks, `inline`) are not links and are skipped.
#
# Usage: scripts/check-links.sh [FILE.md...]   (no arguments: every Markdown file)
# Prints one line per broken link (file:line: target: why) and exits 1 if there was any.
set -euo pipefail

root=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
exec python3 - "$root" "$@" <<'PY'
import os, re, sys

root = sys.argv[1]
files = [os.path.abspath(f) for f in sys.argv[2:]]
if not files:
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in ('.git', 'node_modules', 'target')]
        files += [os.path.join(d, n) for n in names if n.endswith('.md')]

FENCE = re.compile(r'^\s*(```|~~~)')
LINK = re.compile(r'!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')


def prose_lines(path, keep_code=False):
    """(line number, text) of the lines outside fenced code; inline code blanked out unless keep_code."""
    fenced = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line if keep_code else re.sub(r'(`+)(?:(?!\1).)+\1', '', line)


def slug(heading):
    text = re.sub(r'`', '', heading.strip().lower())
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)          # a link in a heading counts by its text
    text = re.sub(r'[^\w\- ]', '', text)                           # punctuation out (letters, digits, _ and - stay)
    return text.replace(' ', '-')


anchors_of = {}


def anchors(path):
    if path not in anchors_of:
        seen, found = {}, set()
        for _, line in prose_lines(path, keep_code=True):
            m = re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)
            if m:
                s = slug(m.group(2))
                k = seen.get(s, 0)
                seen[s] = k + 1
                found.add(s if k == 0 else f'{s}-{k}')
        anchors_of[path] = found
    return anchors_of[path]


bad = 0
for path in sorted(files):
    rel = os.path.relpath(path, root)
    for n, line in prose_lines(path):
        for target in LINK.findall(line):
            why = None
            if re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I):
                why = 'leaves the repository'
            else:
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if os.path.relpath(dest, root).startswith('..'):
                    why = 'leaves the repository'
                elif not os.path.exists(dest):
                    why = 'no such file'
                elif anchor and not dest.endswith('.md'):
                    why = 'an anchor into a file that is not Markdown'
                elif anchor and anchor not in anchors(dest):
                    why = f'no heading for #{anchor} in {os.path.relpath(dest, root)}'
            if why:
                print(f'{rel}:{n}: {target or "(empty)"}: {why}')
                bad += 1
print(f'check-links: {len(files)} files, {bad} broken link(s)', file=sys.stderr)
sys.exit(1 if bad else 0)
PY
