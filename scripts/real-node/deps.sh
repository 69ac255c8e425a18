#!/usr/bin/env bash
# What real VM nodes need from the machine (Debian's packages): QEMU's x86 system emulator (TCG; KVM
# does not run guests here), socat (the apiserver forward into each VM), mmdebstrap (the node's root
# file system), e2fsprogs (mke2fs -d: disk images without loop mounts), ssh, and openssl for the node
# certificates. Installs what is missing when it can (root with apt-get); otherwise says what to install
# and fails, so the node tests never silently skip. npm run test:node runs it first.
set -euo pipefail
declare -A need=([qemu-system-x86_64]=qemu-system-x86 [socat]=socat [mmdebstrap]=mmdebstrap [mke2fs]=e2fsprogs [ssh]=openssh-client [ssh-keygen]=openssh-client [openssl]=openssl [tar]=tar)
missing=()
for bin in "${!need[@]}"; do
  command -v "$bin" >/dev/null 2>&1 || missing+=("${need[$bin]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "real-node deps: installing Debian packages: $packages" >&2
  apt-get update -qq >/dev/null
  # shellcheck disable=SC2086 # one word per package
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null
else
  echo "real-node deps: missing $packages; install them (Debian: sudo apt-get install $packages) and run again" >&2
  exit 1
fi
