#!/usr/bin/env bash
# Base images for the Dockerfile made from Debian's own packages, for a machine that reaches
# Debian's archive but no image registry (docs/deploy.md):
#
#     deploy/debian-base.sh            # kozel-build:bookworm and kozel-base:bookworm
#     docker build --network host --build-arg BUILD_IMAGE=kozel-build:bookworm \
#         --build-arg RUNTIME_IMAGE=kozel-base:bookworm -t kozel-bot:local .
#
# kozel-base: debootstrap's minbase of bookworm with python3 (Debian 12's 3.11.2), without
# apt's caches and lists, documentation, man pages and message catalogs (as Docker's slim
# images do). kozel-build: the same with python3-venv, python3-dev, gcc and binutils (mypyc
# compiles the search's playout path in the build stage), and ca-certificates with this
# machine's own bundle (CA_BUNDLE, default /etc/ssl/certs/ca-certificates.crt: where a proxy
# that inspects TLS adds its CA) that pip is pointed at (PIP_CERT): the build stage fetches the
# locked packages. Both have /usr/bin/python3: the runtime's venv points there.
#
# Needs root, debootstrap and a Docker engine. MIRROR defaults to the first Debian mirror in
# apt's sources on this machine (else deb.debian.org); SUITE to bookworm; WORK to a temporary
# folder, removed at the end; IMAGES to make only one of the two.
set -euo pipefail

SUITE="${SUITE:-bookworm}"
if [ -z "${MIRROR:-}" ]; then
  MIRROR=$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d 2>/dev/null \
    | head -n1 | tr -d ' ' || true)
  MIRROR="${MIRROR:-http://deb.debian.org/debian}"
fi
CA_BUNDLE="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
WORK="${WORK:-$(mktemp -d /tmp/kozel-rootfs.XXXXXX)}"
trap 'rm -rf "$WORK"' EXIT

slim() {  # what a container never reads
  local root="$1"
  rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/var/cache/debconf/*-old \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
    "$root"/usr/share/locale/* "$root"/var/log/* "$root"/tmp/*
}

image() {  # image NAME PACKAGES [docker import -c CHANGE]
  local name="$1" packages="$2" root="$WORK/$1" change=(-c 'CMD ["/bin/bash"]')
  [ -n "${3:-}" ] && change+=(-c "$3")
  echo "debootstrap $SUITE ($packages) from $MIRROR -> $name:$SUITE"
  debootstrap --variant=minbase --include="$packages" "$SUITE" "$root" "$MIRROR" > "$WORK/$name.log" 2>&1 \
    || { tail -n 20 "$WORK/$name.log"; exit 1; }
  slim "$root"
  if [ "$name" = kozel-build ] && [ -f "$CA_BUNDLE" ]; then
    cp "$CA_BUNDLE" "$root/etc/ssl/certs/ca-certificates.crt"
  fi
  tar -C "$root" -c . | docker import "${change[@]}" - "$name:$SUITE" > /dev/null
  docker image inspect -f "{{.RepoTags}} {{.Size}} bytes" "$name:$SUITE"
}

IMAGES="${IMAGES:-kozel-base kozel-build}"  # or one of them
case " $IMAGES " in *" kozel-base "*) image kozel-base python3 ;; esac
case " $IMAGES " in *" kozel-build "*) image kozel-build python3,python3-venv,python3-dev,gcc,binutils,ca-certificates \
  "ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt" ;; esac
