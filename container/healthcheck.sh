#!/usr/bin/env bash
# The image's HEALTHCHECK: GET /health on the admin endpoint must answer 200. bash's /dev/tcp, as the image has no
# curl. USHER_ADMIN (default 127.0.0.1:2019) names the admin address when the config moves it.
set -euo pipefail
admin=${USHER_ADMIN:-127.0.0.1:2019}
exec 3<>"/dev/tcp/${admin%:*}/${admin##*:}"
printf 'GET /health HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$admin" >&3
read -r -t 3 _ status _ <&3
[[ $status == 200 ]]
