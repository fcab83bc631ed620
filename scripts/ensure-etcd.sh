#!/usr/bin/env bash
# Installs etcd (Debian package etcd-server) when it is not on the PATH.
set -euo pipefail
if command -v etcd >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "etcd is not installed and this user cannot install it: run 'apt-get install etcd-server' as root" >&2
    exit 1
  fi
fi
echo "installing etcd (Debian package etcd-server)..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq etcd-server >/dev/null
command -v etcd >/dev/null
