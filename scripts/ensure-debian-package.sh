#!/usr/bin/env bash
# Usage: ensure-debian-package.sh PACKAGE CHECK [ARG...]
# Runs CHECK; when it fails, installs the Debian package PACKAGE with apt-get (as root, or through
# sudo) and runs CHECK again. `make test` and `make run` use it for etcd (etcd-server), `make test`
# for the Kubernetes Python client (python3-kubernetes).
set -euo pipefail
package="$1"
shift
if "$@" >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "$package is not installed and this user cannot install it: run 'apt-get install $package' as root" >&2
    exit 1
  fi
fi
echo "installing the Debian package $package..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$package" >/dev/null
"$@" >/dev/null
