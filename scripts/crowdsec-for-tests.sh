#!/usr/bin/env bash
#
# scripts/crowdsec-for-tests.sh — makes a CrowdSec local API runnable for the tests, without installing it:
# Debian's crowdsec package is downloaded (apt-get download, no root needed) and unpacked (dpkg-deb -x) into
# ${USHER_CROWDSEC_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/usher-tests/crowdsec}, once; prints that folder.
#
# Why not apt-get install: the package's post-install registers with CrowdSec's central API on the internet and, on a
# machine without it, leaves dpkg with a half-configured package that breaks every later apt-get install. The tests
# run ROOT/usr/bin/crowdsec -no-cs (the local API only) on a configuration of their own (dev.usher.testing.CrowdSec).
set -euo pipefail

dest=${USHER_CROWDSEC_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/usher-tests/crowdsec}
if [[ -x $dest/usr/bin/crowdsec && -x $dest/usr/bin/cscli && -f $dest/etc/crowdsec/profiles.yaml ]]; then
    printf '%s\n' "$dest"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "crowdsec-for-tests: needs apt-get and dpkg-deb (Debian) to fetch the crowdsec package" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
cd -- "$work"
if ! apt-get download crowdsec >/dev/null 2>&1; then
    # A fresh machine may have no package lists yet.
    as_root=()
    if ((EUID != 0)) && command -v sudo >/dev/null 2>&1; then as_root=(sudo -n); fi
    "${as_root[@]}" apt-get update -q >/dev/null </dev/null || true
    if ! apt-get download crowdsec >&2; then
        echo "crowdsec-for-tests: apt-get download crowdsec failed (is a Debian mirror reachable?)" >&2
        exit 1
    fi
fi
mkdir -p -- "$work/root"
dpkg-deb -x crowdsec_*.deb "$work/root"
mkdir -p -- "$(dirname -- "$dest")"
rm -rf -- "$dest.partial"
mv -- "$work/root" "$dest.partial"
rm -rf -- "$dest"
mv -- "$dest.partial" "$dest"
printf '%s\n' "$dest"
