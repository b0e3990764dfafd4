#!/usr/bin/env bash
# Checks the commit messages since the convention began (CONTRIBUTING.md):
# subject `area: imperative summary`, at most 72 characters, and a blank
# line between the subject and a body. Usage: scripts/check-commits.sh [RANGE]
# (default: every commit after c753a14, the last one before the rule).
set -euo pipefail
cd "$(dirname "$0")/.."
range="${1:-c753a14..HEAD}"
if ! git rev-parse --verify --quiet "${range%%..*}^{commit}" > /dev/null; then
  echo "check-commits: ${range%%..*} is not in this history (a shallow clone?): skipped"
  exit 0
fi
bad=0
for c in $(git rev-list --no-merges "$range"); do
  subject=$(git log -1 --format=%s "$c")
  second=$(git log -1 --format=%B "$c" | sed -n 2p)
  problem=""
  if ! [[ "$subject" =~ ^[a-z0-9][a-z0-9/-]*:\ [a-z\`] ]]; then
    problem="subject is not \`area: imperative summary\`"
  elif (( ${#subject} > 72 )); then
    problem="subject is ${#subject} characters, at most 72"
  elif [[ -n "$second" ]]; then
    problem="no blank line between the subject and the body"
  fi
  if [[ -n "$problem" ]]; then
    echo "commit ${c:0:7}: $problem: $subject"
    bad=1
  fi
done
exit $bad
