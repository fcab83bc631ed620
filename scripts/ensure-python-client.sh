#!/usr/bin/env bash
# Installs the official Kubernetes Python client (Debian package python3-kubernetes) for the system
# python3 when it cannot import it; the Python client test runs it with /usr/bin/python3.
set -euo pipefail
if /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "the Kubernetes Python client is not installed and this user cannot install it: run 'apt-get install python3-kubernetes' as root" >&2
    exit 1
  fi
fi
echo "installing the Kubernetes Python client (Debian package python3-kubernetes)..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-kubernetes >/dev/null
/usr/bin/python3 -c 'import kubernetes'
