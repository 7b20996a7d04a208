#!/usr/bin/env bash
# Publishes every public package with pnpm, which rewrites `workspace:` ranges to the versions
# being published (npm publish would ship `workspace:^` and the install would fail for users).
#
#   scripts/release.sh [--dry-run] [--skip-build] [--allow-dirty]
#
# Before: run `pnpm changeset version`, review and commit the bumped versions and changelogs
# (this script never versions). It refuses a dirty working tree, builds, packs and checks every
# tarball with scripts/pack.mjs (LICENSE, README, repository, engines, no `workspace:` left, size
# budgets) and refuses when a check fails, then runs `pnpm -r publish --access public`.
#   --dry-run      everything but the upload (`pnpm publish --dry-run`): what CI runs
#   --skip-build   the packages were just built (CI's build step)
#   --allow-dirty  only with --dry-run: try a release from a working tree with uncommitted edits
set -euo pipefail
cd "$(dirname "$0")/.."

dry_run=0 skip_build=0 allow_dirty=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --skip-build) skip_build=1 ;;
    --allow-dirty) allow_dirty=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "[vmhub] [release] unknown option $arg (see scripts/release.sh --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "[vmhub] [release] $1" >&2; exit 1; }
[ "$allow_dirty" = 1 ] && [ "$dry_run" = 0 ] && fail "--allow-dirty is for dry runs only: commit or remove the changes before publishing"

# shellcheck source=scripts/env.sh
source scripts/env.sh

dirty=$(git status --porcelain)
if [ -n "$dirty" ]; then
  if [ "$allow_dirty" = 1 ]; then
    echo "[vmhub] [release] working tree has uncommitted changes (allowed for this dry run):" >&2
    echo "$dirty" | head -n 20 >&2
  else
    echo "$dirty" | head -n 20 >&2
    fail "the working tree has uncommitted changes: commit or remove them (a release publishes exactly a commit)"
  fi
fi

# Pending changesets mean the versions were not bumped: publishing would re-publish old versions.
pending=$(find .changeset -maxdepth 1 -name '*.md' ! -name 'README.md' | wc -l)
if [ "$pending" -gt 0 ]; then
  msg="$pending pending changeset(s) in .changeset/: run \`pnpm changeset version\`, review and commit, then release"
  if [ "$dry_run" = 1 ]; then echo "[vmhub] [release] note: $msg" >&2; else fail "$msg"; fi
fi

if [ "$skip_build" = 0 ]; then
  echo "[vmhub] [release] building" >&2
  pnpm run build >&2
fi

packs=$(mktemp -d "${TMPDIR:-/tmp}/vmhub-release-XXXXXX")
trap 'rm -rf "$packs"' EXIT
echo "[vmhub] [release] packing and checking every tarball (scripts/pack.mjs)" >&2
node scripts/pack.mjs --out "$packs" || fail "the tarball checks failed (list above): fix them, then release"

publish=(pnpm -r publish --access public)
if [ "$dry_run" = 1 ]; then
  publish+=(--dry-run)
  # pnpm's own git checks (clean tree, release branch) are this script's job in a dry run.
  [ "$allow_dirty" = 1 ] && publish+=(--no-git-checks)
fi
echo "[vmhub] [release] ${publish[*]}" >&2
"${publish[@]}"
