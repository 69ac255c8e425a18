#!/usr/bin/env bash
# The servers and browser that tests start for real (Debian's packages): Prometheus, Alertmanager (with
# amtool; Debian names its binary prometheus-alertmanager) and Chromium; and zsh, which loads the
# completion script `kubemaint completion zsh` prints; what `npm run images` and its test run
# (mmdebstrap, readelf from binutils, qemu-user, skopeo, umoci, containerd with runc); and e2fsprogs
# (mke2fs -d and debugfs, the node disk tests; containerd's private daemon imports images into a node
# disk's tree, test/integration/real-node/preload.test.ts, and its service is never started); dpkg-deb,
# apt-ftparchive, gpg, curl and openssl (the test apt repository, test/integration/real-node/apt-repo.test.ts).
# Installs what is missing when it can (root with apt-get); otherwise says what to install and fails, so a test never silently skips
# a real peer.
#
# Other suites name their own needs: test-deps.sh LABEL BINARY=PACKAGE… (scripts/real-node/deps.sh).
set -euo pipefail
declare -A need=([prometheus]=prometheus [prometheus-alertmanager]=prometheus-alertmanager [amtool]=prometheus-alertmanager [chromium]=chromium [zsh]=zsh
  [mmdebstrap]=mmdebstrap [readelf]=binutils [qemu-aarch64-static]=qemu-user-static [qemu-x86_64-static]=qemu-user-static
  [skopeo]=skopeo [umoci]=umoci [containerd]=containerd [ctr]=containerd [runc]=runc
  [mke2fs]=e2fsprogs [debugfs]=e2fsprogs [e2label]=e2fsprogs
  [dpkg-deb]=dpkg [apt-ftparchive]=apt-utils [gpg]=gnupg [curl]=curl [openssl]=openssl)
label=test-deps
if [ $# -gt 0 ]; then
  label=$1
  shift
  need=()
  for pair in "$@"; do need[${pair%%=*}]=${pair#*=}; done
fi
missing=()
for bin in "${!need[@]}"; do
  command -v "$bin" >/dev/null 2>&1 || missing+=("${need[$bin]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "$label: installing Debian packages: $packages" >&2
  apt-get update -qq >/dev/null
  # Installed binaries only: the packages' own services are not started (policy-rc.d 101).
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null
  rm -f /usr/sbin/policy-rc.d
else
  echo "$label: missing $packages; install them (Debian: sudo apt-get install $packages) and run again" >&2
  exit 1
fi
