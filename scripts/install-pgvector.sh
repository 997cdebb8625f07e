#!/usr/bin/env bash
# pgvector for the semantic-recall tests: Debian bookworm packages no pgvector for PostgreSQL 15, so
# this builds the source of Debian trixie's `pgvector` package against the local server and installs
# it. Safe to run every time: it returns at once when the extension is already there.
#
#   scripts/install-pgvector.sh    (root; about 30 s when it builds)
#
# PG_CONFIG       the server's pg_config (default: PostgreSQL 15's)
# PGVECTOR_DEST   install below this folder instead of into the server (DESTDIR), to try the build
# PGVECTOR_WORK   where the source is fetched and built (default: /tmp/agent-memory-pgvector)
set -euo pipefail

pg_config=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
dest=${PGVECTOR_DEST:-}
work=${PGVECTOR_WORK:-/tmp/agent-memory-pgvector}
control="$dest$("$pg_config" --sharedir)/extension/vector.control"

if [ -f "$control" ]; then
  echo "pgvector: already installed ($control)"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "pgvector: not installed, and building it needs root (apt-get, make install)" >&2
  exit 1
fi

# The compiler and the server's headers, from the machine's own package sources.
export DEBIAN_FRONTEND=noninteractive
if ! dpkg -s postgresql-server-dev-15 make gcc >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql-server-dev-15 make gcc
fi

# The source comes from trixie through an apt state of our own, so the machine's sources.list and
# package lists stay as they were.
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/build"
echo "deb-src $mirror trixie main" >"$work/sources.list"
apt_own_state=(
  -o "Dir::Etc::SourceList=$work/sources.list"
  -o "Dir::Etc::SourceParts=-"
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache"
  -o "APT::Sandbox::User=root" # (the work folder is root's; apt's own user could not write it)
)
apt-get "${apt_own_state[@]}" update -qq
cd "$work/build"
rm -rf ./*
apt-get "${apt_own_state[@]}" source --download-only pgvector >/dev/null
tar -xzf pgvector_*.orig.tar.gz
cd pgvector-*/

make -j"$(nproc)" PG_CONFIG="$pg_config" OPTFLAGS="" >/dev/null
make install PG_CONFIG="$pg_config" DESTDIR="$dest" >/dev/null
echo "pgvector: installed ($control)"
